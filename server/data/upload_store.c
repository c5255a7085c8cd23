/* upload_store.c — a store of files uploaded by name (see upload_store.h): the upload's
 * life (a temporary file hashed as it arrives, inspected by its kind, renamed into place
 * and recorded in one transaction under the store's commit lock), the owner's rights, the
 * disk quota, the sweep of partial files, listing, lookup and removal. The SQL of a store
 * is written once, when it is made, from its kind's table and columns (db_stmt caches
 * statements by the text's address). */
#include "data/upload_store.h"
#include "core/db.h"
#include "core/digest.h"
#include "core/log.h"
#include "core/quota.h"
#include "store/usage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

struct upload {
    upload_store *store;
    identity who;
    char owner[128];           /* who will own it: who, or the user an admin named */
    int replace;               /* ?replace=true: an existing upload may be replaced */
    char name[160];
    const char *format;
    char tmp[CFG_PATH + 64];
    int fd;
    uint64_t bytes;
    struct sha256_ctx sha;
    struct upload *next;       /* the store's live uploads, whose files the sweep keeps */
};

/* The kind, its directory and SQL; the uploads in progress (the sweep spares their
 * files); the one lock under which a finished upload is checked against the table,
 * renamed into place and recorded, so two uploads of one name cannot interleave. */
struct upload_store {
    fdwd_app *app;
    const upload_kind *kind;
    char dir[CFG_PATH];
    char sql_owner[160], sql_insert[1024], sql_update[1024], sql_one[1024], sql_list[1024],
        sql_delete[160];
    pthread_mutex_t live_lock;
    upload *live;
    pthread_mutex_t commit_lock;
};

/* "?1, ?2, ... ?n" for the n columns of cols. */
static void placeholders(char *out, size_t cap, const char *cols)
{
    int n = 1;
    for (const char *p = cols; *p; p++)
        n += *p == ',';
    size_t k = 0;
    for (int i = 1; i <= n && k < cap; i++)
        k += (size_t)snprintf(out + k, cap - k, "%s?%d", i > 1 ? ", " : "", i);
}

const char *upload_name_format(const char *name, const char **why)
{
    size_t n = strlen(name);
    *why = NULL;
    if (n < 1 || n > 128) {
        *why = "a name must be 1 to 128 characters";
        return NULL;
    }
    if (name[0] == '.') {
        *why = "a name may not start with '.'";
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-')) {
            *why = "a name may only contain A-Z a-z 0-9 . _ - (no '/')";
            return NULL;
        }
    }
    const char *dot = strrchr(name, '.');
    if (dot && (!strcasecmp(dot, ".f32") || !strcasecmp(dot, ".bin") || !strcasecmp(dot, ".raw")))
        return "raw-f32";
    if (dot && (!strcasecmp(dot, ".segy") || !strcasecmp(dot, ".sgy")))
        return "segy";
    if (dot && !strcasecmp(dot, ".rsf"))
        return "rsf";
    return NULL;
}

upload_row upload_row_of(sqlite3_stmt *st)
{
    return (upload_row){.name = (const char *)sqlite3_column_text(st, 0),
                        .owner = (const char *)sqlite3_column_text(st, 1),
                        .format = (const char *)sqlite3_column_text(st, 2),
                        .bytes = (uint64_t)sqlite3_column_int64(st, 3),
                        .sha256 = (const char *)sqlite3_column_text(st, 4),
                        .created_at = sqlite3_column_int64(st, 5)};
}

upload_store *upload_store_new(fdwd_app *app, const upload_kind *kind, const char *dir)
{
    upload_store *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->app = app;
    s->kind = kind;
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    const char *t = kind->table, *cols = kind->cols;
    char ph[400];
    placeholders(ph, sizeof ph, cols);
    snprintf(s->sql_owner, sizeof s->sql_owner, "SELECT owner, bytes FROM %s WHERE name = ?1", t);
    snprintf(s->sql_insert, sizeof s->sql_insert,
             "INSERT INTO %s (%s) VALUES (%s) ON CONFLICT(name) DO NOTHING", t, cols, ph);
    snprintf(s->sql_update, sizeof s->sql_update,
             "UPDATE %s SET format = ?3, bytes = ?4, sha256 = ?5, created_at = ?6, %s "
             "WHERE name = ?1 AND owner = ?2", t, kind->update_set);
    snprintf(s->sql_one, sizeof s->sql_one, "SELECT %s FROM %s WHERE name = ?1", cols, t);
    snprintf(s->sql_list, sizeof s->sql_list,
             "SELECT %s FROM %s WHERE ?1 OR owner = ?2 ORDER BY name", cols, t);
    snprintf(s->sql_delete, sizeof s->sql_delete, "DELETE FROM %s WHERE name = ?1 AND owner = ?2",
             t);
    pthread_mutex_init(&s->live_lock, NULL);
    pthread_mutex_init(&s->commit_lock, NULL);
    return s;
}

