/* specs.c — the daemon's fdw_spec_parse options (see specs.h): the data-access model of
 * access.h for every file a spec names (each one recorded, and checked again from that
 * record when the job runs), the configured caps, this server's devices; and the derived
 * memory need of a new job against those devices, its largest device and the host
 * (admission.h). */
#include "auth/specs.h"
#include "auth/access.h"
#include "auth/admission.h"
#include "core/app.h"
#include "data/datasets.h"
#include "data/models.h"

#include <stdio.h>
#include <string.h>

/* The parse's callbacks see the submitter and what has been read so far. */
typedef struct parse_ctx {
    app_caller caller;         /* the context and the submitter */
    spec_reads *reads;
} parse_ctx;

static const char *const use_names[] = {"model", "wavelet", "model_data", "kind_data"};

/* An upload named by its file in the models directory: its name and recorded SHA-256. */
static void note_upload(fdwd_app *app, parse_ctx *p, const char *real_path)
{
    const size_t dl = strlen(app->models_dir);
    const char *name = real_path + dl + 1;
    char path[CFG_PATH];
    fdw_model_info info;
    if (strncmp(real_path, app->models_dir, dl) || real_path[dl] != '/' || strchr(name, '/') ||
        strlen(name) >= sizeof p->reads->model ||
        models_resolve(&p->caller, name, path, sizeof path, &info) || !info.sha256[0])
        return;
    snprintf(p->reads->model, sizeof p->reads->model, "%s", name);
    snprintf(p->reads->model_sha, sizeof p->reads->model_sha, "%s", info.sha256);
}

/* The record of a file a spec reads; an uploaded data file (named, or by its path in the
 * data directory) also with its upload's name and the SHA-256 recorded at upload, the
 * content the job was checked against (the job's "data" provenance, job_json.c). */
static json_t *file_record(parse_ctx *p, const char *real_path, const char *use,
                           const char *format)
{
    json_t *f = json_pack("{s:s, s:s, s:s?}", "path", real_path, "use", use, "format", format);
    const char *name;
    char path[CFG_PATH + 200], fmt[16], sha[65] = "";
    if (f && upload_in_dir(p->caller.app->datasets, real_path, &name) &&
        datasets_resolve(&p->caller, name, path, sizeof path, fmt, sizeof fmt, sha) == 0 &&
        sha[0]) {
        json_object_set_new(f, "upload", json_string(name));
        json_object_set_new(f, "sha256", json_string(sha));
    }
    return f;
}

/* access_file, and each file it allows recorded. */
static int read_file(void *user, const char *real_path, fdw_file_use use, const char *format,
                     fdw_model_info *info)
{
    parse_ctx *p = user;
    fdwd_app *app = p->caller.app;
    if (access_file(&p->caller, real_path, use, format, info) != 0)
        return -1;
    const char *u = (unsigned)use < sizeof use_names / sizeof *use_names ? use_names[use] : "?";
    json_array_append_new(p->reads->files, file_record(p, real_path, u, format));
    if (use == FDW_FILE_MODEL)
        note_upload(app, p, real_path);
    return 0;
}

/* models_resolve, and the model named recorded with its SHA-256. */
static int read_model(void *user, const char *name, char *path, size_t len,
                      fdw_model_info *info)
{
    parse_ctx *p = user;
    if (models_resolve(&p->caller, name, path, len, info) != 0)
        return -1;
    if (info->sha256[0] && strlen(name) < sizeof p->reads->model) {
        snprintf(p->reads->model, sizeof p->reads->model, "%s", name);
        snprintf(p->reads->model_sha, sizeof p->reads->model_sha, "%s", info->sha256);
    }
    return 0;
}

/* datasets_resolve with the submitter's rights (fdw_parse_opts.resolve_data). */
static int read_data(void *user, const char *name, char *path, size_t len, char *format,
                     size_t flen)
{
    parse_ctx *p = user;
    return datasets_resolve(&p->caller, name, path, len, format, flen, NULL);
}

void specs_reads_free(spec_reads *reads)
{
    json_decref(reads->files);
    reads->files = NULL;
}

