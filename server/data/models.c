/* models.c — the model kind of the upload store (see models.h, upload_store.h): a
 * model's name gives its format, fdw_model_inspect checks it at upload and its facts are
 * recorded with it; lookup by name for jobs. Facts of models stored before migration 002
 * are filled in on their first use (models_resolve). */
#include "data/models.h"
#include "core/app.h"
#include "core/db.h"
#include "core/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* A model's format from its name (upload_name_format): raw-f32, segy or rsf (the one-file
 * form, in="stdin"). NULL with the reason in why. */
static const char *models_format_of(const char *name, const char **why)
{
    const char *f = upload_name_format(name, why);
    if (f || *why)
        return f;
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

/* Bind a model's facts (MODEL_COLS from the seventh) to st (upload_kind.bind). */
static void bind_facts(sqlite3_stmt *st, const void *facts)
{
    const fdw_model_info *f = facts;
    db_bind(st, "------innnfffff", (int64_t)f->nvalues, f->nx, f->ny, f->nz, f->dx, f->dy, f->dz,
            f->vmin, f->vmax);
}

/* fdw_model_inspect of the uploaded file, its messages naming the model instead of the
 * server's paths. An RSF header names the file of its samples (in=, relative to the
 * header's directory, which the engine does not let it leave): an upload is inspected
 * alone in a new empty directory, so only the one-file form (in="stdin": the samples
 * follow the header) can be valid, and no upload can point at another model. */
static fdw_status inspect_file(upload *u, fdw_model_info *info, fdw_error *fe)
{
    const char *tmp = upload_path(u), *name = upload_name(u), *format = upload_format(u);
    if (strcmp(format, "rsf") != 0) {
        fdw_status st = fdw_model_inspect(tmp, format, "body", info, fe);
        upload_rename_in(fe->message, sizeof fe->message, tmp, name);
        return st;
    }
    char dir[CFG_PATH + 80], alone[sizeof dir + 200];
    snprintf(dir, sizeof dir, "%s.d", tmp);
    snprintf(alone, sizeof alone, "%s/%s", dir, name);
    if (mkdir(dir, 0700) != 0 || rename(tmp, alone) != 0) {
        fdw_status st = FDW_ERR_IO;
        snprintf(fe->message, sizeof fe->message, "cannot set the upload aside: %s",
                 strerror(errno));
        rmdir(dir);
        return st;
    }
    fdw_status st = fdw_model_inspect(alone, format, "body", info, fe);
    if (rename(alone, tmp) != 0 && st == FDW_OK) {
        st = FDW_ERR_IO;
        snprintf(fe->message, sizeof fe->message, "cannot take the upload back: %s",
                 strerror(errno));
    }
    rmdir(dir);
    upload_rename_in(fe->message, sizeof fe->message, alone, name);
    char dir_slash[sizeof dir + 1];
    snprintf(dir_slash, sizeof dir_slash, "%s/", dir);
    upload_rename_in(fe->message, sizeof fe->message, dir_slash, ""); /* in= as written */
    if (st == FDW_ERR_SPEC && (strstr(fe->message, "RSF binary") || strstr(fe->message, "in=")))
        snprintf(fe->message + strlen(fe->message), sizeof fe->message - strlen(fe->message),
                 "; an uploaded RSF model holds its samples itself: its header says "
                 "in=\"stdin\" and the samples follow the bytes 0x0c 0x0c 0x04 (as Madagascar "
                 "writes it with out=stdin)");
    return st;
}

/* The check of a finished model upload (upload_kind.inspect): a valid, non-empty model of
 * its format, its facts into facts (an fdw_model_info). */
static int inspect_upload(upload *u, void *facts, upload_error *e)
{
    fdw_model_info *info = facts;
    fdw_error fe = {0};
    const char *name = upload_name(u), *format = upload_format(u);
    fdw_status st = inspect_file(u, info, &fe);
    e->field = "body";
    if (st != FDW_OK && st != FDW_ERR_SPEC) {
        e->status = 500, e->code = "internal", e->field = NULL;
        snprintf(e->message, sizeof e->message, "cannot check the model %s: %.600s", name,
                 fe.message);
        return -1;
    }
    e->status = 400, e->code = "invalid_model";
    if (st != FDW_OK || info->nvalues == 0) {
        snprintf(e->message, sizeof e->message, "%s is not a valid %s model: %.600s", name, format,
                 st != FDW_OK ? fe.message : "it is empty");
        return -1;
    }
    snprintf(info->format, sizeof info->format, "%s", format);
    return 0;
}

/* A model's JSON from a SELECT of MODEL_COLS (upload_kind.row_json). */
static json_t *row_json(sqlite3_stmt *st)
{
    model_row m;
    read_row(st, &m);
    return model_json(&m);
}

/* A new upload's JSON (upload_kind.new_json). */
static json_t *new_json(const upload_row *r, const void *facts)
{
    model_row m = {.name = r->name, .owner = r->owner, .format = r->format,
                   .sha256 = r->sha256, .bytes = r->bytes, .created_at = r->created_at,
                   .has_facts = 1, .info = *(const fdw_model_info *)facts};
    return model_json(&m);
}

static const upload_kind MODEL_KIND = {
    .noun = "model",
    .table = "models",
    .cols = MODEL_COLS,
    .facts_size = sizeof(fdw_model_info),
    .format_of = models_format_of,
    .inspect = inspect_upload,
    .bind = bind_facts,
    .update_set = "nvalues = ?7, nx = ?8, ny = ?9, nz = ?10, dx = ?11, dy = ?12, dz = ?13, "
                  "vmin = ?14, vmax = ?15",
    .row_json = row_json,
    .new_json = new_json,
};

int models_init(fdwd_app *app)
{
    app->models = upload_store_new(app, &MODEL_KIND, app->models_dir);
    return app->models ? 0 : -1;
}

json_t *models_list(fdwd_app *app, const identity *who)
{
    return upload_list(app->models, who, "models");
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
    /* the facts' parameters are numbered as in an upload's row (bind_facts) */
    sqlite3_stmt *st = db_stmt(c, "UPDATE models SET nvalues = ?7, nx = ?8, ny = ?9, nz = ?10, "
                               "dx = ?11, dy = ?12, dz = ?13, vmin = ?14, vmax = ?15 WHERE name "
                               "= ?1 AND created_at = ?6");
    if (db_bind(st, "t----i", name, created_at)) {
        bind_facts(st, &found);
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
    sqlite3_stmt *st = db_stmt(c, "SELECT " MODEL_COLS " FROM models WHERE name = ?1");
    if (!db_bind(st, "t", name))
        return -1;
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
