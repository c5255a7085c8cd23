/* digest.c — SHA-256 through nettle, written out as hex (see digest.h). */
#include "core/digest.h"

void digest_hex(const uint8_t *bytes, size_t n, char *out)
{
    static const char hexdig[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hexdig[bytes[i] >> 4];
        out[2 * i + 1] = hexdig[bytes[i] & 15];
    }
    out[2 * n] = '\0';
}

void digest_sha256_finish(struct sha256_ctx *ctx, char hex[DIGEST_HEX_LEN + 1])
{
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_digest(ctx, sizeof d, d);
    digest_hex(d, sizeof d, hex);
}

void digest_sha256_hex(const void *data, size_t len, char hex[DIGEST_HEX_LEN + 1])
{
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    sha256_update(&ctx, len, data);
    digest_sha256_finish(&ctx, hex);
}
