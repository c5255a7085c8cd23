/* cuda_step.c — one time step of the CUDA backend on one slab, issued asynchronously
 * (DESIGN.md's multi-device plan; cuda_backend.c's opening comment gives the event order):
 * the edge planes on the high-priority stream, their sources, the pushes into the
 * neighbours' ghost planes (or the MPI exchange), the interior on the second stream, the
 * receivers once both are done. The kind's update comes through its hook (cuda_kind.h);
 * the free-surface mirror, sources and receivers are the wave kinds' shared parts. */
#include "cuda/cuda_kind.h"
#include "cuda/cuda_mpi.h"
#include "core/error.h"
#include "kinds/kind.h"

#include <stdio.h>
#include <string.h>

int cuda_note(gpu_slab *g, int rc, const char *where)
{
    if (rc && !g->status) {
        g->status = rc;
        snprintf(g->where, sizeof g->where, "%s", where);
    }
    return rc;
}

fdw_status cuda_device_fail(fdw_error *err, const gpu_slab *g, int rc, const char *where)
{
    return fdw_fail(err, FDW_ERR_DEVICE, NULL, "cuda backend: GPU %d: %s failed: %s", g->id,
                    where, fdwk_strerror(rc));
}

/* Start of padded plane k (local, may be a ghost plane) of field b. */
static float *cuda_padded_plane(const gpu_slab *g, int b, int k)
{
    return g->f[b] + (long)k * g->L.plane - (long)g->L.ypad * g->L.pitch - g->L.xoff;
}

void cuda_fd_args(const cuda_ctx *c, const gpu_slab *g, int cur, fdwk_fd_args *a)
{
    const fdw_problem *p = &c->prob;
    memset(a, 0, sizeof *a);
    a->radius = p->radius;
    a->u = g->f[cur];
    a->out = g->f[1 - cur];
    a->nx = p->nx;
    a->ny = p->ny;
    a->kglob = g->z0;
    a->pitch = g->L.pitch;
    a->plane = g->L.plane;
    a->zchunk = p->tuning->cuda_zchunk;
}

/* Step it's sources of set added into field on stream s (nothing outside [0, nt)); errors
 * are noted on g. */
static int cuda_inject(const cuda_ctx *c, gpu_slab *g, const src_set *set, float *field,
                       long it, fdwk_stream s)
{
    if (set->npoints == 0 || it < 0 || it >= c->prob.nt)
        return 0;
    return cuda_note(g, fdwk_inject(field, set->npoints, set->offset, set->start, set->owner,
                               set->weight, g->wavelets, c->prob.nt, it, s),
                "source injection");
}

/* The receivers' slot after step it, read from field on g->si when one is due. */
static void cuda_record(const cuda_ctx *c, gpu_slab *g, long it, const float *field)
{
    const fdw_problem *p = &c->prob;
    if (!g->rec || (it + 1) % p->rec_interval != 0)
        return;
    const long slot = (it + 1) / p->rec_interval;
    if (slot < p->nrec_slots)
        cuda_note(g, fdwk_record(g->rec, slot, p->nreceivers, g->rec_start, g->rec_off,
                                 g->rec_w, field, g->si),
                  "receiver kernel");
}

/* Push the r edge planes of field b to the neighbours' ghost planes (same field index). */
static void push_ghosts(cuda_ctx *c, gpu_slab *g, int d, int b, int first, int prv)
{
    const int r = c->prob.radius;
    const size_t bytes = (size_t)r * (size_t)g->L.plane * sizeof(float);
    if (g->up) {
        gpu_slab *n = &c->dev[d - 1];
        if (!first)
            cuda_note(g, fdwk_stream_wait(g->se, n->ev_edge[prv]), "event wait");
        cuda_note(g, fdwk_peer_async(cuda_padded_plane(n, b, n->nz), n->id, cuda_padded_plane(g, b, 0), g->id,
                                bytes, g->se),
             "ghost copy");
    }
    if (g->down) {
        gpu_slab *n = &c->dev[d + 1];
        if (!first)
            cuda_note(g, fdwk_stream_wait(g->se, n->ev_edge[prv]), "event wait");
        cuda_note(g, fdwk_peer_async(cuda_padded_plane(n, b, -r), n->id, cuda_padded_plane(g, b, g->nz - r),
                                g->id, bytes, g->se),
             "ghost copy");
    }
}

