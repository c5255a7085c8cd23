/* run_state.h — one run as fdw_run holds it (run.c), and what the kinds' output and check
 * hooks (kinds/kind.h: finish, after_step) may use of it: the log, the whole field
 * fetched to the host, and the outputs the kinds share (run_outputs.c). */
#ifndef FDW_RUN_STATE_H
#define FDW_RUN_STATE_H

#include "fdwave/comm.h"
#include "output/outputs.h"
#include "run/backend.h"
#include "run/checkpoint.h"
#include "run/progress.h"
#include "run/run_snapshots.h"
#include "run/watch.h"

#include <stdarg.h>
#include <stddef.h>

/* Everything one run holds; released when fdw_run returns. */
typedef struct fdw_run_state {
    const fdw_spec *spec;
    const fdw_run_opts *opts;
    const fdw_callbacks *cb;
    const fdw_backend *be;
    void *ctx;
    fdw_plan plan;
    fdw_problem prob;
    int have_prob;
    fdw_manifest *manifest;
    fdw_snapshots *snaps;      /* NULL when the spec asks for no snapshots */
    int snap_inflight;         /* a snapshot's copy is under way; not yet with the writer */
    fdw_meter meter;
    fdw_device_progress devs[FDW_MAX_DEVICES];
    long steps_done;
    double loop_s;             /* wall time of the time loop, including its final wait */
    float *volume;             /* field kinds: host copy of the whole field */
    double max_abs_error;      /* derivative kind, after iteration 1 */
    const fdw_comm *comm;      /* distributed run, else NULL */
    int root;                  /* this process writes files and calls the callbacks */
    /* Set by a kind's after_step (the same on every rank): stop ends the run after this
     * step, completed (an iteration that converged); report_now reports this step's
     * progress whatever the rate limit; has_change, change and changed go into every
     * progress report from then on (fdw_progress). */
    int stop;
    int report_now;
    int has_change;
    double change;
    long long changed;
    fdw_ckpt_run ckpt;         /* checkpoints (run/checkpoint.h) */
    fdw_watch watch;           /* no silent blow-up (run/watch.h) */
} fdw_run_state;

/* fdw_run of a spec without a survey: one shot, one run (run.c); a survey's shots are
 * each run by it (run/survey.c). Arguments checked by fdw_run. */
fdw_status fdw_run_single(const fdw_spec *spec, const fdw_run_opts *opts,
                          const fdw_callbacks *cb, fdw_result *result, fdw_error *err);

/* mkdir -p: create dir and its missing parents. */
fdw_status fdw_run_make_dirs(const char *dir, fdw_error *err);

/* printf-style log line through cb->log (rank 0 only). */
void fdw_run_log(const fdw_run_state *r, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same through any callbacks (cb or its log NULL: nothing); a survey's lines. */
void fdw_log_via(const fdw_callbacks *cb, int level, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* Copy the whole field to r->volume (on rank 0 of a distributed run). Collective. */
fdw_status fdw_run_fetch_volume(fdw_run_state *r, fdw_error *err);

/* The final outputs kinds share; both have the fdw_kind_ops.finish signature and are
 * collective in a distributed run. Wave kinds: every receiver slot fetched, gather.segy
 * and gather.f32 ([receiver][sample]). Field kinds: the final field as field.f32, with
 * its sum, L2 norm and FNV-1a hash for the result. */
fdw_status fdw_run_write_gathers(fdw_run_state *r, char *extra, size_t len, fdw_error *err);
fdw_status fdw_run_write_field(fdw_run_state *r, char *extra, size_t len, fdw_error *err);

#endif
