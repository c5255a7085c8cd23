/* run_setup.c — fdw_run_opts from a run_setup (see run_setup.h). */
#include "run_setup.h"

#include <string.h>

int run_setup_backend(const char *name, fdw_backend_kind *out)
{
    static const struct {
        const char *name;
        fdw_backend_kind kind;
    } names[] = {{"auto", FDW_BACKEND_AUTO}, {"cpu", FDW_BACKEND_CPU}, {"cuda", FDW_BACKEND_CUDA}};
    for (size_t i = 0; name && i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i].name) == 0) {
            *out = names[i].kind;
            return 0;
        }
    return -1;
}

const fdw_run_opts *run_setup_opts(run_setup *s)
{
    memset(&s->checkpoint, 0, sizeof s->checkpoint);
    s->checkpoint.dir = s->checkpoint_dir;
    s->checkpoint.interval_s = s->checkpoint_interval_s;
    s->checkpoint.every_steps = s->checkpoint_every_steps;
    s->checkpoint.resume = 1;
    memset(&s->opts, 0, sizeof s->opts);
    s->opts.out_dir = s->out_dir;
    s->opts.backend = s->backend;
    s->opts.device_ids = s->ndevice_ids > 0 ? s->device_ids : NULL;
    s->opts.ndevice_ids = s->ndevice_ids > 0 ? s->ndevice_ids : 0;
    s->opts.threads = s->threads;
    s->opts.comm = s->comm && s->comm->size > 1 ? s->comm : NULL;
    s->opts.tuning = s->tuning;
    s->opts.checkpoint = s->checkpoint_dir ? &s->checkpoint : NULL;
    s->opts.survey_parts = s->survey_parts;
    s->opts.survey_part = s->survey_part;
    return &s->opts;
}