int specs_recheck(fdwd_app *app, const identity *who, const char *files, char *why, size_t len)
{
    json_t *list = files ? json_loads(files, 0, NULL) : NULL;
    size_t i;
    json_t *f;
    int rc = 0;
    json_array_foreach(list, i, f) {
        const char *path = json_string_value(json_object_get(f, "path"));
        const char *use = json_string_value(json_object_get(f, "use"));
        const char *format = json_string_value(json_object_get(f, "format"));
        fdw_file_use u = FDW_FILE_MODEL;
        for (size_t k = 0; use && k < sizeof use_names / sizeof *use_names; k++)
            if (!strcmp(use, use_names[k]))
                u = (fdw_file_use)k;
        fdw_model_info info;
        const app_caller caller = {app, who};
        if (!path || access_file(&caller, path, u, format, &info) != 0) {
            snprintf(why, len, "%s may no longer read %.600s: %s", who->user,
                     path ? path : "a file its spec names", access_rule());
            rc = -1;
            break;
        }
    }
    json_decref(list);
    return rc;
}

fdw_status specs_parse(fdwd_app *app, const identity *who, const char *body, size_t len,
                       spec_reads *reads, fdw_spec **out, fdw_error *err)
{
    memset(reads, 0, sizeof *reads);
    reads->files = json_array();
    parse_ctx ctx = {.caller = {app, who}, .reads = reads};
    fdw_parse_opts o = {0};
    o.base_dir = app->models_dir;
    o.allowed_dirs = app->allowed_ptrs;
    o.file_access = read_file;
    o.access_rule = access_rule();
    o.resolve_model = read_model;
    o.resolve_data = read_data;
    o.resolve_user = &ctx;
    o.max_points = app->cfg.max_points;
    o.max_sources = app->cfg.max_sources;
    o.max_receivers = app->cfg.max_receivers;
    o.max_snapshots = app->cfg.max_snapshots;
    o.max_shots = app->cfg.max_shots;
    o.max_traces = (long long)app->cfg.max_traces;
    o.max_record_bytes = app->cfg.max_record_bytes;
    int ids[APP_MAX_DEVICES];
    for (int i = 0; i < app->ndevices; i++)
        ids[i] = app->devices[i].id;
    o.max_devices = app->ndevices;
    o.device_ids = ids;
    o.ndevice_ids = app->ndevices;
    /* the checks that cost like steps of the run are the runner's (fdwave_runner.c) */
    o.defer_model_checks = 1;
    if (!reads->files) {
        snprintf(err->message, sizeof err->message, "out of memory");
        err->code = FDW_ERR_NOMEM;
        return FDW_ERR_NOMEM;
    }
    fdw_status st = fdw_spec_parse(body, len, &o, out, err);
    if (st != FDW_OK) {
        char dir[CFG_PATH + 2]; /* uploaded data by their names, not the server's paths */
        snprintf(dir, sizeof dir, "%s/", app->datasets_dir);
        upload_rename_in(err->message, sizeof err->message, dir, "");
        return st;
    }
    /* The memory the run will need, derived from the whole spec, against what the
     * devices it may get hold together (the largest ones, as many as it asks for). */
    const int n = fdw_spec_devices(*out);
    uint64_t mem[APP_MAX_DEVICES], have = 0;
    for (int i = 0; i < app->ndevices; i++)
        mem[i] = app->devices[i].memory_total;
    for (int k = 0; k < n && k < app->ndevices; k++) { /* pick the n largest */
        int best = k;
        for (int i = k + 1; i < app->ndevices; i++)
            if (mem[i] > mem[best])
                best = i;
        uint64_t t = mem[k];
        mem[k] = mem[best];
        mem[best] = t;
        have += mem[k];
    }
    const uint64_t need = fdw_spec_device_bytes(*out);
    if (have > 0 && need > have) {
        snprintf(err->field, sizeof err->field, "grid");
        snprintf(err->message, sizeof err->message,
                 "the job needs %.3g GiB of device memory (grid, recordings, ghost planes) but "
                 "%d device(s) of this server hold %.3g GiB: use a smaller grid or more devices",
                 (double)need / (1u << 30), n, (double)have / (1u << 30));
        err->code = FDW_ERR_SPEC;
        fdw_spec_free(*out);
        *out = NULL;
        return FDW_ERR_SPEC;
    }
    /* Its largest device's share and the host memory it will hold (admission.h). */
    if (admission_check(app, *out, err) != FDW_OK) {
        fdw_spec_free(*out);
        *out = NULL;
        return FDW_ERR_SPEC;
    }
    return FDW_OK;
}
