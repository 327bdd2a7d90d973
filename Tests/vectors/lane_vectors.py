#!/usr/bin/env python3
"""The bulk lane's vectors (issue 44; docs/protocol.md §12), computed
apart from peerd with Python's hmac, hashlib and `cryptography`, from the
Noise specification (revision 34) alone: the lane's key from a session's
final chaining key, and a whole Noise_NNpsk0_25519_ChaChaPoly_SHA256
handshake under it with fixed ephemeral keys. LaneVectorTests pins the same
bytes from peerd's Noise code. Run: python3 Tests/vectors/lane_vectors.py
"""
import hashlib, hmac, struct
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives import serialization

def h(data): return hashlib.sha256(data).digest()
def mac(key, data): return hmac.new(key, data, hashlib.sha256).digest()
def hkdf(ck, ikm, n):
    temp = mac(ck, ikm)
    out, prev = [], b""
    for i in range(1, n + 1):
        prev = mac(temp, prev + bytes([i]))
        out.append(prev)
    return out
def pub(secret):
    return X25519PrivateKey.from_private_bytes(secret).public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw)
def dh(secret, public):
    return X25519PrivateKey.from_private_bytes(secret).exchange(X25519PublicKey.from_public_bytes(public))

class Symmetric:
    def __init__(self, name):
        self.h = name.ljust(32, b"\0") if len(name) <= 32 else h(name)
        self.ck, self.k, self.n = self.h, None, 0
    def mix_hash(self, data): self.h = h(self.h + data)
    def mix_key(self, ikm):
        self.ck, k = hkdf(self.ck, ikm, 2); self.k, self.n = k, 0
    def mix_key_and_hash(self, ikm):
        self.ck, temp_h, k = hkdf(self.ck, ikm, 3); self.mix_hash(temp_h); self.k, self.n = k, 0
    def encrypt_and_hash(self, plaintext):
        nonce = b"\0" * 4 + struct.pack("<Q", self.n)
        out = ChaCha20Poly1305(self.k).encrypt(nonce, plaintext, self.h) if self.k else plaintext
        if self.k: self.n += 1
        self.mix_hash(out)
        return out

LABEL = b"peerd bulk lane v1"
ck = bytes(range(32))
lane_key = hkdf(ck, LABEL, 1)[0]
print("lane key (ck = 00 01 .. 1f):", lane_key.hex())

prologue = b"peerd-lane/1" + bytes(range(0xa0, 0xb0))
e_i, e_r = bytes(range(0x20, 0x40)), bytes(range(0x40, 0x60))
name = b"Noise_NNpsk0_25519_ChaChaPoly_SHA256"
ini, res = Symmetric(name), Symmetric(name)
for s in (ini, res): s.mix_hash(prologue)
# -> psk, e
for s in (ini, res): s.mix_key_and_hash(lane_key)
for s in (ini, res): s.mix_hash(pub(e_i)); s.mix_key(pub(e_i))
msg1 = pub(e_i) + ini.encrypt_and_hash(b"")
res.encrypt_and_hash(b"")  # the responder's decrypt leaves the same state
# <- e, ee
for s in (ini, res): s.mix_hash(pub(e_r)); s.mix_key(pub(e_r))
for s in (ini, res): s.mix_key(dh(e_i, pub(e_r)))
msg2 = pub(e_r) + res.encrypt_and_hash(b"")
k1, k2 = hkdf(res.ck, b"", 2)
print("prologue:", prologue.hex())
print("message 1:", msg1.hex())
print("message 2:", msg2.hex())
print("handshake hash:", res.h.hex())
print("initiator to responder key:", k1.hex())
print("responder to initiator key:", k2.hex())

# docs/protocol.md §12's worked example: the lane port 8010 in laneOffer,
# the greeting and second frames, and a first lane frame carrying
# streamData for flow 10 11 .. 1f with "hi", sealed under k1, nonce 0.
frame = lambda body: len(body).to_bytes(2, "big") + body
token = bytes(range(0xa0, 0xb0))
print("laneOffer plaintext:", (b"\x01\x33" + (8010).to_bytes(2, "big") + token).hex())
print("greeting frame:", frame(b"peerdln1" + token + msg1).hex())
print("second frame:", frame(msg2).hex())
data = b"\x01\x19" + bytes(range(0x10, 0x20)) + b"hi"
print("streamData plaintext:", data.hex())
sealed = ChaCha20Poly1305(k1).encrypt(b"\x00" * 4 + (0).to_bytes(8, "little"), data, b"")
print("first lane frame:", frame(sealed).hex())
