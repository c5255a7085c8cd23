/* idempotency.c — Idempotency-Key fingerprints and look-ups (see idempotency.h). */
#include "store/idempotency.h"
#include "core/db.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

void idem_fingerprint(const char *body, size_t len, char hex[DIGEST_HEX_LEN + 1])
{
    json_t *v = body ? json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL) : NULL;
    char *canon = v ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII |
                                        JSON_ENCODE_ANY | JSON_REAL_PRECISION(17))
                    : NULL;
    json_decref(v);
    if (canon) {
        digest_sha256_hex(canon, strlen(canon), hex);
        free(canon);
    } else {
        digest_sha256_hex(body ? body : "", body ? len : 0, hex);
    }
}

idem_match idem_lookup(sqlite3 *c, const char *owner, const char *key, const char *hash,
                       int64_t *id)
{
    sqlite3_stmt *st =
        db_stmt(c, "SELECT id, request_hash, spec_body FROM jobs WHERE owner = ?1 AND "
                   "idempotency_key = ?2");
    if (!db_bind(st, "tt", owner, key))
        return IDEM_ERROR;
    idem_match m = IDEM_NEW;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
        const char *stored = (const char *)sqlite3_column_text(st, 1);
        char old[DIGEST_HEX_LEN + 1];
        if (!stored) { /* stored before migration 004: its body is kept */
            idem_fingerprint((const char *)sqlite3_column_text(st, 2),
                             (size_t)sqlite3_column_bytes(st, 2), old);
            stored = old;
        }
        m = strcmp(stored, hash) == 0 ? IDEM_SAME : IDEM_OTHER;
    } else if (rc != SQLITE_DONE) {
        m = IDEM_ERROR;
    }
    db_stmt_done(st);
    return m;
}
