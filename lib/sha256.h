/*
 * SHA-256 (FIPS 180-4), small and self-contained: the hash behind the test setup's
 * documented toxic-waste derivation (groth16_toxic_from_seed). Not constant-time-audited;
 * nothing secret in production goes through it.
 */
#ifndef CUZK_SHA256_H
#define CUZK_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sha256_ctx {
    uint32_t h[8];
    uint64_t len;       /* bytes hashed so far */
    uint8_t buf[64];
    size_t fill;        /* bytes waiting in buf */
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *data, size_t n);
void sha256_final(sha256_ctx *c, uint8_t out[32]);
/* One call: out = SHA-256(data[0..n)). */
void sha256(uint8_t out[32], const void *data, size_t n);

#endif
