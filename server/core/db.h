/* db.h — the SQLite database under --data: opening it (WAL, busy timeout), applying the
 * schema/NNN_*.sql migrations embedded at build time by PRAGMA user_version, one
 * connection per thread, and small helpers for transactions and timestamps. */
#ifndef FDWD_DB_H
#define FDWD_DB_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* The database: its path, its connections, its commit generation. */
typedef struct fdwd_db fdwd_db;

/* Open (creating if needed) the database at path and migrate it to the newest schema.
 * Returns it, or NULL with a message in err. */
fdwd_db *db_open(const char *path, char *err, size_t errlen);
/* This thread's connection (opened on first use). NULL only if opening failed (logged). */
sqlite3 *db(fdwd_db *d);
/* Close this thread's connection (threads that end before the daemon does). */
void db_release_thread(fdwd_db *d);
/* Close every connection and free d; only once all other threads have stopped. */
void db_close(fdwd_db *d);

/* BEGIN IMMEDIATE (takes the write lock now, so no upgrade deadlocks). durable: make this
 * transaction's COMMIT synchronous=FULL (job accept and finish). Returns SQLITE_OK or an
 * error code. */
int db_begin(sqlite3 *c, int durable);
int db_commit(sqlite3 *c);
void db_rollback(sqlite3 *c);

/* A prepared statement for sql from this thread's cache (prepared on first use), with
 * no bindings. sql must have static storage (a string literal): its address is the key.
 * Always give it back with db_stmt_done (which resets it, ending its read snapshot)
 * instead of sqlite3_finalize. NULL if c is NULL (db() found no connection) or preparing
 * failed (logged), so db_stmt(db(d), sql) needs no check in between. */
sqlite3_stmt *db_stmt(sqlite3 *c, const char *sql);
void db_stmt_done(sqlite3_stmt *st);

/* Bind st's parameters ?1, ?2, ... in order, one letter of types each: 'i' an int64_t,
 * 'n' an int, 'f' a double, 't' a string that stays valid while st is used (NULL binds
 * NULL), '-' none (takes no argument; the parameter stays NULL). Letters past st's last
 * parameter are read but not bound, so one list can serve statements with fewer. Returns
 * st; a NULL st is passed through, so db_bind(db_stmt(c, sql), ...) needs no check in
 * between. */
sqlite3_stmt *db_bind(sqlite3_stmt *st, const char *types, ...);
/* Run db_stmt(c, sql) bound as db_bind once and give it back. Returns its first step's
 * code (SQLITE_DONE, SQLITE_ROW or an error; SQLITE_ERROR without a statement). */
int db_run(sqlite3 *c, const char *sql, const char *types, ...);
/* db_stmt(c, sql) bound as db_bind and stepped to its first row: read it, then give it
 * back with db_stmt_done. NULL (nothing to give back) when there is no row or on an
 * error. */
sqlite3_stmt *db_row(sqlite3 *c, const char *sql, const char *types, ...);
/* The integer in the first column of db_row(c, sql, ...); dflt when there is no row. */
int64_t db_int(sqlite3 *c, const char *sql, int64_t dflt, const char *types, ...);

/* Moves (increases) after every COMMIT on any connection. A cache of something read
 * from the database is valid while the generation read before reading it is current. */
uint64_t db_generation(fdwd_db *d);

/* Milliseconds since the Unix epoch. */
int64_t now_ms(void);
/* RFC 3339 UTC text of a millisecond timestamp: 2026-11-22T22:43:45.123Z. */
void fmt_time(int64_t ms, char out[32]);

#endif
