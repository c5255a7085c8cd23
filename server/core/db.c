/* db.c — SQLite connections and migrations (see db.h). Each thread gets its own
 * connection (SQLite connections must not be shared without serialising them); all are
 * in WAL mode so readers never block the writer. Normal transactions commit with
 * synchronous=NORMAL; db_begin(c, 1) switches one transaction to FULL so the commits
 * that accept or finish a job reach the disk before the client hears of them. Each
 * connection keeps the hot statements prepared (db_stmt), and the database's generation
 * counter moves after every commit so readers can cache what they rendered. */
#include "core/db.h"
#include "core/log.h"
#include "core/migrations.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STMT_CACHE 64 /* room for every statement one thread runs: the hot ones stay prepared */

typedef struct conn_node {
    struct fdwd_db *owner;
    sqlite3 *conn;
    int durable;                 /* current transaction wants FULL sync */
    int nstmts;
    const char *sql[STMT_CACHE]; /* statement cache: key = the SQL text's address */
    sqlite3_stmt *stmt[STMT_CACHE];
    struct conn_node *next;
} conn_node;

struct fdwd_db {
    char path[4096];
    pthread_mutex_t lock;
    conn_node *conns;            /* every open connection, to close them at the end */
    atomic_uint_fast64_t generation;
};

/* Thread-local, not shared: the calling thread's own connection, found without a lock
 * (a SQLite connection belongs to one thread; see the top of this file). */
static _Thread_local conn_node *t_conn;

/* Finalize a connection's cached statements and close it. */
static void close_node(conn_node *n)
{
    for (int i = 0; i < n->nstmts; i++)
        sqlite3_finalize(n->stmt[i]);
    n->nstmts = 0;
    sqlite3_close(n->conn);
    free(n);
}

static int exec(sqlite3 *c, const char *sql)
{
    char *msg = NULL;
    int rc = sqlite3_exec(c, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        log_error("sqlite: %s: %s", sql, msg ? msg : sqlite3_errstr(rc));
        sqlite3_free(msg);
    }
    return rc;
}

static sqlite3 *open_conn(const fdwd_db *d, char *err, size_t errlen)
{
    sqlite3 *c = NULL;
    int rc = sqlite3_open_v2(d->path, &c,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "cannot open database %.300s: %s", d->path,
                 c ? sqlite3_errmsg(c) : sqlite3_errstr(rc));
        sqlite3_close(c);
        return NULL;
    }
    sqlite3_busy_timeout(c, 10000);
    if (exec(c, "PRAGMA journal_mode=WAL") || exec(c, "PRAGMA synchronous=NORMAL") ||
        exec(c, "PRAGMA foreign_keys=ON") || exec(c, "PRAGMA cache_size=-16384")) {
        snprintf(err, errlen, "cannot configure database %.300s", d->path);
        sqlite3_close(c);
        return NULL;
    }
    return c;
}

sqlite3 *db(fdwd_db *d)
{
    if (t_conn && t_conn->owner == d)
        return t_conn->conn;
    char err[512];
    sqlite3 *c = open_conn(d, err, sizeof err);
    if (!c) {
        log_error("%s", err);
        return NULL;
    }
    conn_node *n = calloc(1, sizeof *n);
    if (!n) {
        sqlite3_close(c);
        return NULL;
    }
    n->owner = d;
    n->conn = c;
    pthread_mutex_lock(&d->lock);
    n->next = d->conns;
    d->conns = n;
    pthread_mutex_unlock(&d->lock);
    t_conn = n;
    return c;
}

void db_release_thread(fdwd_db *d)
{
    if (!t_conn || t_conn->owner != d)
        return;
    pthread_mutex_lock(&d->lock);
    for (conn_node **p = &d->conns; *p; p = &(*p)->next)
        if (*p == t_conn) {
            *p = t_conn->next;
            break;
        }
    pthread_mutex_unlock(&d->lock);
    close_node(t_conn);
    t_conn = NULL;
}

