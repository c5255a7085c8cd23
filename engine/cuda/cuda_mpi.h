/* cuda_mpi.h — the CUDA backend's ghost exchange between MPI ranks, when the process holds
 * one slab of the plan on one GPU (fdw_problem.comm set). The backend (cuda_backend.c)
 * calls it twice per step: after issuing the edge planes of the new field (send), and after
 * issuing the interior (receive, which blocks in the exchange while the interior runs on
 * the GPU). With a CUDA-aware MPI (fdw_comm.device_buffers) the ranks send from and
 * receive into the device planes; otherwise the planes go through pinned host buffers.
 * Talks to the GPU only through kernels/common/fdwk_runtime.h. */
#ifndef FDW_CUDA_MPI_H
#define FDW_CUDA_MPI_H

#include "run/backend.h"
#include "fdwave/comm.h"
#include "common/fdwk_runtime.h"

#include <stddef.h>
#include <stdint.h>

typedef struct cuda_mpi cuda_mpi;

/* Set up the exchange of slab comm->rank (neighbours rank - 1 and rank + 1 when they
 * exist) of `count` floats each way (r whole padded planes), and keep the receiver taps of
 * prob that this rank records (fdw_receiver_slabs: the rank owning the lowest plane of a
 * receiver's taps reads all of them, those below its slab from its ghost planes), in the
 * problem's order. The current device must be the slab's GPU. Returns 0, -1 when host
 * memory runs out, or a CUDA error code. */
int cuda_mpi_create(const fdw_problem *prob, const fdw_plan *plan, int gpu, size_t count,
                    int stats, cuda_mpi **out);
/* Releases everything. With stats set at create (fdw_tuning.mpi_stats), first prints
 * one line on stderr with this rank's exchange figures per step: host time waiting for the
 * edge planes, time in the exchange, and the GPU time the step waited for ghost planes
 * after its interior was done (the exchange not hidden by the interior). */
void cuda_mpi_destroy(cuda_mpi *m);

/* The receiver taps this rank records (see create) and their count. */
const fdw_tap *cuda_mpi_rec_taps(const cuda_mpi *m, int *ntaps);

/* Remember the device memory each slab of the plan needs (for progress reports) and
 * return it: every rank reports every slab. */
void cuda_mpi_set_slab_bytes(cuda_mpi *m, int slab, uint64_t bytes);
uint64_t cuda_mpi_slab_bytes(const cuda_mpi *m, int slab);

/* Step part 1, once the edge planes of the new field (and their sources) are issued on
 * stream se: queue the copies of the r planes at top (first owned padded plane) and bot
 * (first of the last r) into the send buffers, or, CUDA-aware, mark the edges' end.
 * Returns 0 or a CUDA error code. */
int cuda_mpi_send(cuda_mpi *m, const float *top, const float *bot, fdwk_stream se);

/* Step part 2, once the interior is issued on stream si: wait for the edge copies, swap the
 * planes with the neighbours through comm (the GPU computes the interior meanwhile), and
 * queue the received planes into the ghost planes ghost_top (r planes above the slab) and
 * ghost_bot (r planes below) on se, so the next step's edges follow them. With
 * sync_si, si also waits for the ghost planes (receivers about to read them). Returns 0 or
 * a CUDA error code; a failed exchange is remembered (cuda_mpi_failed) and skips the
 * copies. */
int cuda_mpi_receive(cuda_mpi *m, float *ghost_top, float *ghost_bot, fdwk_stream se,
                     fdwk_stream si, int sync_si);

/* Non-zero once an exchange through comm failed. */
int cuda_mpi_failed(const cuda_mpi *m);

#endif
