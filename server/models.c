/* models.c — model uploads and lookup (see models.h). A model's bytes go to
 * data/models/.upload-<random>, are fsync'd, then renamed over data/models/<name> and
 * the directory fsync'd, so a crash leaves either the old file or the complete new one,
 * never a partial model under its real name. */
#include "models.h"
#include "app.h"
#include "db.h"
#include "log.h"
#include "digest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>

struct model_upload {
    identity who;
    char name[160];
    const char *format;
    char tmp[CFG_PATH + 64];
    int fd;
    uint64_t bytes;
    struct sha256_ctx sha;
};

const char *models_format_of(const char *name, const char **why)
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
        if (!strcasecmp(dot, ".rsf")) {
            *why = "RSF models cannot be uploaded (an RSF header names a separate binary); "
                   "upload the binary as NAME.f32 instead";
            return NULL;
        }
    }
    *why = "model name needs an extension naming its format: .f32, .bin, .raw (raw "
           "little-endian float32) or .segy, .sgy (SEG-Y)";
    return NULL;
}

/* Owner of an existing model, or "" if none. Returns -1 on error. */
static int model_owner(const char *name, char *owner, size_t cap)
{
    sqlite3 *c = db();
    sqlite3_stmt *st;
    owner[0] = '\0';
    if (!c || sqlite3_prepare_v2(c, "SELECT owner FROM models WHERE name = ?1", -1, &st,
                                 NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        snprintf(owner, cap, "%s", sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return 0;
}

model_upload *models_upload_begin(const identity *who, const char *name, int *status,
                                  char *err, size_t errlen)
{
    const char *why = NULL;
    const char *fmt = models_format_of(name, &why);
    if (!fmt) {
        *status = 400;
        snprintf(err, errlen, "%s", why);
        return NULL;
    }
    char owner[128];
    if (model_owner(name, owner, sizeof owner)) {
        *status = 500;
        snprintf(err, errlen, "database error");
        return NULL;
    }
    if (owner[0] && strcmp(owner, who->user) != 0 && !who->admin) {
        *status = 409;
        snprintf(err, errlen, "a model named \"%s\" already belongs to another user", name);
        return NULL;
    }
    model_upload *u = calloc(1, sizeof *u);
    if (!u) {
        *status = 500;
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    u->who = *who;
    snprintf(u->name, sizeof u->name, "%s", name);
    u->format = fmt;
    unsigned long long r = 0;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
        r = (unsigned long long)now_ms() ^ (unsigned long long)getpid();
    snprintf(u->tmp, sizeof u->tmp, "%s/.upload-%016llx", g_app.models_dir, r);
    u->fd = open(u->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
    if (u->fd < 0) {
        *status = 500;
        snprintf(err, errlen, "cannot create %s: %s", u->tmp, strerror(errno));
        free(u);
        return NULL;
    }
    sha256_init(&u->sha);
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
    if (u->fd >= 0)
        close(u->fd);
    unlink(u->tmp);
    free(u);
}

json_t *models_upload_finish(model_upload *u, char *err, size_t errlen)
{
    char hex[DIGEST_HEX_LEN + 1];
    digest_sha256_finish(&u->sha, hex);
    char final[CFG_PATH + 200];
    snprintf(final, sizeof final, "%s/%s", g_app.models_dir, u->name);
    if (fsync(u->fd) != 0 || close(u->fd) != 0) {
        snprintf(err, errlen, "cannot write the model to disk: %s", strerror(errno));
        u->fd = -1;
        models_upload_abort(u);
        return NULL;
    }
    u->fd = -1;
    if (rename(u->tmp, final) != 0) {
        snprintf(err, errlen, "cannot store the model: %s", strerror(errno));
        models_upload_abort(u);
        return NULL;
    }
    int dfd = open(g_app.models_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    int64_t now = now_ms();
    sqlite3 *c = db();
    sqlite3_stmt *st;
    int ok = 0;
    if (c && sqlite3_prepare_v2(c,
                                "INSERT OR REPLACE INTO models (name, owner, format, bytes, "
                                "sha256, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                                -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, u->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, u->who.user, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, u->format, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, (sqlite3_int64)u->bytes);
        sqlite3_bind_text(st, 5, hex, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 6, now);
        ok = sqlite3_step(st) == SQLITE_DONE;
        sqlite3_finalize(st);
    }
    if (!ok) {
        snprintf(err, errlen, "cannot record the model in the database");
        unlink(final);
        free(u);
        return NULL;
    }
    char when[32];
    fmt_time(now, when);
    json_t *j = json_pack("{s:s, s:I, s:s, s:s, s:s, s:s}", "name", u->name, "bytes",
                          (json_int_t)u->bytes, "sha256", hex, "format", u->format, "owner",
                          u->who.user, "created_at", when);
    log_info("model %s uploaded by %s: %llu bytes, sha256 %s", u->name, u->who.user,
             (unsigned long long)u->bytes, hex);
    free(u);
    return j;
}

json_t *models_list(const identity *who)
{
    sqlite3 *c = db();
    sqlite3_stmt *st;
    json_t *arr = json_array();
    if (c && sqlite3_prepare_v2(c,
                                "SELECT name, bytes, sha256, format, owner, created_at FROM "
                                "models WHERE ?1 OR owner = ?2 ORDER BY name",
                                -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int(st, 1, who->admin);
        sqlite3_bind_text(st, 2, who->user, -1, SQLITE_STATIC);
        while (sqlite3_step(st) == SQLITE_ROW) {
            char when[32];
            fmt_time(sqlite3_column_int64(st, 5), when);
            json_array_append_new(
                arr, json_pack("{s:s, s:I, s:s, s:s, s:s, s:s}", "name",
                               (const char *)sqlite3_column_text(st, 0), "bytes",
                               (json_int_t)sqlite3_column_int64(st, 1), "sha256",
                               (const char *)sqlite3_column_text(st, 2), "format",
                               (const char *)sqlite3_column_text(st, 3), "owner",
                               (const char *)sqlite3_column_text(st, 4), "created_at", when));
        }
        sqlite3_finalize(st);
    }
    return json_pack("{s:o}", "models", arr);
}

int models_resolve(void *user, const char *name, char *path, size_t pathlen)
{
    const identity *who = user;
    const char *why;
    if (!models_format_of(name, &why))
        return -1;
    char owner[128];
    if (model_owner(name, owner, sizeof owner) || !owner[0])
        return -1;
    if (strcmp(owner, who->user) != 0 && !who->admin)
        return -1;
    int n = snprintf(path, pathlen, "%s/%s", g_app.models_dir, name);
    return n > 0 && (size_t)n < pathlen ? 0 : -1;
}
