/* dbcheck.h — the database's health and its copies: PRAGMA quick_check at every start
 * (integrity_check with --integrity-check or `fdwaved check`), so a damaged database is
 * refused with the way to restore it instead of serving as an empty one; and
 * `fdwaved backup FILE`, a consistent copy taken with SQLite's online backup API while the
 * daemon runs. */
#ifndef FDWD_DBCHECK_H
#define FDWD_DBCHECK_H

#include <stddef.h>

/* Check the database at path (nothing to check when it does not exist yet). full:
 * integrity_check, else quick_check. Returns 0 when it is sound, -1 with what is wrong
 * and how to restore in msg. */
int dbcheck_run(const char *path, int full, char *msg, size_t len);

/* `fdwaved check` and `fdwaved backup FILE`: the words after the command name; prints
 * and returns the exit status. */
int dbcheck_command(const char *cmd, int argc, char **argv, const char *db_path);

#endif
