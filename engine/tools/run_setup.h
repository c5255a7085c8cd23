/* run_setup.h — the one builder of fdw_run_opts for the two programs that run a spec:
 * fdwave-run (from its command line) and fdwave-runner (from the run file fdwaved writes).
 * Each fills a run_setup from its own source; run_setup_opts makes the engine's options
 * from it, so one setting means the same in both (a backend name, the devices, the
 * checkpoints, which resume when they fit, and a communicator used only with more than
 * one rank). */
#ifndef FDW_RUN_SETUP_H
#define FDW_RUN_SETUP_H

#include "fdwave/comm.h"
#include "fdwave/fdwave.h"

#define RUN_SETUP_MAX_DEVICES 64

typedef struct run_setup {
    const char *out_dir;
    fdw_backend_kind backend;
    int device_ids[RUN_SETUP_MAX_DEVICES]; /* physical ids; none: the spec's */
    int ndevice_ids;
    int threads;                   /* CPU backend threads; 0: the engine's default */
    const char *checkpoint_dir;    /* NULL: no checkpoints */
    double checkpoint_interval_s;  /* 0: not by time */
    long checkpoint_every_steps;   /* 0: not by steps */
    const fdw_comm *comm;          /* NULL, or one rank: a single process */
    const fdw_tuning *tuning;      /* NULL: every choice automatic */
    int survey_parts, survey_part; /* a survey in parts (fdw_run_opts); 0: the whole */
    /* what run_setup_opts makes; valid while the run_setup lives */
    fdw_checkpoint_opts checkpoint;
    fdw_run_opts opts;
} run_setup;

/* "auto", "cpu" or "cuda" into *out; -1 (nothing changed) for any other name. */
int run_setup_backend(const char *name, fdw_backend_kind *out);

/* The engine's options for s. */
const fdw_run_opts *run_setup_opts(run_setup *s);

#endif
