/* datasets.c — the data kind of the upload store (see datasets.h): a name's extension
 * gives its format (SEG-Y or raw float32; no RSF), fdw_data_inspect checks the file as a
 * job's reader would and learns its traces, samples, interval and FFIDs, which the row
 * keeps and GET /v1/data shows. */
#include "data/datasets.h"
#include "core/db.h"
#include "fdwave/fdwave.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA_COLS                                                                          \
    "name, owner, format, bytes, sha256, created_at, traces, samples, sample_interval, ffids"

/* What an upload's inspection learned, and its FFIDs as the row's JSON text. */
typedef struct data_facts {
    fdw_data_info info;
    char *ffids;
} data_facts;

/* A data upload's format from its name: raw-f32 or segy. NULL with the reason in why. */
static const char *data_format_of(const char *name, const char **why)
{
    const char *f = upload_name_format(name, why);
    if (f && strcmp(f, "rsf") != 0)
        return f;
    if (!*why)
        *why = "data name needs an extension naming its format: .segy, .sgy (SEG-Y shot "
               "gathers) or .f32, .bin, .raw (raw little-endian float32 traces)";
    return NULL;
}

/* The check of a finished data upload (upload_kind.inspect): the engine's reader rules. */
static int inspect_upload(upload *u, void *facts, upload_error *e)
{
    data_facts *d = facts;
    fdw_error fe = {0};
    const char *name = upload_name(u), *format = upload_format(u);
    fdw_status st = fdw_data_inspect(upload_path(u), format, "body", &d->info, &fe);
    upload_rename_in(fe.message, sizeof fe.message, upload_path(u), name);
    if (st == FDW_OK) {
        json_t *arr = json_array();
        for (int i = 0; arr && i < d->info.nshots; i++)
            json_array_append_new(arr, json_integer(d->info.ffids[i]));
        d->ffids = arr ? json_dumps(arr, JSON_COMPACT) : NULL;
        json_decref(arr);
        if (d->ffids)
            return 0;
        snprintf(fe.message, sizeof fe.message, "out of memory");
        st = FDW_ERR_NOMEM;
    }
    const int bad = st == FDW_ERR_SPEC;
    e->status = bad ? 400 : 500;
    e->code = bad ? "invalid_data" : "internal";
    e->field = bad ? "body" : NULL;
    snprintf(e->message, sizeof e->message, "%s %s: %.600s", name,
             bad ? "is not valid data of its format" : "could not be checked", fe.message);
    if (bad)
        snprintf(e->message + strlen(e->message), sizeof e->message - strlen(e->message),
                 " (its format, %s, comes from the name's extension)", format);
    return -1;
}

static void facts_free(void *facts)
{
    data_facts *d = facts;
    free(d->info.ffids);
    free(d->ffids);
}

/* Bind the facts (DATA_COLS from the seventh) to st (upload_kind.bind). */
static void bind_facts(sqlite3_stmt *st, const void *facts)
{
    const data_facts *d = facts;
    db_bind(st, "------inft", (int64_t)d->info.traces, d->info.samples, d->info.sample_interval,
            d->ffids);
}

/* The API's object of an upload from its row and facts (ffids: JSON text). */
static json_t *data_json(const upload_row *r, long long traces, int samples, double interval,
                         const char *ffids)
{
    char when[32];
    fmt_time(r->created_at, when);
    json_t *list = json_loads(ffids ? ffids : "[]", 0, NULL);
    if (!json_is_array(list)) {
        json_decref(list);
        list = json_array();
    }
    const int segy = strcmp(r->format, "segy") == 0;
    return json_pack("{s:s, s:I, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:I, s:o}", "name", r->name,
                     "bytes", (json_int_t)r->bytes, "sha256", r->sha256, "format", r->format,
                     "owner", r->owner, "created_at", when,
                     "traces", segy ? json_integer(traces) : json_null(),
                     "samples", segy ? json_integer(samples) : json_null(),
                     "sample_interval", segy ? json_real(interval) : json_null(),
                     "shots", (json_int_t)json_array_size(list), "ffids", list);
}

/* A row of a SELECT of DATA_COLS (upload_kind.row_json). */
static json_t *row_json(sqlite3_stmt *st)
{
    const upload_row r = upload_row_of(st);
    return data_json(&r, sqlite3_column_int64(st, 6), sqlite3_column_int(st, 7),
                     sqlite3_column_double(st, 8), (const char *)sqlite3_column_text(st, 9));
}

/* A new upload's JSON (upload_kind.new_json). */
static json_t *new_json(const upload_row *r, const void *facts)
{
    const data_facts *d = facts;
    return data_json(r, d->info.traces, d->info.samples, d->info.sample_interval, d->ffids);
}

static const upload_kind DATA_KIND = {
    .noun = "data",
    .table = "datasets",
    .cols = DATA_COLS,
    .facts_size = sizeof(data_facts),
    .format_of = data_format_of,
    .inspect = inspect_upload,
    .bind = bind_facts,
    .update_set = "traces = ?7, samples = ?8, sample_interval = ?9, ffids = ?10",
    .row_json = row_json,
    .new_json = new_json,
    .facts_free = facts_free,
};

int datasets_init(fdwd_app *app)
{
    app->datasets = upload_store_new(app, &DATA_KIND, app->datasets_dir);
    return app->datasets ? 0 : -1;
}

int datasets_resolve(const app_caller *caller, const char *name, char *path, size_t pathlen,
                     char *format, size_t formatlen, char *sha256)
{
    return upload_resolve(caller->app->datasets, caller->who, name, path, pathlen, format,
                          formatlen, sha256);
}
