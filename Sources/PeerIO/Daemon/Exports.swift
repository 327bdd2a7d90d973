// The plain-syscall layer (descriptors, typed syscalls and errors, the
// control client) is its own target, so `peerctl` links neither libavahi
// nor libsodium; everything built on it here sees it as part of PeerIO.
@_exported import PeerSystem
// Noise, the ciphers and the hashes are a target of their own (the fuzz
// harnesses build them without the rest); the I/O layer and its users
// see them as part of PeerIO.
@_exported import PeerCrypto
