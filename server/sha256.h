/* sha256.h — SHA-256 (FIPS 180-4), incremental, for model upload checksums and for
 * storing only the hash of API tokens. */
#ifndef FDWD_SHA256_H
#define FDWD_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sha256_ctx {
    uint32_t h[8];
    uint64_t total;        /* bytes hashed so far */
    uint8_t block[64];
    size_t fill;           /* bytes waiting in block */
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *data, size_t len);
void sha256_final(sha256_ctx *c, uint8_t digest[32]);
/* One-shot hash as 64 lowercase hex characters plus NUL. */
void sha256_hex(const void *data, size_t len, char hex[65]);
void sha256_to_hex(const uint8_t digest[32], char hex[65]);

#endif
