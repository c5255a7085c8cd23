/* cuda_mpi.c — the ghost exchange of a CUDA slab with the neighbouring MPI ranks (see
 * cuda_mpi.h). Per step, on the slab's two streams (se: edges, high priority; si: interior):
 *
 *   se: edges(it) -> [staged: copy the 2 x r edge planes to pinned buffers] -> ev_sent
 *   si: interior(it)                                   (issued before the host blocks)
 *   host: wait ev_sent; comm exchange_start / exchange_finish (the interior runs meanwhile)
 *   se: [staged: copy the received planes into the ghost planes] -> edges(it+1) follow
 *
 * One set of pinned buffers is enough: the host issues the next step's edge copies only
 * after this step's exchange has completed, and those copies follow this step's ghost
 * copies on se. Every rank calls the exchange every step, even after a CUDA error (it
 * then sends stale planes and reports the error), so no neighbour is left waiting. */
#include "cuda/cuda_mpi.h"

#include "run/distrib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct cuda_mpi {
    const fdw_comm *comm;
    int rank, prev, next;      /* neighbour ranks, -1 for none */
    int gpu;
    size_t count;              /* floats each way */
    int direct;                /* CUDA-aware: device planes go to MPI directly */
    float *send_top, *send_bot, *recv_top, *recv_bot; /* pinned (staged) */
    const float *dev_top, *dev_bot;                   /* direct: this step's edges */
    fdwk_event ev_sent;        /* edges (and their copies) complete */
    fdwk_event ev_ghost;       /* ghost planes filled (for si) */
    fdwk_event t_int[2], t_ghost[2]; /* timing, by step parity */
    long steps;
    int failed;
    int stats;                 /* print the exchange figures at destroy */
    fdw_tap *rec;              /* receiver taps this rank records */
    int nrec;
    uint64_t slab_bytes[FDW_MAX_DEVICES];
    double wait_s, xchg_s, exposed_ms; /* sums over the steps */
    long timed;                /* steps whose exposure was measured */
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int cuda_mpi_create(const fdw_problem *prob, const fdw_plan *plan, int gpu, size_t count,
                    int stats, cuda_mpi **out)
{
    *out = NULL;
    const fdw_comm *comm = prob->comm;
    cuda_mpi *m = calloc(1, sizeof *m);
    if (!m)
        return -1;
    m->comm = comm;
    m->rank = comm->rank;
    m->prev = comm->rank > 0 ? comm->rank - 1 : -1;
    m->next = comm->rank < plan->ndev - 1 ? comm->rank + 1 : -1;
    m->gpu = gpu;
    m->stats = stats;
    m->count = count;
    m->direct = comm->device_buffers != 0;
    int rc = 0;
    if (!m->direct) {
        float **bufs[4] = {&m->send_top, &m->recv_top, &m->send_bot, &m->recv_bot};
        for (int q = 0; q < 4 && !rc; q++) {
            const int side = q < 2 ? m->prev : m->next;
            if (side >= 0)
                rc = fdwk_host_alloc((void **)bufs[q], count * sizeof(float));
        }
    }
    if (!rc)
        rc = fdwk_event_create(&m->ev_sent, 0);
    if (!rc)
        rc = fdwk_event_create(&m->ev_ghost, 0);
    for (int b = 0; b < 2 && !rc; b++) {
        rc = fdwk_event_create(&m->t_int[b], 1);
        if (!rc)
            rc = fdwk_event_create(&m->t_ghost[b], 1);
    }
    if (!rc && prob->nrec_taps > 0) {
        int *slab_of = malloc(sizeof *slab_of * (size_t)(prob->nreceivers + 1));
        m->rec = malloc(sizeof *m->rec * (size_t)prob->nrec_taps);
        if (!slab_of || !m->rec) {
            rc = -1;
        } else {
            fdw_receiver_slabs(prob, plan, slab_of);
            for (int t = 0; t < prob->nrec_taps; t++) {
                const fdw_tap *tp = &prob->rec_taps[t];
                if (tp->owner >= 0 && tp->owner < prob->nreceivers &&
                    slab_of[tp->owner] == m->rank)
                    m->rec[m->nrec++] = *tp;
            }
        }
        free(slab_of);
    }
    if (rc) {
        cuda_mpi_destroy(m);
        return rc;
    }
    *out = m;
    return 0;
}

