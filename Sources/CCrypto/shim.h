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
//
// This header keeps no state of its own: Swift compiles its inline
// functions into each object that uses them, so a static here would be a
// different variable in each (one object saw the calls, another saw
// zeros, and the optimizer turned a call through them into an endless
// loop). The calls live in one struct Swift owns (AEADContext.calls).
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include <openssl/evp.h>   // types and constants only

/// The libcrypto calls the helpers use, found once by peerd_crypto_open.
struct peerd_crypto_calls {
    EVP_CIPHER_CTX *(*ctx_new)(void);
    void (*ctx_free)(EVP_CIPHER_CTX *);
    int (*cipher_init)(EVP_CIPHER_CTX *, const EVP_CIPHER *, ENGINE *, const unsigned char *, const unsigned char *, int);
    int (*cipher_update)(EVP_CIPHER_CTX *, unsigned char *, int *, const unsigned char *, int);
    int (*cipher_final)(EVP_CIPHER_CTX *, unsigned char *, int *);
    int (*ctx_ctrl)(EVP_CIPHER_CTX *, int, int, void *);
    const EVP_CIPHER *(*chacha20_poly1305)(void);
};

/// Opens libcrypto and fills `calls`; 1 when every call was found.
static inline int peerd_crypto_open(struct peerd_crypto_calls *calls) {
    memset(calls, 0, sizeof *calls);
    void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return 0;
    calls->ctx_new = (EVP_CIPHER_CTX *(*)(void))dlsym(library, "EVP_CIPHER_CTX_new");
    calls->ctx_free = (void (*)(EVP_CIPHER_CTX *))dlsym(library, "EVP_CIPHER_CTX_free");
    calls->cipher_init = (int (*)(EVP_CIPHER_CTX *, const EVP_CIPHER *, ENGINE *, const unsigned char *, const unsigned char *, int))
        dlsym(library, "EVP_CipherInit_ex");
    calls->cipher_update = (int (*)(EVP_CIPHER_CTX *, unsigned char *, int *, const unsigned char *, int))dlsym(library, "EVP_CipherUpdate");
    calls->cipher_final = (int (*)(EVP_CIPHER_CTX *, unsigned char *, int *))dlsym(library, "EVP_CipherFinal_ex");
    calls->ctx_ctrl = (int (*)(EVP_CIPHER_CTX *, int, int, void *))dlsym(library, "EVP_CIPHER_CTX_ctrl");
    calls->chacha20_poly1305 = (const EVP_CIPHER *(*)(void))dlsym(library, "EVP_chacha20_poly1305");
    return calls->ctx_new && calls->ctx_free && calls->cipher_init && calls->cipher_update
        && calls->cipher_final && calls->ctx_ctrl && calls->chacha20_poly1305;
}

/// A context for one direction under a 32-byte key; NULL when OpenSSL
/// cannot make one. `encrypt` is 1 to seal, 0 to open. Free it with
/// peerd_aead_free, which wipes the key schedule.
static inline EVP_CIPHER_CTX *peerd_aead_new(const struct peerd_crypto_calls *c, const uint8_t *key, int encrypt) {
    EVP_CIPHER_CTX *ctx = c->ctx_new();
    if (ctx == NULL) return NULL;
    if (c->cipher_init(ctx, c->chacha20_poly1305(), NULL, key, NULL, encrypt) != 1) {
        c->ctx_free(ctx);
        return NULL;
    }
    return ctx;
}

/// Frees a context; OpenSSL cleanses its key material first.
static inline void peerd_aead_free(const struct peerd_crypto_calls *c, EVP_CIPHER_CTX *ctx) {
    c->ctx_free(ctx);
}

static inline void peerd_aead_nonce(uint64_t counter, uint8_t out[12]) {
    memset(out, 0, 4);
    for (int i = 0; i < 8; i++) out[4 + i] = (uint8_t)(counter >> (8 * i));
}

