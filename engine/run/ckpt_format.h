/* ckpt_format.h — a run's checkpoint files apart from the backend's part: their names in
 * the checkpoint directory (ckpt-<step>.r<rank>, "current"), the header that pins what may
 * resume from a file, and the loop's own state (the derivative kind's error of iteration
 * 1, the snapshots delivered, on rank 0 the manifest's files), and the callback that
 * reports one. Shared by checkpoint.c (resuming, removing) and ckpt_save.c (writing).
 * Internal to libfdwave. */
#ifndef FDW_CKPT_FORMAT_H
#define FDW_CKPT_FORMAT_H

#include "core/limits.h"
#include "fdwave/fdwave.h"

#include <stddef.h>
#include <stdint.h>

struct fdw_run_state;
struct fdw_ckpt_io;

/* The header at the start of every checkpoint file (written as these bytes, zeroed
 * first, so padding is deterministic). */
typedef struct fdw_ckpt_header {
    char magic[8];
    uint32_t version, rank, size, ndev;
    uint64_t spec_hash;
    int64_t step, nt;
    char kind[16], backend[16], engine[16];
    int32_t z0[FDW_MAX_DEVICES], nz[FDW_MAX_DEVICES];
} fdw_ckpt_header;

/* The loop's state as a checkpoint holds it (files: rank 0's manifest files as JSON text,
 * NULL elsewhere; owned). */
typedef struct fdw_ckpt_loop {
    double max_abs_error;
    int32_t delivered;
    char *files;
} fdw_ckpt_loop;

/* This process's rank and the number of processes (0 and 1 for one process). */
int fdw_ckpt_rank(const struct fdw_run_state *r);
int fdw_ckpt_ranks(const struct fdw_run_state *r);

/* The path of rank's file of step, and of "current". */
void fdw_ckpt_file_path(const struct fdw_run_state *r, long step, int rank, char *out,
                        size_t len);
void fdw_ckpt_current_path(const struct fdw_run_state *r, char *out, size_t len);

/* The header this run writes for step; why header h cannot resume this run at step ("" when
 * it can). */
void fdw_ckpt_header_fill(const struct fdw_run_state *r, long step, fdw_ckpt_header *h);
void fdw_ckpt_header_check(const struct fdw_run_state *r, const fdw_ckpt_header *h, long step,
                           char *why, size_t len);

/* The loop's state now (into *out, to be put later by the writer's thread), its writing,
 * and reading it back into the run; free releases what capture took. */
fdw_status fdw_ckpt_loop_capture(struct fdw_run_state *r, fdw_ckpt_loop *out, fdw_error *err);
fdw_status fdw_ckpt_loop_put(const fdw_ckpt_loop *l, struct fdw_ckpt_io *io, fdw_error *err);
fdw_status fdw_ckpt_loop_get(struct fdw_run_state *r, struct fdw_ckpt_io *io, fdw_error *err);
void fdw_ckpt_loop_free(fdw_ckpt_loop *l);

/* Remove this process's checkpoint files other than step keep (-1: all of them), and its
 * temporary files. */
void fdw_ckpt_remove_files(const struct fdw_run_state *r, long keep);

/* Call the checkpoint callback (rank 0): a checkpoint of step written (resumed 0) in
 * seconds, of which the time loop stopped for loop_seconds, or resumed from (resumed 1)
 * after seconds of reading. */
void fdw_ckpt_report(const struct fdw_run_state *r, int resumed, long step, double seconds,
                     double loop_seconds);

#endif
