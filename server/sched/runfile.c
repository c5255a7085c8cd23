/* runfile.c — writing a job's run file for its runner (see runfile.h). */
#include "sched/runfile.h"
#include "core/app.h"
#include "store/jobs.h"
#include "data/models.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The uploaded model the job recorded at submission (jobs_model: named by name or by its
 * path in the models directory), resolved now with the submitter's rights, as the runner's
 * model resolver reads it: {name: facts}, {} when it names none. A model gone, or replaced
 * since (its SHA-256 differs), is not run silently under the old job's provenance: NULL
 * with why. */
static json_t *recorded_model(fdwd_app *app, const runfile_job *j, char *why, size_t len)
{
    char name[160], was[65], path[CFG_PATH];
    fdw_model_info info;
    if (jobs_model(app, j->job_id, name, was) != 0 || !name[0])
        return json_object();
    memset(&info, 0, sizeof info);
    const app_caller caller = {app, j->who};
    if (models_resolve(&caller, name, path, sizeof path, &info) != 0) {
        snprintf(why, len, "the spec's model \"%.200s\" is no longer there", name);
        return NULL;
    }
    if (strcmp(was, info.sha256) != 0) {
        snprintf(why, len,
                 "the model \"%.200s\" was replaced after the job was submitted (sha256 "
                 "%.12s... then, %.12s... now); submit the job again to run it on the new "
                 "content",
                 name, was, info.sha256);
        return NULL;
    }
    return json_pack("{s:{s:s, s:s, s:I, s:i, s:i, s:i, s:f, s:f, s:f, s:f, s:f, s:s}}", name,
                     "path", path, "format", info.format, "nvalues", (json_int_t)info.nvalues,
                     "nx", info.nx, "ny", info.ny, "nz", info.nz, "dx", info.dx, "dy", info.dy,
                     "dz", info.dz, "vmin", info.vmin, "vmax", info.vmax, "sha256",
                     info.sha256);
}

int runfile_write(fdwd_app *app, const runfile_job *j, char *path, size_t pathlen, char *why,
                  size_t len)
{
    json_t *models = recorded_model(app, j, why, len);
    if (!models)
        return -1;
    json_t *dirs = json_array(), *ids = json_array();
    for (int i = 0; app->allowed_ptrs[i]; i++)
        json_array_append_new(dirs, json_string(app->allowed_ptrs[i]));
    for (int d = 0; d < j->ndevices; d++)
        json_array_append_new(ids, json_integer(j->device_ids[d]));
    char lock[CFG_PATH + 64];
    snprintf(lock, sizeof lock, "%s/%s.lock", j->job_dir, j->tag ? j->tag : "runner");
    const char *backend = app->backend == FDW_BACKEND_CPU    ? "cpu"
                          : app->backend == FDW_BACKEND_CUDA ? "cuda"
                                                              : "auto";
    json_t *ck = j->checkpoint_dir
                     ? json_pack("{s:s, s:f, s:I}", "dir", j->checkpoint_dir, "interval_s",
                                 j->checkpoint_interval_s, "every_steps",
                                 (json_int_t)j->checkpoint_every_steps)
                     : json_null();
    json_t *run = json_pack(
        "{s:I, s:s, s:o, s:o, s:s, s:s, s:o, s:s, s:o, s:i, s:s, s:s, s:i, s:f}", "job",
        (json_int_t)j->job_id, "spec", j->spec_json, "models", models, "allowed_dirs", dirs,
        "base_dir", app->models_dir, "out_dir", j->out_dir, "checkpoint", ck, "backend",
        backend, "device_ids", ids, "threads", j->threads, "cpu_job_sched",
        app->cfg.cpu_job_sched, "lock", lock, "lock_wait_s", app->cfg.runner_stop_timeout,
        "progress_interval_s", 0.5);
    if (run && j->control_file)
        json_object_set_new(run, "control", json_string(j->control_file));
    if (run && j->survey_parts > 1) /* fdwave_runner.c's survey_part_from reads it */
        json_object_set_new(run, "survey_part",
                            j->survey_part == FDW_SURVEY_COMBINE
                                ? json_pack("{s:i, s:b}", "parts", j->survey_parts, "combine", 1)
                                : json_pack("{s:i, s:i}", "parts", j->survey_parts, "part",
                                            j->survey_part));
    if (j->tag)
        snprintf(path, pathlen, "%s/run.%s.json", j->job_dir, j->tag);
    else
        snprintf(path, pathlen, "%s/run.json", j->job_dir);
    char tmp[CFG_PATH + 48];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int rc = run && json_dump_file(run, tmp, JSON_COMPACT) == 0 && rename(tmp, path) == 0 ? 0 : -1;
    if (rc) {
        snprintf(why, len, "cannot write the run file %.300s: %s", path,
                 run ? strerror(errno) : "out of memory");
        unlink(tmp);
    }
    json_decref(run);
    return rc;
}
