#ifndef PEERD_CCRYPTO_SHIM_H
#define PEERD_CCRYPTO_SHIM_H
// OpenSSL's libcrypto for the session's ChaCha20-Poly1305 (IETF): on CPUs
// with AVX-512 its code seals a 64 KiB frame 1.4x as fast as libsodium's
// (docs/performance.md, "The primitives"). The bytes are the same: the
// cipher is RFC 8439's, whoever computes it.
//
// Each helper is one call from Swift per frame: the context holds the key
// schedule (set once), and a frame sets only its nonce. The nonce is
// Noise's: 32 zero bits, then the 64-bit counter little-endian.
#include <stdint.h>
#include <string.h>
#include <openssl/evp.h>
#include <openssl/crypto.h>

/// A context for one direction under a 32-byte key; NULL when OpenSSL
/// cannot make one. `encrypt` is 1 to seal, 0 to open. Free it with
/// peerd_aead_free, which wipes the key schedule.
static inline EVP_CIPHER_CTX *peerd_aead_new(const uint8_t *key, int encrypt) {
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (ctx == NULL) return NULL;
    if (EVP_CipherInit_ex(ctx, EVP_chacha20_poly1305(), NULL, key, NULL, encrypt) != 1) {
        EVP_CIPHER_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/// Frees a context; OpenSSL cleanses its key material first.
static inline void peerd_aead_free(EVP_CIPHER_CTX *ctx) {
    EVP_CIPHER_CTX_free(ctx);
}

static inline void peerd_aead_nonce(uint64_t counter, uint8_t out[12]) {
    memset(out, 0, 4);
    for (int i = 0; i < 8; i++) out[4 + i] = (uint8_t)(counter >> (8 * i));
}

/// Seals the `count` bytes at `buffer` where they are (no associated
/// data) and writes the 16-byte tag after them. 1 on success.
static inline int peerd_aead_seal(EVP_CIPHER_CTX *ctx, uint64_t counter, uint8_t *buffer, int count) {
    uint8_t nonce[12];
    int written = 0, last = 0;
    peerd_aead_nonce(counter, nonce);
    if (EVP_CipherInit_ex(ctx, NULL, NULL, NULL, nonce, 1) != 1) return 0;
    if (count > 0 && EVP_CipherUpdate(ctx, buffer, &written, buffer, count) != 1) return 0;
    if (EVP_CipherFinal_ex(ctx, buffer + written, &last) != 1) return 0;
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, buffer + count) == 1;
}

/// Checks the tag in the last 16 of `count` bytes at `buffer` and opens
/// the bytes before it where they are. 1 when the tag verifies; on 0 the
/// bytes are not to be used (the caller drops the frame and the session).
static inline int peerd_aead_open(EVP_CIPHER_CTX *ctx, uint64_t counter, uint8_t *buffer, int count) {
    uint8_t nonce[12];
    int written = 0, last = 0;
    if (count < 16) return 0;
    peerd_aead_nonce(counter, nonce);
    if (EVP_CipherInit_ex(ctx, NULL, NULL, NULL, nonce, 0) != 1) return 0;
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, buffer + count - 16) != 1) return 0;
    if (count > 16 && EVP_CipherUpdate(ctx, buffer, &written, buffer, count - 16) != 1) return 0;
    return EVP_CipherFinal_ex(ctx, buffer + written, &last) == 1;
}
#endif
