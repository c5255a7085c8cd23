/* models.c — model uploads and lookup (see models.h). A model's bytes go to
 * data/models/.upload-<random> (hashed as they arrive), are fsync'd and inspected by the
 * engine, then renamed over data/models/<name> and the directory fsync'd, so a crash
 * leaves either the old file or the complete new one, never a partial or invalid model
 * under its real name. Facts of models stored before migration 002 are filled in on
 * their first use (models_resolve). */
#include "data/models.h"
#include "core/app.h"
#include "core/db.h"
#include "core/log.h"
#include "core/digest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

struct model_upload {
    fdwd_app *app;
    identity who;
    char owner[128];           /* who will own it: who, or the user an admin named */
    int replace;               /* ?replace=true: an existing model may be replaced */
    char name[160];
    const char *format;
    char tmp[CFG_PATH + 64];
    int fd;
    uint64_t bytes;
    struct sha256_ctx sha;
    struct model_upload *next; /* the store's live uploads, whose files the sweep keeps */
};

/* Uploads in progress, so the sweep of partial files spares theirs; and the one lock
 * under which a finished upload is checked against the table, renamed into place and
 * recorded, so two uploads of one name cannot interleave those steps. */
struct model_store {
    pthread_mutex_t live_lock;
    model_upload *live;
    pthread_mutex_t commit_lock;
};

int models_init(fdwd_app *app)
{
    struct model_store *ms = calloc(1, sizeof *ms);
    if (!ms)
        return -1;
    pthread_mutex_init(&ms->live_lock, NULL);
    pthread_mutex_init(&ms->commit_lock, NULL);
    app->models = ms;
    return 0;
}

static void live_add(model_upload *u)
{
    struct model_store *ms = u->app->models;
    pthread_mutex_lock(&ms->live_lock);
    u->next = ms->live;
    ms->live = u;
    pthread_mutex_unlock(&ms->live_lock);
}

static void live_remove(model_upload *u)
{
    struct model_store *ms = u->app->models;
    pthread_mutex_lock(&ms->live_lock);
    for (model_upload **p = &ms->live; *p; p = &(*p)->next)
        if (*p == u) {
            *p = u->next;
            break;
        }
    pthread_mutex_unlock(&ms->live_lock);
}

/* One row of the models table; has_facts 0 when its facts are not recorded yet. */
typedef struct model_row {
    const char *name, *owner, *format, *sha256;
    uint64_t bytes;
    int64_t created_at;
    int has_facts;
    fdw_model_info info;
} model_row;

#define MODEL_COLS                                                                         \
    "name, owner, format, bytes, sha256, created_at, nvalues, nx, ny, nz, dx, dy, dz, vmin, " \
    "vmax"

/* Check a model name: [A-Za-z0-9._-]{1,128}, not starting with '.', with a known
 * extension (.f32/.bin/.raw -> raw-f32, .segy/.sgy -> segy, .rsf -> rsf: the one-file
 * form, in="stdin"). Returns the format, or NULL with the reason in why. */
static const char *models_format_of(const char *name, const char **why)
{
    size_t n = strlen(name);
    if (n < 1 || n > 128) {
        *why = "model name must be 1 to 128 characters";
        return NULL;
    }
    if (name[0] == '.') {
        *why = "model name may not start with '.'";
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-')) {
            *why = "model name may only contain A-Z a-z 0-9 . _ - (no '/')";
            return NULL;
        }
    }
    const char *dot = strrchr(name, '.');
    if (dot) {
        if (!strcasecmp(dot, ".f32") || !strcasecmp(dot, ".bin") || !strcasecmp(dot, ".raw"))
            return "raw-f32";
        if (!strcasecmp(dot, ".segy") || !strcasecmp(dot, ".sgy"))
            return "segy";
        if (!strcasecmp(dot, ".rsf")) /* the one-file form only: see inspect_upload */
            return "rsf";
    }
    *why = "model name needs an extension naming its format: .f32, .bin, .raw (raw "
           "little-endian float32), .segy, .sgy (SEG-Y) or .rsf (Madagascar RSF, header and "
           "samples in one file)";
    return NULL;
}

