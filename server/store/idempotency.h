/* idempotency.h — the Idempotency-Key of POST /v1/jobs (IETF httpapi draft
 * "The Idempotency-Key HTTP Header Field"): a key is the submitter's own (looked up by
 * owner and key, so one user's key never finds, reveals or blocks another user's job),
 * and it is bound to the request it first came with through a fingerprint, the SHA-256
 * of the submitted spec in canonical form (jansson, keys sorted, compact, ASCII; so key
 * order, whitespace and escapes do not matter). The same key with the same fingerprint
 * answers the job it made; with another fingerprint, 422. */
#ifndef FDWD_IDEMPOTENCY_H
#define FDWD_IDEMPOTENCY_H

#include "core/digest.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* The fingerprint of a submitted body as hex; a body that is no JSON is hashed as it is
 * (it is refused anyway, and differs from any accepted one). */
void idem_fingerprint(const char *body, size_t len, char hex[DIGEST_HEX_LEN + 1]);

typedef enum idem_match {
    IDEM_NEW = 0,      /* the owner has not used this key */
    IDEM_SAME = 1,     /* used, for job *id, with the same fingerprint: a retry */
    IDEM_OTHER = 2,    /* used, for job *id, with another request: 422 */
    IDEM_ERROR = -1    /* database error */
} idem_match;

/* Look owner's key up on connection c (inside the caller's transaction, or alone).
 * Jobs stored before fingerprints were kept are fingerprinted from their stored body. */
idem_match idem_lookup(sqlite3 *c, const char *owner, const char *key, const char *hash,
                       int64_t *id);

#endif
