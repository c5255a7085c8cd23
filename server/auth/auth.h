/* auth.h — who is asking: bearer tokens (only their SHA-256 is stored, table tokens),
 * the admin flag, and the "auth off" mode (no tokens at all while listening on loopback:
 * everyone is the admin user "local"). Also the `fdwaved token ...` commands. */
#ifndef FDWD_AUTH_H
#define FDWD_AUTH_H

#include "core/app.h"
#include "core/identity.h"

#include <stddef.h>

/* Check a token (NULL or "" when none was sent). Returns 0 and fills who, or -1 when the
 * request must be refused (401). loopback: the daemon listens only on loopback. */
int auth_check(fdwd_app *app, const char *token, int loopback, identity *who);

/* Number of tokens configured, or -1 on a database error. */
int auth_token_count(fdwd_app *app);

/* `fdwaved token add|list|remove ...`: the words after "token" (flags already taken
 * out by config_load) and whether --admin was given; the database must be open. Prints
 * to stdout/stderr; returns the process exit status. */
int auth_token_command(fdwd_app *app, int argc, char **argv, int admin);

#endif
