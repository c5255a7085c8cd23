/* ckpt_util.h — what the checkpoint tests share: a scratch directory, the job specs they
 * run (one per kind, several devices, outputs of every sort), and the comparison of two
 * output directories bit for bit (manifest.json as JSON, less the run's timings). */
#ifndef FDW_TEST_CKPT_UTIL_H
#define FDW_TEST_CKPT_UTIL_H

#include "fdwave/fdwave.h"

#include <stddef.h>
#include <stdint.h>

/* A new directory under $TMPDIR (or /tmp) named after tag; removed by ckpt_rmtree. */
void ckpt_tmpdir(const char *tag, char *out, size_t cap);
void ckpt_rmtree(const char *dir);

/* The specs: index 0 .. CKPT_NSPECS-1, each a JSON text; name says which. */
#define CKPT_NSPECS 6
const char *ckpt_spec(int i, const char **name);

/* Whether directory b holds exactly the files of a with the same bytes; manifest.json is
 * compared as JSON with "result", every "seconds" (timings) and the sweep's count of updates
 * computed (it depends on how the threads ran) left out. why gets the first
 * difference. Returns 1 when equal. */
int ckpt_outputs_equal(const char *a, const char *b, char *why, size_t len);

/* What one run's callbacks saw (ckpt_callbacks). */
typedef struct ckpt_watch {
    long suspend_at;           /* suspend once this many steps are done (0: never) */
    long done;                 /* steps done as the suspend poll counts them */
    char log[16384];           /* info, warning and error lines */
    int checkpoints, resumed;  /* checkpoints written; resumes */
    int empty;                 /* checkpoints reported with 0 bytes (never expected) */
    uint64_t largest;          /* the largest checkpoint written, bytes on disk */
    long resumed_step;
    void (*on_line)(const char *msg); /* every log line, of any level (may be NULL) */
    char waited[256];          /* the first line saying the run waits for a write */
    long stop_at, polls;       /* ckpt_gate_stop: stop at the stop_at-th poll */
} ckpt_watch;

/* Callbacks for fdw_run that fill w: log lines, checkpoints written and resumed from, and
 * a suspension once w->suspend_at steps are done (the suspend poll runs once a step). */
fdw_callbacks ckpt_callbacks(ckpt_watch *w);

/* Whether the largest checkpoint w saw fits fdw_spec_checkpoint_bytes of spec on backend,
 * with room for the header and the loop's state (the engine's estimate of the host image
 * they are copied into). */
int ckpt_fits_estimate(const ckpt_watch *w, const fdw_spec *spec, fdw_backend_kind backend);

/* Write text to path (0 on success). */
int ckpt_write_file(const char *path, const char *text);

#endif