/* Column i.. of st (MODEL_COLS order) as a model_row; text points into the row. */
static void read_row(sqlite3_stmt *st, model_row *m)
{
    memset(m, 0, sizeof *m);
    m->name = (const char *)sqlite3_column_text(st, 0);
    m->owner = (const char *)sqlite3_column_text(st, 1);
    m->format = (const char *)sqlite3_column_text(st, 2);
    m->bytes = (uint64_t)sqlite3_column_int64(st, 3);
    m->sha256 = (const char *)sqlite3_column_text(st, 4);
    m->created_at = sqlite3_column_int64(st, 5);
    m->has_facts = sqlite3_column_type(st, 6) != SQLITE_NULL;
    fdw_model_info *f = &m->info;
    snprintf(f->format, sizeof f->format, "%s", m->format ? m->format : "");
    snprintf(f->sha256, sizeof f->sha256, "%s", m->sha256 ? m->sha256 : "");
    if (!m->has_facts)
        return;
    f->nvalues = (uint64_t)sqlite3_column_int64(st, 6);
    f->nx = sqlite3_column_int(st, 7);
    f->ny = sqlite3_column_int(st, 8);
    f->nz = sqlite3_column_int(st, 9);
    f->dx = sqlite3_column_double(st, 10);
    f->dy = sqlite3_column_double(st, 11);
    f->dz = sqlite3_column_double(st, 12);
    f->vmin = sqlite3_column_double(st, 13);
    f->vmax = sqlite3_column_double(st, 14);
}

/* The API's object of a model: the upload answer and each entry of GET /v1/models. The
 * facts are null for a model stored before they were recorded and not used since. */
static json_t *model_json(const model_row *m)
{
    char when[32];
    fmt_time(m->created_at, when);
    json_t *j = json_pack("{s:s, s:I, s:s, s:s, s:s, s:s}", "name", m->name, "bytes",
                          (json_int_t)m->bytes, "sha256", m->sha256, "format", m->format,
                          "owner", m->owner, "created_at", when);
    if (!j)
        return NULL;
    const fdw_model_info *f = &m->info;
    if (!m->has_facts) {
        json_object_set_new(j, "nvalues", json_null());
        json_object_set_new(j, "dims", json_null());
        json_object_set_new(j, "spacing", json_null());
        json_object_set_new(j, "vmin", json_null());
        json_object_set_new(j, "vmax", json_null());
        return j;
    }
    json_object_set_new(j, "nvalues", json_integer((json_int_t)f->nvalues));
    /* Geometry and spacing as the file records them (raw-f32 records none: null). */
    json_object_set_new(j, "dims", f->nx > 0 ? json_pack("[i, i, i]", f->nx, f->ny, f->nz)
                                             : json_null());
    json_object_set_new(j, "spacing", f->dx > 0 || f->dy > 0 || f->dz > 0
                                          ? json_pack("[f, f, f]", f->dx, f->dy, f->dz)
                                          : json_null());
    json_object_set_new(j, "vmin", json_real(f->vmin));
    json_object_set_new(j, "vmax", json_real(f->vmax));
    return j;
}

/* Owner of an existing model, or "" if none. Returns -1 on error. */
static int model_owner(fdwd_app *app, const char *name, char *owner, size_t cap)
{
    sqlite3 *c = db(app->db);
    sqlite3_stmt *st = c ? db_stmt(c, "SELECT owner FROM models WHERE name = ?1") : NULL;
    owner[0] = '\0';
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        snprintf(owner, cap, "%s", sqlite3_column_text(st, 0));
    db_stmt_done(st);
    return 0;
}

