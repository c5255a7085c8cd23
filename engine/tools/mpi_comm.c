/* mpi_comm.c — fdw_comm (engine/comm.h) over MPI_COMM_WORLD: the ghost exchange as
 * non-blocking messages to both neighbours (started before the slab's interior is
 * computed, finished after it), gathers to rank 0 as point-to-point messages, status
 * agreement through MPI_Allreduce and MPI_Bcast; the rank's place on its host and whether
 * the library is CUDA-aware (a GPU rank then passes device buffers). Counts above 2^30
 * elements are split, so any region fits in int-sized messages. Errors are returned
 * (MPI_ERRORS_RETURN) so the engine can report them. */
#include "mpi_comm.h"

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Messages carry at most this many elements (below INT_MAX, and a 4-byte multiple). */
#define CHUNK_ELEMS ((size_t)1 << 30)

enum { TAG_TO_PREV = 11, TAG_TO_NEXT = 12, TAG_GATHER = 13 };

/* Messages needed for count elements. */
static int nchunks(size_t count)
{
    return (int)((count + CHUNK_ELEMS - 1) / CHUNK_ELEMS);
}

/* The requests of an exchange in flight. */
typedef struct exchange_reqs {
    int n;
    MPI_Request req[];
} exchange_reqs;

static int mpi_exchange_finish(const fdw_comm *c, void *pending)
{
    (void)c;
    exchange_reqs *x = pending;
    if (!x)
        return 0;
    int rc = MPI_Waitall(x->n, x->req, MPI_STATUSES_IGNORE);
    free(x);
    return rc == MPI_SUCCESS ? 0 : -1;
}

static int mpi_exchange_start(const fdw_comm *c, int prev, int next, const float *send_prev,
                              float *recv_prev, const float *send_next, float *recv_next,
                              size_t count, void **pending)
{
    *pending = NULL;
    if (count == 0 || (prev < 0 && next < 0))
        return 0;
    const int nc = nchunks(count);
    exchange_reqs *x = malloc(sizeof *x + (size_t)4 * (size_t)nc * sizeof(MPI_Request));
    if (!x)
        return -1;
    MPI_Request *req = x->req;
    int n = 0, rc = MPI_SUCCESS;
    /* Receives first, so the sends find them posted. A message to prev is tagged
     * TAG_TO_PREV and arrives at prev as "from next"; the tags keep the two directions
     * apart when prev and next are the same rank. */
    for (size_t off = 0; off < count && rc == MPI_SUCCESS; off += CHUNK_ELEMS) {
        const int len = (int)(count - off < CHUNK_ELEMS ? count - off : CHUNK_ELEMS);
        if (prev >= 0 && rc == MPI_SUCCESS)
            rc = MPI_Irecv(recv_prev + off, len, MPI_FLOAT, prev, TAG_TO_NEXT, MPI_COMM_WORLD,
                           &req[n++]);
        if (next >= 0 && rc == MPI_SUCCESS)
            rc = MPI_Irecv(recv_next + off, len, MPI_FLOAT, next, TAG_TO_PREV, MPI_COMM_WORLD,
                           &req[n++]);
    }
    for (size_t off = 0; off < count && rc == MPI_SUCCESS; off += CHUNK_ELEMS) {
        const int len = (int)(count - off < CHUNK_ELEMS ? count - off : CHUNK_ELEMS);
        if (prev >= 0 && rc == MPI_SUCCESS)
            rc = MPI_Isend(send_prev + off, len, MPI_FLOAT, prev, TAG_TO_PREV, MPI_COMM_WORLD,
                           &req[n++]);
        if (next >= 0 && rc == MPI_SUCCESS)
            rc = MPI_Isend(send_next + off, len, MPI_FLOAT, next, TAG_TO_NEXT, MPI_COMM_WORLD,
                           &req[n++]);
    }
    x->n = n;
    if (rc != MPI_SUCCESS) {
        mpi_exchange_finish(c, x); /* what was posted completes against the peers' calls */
        return -1;
    }
    /* Nudge the transfers along before the caller computes (Open MPI progresses
     * non-blocking messages inside MPI calls). */
    int done = 0;
    MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
    *pending = x;
    return 0;
}

