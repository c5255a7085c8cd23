/* auth.c — bearer-token authentication (see auth.h). A token is 32 random bytes from
 * getrandom(), shown once as "fdw_" + 64 hex digits; the database keeps only its SHA-256,
 * so a stolen database does not hand out working tokens. */
#include "auth/auth.h"
#include "core/db.h"
#include "core/digest.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>

int auth_token_count(fdwd_app *app)
{
    /* Asked on every request without a token (tokens may be added by `fdwaved token
     * add` while the daemon runs, so the answer is not kept): a kept statement. */
    return (int)db_int(db(app->db), "SELECT count(*) FROM tokens", -1, "");
}

int auth_check(fdwd_app *app, const char *token, int loopback, identity *who)
{
    sqlite3 *c = db(app->db);
    if (!c)
        return -1;
    if (token && *token) {
        char hex[65];
        digest_sha256_hex(token, strlen(token), hex);
        sqlite3_stmt *st = db_row(c, "SELECT name, admin FROM tokens WHERE hash = ?1", "t", hex);
        if (st) {
            snprintf(who->user, sizeof who->user, "%s", sqlite3_column_text(st, 0));
            who->admin = sqlite3_column_int(st, 1);
            db_stmt_done(st);
            return 0;
        }
    }
    /* No (valid) token: allowed only while no tokens exist and we listen on loopback. */
    if (loopback && auth_token_count(app) == 0) {
        snprintf(who->user, sizeof who->user, "local");
        who->admin = 1;
        return 0;
    }
    return -1;
}

static int token_add(fdwd_app *app, const char *name, int admin)
{
    if (!identity_valid_name(name)) {
        fprintf(stderr, "fdwaved token add: NAME must be 1-64 of [A-Za-z0-9._@-]\n");
        return 2;
    }
    unsigned char raw[32];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t r = getrandom(raw + got, sizeof raw - got, 0);
        if (r < 0) {
            perror("fdwaved token add: getrandom");
            return 1;
        }
        got += (size_t)r;
    }
    char token[4 + 65];
    memcpy(token, "fdw_", 4);
    digest_hex(raw, sizeof raw, token + 4); /* 32 bytes -> 64 hex digits */
    char hex[65];
    digest_sha256_hex(token, strlen(token), hex);
    sqlite3 *c = db(app->db);
    sqlite3_stmt *st = db_bind(db_stmt(c, "INSERT INTO tokens (name, hash, admin, created_at) "
                                          "VALUES (?1, ?2, ?3, ?4)"),
                               "ttni", name, hex, admin, now_ms());
    if (!st) {
        fprintf(stderr, "fdwaved token add: database error\n");
        return 1;
    }
    int rc = sqlite3_step(st);
    db_stmt_done(st);
    if (rc == SQLITE_CONSTRAINT) {
        fprintf(stderr, "fdwaved token add: a token named \"%s\" exists; remove it first\n",
                name);
        return 1;
    }
    if (rc != SQLITE_DONE) {
        fprintf(stderr, "fdwaved token add: %s\n", sqlite3_errmsg(c));
        return 1;
    }
    printf("%s\n", token);
    return 0;
}

static int token_list(fdwd_app *app)
{
    sqlite3_stmt *st = db_stmt(db(app->db), "SELECT name, admin, created_at FROM tokens ORDER BY name");
    if (!st) {
        fprintf(stderr, "fdwaved token list: database error\n");
        return 1;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        char when[32];
        fmt_time(sqlite3_column_int64(st, 2), when);
        printf("%s\t%s\t%s\n", sqlite3_column_text(st, 0),
               sqlite3_column_int(st, 1) ? "admin" : "user", when);
    }
    db_stmt_done(st);
    return 0;
}

static int token_remove(fdwd_app *app, const char *name)
{
    sqlite3 *c = db(app->db);
    sqlite3_stmt *st = db_bind(db_stmt(c, "DELETE FROM tokens WHERE name = ?1"), "t", name);
    if (!st) {
        fprintf(stderr, "fdwaved token remove: database error\n");
        return 1;
    }
    sqlite3_step(st);
    db_stmt_done(st);
    if (sqlite3_changes(c) == 0) {
        fprintf(stderr, "fdwaved token remove: no token named \"%s\"\n", name);
        return 1;
    }
    return 0;
}

int auth_token_command(fdwd_app *app, int argc, char **argv, int admin)
{
    if (argc == 1 && strcmp(argv[0], "list") == 0 && !admin)
        return token_list(app);
    if (argc >= 1 && strcmp(argv[0], "add") == 0) {
        if (argc != 2) {
            if (argc > 2)
                fprintf(stderr, "fdwaved token add: unexpected \"%s\"\n", argv[2]);
            else
                fprintf(stderr, "usage: fdwaved token add NAME [--admin]\n");
            return 2;
        }
        return token_add(app, argv[1], admin);
    }
    if (argc == 2 && strcmp(argv[0], "remove") == 0 && !admin)
        return token_remove(app, argv[1]);
    fprintf(stderr, "usage: fdwaved token add NAME [--admin] | list | remove NAME "
                    "[--data DIR]\n");
    return 2;
}
