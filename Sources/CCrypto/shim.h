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
//
// libcrypto is opened at the first large frame (dlopen), not linked:
// loading it costs about 400 KB of private memory (its relocations), and
// a daemon that never moves bulk data should not pay that (peerd idles at
// 1.5 MB). Without it, every frame goes through libsodium (the same bytes).
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <openssl/evp.h>   // types and constants only

/// The libcrypto calls the helpers use, found at first use.
struct peerd_crypto_calls {
    EVP_CIPHER_CTX *(*ctx_new)(void);
    void (*ctx_free)(EVP_CIPHER_CTX *);
    int (*cipher_init)(EVP_CIPHER_CTX *, const EVP_CIPHER *, ENGINE *, const unsigned char *, const unsigned char *, int);
    int (*cipher_update)(EVP_CIPHER_CTX *, unsigned char *, int *, const unsigned char *, int);
    int (*cipher_final)(EVP_CIPHER_CTX *, unsigned char *, int *);
    int (*ctx_ctrl)(EVP_CIPHER_CTX *, int, int, void *);
    const EVP_CIPHER *(*chacha20_poly1305)(void);
};

/// The calls once found, and whether all were (the state lives in a
/// function: Swift's importer emits an inline function's statics, not a
/// header's).
struct peerd_crypto_state {
    struct peerd_crypto_calls calls;
    int loaded;
};

static inline struct peerd_crypto_state *peerd_crypto_state(void) {
    static struct peerd_crypto_state state;
    return &state;
}

static inline void peerd_crypto_load(void) {
    struct peerd_crypto_state *state = peerd_crypto_state();
    struct peerd_crypto_calls *found = &state->calls;
    void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return;
    found->ctx_new = (EVP_CIPHER_CTX *(*)(void))dlsym(library, "EVP_CIPHER_CTX_new");
    found->ctx_free = (void (*)(EVP_CIPHER_CTX *))dlsym(library, "EVP_CIPHER_CTX_free");
    found->cipher_init = (int (*)(EVP_CIPHER_CTX *, const EVP_CIPHER *, ENGINE *, const unsigned char *, const unsigned char *, int))
        dlsym(library, "EVP_CipherInit_ex");
    found->cipher_update = (int (*)(EVP_CIPHER_CTX *, unsigned char *, int *, const unsigned char *, int))dlsym(library, "EVP_CipherUpdate");
    found->cipher_final = (int (*)(EVP_CIPHER_CTX *, unsigned char *, int *))dlsym(library, "EVP_CipherFinal_ex");
    found->ctx_ctrl = (int (*)(EVP_CIPHER_CTX *, int, int, void *))dlsym(library, "EVP_CIPHER_CTX_ctrl");
    found->chacha20_poly1305 = (const EVP_CIPHER *(*)(void))dlsym(library, "EVP_chacha20_poly1305");
    state->loaded = found->ctx_new && found->ctx_free && found->cipher_init && found->cipher_update
        && found->cipher_final && found->ctx_ctrl && found->chacha20_poly1305;
}

/// libcrypto's calls, opened once; NULL when it cannot be opened.
static inline const struct peerd_crypto_calls *peerd_crypto(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, peerd_crypto_load);
    return peerd_crypto_state()->loaded ? &peerd_crypto_state()->calls : NULL;
}

/// A context for one direction under a 32-byte key; NULL when OpenSSL
/// cannot make one. `encrypt` is 1 to seal, 0 to open. Free it with
/// peerd_aead_free, which wipes the key schedule.
static inline EVP_CIPHER_CTX *peerd_aead_new(const uint8_t *key, int encrypt) {
    const struct peerd_crypto_calls *c = peerd_crypto();
    if (c == NULL) return NULL;
    EVP_CIPHER_CTX *ctx = c->ctx_new();
    if (ctx == NULL) return NULL;
    if (c->cipher_init(ctx, c->chacha20_poly1305(), NULL, key, NULL, encrypt) != 1) {
        c->ctx_free(ctx);
        return NULL;
    }
    return ctx;
}

/// Frees a context (made by peerd_aead_new, so libcrypto is open);
/// OpenSSL cleanses its key material first.
static inline void peerd_aead_free(EVP_CIPHER_CTX *ctx) {
    peerd_crypto()->ctx_free(ctx);
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
    const struct peerd_crypto_calls *c = &peerd_crypto_state()->calls;   // open: the context exists
    peerd_aead_nonce(counter, nonce);
    if (c->cipher_init(ctx, NULL, NULL, NULL, nonce, 1) != 1) return 0;
    if (count > 0 && c->cipher_update(ctx, buffer, &written, buffer, count) != 1) return 0;
    if (c->cipher_final(ctx, buffer + written, &last) != 1) return 0;
    return c->ctx_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, buffer + count) == 1;
}

/// Checks the tag in the last 16 of `count` bytes at `buffer` and opens
/// the bytes before it where they are. 1 when the tag verifies; on 0 the
/// bytes are not to be used (the caller drops the frame and the session).
static inline int peerd_aead_open(EVP_CIPHER_CTX *ctx, uint64_t counter, uint8_t *buffer, int count) {
    uint8_t nonce[12];
    int written = 0, last = 0;
    const struct peerd_crypto_calls *c = &peerd_crypto_state()->calls;   // open: the context exists
    if (count < 16) return 0;
    peerd_aead_nonce(counter, nonce);
    if (c->cipher_init(ctx, NULL, NULL, NULL, nonce, 0) != 1) return 0;
    if (c->ctx_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, buffer + count - 16) != 1) return 0;
    if (count > 16 && c->cipher_update(ctx, buffer, &written, buffer, count - 16) != 1) return 0;
    return c->cipher_final(ctx, buffer + written, &last) == 1;
}
#endif