/// Seals the `count` bytes at `buffer` where they are (no associated
/// data) and writes the 16-byte tag after them. 1 on success.
static inline int peerd_aead_seal(const struct peerd_crypto_calls *c, EVP_CIPHER_CTX *ctx, uint64_t counter, uint8_t *buffer, int count) {
    uint8_t nonce[12];
    int written = 0, last = 0;
    peerd_aead_nonce(counter, nonce);
    if (c->cipher_init(ctx, NULL, NULL, NULL, nonce, 1) != 1) return 0;
    if (count > 0 && c->cipher_update(ctx, buffer, &written, buffer, count) != 1) return 0;
    if (c->cipher_final(ctx, buffer + written, &last) != 1) return 0;
    return c->ctx_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, buffer + count) == 1;
}

/// Checks the tag in the last 16 of `count` bytes at `buffer` and opens
/// the bytes before it where they are. 1 when the tag verifies; on 0 the
/// bytes are not to be used (the caller drops the frame and the session).
static inline int peerd_aead_open(const struct peerd_crypto_calls *c, EVP_CIPHER_CTX *ctx, uint64_t counter, uint8_t *buffer, int count) {
    uint8_t nonce[12];
    int written = 0, last = 0;
    if (count < 16) return 0;
    peerd_aead_nonce(counter, nonce);
    if (c->cipher_init(ctx, NULL, NULL, NULL, nonce, 0) != 1) return 0;
    if (c->ctx_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, buffer + count - 16) != 1) return 0;
    if (count > 16 && c->cipher_update(ctx, buffer, &written, buffer, count - 16) != 1) return 0;
    return c->cipher_final(ctx, buffer + written, &last) == 1;
}

// SHA-256 for block hashes (feature `sha256-blocks`, issue 44): libcrypto's
// code uses the CPU's SHA instructions (1.5-1.8 GB/s a core here, against
// 0.85-1.0 for libsodium's BLAKE2b). Opened the same way as the cipher,
// at the first use; the calls live in a struct Swift owns (Sha256.calls).
struct peerd_digest_calls {
    EVP_MD_CTX *(*ctx_new)(void);
    void (*ctx_free)(EVP_MD_CTX *);
    int (*init)(EVP_MD_CTX *, const EVP_MD *, ENGINE *);
    int (*update)(EVP_MD_CTX *, const void *, size_t);
    int (*final)(EVP_MD_CTX *, unsigned char *, unsigned int *);
    const EVP_MD *(*sha256)(void);
};

/// Opens libcrypto and fills `calls`; 1 when every call was found.
static inline int peerd_digest_open(struct peerd_digest_calls *calls) {
    memset(calls, 0, sizeof *calls);
    void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return 0;
    calls->ctx_new = (EVP_MD_CTX *(*)(void))dlsym(library, "EVP_MD_CTX_new");
    calls->ctx_free = (void (*)(EVP_MD_CTX *))dlsym(library, "EVP_MD_CTX_free");
    calls->init = (int (*)(EVP_MD_CTX *, const EVP_MD *, ENGINE *))dlsym(library, "EVP_DigestInit_ex");
    calls->update = (int (*)(EVP_MD_CTX *, const void *, size_t))dlsym(library, "EVP_DigestUpdate");
    calls->final = (int (*)(EVP_MD_CTX *, unsigned char *, unsigned int *))dlsym(library, "EVP_DigestFinal_ex");
    calls->sha256 = (const EVP_MD *(*)(void))dlsym(library, "EVP_sha256");
    return calls->ctx_new && calls->ctx_free && calls->init && calls->update && calls->final && calls->sha256;
}

/// Whether this CPU has SHA-256 instructions (x86: SHA extensions, CPUID
/// leaf 7 EBX bit 29; arm64: the SHA2 hardware capability). Without them
/// SHA-256 is slower than BLAKE2b, so a daemon announces `sha256-blocks`
/// only with them.
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
static inline int peerd_cpu_has_sha256(void) {
    unsigned int a, b, c, d;
    if (__get_cpuid_max(0, NULL) < 7) return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (b >> 29) & 1;
}
#elif defined(__aarch64__)
#include <sys/auxv.h>
static inline int peerd_cpu_has_sha256(void) {
    return (getauxval(AT_HWCAP) & (1UL << 6)) != 0;   // HWCAP_SHA2
}
#else
static inline int peerd_cpu_has_sha256(void) { return 0; }
#endif
#endif