static void live_add(upload *u)
{
    upload_store *s = u->store;
    pthread_mutex_lock(&s->live_lock);
    u->next = s->live;
    s->live = u;
    pthread_mutex_unlock(&s->live_lock);
}

static void live_remove(upload *u)
{
    upload_store *s = u->store;
    pthread_mutex_lock(&s->live_lock);
    for (upload **p = &s->live; *p; p = &(*p)->next)
        if (*p == u) {
            *p = u->next;
            break;
        }
    pthread_mutex_unlock(&s->live_lock);
}

static void set_error(upload_error *e, int status, const char *code, const char *field,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void set_error(upload_error *e, int status, const char *code, const char *field,
                      const char *fmt, ...)
{
    e->status = status;
    e->code = code;
    e->field = field;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
}

/* Owner ("" if none) and bytes of an existing upload. Returns -1 on error. */
static int current_owner(upload_store *s, const char *name, char *owner, size_t cap,
                         uint64_t *bytes)
{
    sqlite3 *c = db(s->app->db);
    sqlite3_stmt *st = db_stmt(c, s->sql_owner);
    owner[0] = '\0';
    *bytes = 0;
    if (!db_bind(st, "t", name))
        return -1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        snprintf(owner, cap, "%s", sqlite3_column_text(st, 0));
        *bytes = (uint64_t)sqlite3_column_int64(st, 1);
    }
    db_stmt_done(st);
    return 0;
}

/* Whether an existing upload (owner) may be replaced by who: the owner or an admin, and
 * only when the upload asked to replace. Fills e when not. */
static int may_replace(const upload_store *s, const identity *who, const char *name,
                       const char *owner, int replace, upload_error *e)
{
    const char *noun = s->kind->noun;
    if (!identity_may_read(who, owner)) {
        set_error(e, 409, "conflict", "name", "a %s named \"%s\" already belongs to another user",
                  noun, name);
        return 0;
    }
    if (!replace) {
        set_error(e, 409, "conflict", "name",
                  "%s \"%s\" exists; upload with ?replace=true to replace its content (its owner "
                  "stays %s)", noun, name, owner);
        return 0;
    }
    return 1;
}

/* Whether adding bytes (replacing old bytes) keeps owner within the disk quota. */
static int within_quota(upload_store *s, const char *owner, uint64_t bytes, uint64_t old,
                        upload_error *e)
{
    const quota *q = quota_of(&s->app->quotas, owner);
    long queued;
    int running;
    uint64_t disk = 0;
    if (!q->disk)
        return 1;
    if (usage_standing(s->app, owner, &queued, &running, &disk) != 0) {
        set_error(e, 503, "unavailable", NULL, "the database is not answering");
        return 0;
    }
    disk = disk > old ? disk - old : 0;
    if (disk + bytes <= q->disk)
        return 1;
    set_error(e, 429, "quota_exceeded", "disk",
              "%s holds %.3g GiB of outputs and uploads; %llu bytes more would pass the quota's "
              "limit (disk=%.3g GiB): remove uploads or old outputs first", owner,
              (double)disk / (1u << 30), (unsigned long long)bytes, (double)q->disk / (1u << 30));
    return 0;
}

/* The query's replace and owner checked; *rep set. 0, or -1 with e. */
static int check_query(const identity *who, const char *replace, const char *owner, int *rep,
                       const char *noun, upload_error *e)
{
    *rep = 0;
    if (replace) {
        if (!strcmp(replace, "true") || !strcmp(replace, "1"))
            *rep = 1;
        else if (strcmp(replace, "false") != 0 && strcmp(replace, "0") != 0) {
            set_error(e, 400, "bad_request", "replace", "replace must be true or false");
            return -1;
        }
    }
    if (owner && !who->admin) {
        set_error(e, 403, "forbidden", "owner", "only an admin may upload a %s for another user",
                  noun);
        return -1;
    }
    if (owner && !identity_valid_name(owner)) {
        set_error(e, 400, "bad_request", "owner", "owner must be 1 to 64 of A-Z a-z 0-9 . _ @ -");
        return -1;
    }
    return 0;
}