/* Issue step `it` on slab d (all work asynchronous). */
void cuda_issue_step(cuda_ctx *c, int d, long it)
{
    const fdw_problem *p = &c->prob;
    gpu_slab *g = &c->dev[d];
    const int cur = c->cur, nw = 1 - cur;
    const int par = (int)(c->steps & 1), prv = 1 - par, first = c->steps == 0;
    const int multi = c->ndev > 1;

    const int wave = p->kind->wave;
    const int mirror = wave && p->free_surface && g->z0 == 0;

    /* Edge planes (or, unsplit, the whole slab) on se. */
    if (multi && !first) {
        if (g->split)
            cuda_note(g, fdwk_stream_wait(g->se, g->ev_int[prv]), "event wait");
        if (g->up)
            cuda_note(g, fdwk_stream_wait(g->se, c->dev[d - 1].ev_push[prv]), "event wait");
        if (g->down)
            cuda_note(g, fdwk_stream_wait(g->se, c->dev[d + 1].ev_push[prv]), "event wait");
    }
    if (c->mpi && g->split && !first)
        cuda_note(g, fdwk_stream_wait(g->se, g->ev_int[prv]), "event wait");
    if (!g->split) {
        if (mirror)
            cuda_note(g, fdwk_free_surface(g->f[cur], &g->L, p->radius, g->se), "free surface");
        c->ops->update(c, g, cur, 0, g->nz, g->se);
        if (wave)
            cuda_inject(c, g, &g->src_int, g->f[nw], it, g->se);
    } else {
        c->ops->update(c, g, cur, 0, g->ktop, g->se);
        c->ops->update(c, g, cur, g->kbot, g->nz, g->se);
        if (wave)
            cuda_inject(c, g, &g->src_edge, g->f[nw], it, g->se);
    }
    if (multi) {
        cuda_note(g, fdwk_event_record(g->ev_edge[par], g->se), "event record");
        push_ghosts(c, g, d, nw, first, prv);
        cuda_note(g, fdwk_event_record(g->ev_push[par], g->se), "event record");
    }

    if (c->mpi) { /* distributed: the new edge planes go to the neighbouring ranks */
        cuda_note(g, fdwk_event_record(g->ev_edge[par], g->se), "event record");
        cuda_note(g, cuda_mpi_send(c->mpi, cuda_padded_plane(g, nw, 0),
                              cuda_padded_plane(g, nw, g->nz - p->radius), g->se),
             "copying edge planes for MPI");
    }

    /* Interior on si, overlapping the pushes. */
    if (g->split) {
        if (!first)
            cuda_note(g, fdwk_stream_wait(g->si, g->ev_edge[prv]), "event wait");
        if (mirror)
            cuda_note(g, fdwk_free_surface(g->f[cur], &g->L, p->radius, g->si), "free surface");
        c->ops->update(c, g, cur, g->ktop, g->kbot, g->si);
        if (wave)
            cuda_inject(c, g, &g->src_int, g->f[nw], it, g->si);
        cuda_note(g, fdwk_event_record(g->ev_int[par], g->si), "event record");
        cuda_note(g, fdwk_stream_wait(g->si, g->ev_edge[par]), "event wait");
    } else if (multi) {
        cuda_note(g, fdwk_event_record(g->ev_int[par], g->si), "event record");
    }

    const int recording = g->rec && (it + 1) % p->rec_interval == 0;
    if (c->mpi) /* exchange while the interior runs; ghosts in before the receivers */
        cuda_note(g, cuda_mpi_receive(c->mpi, cuda_padded_plane(g, nw, -p->radius),
                                 cuda_padded_plane(g, nw, g->nz), g->se, g->si, recording),
             "ghost planes through MPI");

    /* Receivers read the new field once both parts are done. */
    cuda_record(c, g, it, g->f[nw]);
}

fdw_status cuda_collect_status(cuda_ctx *c, fdw_error *err)
{
    if (c->mpi && cuda_mpi_failed(c->mpi))
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "cuda backend: rank %d: the ghost exchange with the neighbouring ranks "
                        "failed", c->prob.comm->rank);
    for (int d = 0; d < c->ndev; d++)
        if (c->dev[d].status)
            return cuda_device_fail(err, &c->dev[d], c->dev[d].status, c->dev[d].where);
    return FDW_OK;
}

