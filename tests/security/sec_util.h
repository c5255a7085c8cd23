/* sec_util.h — what both security test programs share: a real fdwaved with three users
 * (alice and bob, plain users, and root, an admin), requests made as one of them, model
 * uploads, and a spec built around a velocity or wavelet section. Built on the server
 * tests' harness (tests/server/harness.h). */
#ifndef FDW_SEC_UTIL_H
#define FDW_SEC_UTIL_H

#include "harness.h"

#include <stddef.h>

/* The daemon and the three users' tokens. */
extern daemon_proc SD;
extern char TOK_ALICE[128], TOK_BOB[128], TOK_ROOT[128];

/* Create the data directory and the three tokens (before sec_start). */
void sec_users(void);
/* Start SD with the extra flags (NULL-terminated); aborts if it does not listen. */
void sec_start(const char *const *extra);

/* One request as the holder of token (NULL: none); extra_header may be NULL. Returns the
 * status; r must be http_free'd. */
long sec_as(const char *token, const char *method, const char *path, const char *body,
            size_t len, const char *extra_header, http_resp *r);
/* The error object's code, field (or "null") and message of r, copied; 0 when r holds
 * one. */
int sec_error(const http_resp *r, char *code, char *field, char *message, size_t cap);

/* Upload n^3 float32 velocities (all v) as name; returns the HTTP status. query: e.g.
 * "?replace=true" or "". */
long sec_upload(const char *token, const char *name, const char *query, int n, float v);

/* A 16^3 acoustic spec with the given velocity object and wavelet object (NULL: a Ricker
 * pulse), written into buf. */
void sec_spec(char *buf, size_t cap, const char *velocity, const char *wavelet);

#endif