/* A new upload's temporary file; NULL with e. */
static upload *open_upload(upload_store *s, upload_error *e)
{
    upload *u = calloc(1, sizeof *u);
    if (!u) {
        set_error(e, 500, "internal", NULL, "out of memory");
        return NULL;
    }
    unsigned long long r = 0;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
        r = (unsigned long long)now_ms() ^ (unsigned long long)getpid();
    snprintf(u->tmp, sizeof u->tmp, "%s/" UPLOAD_PARTIAL_PREFIX "%016llx", s->dir, r);
    u->fd = open(u->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
    if (u->fd < 0) {
        set_error(e, 500, "internal", NULL, "cannot create a temporary file for the upload: %s",
                  strerror(errno));
        free(u);
        return NULL;
    }
    u->store = s;
    sha256_init(&u->sha);
    return u;
}

upload *upload_begin(upload_store *s, const identity *who, const char *name,
                     const char *replace, const char *owner, uint64_t expect, upload_error *e)
{
    const char *why = NULL;
    const char *fmt = s->kind->format_of(name, &why);
    int rep = 0;
    if (!fmt) {
        set_error(e, 400, "bad_request", "name", "%s", why);
        return NULL;
    }
    if (check_query(who, replace, owner, &rep, s->kind->noun, e))
        return NULL;
    char current[128];
    uint64_t old = 0;
    if (current_owner(s, name, current, sizeof current, &old)) {
        set_error(e, 500, "internal", NULL, "database error");
        return NULL;
    }
    /* Checked now so a refused upload is not read; checked again, atomically, at the end. */
    if (current[0] && !may_replace(s, who, name, current, rep, e))
        return NULL;
    if (current[0] && owner && strcmp(owner, current) != 0) {
        set_error(e, 409, "conflict", "owner", "%s \"%s\" belongs to %s; a replacement keeps "
                  "its owner", s->kind->noun, name, current);
        return NULL;
    }
    const char *keeper = current[0] ? current : owner ? owner : who->user;
    if (!within_quota(s, keeper, expect, old, e))
        return NULL;
    upload *u = open_upload(s, e);
    if (!u)
        return NULL;
    u->who = *who;
    snprintf(u->owner, sizeof u->owner, "%s", owner ? owner : who->user);
    u->replace = rep;
    snprintf(u->name, sizeof u->name, "%s", name);
    u->format = fmt;
    live_add(u);
    return u;
}

int upload_write(upload *u, const char *data, size_t len)
{
    sha256_update(&u->sha, len, (const uint8_t *)data);
    while (len) {
        ssize_t w = write(u->fd, data, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            log_error("%s upload %s: write failed: %s", u->store->kind->noun, u->name,
                      strerror(errno));
            return -1;
        }
        data += w;
        len -= (size_t)w;
        u->bytes += (uint64_t)w;
    }
    return 0;
}

uint64_t upload_bytes(const upload *u) { return u->bytes; }
const char *upload_path(const upload *u) { return u->tmp; }
const char *upload_name(const upload *u) { return u->name; }
const char *upload_format(const upload *u) { return u->format; }

void upload_abort(upload *u)
{
    if (!u)
        return;
    live_remove(u);
    if (u->fd >= 0)
        close(u->fd);
    unlink(u->tmp);
    free(u);
}

/* Remove an inspection directory (models.c's RSF check) left by a killed daemon: its one
 * file, then itself. */
static int empty_aside_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *ent;
    while ((ent = readdir(d))) {
        char p[CFG_PATH + 600];
        if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, ent->d_name);
        unlink(p);
    }
    closedir(d);
    return rmdir(dir);
}

/* Whether the partial file p is an upload's in progress (its file, or its .d). */
static int is_live(upload_store *s, const char *p)
{
    for (upload *u = s->live; u; u = u->next)
        if (strncmp(u->tmp, p, strlen(u->tmp)) == 0)
            return 1;
    return 0;
}

