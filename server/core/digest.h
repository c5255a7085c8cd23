/* digest.h — SHA-256 digests as lowercase hex text, through nettle: what the database
 * keeps of an API token, and a model file's checksum. Standard SHA-256 (FIPS 180-4), so
 * the hashes stored by earlier versions stay valid. */
#ifndef FDWD_DIGEST_H
#define FDWD_DIGEST_H

#include <nettle/sha2.h>
#include <stddef.h>
#include <stdint.h>

#define DIGEST_HEX_LEN 64 /* SHA-256 as hex, without the NUL */

/* bytes[0..n) as 2n lowercase hex digits plus NUL into out (2n + 1 bytes). */
void digest_hex(const uint8_t *bytes, size_t n, char *out);

/* The SHA-256 of data[0..len) as hex. */
void digest_sha256_hex(const void *data, size_t len, char hex[DIGEST_HEX_LEN + 1]);

/* Finish an incremental nettle SHA-256 (sha256_init / sha256_update) as hex. */
void digest_sha256_finish(struct sha256_ctx *ctx, char hex[DIGEST_HEX_LEN + 1]);

#endif
