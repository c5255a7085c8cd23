/* comm.h — the abstract communicator a distributed run uses (one process per slab of the
 * plan, e.g. one MPI rank per device). libfdwave knows only this table of functions; the
 * MPI implementation lives in mpi_comm.c, compiled into fdwave-run alone, so the library
 * itself never links MPI. Every function returns 0 on success, non-zero on failure. */
#ifndef FDW_COMM_H
#define FDW_COMM_H

#include "fdwave/fdwave.h"

#include <stddef.h>

typedef struct fdw_comm {
    int rank, size;            /* this process and the number of processes (slabs) */
    void *user;                /* the implementation's state */

    /* Start the ghost exchange with the process owning the slab above (prev, smaller z)
     * and the one below (next, larger z); -1 means no neighbour on that side. Sends
     * `count` floats from send_prev to prev and from send_next to next, and receives
     * `count` floats from prev into recv_prev and from next into recv_next, both
     * directions at once (prev and next may be the same process, as in a periodic run on
     * two). Returns at once with *pending set; the four buffers must not be touched until
     * exchange_finish(pending) returns, so the caller can compute meanwhile. */
    int (*exchange_start)(const struct fdw_comm *c, int prev, int next, const float *send_prev,
                          float *recv_prev, const float *send_next, float *recv_next,
                          size_t count, void **pending);
    /* Wait for a started exchange to complete and release pending (NULL: nothing to do). */
    int (*exchange_finish)(const struct fdw_comm *c, void *pending);

    /* Concatenate on rank 0, in rank order, `bytes[q]` bytes from every rank q (each rank
     * passes its own part in `send`; every rank passes the same bytes[] array). Rank 0
     * receives into recv (sum of bytes[] long); its own part may already lie in place at
     * recv (send == recv), then it is not copied. Other ranks' recv is ignored. */
    int (*gather)(const struct fdw_comm *c, const void *send, void *recv,
                  const size_t *bytes);

    /* *value becomes the maximum of every rank's *value. */
    int (*allreduce_max)(const struct fdw_comm *c, int *value);

    /* `bytes` bytes at data on rank root are copied to data on every rank. */
    int (*broadcast)(const struct fdw_comm *c, void *data, size_t bytes, int root);

    /* Rank among the processes on this host (0 when unknown): a GPU rank takes the
     * local_rank-th GPU of its host's list (engine/run.c). */
    int local_rank;
    /* Non-zero when exchange_start accepts device (CUDA) pointers for its four buffers
     * (a CUDA-aware MPI); else the CUDA backend stages the planes through host memory. */
    int device_buffers;
} fdw_comm;

/* Make every rank agree on a status before a collective step: if any rank has failed,
 * every rank returns the error of the lowest failing rank (its fdw_error copied into
 * err everywhere); else, if any rank has st == FDW_ERR_CANCELLED, every rank returns
 * FDW_ERR_CANCELLED; else FDW_OK. Collective: every rank must call it at the same point.
 * With c == NULL (single process) it returns st unchanged. */
fdw_status fdw_comm_agree(const fdw_comm *c, fdw_status st, fdw_error *err);

#endif