int upload_sweep_partial(upload_store *s, int64_t min_age_ms)
{
    DIR *d = opendir(s->dir);
    if (!d)
        return 0;
    const size_t plen = strlen(UPLOAD_PARTIAL_PREFIX);
    int removed = 0;
    int64_t now = now_ms();
    struct dirent *ent;
    pthread_mutex_lock(&s->live_lock); /* no upload starts or ends while its file is judged */
    while ((ent = readdir(d))) {
        if (strncmp(ent->d_name, UPLOAD_PARTIAL_PREFIX, plen) != 0)
            continue;
        char p[CFG_PATH + 300];
        snprintf(p, sizeof p, "%s/%s", s->dir, ent->d_name);
        struct stat st;
        if (is_live(s, p) || lstat(p, &st) != 0)
            continue;
        int64_t mtime = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
        if (now - mtime < min_age_ms)
            continue;
        if (S_ISDIR(st.st_mode) && empty_aside_dir(p) == 0) {
            removed++;
            log_info("removed the partial upload %s", ent->d_name);
        } else if (unlink(p) == 0) {
            removed++;
            log_info("removed the partial upload %s (%lld bytes)", ent->d_name,
                     (long long)st.st_size);
        }
    }
    pthread_mutex_unlock(&s->live_lock);
    closedir(d);
    return removed;
}