void cuda_mpi_destroy(cuda_mpi *m)
{
    if (!m)
        return;
    if (m->stats && m->steps > 0) {
        const double n = (double)m->steps;
        fprintf(stderr,
                "fdwave cuda-mpi: rank %d GPU %d: %ld steps, %s exchange of %.2f MiB each "
                "way per step; per step: host waited %.3f ms for the edge planes, %.3f ms "
                "in the exchange; ghost planes arrived %.3f ms after the interior was "
                "done (not hidden, mean of %ld steps)\n",
                m->rank, m->gpu, m->steps, m->direct ? "CUDA-aware" : "host-staged",
                (double)m->count * 4.0 / 1048576.0, m->wait_s / n * 1e3, m->xchg_s / n * 1e3,
                m->timed > 0 ? m->exposed_ms / (double)m->timed : 0.0, m->timed);
        fflush(stderr);
    }
    fdwk_host_free(m->send_top);
    fdwk_host_free(m->send_bot);
    fdwk_host_free(m->recv_top);
    fdwk_host_free(m->recv_bot);
    fdwk_event_destroy(m->ev_sent);
    fdwk_event_destroy(m->ev_ghost);
    for (int b = 0; b < 2; b++) {
        fdwk_event_destroy(m->t_int[b]);
        fdwk_event_destroy(m->t_ghost[b]);
    }
    free(m->rec);
    free(m);
}

const fdw_tap *cuda_mpi_rec_taps(const cuda_mpi *m, int *ntaps)
{
    *ntaps = m->nrec;
    return m->rec;
}

void cuda_mpi_set_slab_bytes(cuda_mpi *m, int slab, uint64_t bytes)
{
    if (slab >= 0 && slab < FDW_MAX_DEVICES)
        m->slab_bytes[slab] = bytes;
}

uint64_t cuda_mpi_slab_bytes(const cuda_mpi *m, int slab)
{
    return slab >= 0 && slab < FDW_MAX_DEVICES ? m->slab_bytes[slab] : 0;
}

int cuda_mpi_failed(const cuda_mpi *m)
{
    return m->failed;
}

int cuda_mpi_send(cuda_mpi *m, const float *top, const float *bot, fdwk_stream se)
{
    const size_t bytes = m->count * sizeof(float);
    int rc = 0;
    if (m->direct) {
        m->dev_top = top;
        m->dev_bot = bot;
    } else {
        if (m->prev >= 0)
            rc = fdwk_d2h_async(m->send_top, top, bytes, se);
        if (!rc && m->next >= 0)
            rc = fdwk_d2h_async(m->send_bot, bot, bytes, se);
    }
    int rc2 = fdwk_event_record(m->ev_sent, se);
    return rc ? rc : rc2;
}

int cuda_mpi_receive(cuda_mpi *m, float *ghost_top, float *ghost_bot, fdwk_stream se,
                     fdwk_stream si, int sync_si)
{
    const int par = (int)(m->steps & 1);
    const size_t bytes = m->count * sizeof(float);
    int rc = fdwk_event_record(m->t_int[par], si);

    const double t0 = now_s();
    int rc2 = fdwk_event_sync(m->ev_sent);
    if (!rc)
        rc = rc2;
    const double t1 = now_s();
    /* The previous step's pair has completed: this step's edges followed both. */
    if (!rc && m->steps > 0) {
        float ms = 0.0f;
        if (fdwk_event_sync(m->t_int[1 - par]) == 0 && fdwk_event_sync(m->t_ghost[1 - par]) == 0 &&
            fdwk_event_ms(m->t_int[1 - par], m->t_ghost[1 - par], &ms) == 0) {
            m->exposed_ms += ms > 0.0f ? ms : 0.0;
            m->timed++;
        }
    }

    /* Always exchange, so the neighbours never wait for a rank that has failed. */
    const float *send_top = m->direct ? m->dev_top : m->send_top;
    const float *send_bot = m->direct ? m->dev_bot : m->send_bot;
    float *recv_top = m->direct ? ghost_top : m->recv_top;
    float *recv_bot = m->direct ? ghost_bot : m->recv_bot;
    void *pending = NULL;
    int xrc = m->comm->exchange_start(m->comm, m->prev, m->next, send_top, recv_top, send_bot,
                                      recv_bot, m->count, &pending);
    if (!xrc)
        xrc = m->comm->exchange_finish(m->comm, pending);
    const double t2 = now_s();
    m->wait_s += t1 - t0;
    m->xchg_s += t2 - t1;
    m->steps++;
    if (xrc) {
        m->failed = 1;
        return rc;
    }
    if (rc)
        return rc;

    if (!m->direct) {
        if (m->prev >= 0)
            rc = fdwk_h2d_async(ghost_top, m->recv_top, bytes, se);
        if (!rc && m->next >= 0)
            rc = fdwk_h2d_async(ghost_bot, m->recv_bot, bytes, se);
    }
    if (!rc)
        rc = fdwk_event_record(m->t_ghost[par], se);
    if (!rc && sync_si && si != se) {
        rc = fdwk_event_record(m->ev_ghost, se);
        if (!rc)
            rc = fdwk_stream_wait(si, m->ev_ghost);
    }
    return rc;
}
