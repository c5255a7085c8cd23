/* dbcheck.c — integrity checks and online backups of the database (see dbcheck.h). */
#include "core/dbcheck.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RESTORE_HELP                                                                        \
    "restore it from a backup (docs/operations.md, \"Back up\" and \"Restore\"): stop "     \
    "fdwaved, put the backup in place as %s, delete %s-wal and %s-shm next to it, start "   \
    "fdwaved; or move the damaged file aside to start with an empty database"

/* Run pragma on db, the problems it reports into msg (at most a few lines). Returns 0
 * when it says "ok". */
static int run_check(sqlite3 *db, const char *pragma, char *msg, size_t len)
{
    sqlite3_stmt *st;
    msg[0] = '\0';
    if (sqlite3_prepare_v2(db, pragma, -1, &st, NULL) != SQLITE_OK) {
        snprintf(msg, len, "%s", sqlite3_errmsg(db));
        return -1;
    }
    int rows = 0, ok = 0, rc;
    size_t used = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *line = (const char *)sqlite3_column_text(st, 0);
        if (rows == 0 && line && strcmp(line, "ok") == 0)
            ok = 1;
        else if (rows < 5 && used < len)
            used += (size_t)snprintf(msg + used, len - used, "%s%s", used ? "; " : "",
                                     line ? line : "?");
        rows++;
    }
    if (rc != SQLITE_DONE && used < len) {
        snprintf(msg + used, len - used, "%s%s", used ? "; " : "", sqlite3_errmsg(db));
        ok = 0;
    }
    sqlite3_finalize(st);
    if (!ok && rows > 5 && strlen(msg) + 40 < len)
        snprintf(msg + strlen(msg), len - strlen(msg), " (and %d more)", rows - 5);
    return ok ? 0 : -1;
}

int dbcheck_run(const char *path, int full, char *msg, size_t len)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return 0; /* a new database */
    sqlite3 *db = NULL;
    char problems[1024];
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK)
        sqlite3_busy_timeout(db, 10000);
    if (rc != SQLITE_OK)
        snprintf(problems, sizeof problems, "%s", db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    else
        rc = run_check(db, full ? "PRAGMA integrity_check" : "PRAGMA quick_check", problems,
                       sizeof problems);
    sqlite3_close(db);
    if (rc == 0)
        return 0;
    int n = snprintf(msg, len, "the database %s is damaged (%s: %s); ", path,
                     full ? "integrity_check" : "quick_check", problems);
    if (n > 0 && (size_t)n < len)
        snprintf(msg + n, len - (size_t)n, RESTORE_HELP, path, path, path);
    return -1;
}

/* Copy the database at path to dest (a new file; an existing one is refused) with the
 * online backup API, then check the copy. Returns 0, or -1 with why. */
static int dbcheck_backup(const char *path, const char *dest, char *msg, size_t len)
{
    struct stat sb;
    if (stat(dest, &sb) == 0) {
        snprintf(msg, len, "%s exists already: give a new file name", dest);
        return -1;
    }
    sqlite3 *src = NULL, *dst = NULL;
    int rc = sqlite3_open_v2(path, &src, SQLITE_OPEN_READONLY, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_open_v2(dest, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        snprintf(msg, len, "cannot open %s: %s", dst ? dest : path,
                 sqlite3_errmsg(dst ? dst : src));
        sqlite3_close(src);
        sqlite3_close(dst);
        if (dst)
            unlink(dest);
        return -1;
    }
    sqlite3_busy_timeout(src, 10000);
    sqlite3_backup *b = sqlite3_backup_init(dst, "main", src, "main");
    if (b) {
        /* Pages in steps, so the daemon's writers are held up for a moment at a time. */
        while ((rc = sqlite3_backup_step(b, 256)) == SQLITE_OK || rc == SQLITE_BUSY ||
               rc == SQLITE_LOCKED)
            sqlite3_sleep(rc == SQLITE_OK ? 0 : 20);
        sqlite3_backup_finish(b);
    }
    int ok = b && rc == SQLITE_DONE && sqlite3_errcode(dst) == SQLITE_OK;
    if (!ok)
        snprintf(msg, len, "backup to %s failed: %s", dest, sqlite3_errmsg(dst));
    char problems[1024];
    if (ok && run_check(dst, "PRAGMA integrity_check", problems, sizeof problems) != 0) {
        snprintf(msg, len, "the copy %s does not check: %s", dest, problems);
        ok = 0;
    }
    sqlite3_close(src);
    sqlite3_close(dst);
    if (!ok)
        unlink(dest);
    return ok ? 0 : -1;
}

int dbcheck_command(const char *cmd, int argc, char **argv, const char *db_path)
{
    char msg[2048];
    if (strcmp(cmd, "check") == 0) {
        if (argc != 0) {
            fprintf(stderr, "usage: fdwaved check [--data DIR]\n");
            return 2;
        }
        if (dbcheck_run(db_path, 1, msg, sizeof msg) != 0) {
            fprintf(stderr, "fdwaved: %s\n", msg);
            return 1;
        }
        printf("%s: ok\n", db_path);
        return 0;
    }
    if (argc != 1) {
        fprintf(stderr, "usage: fdwaved backup FILE [--data DIR]\n");
        return 2;
    }
    if (dbcheck_backup(db_path, argv[0], msg, sizeof msg) != 0) {
        fprintf(stderr, "fdwaved: %s\n", msg);
        return 1;
    }
    printf("%s: a consistent copy of %s (integrity_check ok)\n", argv[0], db_path);
    return 0;
}