static void set_error(model_error *e, int status, const char *code, const char *field,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void set_error(model_error *e, int status, const char *code, const char *field,
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

/* Whether an existing model (owner) may be replaced by who: the owner or an admin, and
 * only when the upload asked to replace. Fills e when not. */
static int may_replace(const identity *who, const char *name, const char *owner, int replace,
                       model_error *e)
{
    if (!identity_may_read(who, owner)) {
        set_error(e, 409, "conflict", "name",
                  "a model named \"%s\" already belongs to another user", name);
        return 0;
    }
    if (!replace) {
        set_error(e, 409, "conflict", "name",
                  "model \"%s\" exists; upload with ?replace=true to replace its content "
                  "(its owner stays %s)",
                  name, owner);
        return 0;
    }
    return 1;
}

model_upload *models_upload_begin(fdwd_app *app, const identity *who, const char *name,
                                  const char *replace, const char *owner, model_error *e)
{
    const char *why = NULL;
    const char *fmt = models_format_of(name, &why);
    if (!fmt) {
        set_error(e, 400, "bad_request", "name", "%s", why);
        return NULL;
    }
    int rep = 0;
    if (replace) {
        if (!strcmp(replace, "true") || !strcmp(replace, "1"))
            rep = 1;
        else if (strcmp(replace, "false") != 0 && strcmp(replace, "0") != 0) {
            set_error(e, 400, "bad_request", "replace", "replace must be true or false");
            return NULL;
        }
    }
    if (owner && !who->admin) {
        set_error(e, 403, "forbidden", "owner",
                  "only an admin may upload a model for another user");
        return NULL;
    }
    if (owner && !identity_valid_name(owner)) {
        set_error(e, 400, "bad_request", "owner", "owner must be 1 to 64 of A-Z a-z 0-9 . _ @ -");
        return NULL;
    }
    char current[128];
    if (model_owner(app, name, current, sizeof current)) {
        set_error(e, 500, "internal", NULL, "database error");
        return NULL;
    }
    /* Checked now so a refused upload is not read; checked again, atomically, at the end. */
    if (current[0] && !may_replace(who, name, current, rep, e))
        return NULL;
    if (current[0] && owner && strcmp(owner, current) != 0) {
        set_error(e, 409, "conflict", "owner",
                  "model \"%s\" belongs to %s; a replacement keeps its owner", name, current);
        return NULL;
    }
    model_upload *u = calloc(1, sizeof *u);
    if (!u) {
        set_error(e, 500, "internal", NULL, "out of memory");
        return NULL;
    }
    u->app = app;
    u->who = *who;
    snprintf(u->owner, sizeof u->owner, "%s", owner ? owner : who->user);
    u->replace = rep;
    snprintf(u->name, sizeof u->name, "%s", name);
    u->format = fmt;
    unsigned long long r = 0;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
        r = (unsigned long long)now_ms() ^ (unsigned long long)getpid();
    snprintf(u->tmp, sizeof u->tmp, "%s/" MODELS_PARTIAL_PREFIX "%016llx", app->models_dir, r);
    u->fd = open(u->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
    if (u->fd < 0) {
        set_error(e, 500, "internal", NULL, "cannot create a temporary file for the upload: %s",
                  strerror(errno));
        free(u);
        return NULL;
    }
    sha256_init(&u->sha);
    live_add(u);
    return u;
}

int models_upload_write(model_upload *u, const char *data, size_t len)
{
    sha256_update(&u->sha, len, (const uint8_t *)data);
    while (len) {
        ssize_t w = write(u->fd, data, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            log_error("model upload %s: write failed: %s", u->name, strerror(errno));
            return -1;
        }
        data += w;
        len -= (size_t)w;
        u->bytes += (uint64_t)w;
    }
    return 0;
}

uint64_t models_upload_bytes(const model_upload *u) { return u->bytes; }

void models_upload_abort(model_upload *u)
{
    if (!u)
        return;
    live_remove(u);
    if (u->fd >= 0)
        close(u->fd);
    unlink(u->tmp);
    free(u);
}

/* Remove an RSF upload's inspection directory (inspect_upload) left by a killed daemon:
 * its one file, then itself. */
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

int models_sweep_partial(fdwd_app *app, int64_t min_age_ms)
{
    struct model_store *ms = app->models;
    DIR *d = opendir(app->models_dir);
    if (!d)
        return 0;
    const size_t plen = strlen(MODELS_PARTIAL_PREFIX);
    int removed = 0;
    int64_t now = now_ms();
    struct dirent *ent;
    pthread_mutex_lock(&ms->live_lock); /* no upload starts or ends while its file is judged */
    while ((ent = readdir(d))) {
        if (strncmp(ent->d_name, MODELS_PARTIAL_PREFIX, plen) != 0)
            continue;
        char p[CFG_PATH + 300];
        snprintf(p, sizeof p, "%s/%s", app->models_dir, ent->d_name);
        int live = 0; /* its file, or its .d (inspect_upload) */
        for (model_upload *u = ms->live; u && !live; u = u->next)
            live = strncmp(u->tmp, p, strlen(u->tmp)) == 0;
        struct stat st;
        if (live || lstat(p, &st) != 0)
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
    pthread_mutex_unlock(&ms->live_lock);
    closedir(d);
    return removed;
}

/* msg with every mention of the temporary file replaced by the model's name, so an
 * answer never shows the server's paths. */
static void name_the_model(char *msg, size_t cap, const char *tmp, const char *name)
{
    char out[sizeof ((model_error *)0)->message];
    size_t n = 0, tl = strlen(tmp), nl = strlen(name);
    for (const char *p = msg; *p && n + 1 < sizeof out;) {
        if (strncmp(p, tmp, tl) == 0 && n + nl + 1 < sizeof out) {
            memcpy(out + n, name, nl);
            n += nl;
            p += tl;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
    snprintf(msg, cap, "%s", out);
}

/* Bind the columns of m (MODEL_COLS order) to st. */
static void bind_row(sqlite3_stmt *st, const model_row *m)
{
    const fdw_model_info *f = &m->info;
    sqlite3_bind_text(st, 1, m->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, m->owner, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, m->format, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)m->bytes);
    sqlite3_bind_text(st, 5, m->sha256, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, m->created_at);
    sqlite3_bind_int64(st, 7, (sqlite3_int64)f->nvalues);
    sqlite3_bind_int(st, 8, f->nx);
    sqlite3_bind_int(st, 9, f->ny);
    sqlite3_bind_int(st, 10, f->nz);
    sqlite3_bind_double(st, 11, f->dx);
    sqlite3_bind_double(st, 12, f->dy);
    sqlite3_bind_double(st, 13, f->dz);
    sqlite3_bind_double(st, 14, f->vmin);
    sqlite3_bind_double(st, 15, f->vmax);
}

/* The row of a model, conditionally: a new name is inserted only if no row exists; a
 * replacement updates the row only while it still belongs to owner (m->owner), who stays
 * the owner. Returns 1 when the row was written, 0 when the condition failed, -1 on a
 * database error. */
static int record_model(sqlite3 *c, const model_row *m, int replacing)
{
    sqlite3_stmt *st =
        replacing
            ? db_stmt(c, "UPDATE models SET format = ?3, bytes = ?4, sha256 = ?5, "
                         "created_at = ?6, nvalues = ?7, nx = ?8, ny = ?9, nz = ?10, dx = ?11, "
                         "dy = ?12, dz = ?13, vmin = ?14, vmax = ?15 "
                         "WHERE name = ?1 AND owner = ?2")
            : db_stmt(c, "INSERT INTO models (" MODEL_COLS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
                         "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15) ON CONFLICT(name) DO "
                         "NOTHING");
    if (!st)
        return -1;
    bind_row(st, m);
    int rc = sqlite3_step(st);
    db_stmt_done(st);
    if (rc != SQLITE_DONE)
        return -1;
    return sqlite3_changes(c) == 1 ? 1 : 0;
}

/* The end of an upload, atomically against other uploads of the name: the table is read
 * again, the upload's right to create or replace decided, the file renamed into place
 * and the row written in one transaction under the store's commit lock. m->owner is set to the
 * owner the model keeps. Returns 0, or -1 with e filled (the temporary file then stays
 * for the caller to remove). */
static int commit_upload(model_upload *u, model_row *m, model_error *e)
{
    fdwd_app *app = u->app;
    struct model_store *ms = u->app->models;
    char final[CFG_PATH + 200];
    snprintf(final, sizeof final, "%s/%s", app->models_dir, u->name);
    sqlite3 *c = db(app->db);
    pthread_mutex_lock(&ms->commit_lock);
    int rc = -1;
    char current[128];
    if (!c || db_begin(c, 1) != SQLITE_OK) {
        set_error(e, 500, "internal", NULL, "database error");
        goto out;
    }
    if (model_owner(app, u->name, current, sizeof current)) {
        set_error(e, 500, "internal", NULL, "database error");
        db_rollback(c);
        goto out;
    }
    const int replacing = current[0] != '\0';
    if (replacing && !may_replace(&u->who, u->name, current, u->replace, e)) {
        db_rollback(c);
        goto out;
    }
    m->owner = replacing ? current : u->owner;
    int w = record_model(c, m, replacing);
    if (w != 1) {
        if (w == 0)
            set_error(e, 409, "conflict", "name",
                      "model \"%s\" was created or changed by another upload meanwhile", u->name);
        else
            set_error(e, 500, "internal", NULL, "cannot record the model in the database");
        db_rollback(c);
        goto out;
    }
    if (rename(u->tmp, final) != 0) {
        set_error(e, 500, "internal", NULL, "cannot store the model: %s", strerror(errno));
        db_rollback(c);
        goto out;
    }
    int dfd = open(app->models_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    if (db_commit(c) != SQLITE_OK) {
        /* The file is in place but its row is not: the previous row (if any) no longer
         * describes it. Remove the file so no job runs on content without a record. */
        set_error(e, 500, "internal", NULL, "cannot record the model in the database");
        unlink(final);
        goto out;
    }
    rc = 0;
out:
    pthread_mutex_unlock(&ms->commit_lock);
    if (rc == 0 && m->owner != u->owner)
        snprintf(u->owner, sizeof u->owner, "%s", m->owner);
    m->owner = u->owner; /* not the local buffer above */
    return rc;
}

/* fdw_model_inspect of the uploaded file, its messages naming the model instead of the
 * server's paths. An RSF header names the file of its samples (in=, relative to the
 * header's directory, which the engine does not let it leave): an upload is inspected
 * alone in a new empty directory, so only the one-file form (in="stdin": the samples
 * follow the header) can be valid, and no upload can point at another model. */
static fdw_status inspect_upload(model_upload *u, fdw_model_info *info, fdw_error *fe)
{
    if (strcmp(u->format, "rsf") != 0) {
        fdw_status st = fdw_model_inspect(u->tmp, u->format, "body", info, fe);
        name_the_model(fe->message, sizeof fe->message, u->tmp, u->name);
        return st;
    }
    char dir[sizeof u->tmp + 4], alone[sizeof dir + 200];
    snprintf(dir, sizeof dir, "%s.d", u->tmp);
    snprintf(alone, sizeof alone, "%s/%s", dir, u->name);
    if (mkdir(dir, 0700) != 0 || rename(u->tmp, alone) != 0) {
        fdw_status st = FDW_ERR_IO;
        snprintf(fe->message, sizeof fe->message, "cannot set the upload aside: %s",
                 strerror(errno));
        rmdir(dir);
        return st;
    }
    fdw_status st = fdw_model_inspect(alone, u->format, "body", info, fe);
    if (rename(alone, u->tmp) != 0 && st == FDW_OK) {
        st = FDW_ERR_IO;
        snprintf(fe->message, sizeof fe->message, "cannot take the upload back: %s",
                 strerror(errno));
    }
    rmdir(dir);
    name_the_model(fe->message, sizeof fe->message, alone, u->name);
    char dir_slash[sizeof dir + 1];
    snprintf(dir_slash, sizeof dir_slash, "%s/", dir);
    name_the_model(fe->message, sizeof fe->message, dir_slash, ""); /* in= as written */
    if (st == FDW_ERR_SPEC && (strstr(fe->message, "RSF binary") || strstr(fe->message, "in=")))
        snprintf(fe->message + strlen(fe->message), sizeof fe->message - strlen(fe->message),
                 "; an uploaded RSF model holds its samples itself: its header says "
                 "in=\"stdin\" and the samples follow the bytes 0x0c 0x0c 0x04 (as Madagascar "
                 "writes it with out=stdin)");
    return st;
}

json_t *models_upload_finish(model_upload *u, model_error *e)
{
    char hex[DIGEST_HEX_LEN + 1];
    digest_sha256_finish(&u->sha, hex);
    if (fsync(u->fd) != 0 || close(u->fd) != 0) {
        set_error(e, 500, "internal", NULL, "cannot write the model to disk: %s",
                  strerror(errno));
        u->fd = -1;
        models_upload_abort(u);
        return NULL;
    }
    u->fd = -1;
    /* The one read of the file: is it a model of its format, and what does it hold? */
    model_row m = {.name = u->name, .owner = u->owner, .format = u->format, .sha256 = hex,
                   .bytes = u->bytes, .created_at = now_ms(), .has_facts = 1};
    fdw_error fe = {0};
    fdw_status st = inspect_upload(u, &m.info, &fe);
    if (st != FDW_OK) {
        if (st == FDW_ERR_SPEC)
            set_error(e, 400, "invalid_model", "body", "%s is not a valid %s model: %s",
                      u->name, u->format, fe.message);
        else
            set_error(e, 500, "internal", NULL, "cannot check the model %s: %s", u->name,
                      fe.message);
        models_upload_abort(u);
        return NULL;
    }
    if (m.info.nvalues == 0) {
        set_error(e, 400, "invalid_model", "body", "%s is not a valid %s model: it is empty",
                  u->name, u->format);
        models_upload_abort(u);
        return NULL;
    }
    if (m.info.sha256[0] && strcmp(m.info.sha256, hex) != 0) {
        set_error(e, 500, "internal", NULL,
                  "the stored model %s changed while it was checked (sha256 %s, then %s)",
                  u->name, hex, m.info.sha256);
        models_upload_abort(u);
        return NULL;
    }
    snprintf(m.info.sha256, sizeof m.info.sha256, "%s", hex);
    snprintf(m.info.format, sizeof m.info.format, "%s", u->format);
    if (commit_upload(u, &m, e)) {
        models_upload_abort(u);
        return NULL;
    }
    log_info("model %s %s by %s for %s: %llu bytes, %llu values %g..%g m/s, sha256 %s",
             u->name, u->replace ? "uploaded (replace)" : "uploaded", u->who.user, m.owner,
             (unsigned long long)u->bytes, (unsigned long long)m.info.nvalues, m.info.vmin,
             m.info.vmax, hex);
    json_t *j = model_json(&m);
    live_remove(u);
    free(u);
    if (!j)
        set_error(e, 500, "internal", NULL, "out of memory");
    return j;
}

json_t *models_list(fdwd_app *app, const identity *who)
{
    sqlite3 *c = db(app->db);
    sqlite3_stmt *st;
    json_t *arr = json_array();
    if (c && sqlite3_prepare_v2(c,
                                "SELECT " MODEL_COLS " FROM models WHERE ?1 OR owner = ?2 "
                                "ORDER BY name",
                                -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int(st, 1, who->admin);
        sqlite3_bind_text(st, 2, who->user, -1, SQLITE_STATIC);
        while (sqlite3_step(st) == SQLITE_ROW) {
            model_row m;
            read_row(st, &m);
            json_array_append_new(arr, model_json(&m));
        }
        sqlite3_finalize(st);
    }
    return json_pack("{s:o}", "models", arr);
}

/* Facts of a model stored before they were recorded: inspect its file now and keep them,
 * unless the model was replaced meanwhile (its created_at moved). */
static void learn_facts(fdwd_app *app, const char *path, const char *name, const char *format,
                        int64_t created_at, fdw_model_info *info)
{
    fdw_error fe = {0};
    fdw_model_info found = {0};
    if (fdw_model_inspect(path, format, "velocity.name", &found, &fe) != FDW_OK) {
        log_warn("model %s: cannot record its facts: %s", name, fe.message);
        return; /* info->nvalues stays 0: the engine reads the file and says why */
    }
    snprintf(found.format, sizeof found.format, "%s", format);
    snprintf(found.sha256, sizeof found.sha256, "%s", info->sha256);
    sqlite3 *c = db(app->db);
    sqlite3_stmt *st =
        c ? db_stmt(c, "UPDATE models SET nvalues = ?1, nx = ?2, ny = ?3, nz = ?4, dx = ?5, "
                       "dy = ?6, dz = ?7, vmin = ?8, vmax = ?9 WHERE name = ?10 AND "
                       "created_at = ?11")
          : NULL;
    if (st) {
        sqlite3_bind_int64(st, 1, (sqlite3_int64)found.nvalues);
        sqlite3_bind_int(st, 2, found.nx);
        sqlite3_bind_int(st, 3, found.ny);
        sqlite3_bind_int(st, 4, found.nz);
        sqlite3_bind_double(st, 5, found.dx);
        sqlite3_bind_double(st, 6, found.dy);
        sqlite3_bind_double(st, 7, found.dz);
        sqlite3_bind_double(st, 8, found.vmin);
        sqlite3_bind_double(st, 9, found.vmax);
        sqlite3_bind_text(st, 10, name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 11, created_at);
        if (sqlite3_step(st) == SQLITE_DONE)
            log_info("model %s: recorded its facts (%llu values, %g..%g m/s)", name,
                     (unsigned long long)found.nvalues, found.vmin, found.vmax);
        db_stmt_done(st);
    }
    *info = found;
}

int models_resolve(const app_caller *caller, const char *name, char *path, size_t pathlen,
                   fdw_model_info *info)
{
    fdwd_app *app = caller->app;
    const identity *who = caller->who;
    const char *why;
    memset(info, 0, sizeof *info);
    if (!models_format_of(name, &why))
        return -1;
    sqlite3 *c = db(app->db);
    sqlite3_stmt *st =
        c ? db_stmt(c, "SELECT " MODEL_COLS " FROM models WHERE name = ?1") : NULL;
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int found = 0, has_facts = 0;
    int64_t created_at = 0;
    char format[16] = "";
    if (sqlite3_step(st) == SQLITE_ROW) {
        model_row m;
        read_row(st, &m);
        found = identity_may_read(who, m.owner);
        if (found) {
            *info = m.info;
            has_facts = m.has_facts;
            created_at = m.created_at;
            snprintf(format, sizeof format, "%s", m.format);
        }
    }
    db_stmt_done(st);
    if (!found)
        return -1;
    int n = snprintf(path, pathlen, "%s/%s", app->models_dir, name);
    if (n <= 0 || (size_t)n >= pathlen)
        return -1;
    if (!has_facts)
        learn_facts(app, path, name, format, created_at, info);
    return 0;
}