void upload_rename_in(char *msg, size_t cap, const char *from, const char *to)
{
    char out[1024];
    size_t n = 0, fl = strlen(from), tl = strlen(to);
    for (const char *p = msg; *p && n + 1 < sizeof out;) {
        if (fl && strncmp(p, from, fl) == 0 && n + tl + 1 < sizeof out) {
            memcpy(out + n, to, tl);
            n += tl;
            p += fl;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
    snprintf(msg, cap, "%s", out);
}

/* The row of an upload, conditionally: a new name is inserted only if no row exists; a
 * replacement updates the row only while it still belongs to r->owner, who stays the
 * owner. 1 when written, 0 when the condition failed, -1 on a database error. */
static int record_row(upload_store *s, sqlite3 *c, const upload_row *r, const void *facts,
                      int replacing)
{
    sqlite3_stmt *st = db_bind(db_stmt(c, replacing ? s->sql_update : s->sql_insert), "tttiti",
                               r->name, r->owner, r->format, (int64_t)r->bytes, r->sha256,
                               r->created_at);
    if (!st)
        return -1;
    s->kind->bind(st, facts);
    int rc = sqlite3_step(st);
    db_stmt_done(st);
    if (rc != SQLITE_DONE)
        return -1;
    return sqlite3_changes(c) == 1 ? 1 : 0;
}

/* The directory's entries made durable (after a rename or an unlink in it). */
static void sync_dir(const char *dir)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
}

/* The row decided and written and the file renamed into place, in one transaction (c
 * begun); r->owner set to the owner the upload keeps (in owner). 0, or -1 with e (rolled
 * back). */
static int commit_steps(upload *u, sqlite3 *c, upload_row *r, const void *facts,
                        char *owner, size_t cap, upload_error *e)
{
    upload_store *s = u->store;
    uint64_t old = 0;
    if (current_owner(s, u->name, owner, cap, &old)) {
        set_error(e, 500, "internal", NULL, "database error");
        return -1;
    }
    const int replacing = owner[0] != '\0';
    if (replacing && !may_replace(s, &u->who, u->name, owner, u->replace, e))
        return -1;
    if (!replacing)
        snprintf(owner, cap, "%s", u->owner);
    r->owner = owner;
    if (!within_quota(s, owner, u->bytes, old, e))
        return -1;
    int w = record_row(s, c, r, facts, replacing);
    if (w != 1) {
        if (w == 0)
            set_error(e, 409, "conflict", "name", "%s \"%s\" was created or changed by another "
                      "upload meanwhile", s->kind->noun, u->name);
        else
            set_error(e, 500, "internal", NULL, "cannot record the %s in the database",
                      s->kind->noun);
        return -1;
    }
    char final[CFG_PATH + 200];
    snprintf(final, sizeof final, "%s/%s", s->dir, u->name);
    if (rename(u->tmp, final) != 0) {
        set_error(e, 500, "internal", NULL, "cannot store the %s: %s", s->kind->noun,
                  strerror(errno));
        return -1;
    }
    sync_dir(s->dir);
    return 0;
}

/* The end of an upload, atomically against other uploads of the name (commit_steps under
 * the commit lock). r->owner is set to u->owner, the owner the upload keeps. 0, or -1
 * with e (the temporary file then stays for the caller to remove). */
static int commit_upload(upload *u, upload_row *r, const void *facts, upload_error *e)
{
    upload_store *s = u->store;
    sqlite3 *c = db(s->app->db);
    char owner[128];
    int rc = -1;
    pthread_mutex_lock(&s->commit_lock);
    if (!c || db_begin(c, 1) != SQLITE_OK) {
        set_error(e, 500, "internal", NULL, "database error");
    } else if (commit_steps(u, c, r, facts, owner, sizeof owner, e)) {
        db_rollback(c);
    } else if (db_commit(c) != SQLITE_OK) {
        /* The file is in place but its row is not: the previous row (if any) no longer
         * describes it. Remove the file so no job runs on content without a record. */
        char final[CFG_PATH + 200];
        snprintf(final, sizeof final, "%s/%s", s->dir, u->name);
        set_error(e, 500, "internal", NULL, "cannot record the %s in the database",
                  s->kind->noun);
        unlink(final);
    } else {
        rc = 0;
        snprintf(u->owner, sizeof u->owner, "%s", owner);
    }
    pthread_mutex_unlock(&s->commit_lock);
    r->owner = u->owner; /* not the local buffer above */
    return rc;
}

json_t *upload_finish(upload *u, upload_error *e)
{
    const upload_kind *k = u->store->kind;
    char hex[DIGEST_HEX_LEN + 1];
    digest_sha256_finish(&u->sha, hex);
    if (fsync(u->fd) != 0 || close(u->fd) != 0) {
        set_error(e, 500, "internal", NULL, "cannot write the %s to disk: %s", k->noun,
                  strerror(errno));
        u->fd = -1;
        upload_abort(u);
        return NULL;
    }
    u->fd = -1;
    void *facts = calloc(1, k->facts_size);
    upload_row r = {.name = u->name, .owner = u->owner, .format = u->format, .sha256 = hex,
                    .bytes = u->bytes, .created_at = now_ms()};
    json_t *j = NULL;
    if (!facts)
        set_error(e, 500, "internal", NULL, "out of memory");
    else if (k->inspect(u, facts, e) == 0 && commit_upload(u, &r, facts, e) == 0) {
        log_info("%s %s %s by %s for %s: %llu bytes, sha256 %s", k->noun, u->name,
                 u->replace ? "uploaded (replace)" : "uploaded", u->who.user, r.owner,
                 (unsigned long long)u->bytes, hex);
        j = k->new_json(&r, facts);
        if (!j)
            set_error(e, 500, "internal", NULL, "out of memory");
    }
    if (facts && k->facts_free)
        k->facts_free(facts);
    free(facts);
    if (j) {
        live_remove(u);
        free(u);
    } else {
        upload_abort(u);
    }
    return j;
}

json_t *upload_list(upload_store *s, const identity *who, const char *key)
{
    sqlite3 *c = db(s->app->db);
    sqlite3_stmt *st = db_stmt(c, s->sql_list);
    json_t *arr = json_array();
    if (db_bind(st, "nt", who->admin, who->user)) {
        while (sqlite3_step(st) == SQLITE_ROW)
            json_array_append_new(arr, s->kind->row_json(st));
        db_stmt_done(st);
    }
    return json_pack("{s:o}", key, arr);
}

json_t *upload_get(upload_store *s, const identity *who, const char *name, upload_error *e)
{
    sqlite3 *c = db(s->app->db);
    sqlite3_stmt *st = db_stmt(c, s->sql_one);
    json_t *j = NULL;
    if (!st) {
        set_error(e, 500, "internal", NULL, "database error");
        return NULL;
    }
    db_bind(st, "t", name);
    if (sqlite3_step(st) == SQLITE_ROW &&
        identity_may_read(who, (const char *)sqlite3_column_text(st, 1)))
        j = s->kind->row_json(st);
    db_stmt_done(st);
    if (!j)
        set_error(e, 404, "not_found", "name", "no %s named \"%.200s\"", s->kind->noun, name);
    return j;
}

/* The id of a queued or running job whose spec names the upload's file (its spec_files,
 * recorded by the one parse at submission), 0 if none, -1 on a database error: such an
 * upload is not removed, so that nothing already accepted loses its input. */
static long long job_using(sqlite3 *c, const char *path, char *state, size_t cap)
{
    sqlite3_stmt *st = db_stmt(c, "SELECT j.id, j.state FROM jobs j, json_each(j.spec_files) f WHERE "
                                  "j.state IN ('queued', 'running') AND j.spec_files IS NOT "
                                  "NULL AND json_extract(f.value, '$.path') = ?1 LIMIT 1");
    if (!db_bind(st, "t", path))
        return -1;
    const int rc = sqlite3_step(st);
    const long long id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : rc == SQLITE_DONE ? 0 : -1;
    if (id > 0)
        snprintf(state, cap, "%s", (const char *)sqlite3_column_text(st, 1));
    db_stmt_done(st);
    return id;
}

int upload_delete(upload_store *s, const identity *who, const char *name, upload_error *e)
{
    sqlite3 *c = db(s->app->db);
    char owner[128], path[CFG_PATH + 200];
    uint64_t bytes;
    int rc = -1;
    pthread_mutex_lock(&s->commit_lock);
    if (!c || db_begin(c, 1) != SQLITE_OK || current_owner(s, name, owner, sizeof owner, &bytes)) {
        set_error(e, 500, "internal", NULL, "database error");
        if (c)
            db_rollback(c);
        goto out;
    }
    const int mine = owner[0] && identity_may_read(who, owner);
    char real[PATH_MAX], state[16] = "";
    snprintf(path, sizeof path, "%s/%s", s->dir, name);
    const long long user =
        mine ? job_using(c, realpath(path, real) ? real : path, state, sizeof state) : 0;
    if (user != 0) {
        db_rollback(c);
        if (user > 0)
            set_error(e, 409, "conflict", "name", "%s \"%.200s\" is the input of job %lld, "
                      "which is %s; remove it once that job has ended (or cancel it)",
                      s->kind->noun, name, user, state);
        else
            set_error(e, 500, "internal", NULL, "database error");
        goto out;
    }
    sqlite3_stmt *st = mine ? db_stmt(c, s->sql_delete) : NULL;
    if (db_bind(st, "tt", name, owner)) {
        rc = sqlite3_step(st) == SQLITE_DONE && sqlite3_changes(c) == 1 ? 0 : -1;
        db_stmt_done(st);
    }
    if (rc == 0 && db_commit(c) == SQLITE_OK) {
        unlink(path); /* no row names it now: a crash before this leaves a file the next
                         upload of the name replaces */
        sync_dir(s->dir);
        log_info("%s %s (%llu bytes, %s's) removed by %s", s->kind->noun, name,
                 (unsigned long long)bytes, owner, who->user);
    } else {
        db_rollback(c);
        rc = -1;
        set_error(e, st ? 500 : 404, st ? "internal" : "not_found", "name",
                  st ? "cannot remove the %s \"%.200s\"" : "no %s named \"%.200s\"",
                  s->kind->noun, name);
    }
out:
    pthread_mutex_unlock(&s->commit_lock);
    return rc;
}

int upload_resolve(upload_store *s, const identity *who, const char *name, char *path,
                   size_t pathlen, char *format, size_t formatlen, char *sha256)
{
    const char *why;
    if (!s->kind->format_of(name, &why))
        return -1;
    sqlite3 *c = db(s->app->db);
    sqlite3_stmt *st = db_stmt(c, s->sql_one);
    int found = 0;
    if (!db_bind(st, "t", name))
        return -1;
    if (sqlite3_step(st) == SQLITE_ROW &&
        identity_may_read(who, (const char *)sqlite3_column_text(st, 1))) {
        found = 1;
        snprintf(format, formatlen, "%s", sqlite3_column_text(st, 2));
        if (sha256) /* cols: name, owner, format, bytes, sha256, ... */
            snprintf(sha256, 65, "%s", (const char *)sqlite3_column_text(st, 4));
    }
    db_stmt_done(st);
    if (!found)
        return -1;
    int n = snprintf(path, pathlen, "%s/%s", s->dir, name);
    return n > 0 && (size_t)n < pathlen ? 0 : -1;
}

int upload_in_dir(const upload_store *s, const char *real_path, const char **name)
{
    size_t n = strlen(s->dir);
    if (strncmp(real_path, s->dir, n) != 0 || real_path[n] != '/' || strchr(real_path + n + 1, '/'))
        return 0;
    *name = real_path + n + 1;
    return 1;
}