void db_close(fdwd_db *d)
{
    if (!d)
        return;
    pthread_mutex_lock(&d->lock);
    while (d->conns) {
        conn_node *n = d->conns;
        d->conns = n->next;
        if (n == t_conn)
            t_conn = NULL;
        close_node(n);
    }
    pthread_mutex_unlock(&d->lock);
    pthread_mutex_destroy(&d->lock);
    free(d);
}

/* Schema version the database is at. */
static int db_schema_version(fdwd_db *d)
{
    sqlite3 *c = db(d);
    sqlite3_stmt *st;
    int v = -1;
    if (c && sqlite3_prepare_v2(c, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    return v;
}

/* Apply the migrations newer than the database's schema, each in its own transaction. */
static int migrate(fdwd_db *d, const char *path, char *err, size_t errlen)
{
    sqlite3 *c = db(d);
    if (!c) {
        snprintf(err, errlen, "cannot open database %s", path);
        return -1;
    }
    int have = db_schema_version(d);
    for (int i = 0; i < fdwd_nmigrations; i++) {
        const fdwd_migration *m = &fdwd_migrations[i];
        if (m->version <= have)
            continue;
        /* Each migration and its user_version bump commit together. */
        char *sql = malloc(m->len + 64);
        if (!sql) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        memcpy(sql, m->sql, m->len);
        snprintf(sql + m->len, 64, ";\nPRAGMA user_version=%d;", m->version);
        if (db_begin(c, 1) != SQLITE_OK) {
            free(sql);
            snprintf(err, errlen, "cannot lock database %s: %s", path, sqlite3_errmsg(c));
            return -1;
        }
        char *msg = NULL;
        int rc = sqlite3_exec(c, sql, NULL, NULL, &msg);
        free(sql);
        if (rc != SQLITE_OK) {
            snprintf(err, errlen, "migration %s failed: %s", m->name, msg ? msg : "?");
            sqlite3_free(msg);
            db_rollback(c);
            return -1;
        }
        if (db_commit(c) != SQLITE_OK) {
            snprintf(err, errlen, "migration %s: commit failed: %s", m->name, sqlite3_errmsg(c));
            return -1;
        }
        log_info("database: applied migration %s", m->name);
    }
    if (have > fdwd_migrations[fdwd_nmigrations - 1].version) {
        snprintf(err, errlen,
                 "database %s has schema version %d, newer than this fdwaved knows (%d)", path,
                 have, fdwd_migrations[fdwd_nmigrations - 1].version);
        return -1;
    }
    return 0;
}

fdwd_db *db_open(const char *path, char *err, size_t errlen)
{
    fdwd_db *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(d->path, sizeof d->path, "%s", path);
    pthread_mutex_init(&d->lock, NULL);
    atomic_init(&d->generation, 1);
    if (migrate(d, path, err, errlen)) {
        db_close(d);
        return NULL;
    }
    return d;
}

int db_begin(sqlite3 *c, int durable)
{
    if (durable) {
        exec(c, "PRAGMA synchronous=FULL");
        if (t_conn && t_conn->conn == c)
            t_conn->durable = 1;
    }
    int rc = sqlite3_exec(c, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK && durable)
        exec(c, "PRAGMA synchronous=NORMAL");
    return rc;
}

static void end_durable(sqlite3 *c)
{
    if (t_conn && t_conn->conn == c && t_conn->durable) {
        exec(c, "PRAGMA synchronous=NORMAL");
        t_conn->durable = 0;
    }
}

int db_commit(sqlite3 *c)
{
    int rc = sqlite3_exec(c, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        log_error("sqlite: COMMIT failed: %s", sqlite3_errmsg(c));
        sqlite3_exec(c, "ROLLBACK", NULL, NULL, NULL);
    }
    /* After the commit (never before): a reader that read the generation, then the
     * data, can only have tagged old data with an old generation. */
    if (t_conn && t_conn->conn == c)
        atomic_fetch_add(&t_conn->owner->generation, 1);
    end_durable(c);
    return rc;
}

uint64_t db_generation(fdwd_db *d) { return atomic_load(&d->generation); }

sqlite3_stmt *db_stmt(sqlite3 *c, const char *sql)
{
    if (!c) /* this thread has no connection (db() failed, logged) */
        return NULL;
    conn_node *n = t_conn && t_conn->conn == c ? t_conn : NULL;
    if (n)
        for (int i = 0; i < n->nstmts; i++)
            if (n->sql[i] == sql) {
                /* In use further up this thread's stack: hand out a private one. */
                if (sqlite3_stmt_busy(n->stmt[i]))
                    break;
                return n->stmt[i];
            }
    sqlite3_stmt *st = NULL;
    int cache = n && n->nstmts < STMT_CACHE;
    if (sqlite3_prepare_v3(c, sql, -1, cache ? SQLITE_PREPARE_PERSISTENT : 0, &st, NULL) !=
        SQLITE_OK) {
        log_error("sqlite: %s: %s", sql, sqlite3_errmsg(c));
        sqlite3_finalize(st);
        return NULL;
    }
    if (cache) {
        for (int i = 0; i < n->nstmts; i++)
            if (n->sql[i] == sql) /* the busy one: keep it, this one is private */
                return st;
        n->sql[n->nstmts] = sql;
        n->stmt[n->nstmts++] = st;
    }
    return st;
}

void db_stmt_done(sqlite3_stmt *st)
{
    if (!st)
        return;
    if (t_conn)
        for (int i = 0; i < t_conn->nstmts; i++)
            if (t_conn->stmt[i] == st) {
                sqlite3_reset(st);
                sqlite3_clear_bindings(st);
                return;
            }
    sqlite3_finalize(st);
}

static sqlite3_stmt *bindv(sqlite3_stmt *st, const char *types, va_list ap)
{
    const int np = st ? sqlite3_bind_parameter_count(st) : 0;
    for (int i = 1; types[i - 1]; i++) {
        const char t = types[i - 1];
        const int64_t v = t == 'i' ? va_arg(ap, int64_t) : t == 'n' ? va_arg(ap, int) : 0;
        const double f = t == 'f' ? va_arg(ap, double) : 0;
        const char *s = t == 't' ? va_arg(ap, const char *) : NULL;
        if (i > np || t == '-' || (t == 't' && !s))
            continue;
        if (t == 'f')
            sqlite3_bind_double(st, i, f);
        else if (t == 't')
            sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
        else
            sqlite3_bind_int64(st, i, v);
    }
    return st;
}

sqlite3_stmt *db_bind(sqlite3_stmt *st, const char *types, ...)
{
    va_list ap;
    va_start(ap, types);
    bindv(st, types, ap);
    va_end(ap);
    return st;
}

int db_run(sqlite3 *c, const char *sql, const char *types, ...)
{
    va_list ap;
    va_start(ap, types);
    sqlite3_stmt *st = bindv(db_stmt(c, sql), types, ap);
    va_end(ap);
    const int rc = st ? sqlite3_step(st) : SQLITE_ERROR;
    db_stmt_done(st);
    return rc;
}

static sqlite3_stmt *rowv(sqlite3 *c, const char *sql, const char *types, va_list ap)
{
    sqlite3_stmt *st = bindv(db_stmt(c, sql), types, ap);
    if (st && sqlite3_step(st) == SQLITE_ROW)
        return st;
    db_stmt_done(st);
    return NULL;
}

sqlite3_stmt *db_row(sqlite3 *c, const char *sql, const char *types, ...)
{
    va_list ap;
    va_start(ap, types);
    sqlite3_stmt *st = rowv(c, sql, types, ap);
    va_end(ap);
    return st;
}

int64_t db_int(sqlite3 *c, const char *sql, int64_t dflt, const char *types, ...)
{
    va_list ap;
    va_start(ap, types);
    sqlite3_stmt *st = rowv(c, sql, types, ap);
    va_end(ap);
    const int64_t v = st ? sqlite3_column_int64(st, 0) : dflt;
    db_stmt_done(st);
    return v;
}

void db_rollback(sqlite3 *c)
{
    sqlite3_exec(c, "ROLLBACK", NULL, NULL, NULL);
    end_durable(c);
}

int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void fmt_time(int64_t ms, char out[32])
{
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    /* years are 4 digits for any timestamp this daemon writes; 64 bytes keeps gcc quiet */
    char buf[64];
    snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
    memcpy(out, buf, 31);
    out[31] = '\0';
}