static int mpi_gather(const fdw_comm *c, const void *send, void *recv, const size_t *bytes)
{
    if (c->rank != 0) {
        const char *p = send;
        for (size_t off = 0; off < bytes[c->rank]; off += CHUNK_ELEMS) {
            const size_t left = bytes[c->rank] - off;
            const int len = (int)(left < CHUNK_ELEMS ? left : CHUNK_ELEMS);
            if (MPI_Send(p + off, len, MPI_BYTE, 0, TAG_GATHER, MPI_COMM_WORLD) != MPI_SUCCESS)
                return -1;
        }
        return 0;
    }
    char *at = recv;
    if (send != recv && bytes[0] > 0)
        memmove(at, send, bytes[0]);
    at += bytes[0];
    for (int q = 1; q < c->size; q++) {
        for (size_t off = 0; off < bytes[q]; off += CHUNK_ELEMS) {
            const size_t left = bytes[q] - off;
            const int len = (int)(left < CHUNK_ELEMS ? left : CHUNK_ELEMS);
            if (MPI_Recv(at + off, len, MPI_BYTE, q, TAG_GATHER, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE) != MPI_SUCCESS)
                return -1;
        }
        at += bytes[q];
    }
    return 0;
}

static int mpi_allreduce_max(const fdw_comm *c, int *value)
{
    (void)c;
    return MPI_Allreduce(MPI_IN_PLACE, value, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) ==
                   MPI_SUCCESS
               ? 0
               : -1;
}

static int mpi_broadcast(const fdw_comm *c, void *data, size_t bytes, int root)
{
    (void)c;
    char *p = data;
    for (size_t off = 0; off < bytes; off += CHUNK_ELEMS) {
        const size_t left = bytes - off;
        const int len = (int)(left < CHUNK_ELEMS ? left : CHUNK_ELEMS);
        if (MPI_Bcast(p + off, len, MPI_BYTE, root, MPI_COMM_WORLD) != MPI_SUCCESS)
            return -1;
    }
    return 0;
}

int fdw_mpi_launched(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMIX_RANK") != NULL ||
           getenv("PMI_RANK") != NULL;
}

/* Whether the MPI library moves device (CUDA) buffers itself: compiled with CUDA support
 * (MPIX_CUDA_AWARE_SUPPORT) and, at run time, MPIX_Query_cuda_support() says so. */
static int library_cuda_aware(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}

/* This process's rank among those on its host (a shared-memory communicator), or 0. */
static int host_local_rank(void)
{
    MPI_Comm host;
    int local = 0;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host) !=
        MPI_SUCCESS)
        return 0;
    if (MPI_Comm_rank(host, &local) != MPI_SUCCESS)
        local = 0;
    MPI_Comm_free(&host);
    return local;
}

int fdw_mpi_init(int *argc, char ***argv, fdw_mpi_cuda_aware cuda_aware, fdw_comm *comm,
                 char *msg, size_t msglen)
{
    int provided = 0;
    memset(comm, 0, sizeof *comm);
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        snprintf(msg, msglen, "MPI_Init_thread failed");
        return -1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (MPI_Comm_rank(MPI_COMM_WORLD, &comm->rank) != MPI_SUCCESS ||
        MPI_Comm_size(MPI_COMM_WORLD, &comm->size) != MPI_SUCCESS) {
        snprintf(msg, msglen, "MPI_Comm_rank/size failed");
        return -1;
    }
    comm->local_rank = host_local_rank();
    const int library = library_cuda_aware();
    if (cuda_aware == FDW_MPI_CUDA_ON && !library) {
        snprintf(msg, msglen,
                 "--cuda-aware-mpi on: this MPI library is not CUDA-aware (it cannot send "
                 "from GPU memory); use --cuda-aware-mpi auto or off to stage the planes "
                 "through host memory");
        return 1; /* MPI is up: the caller reports it, then fdw_mpi_finalize */
    }
    comm->device_buffers = cuda_aware != FDW_MPI_CUDA_OFF && library;
    comm->exchange_start = mpi_exchange_start;
    comm->exchange_finish = mpi_exchange_finish;
    comm->gather = mpi_gather;
    comm->allreduce_max = mpi_allreduce_max;
    comm->broadcast = mpi_broadcast;
    return 0;
}

void fdw_mpi_finalize(void)
{
    /* No rank leaves before rank 0 has printed and written everything: mpirun ends the
     * whole job as soon as one rank exits with a non-zero status. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
}
