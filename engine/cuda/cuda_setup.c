/* cuda_setup.c — the CUDA backend's slab set-up and release: per GPU the streams, events,
 * the two fields in the padded layout (kernels/common/fdwk_runtime.h), the initial field of
 * a field kind, the kind's own state (cuda_kind.h), and for wave kinds the sponge, the
 * wavelets, the source taps grouped by grid point and the receiver taps grouped by
 * receiver, with the memory check that names the figures before anything large is
 * allocated. */
#include "cuda/cuda_kind.h"
#include "cuda/cuda_mpi.h"
#include "core/error.h"
#include "kinds/kind.h"
#include "run/positioning.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tap_ref {
    long off;
    int order;
} tap_ref;

static int cmp_tap_ref(const void *a, const void *b)
{
    const tap_ref *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return x->order - y->order;
}

int cuda_upload_array(gpu_slab *g, void **dptr, const void *host, size_t bytes)
{
    *dptr = NULL;
    if (bytes == 0)
        return 0;
    int rc = fdwk_malloc(dptr, bytes);
    if (!rc)
        rc = fdwk_h2d(*dptr, host, bytes);
    return cuda_note(g, rc, "upload");
}

/* Group the source taps of slab g's edge planes ([0,ktop) and [kbot,nz), edge = 1) or of
 * its interior ([ktop,kbot), edge = 0) by grid point and upload them. Returns -1 when host
 * memory runs out, a CUDA error code, or 0. */
static int build_sources(cuda_ctx *c, gpu_slab *g, int edge, src_set *set)
{
    const fdw_problem *p = &c->prob;
    memset(set, 0, sizeof *set);
    const uint64_t nxy = (uint64_t)p->nx * p->ny;
    tap_ref *refs = malloc(sizeof *refs * (size_t)(p->nsrc_taps + 1));
    if (!refs)
        return -1;
    int n = 0;
    for (int t = 0; t < p->nsrc_taps; t++) {
        const fdw_tap *tp = &p->src_taps[t];
        int k = (int)(tp->index / nxy) - g->z0;
        if (k < 0 || k >= g->nz)
            continue;
        int in_edge = k < g->ktop || k >= g->kbot;
        if (in_edge != edge)
            continue;
        int rem = (int)(tp->index % nxy);
        refs[n].off = (long)k * g->L.plane + (long)(rem / p->nx) * g->L.pitch + rem % p->nx;
        refs[n].order = t;
        n++;
    }
    int rc = 0;
    if (n > 0) {
        qsort(refs, (size_t)n, sizeof *refs, cmp_tap_ref);
        long *off = malloc(sizeof *off * (size_t)n);
        int *start = malloc(sizeof *start * (size_t)(n + 1));
        int *owner = malloc(sizeof *owner * (size_t)n);
        float *w = malloc(sizeof *w * (size_t)n);
        if (!off || !start || !owner || !w) {
            rc = -1;
        } else {
            int np = 0;
            for (int t = 0; t < n; t++) {
                if (t == 0 || refs[t].off != refs[t - 1].off) {
                    off[np] = refs[t].off;
                    start[np++] = t;
                }
                owner[t] = p->src_taps[refs[t].order].owner;
                w[t] = p->src_taps[refs[t].order].weight;
            }
            start[np] = n;
            set->npoints = np;
            rc = cuda_upload_array(g, (void **)&set->offset, off, sizeof *off * (size_t)np);
            if (!rc)
                rc = cuda_upload_array(g, (void **)&set->start, start, sizeof *start * (size_t)(np + 1));
            if (!rc)
                rc = cuda_upload_array(g, (void **)&set->owner, owner, sizeof *owner * (size_t)n);
            if (!rc)
                rc = cuda_upload_array(g, (void **)&set->weight, w, sizeof *w * (size_t)n);
        }
        free(off);
        free(start);
        free(owner);
        free(w);
    }
    free(refs);
    return rc;
}

/* Receiver taps owned by slab g, grouped by receiver in the problem's order (CSR). */
static int build_receivers(cuda_ctx *c, gpu_slab *g)
{
    const fdw_problem *p = &c->prob;
    const int nrec = p->nreceivers;
    const uint64_t nxy = (uint64_t)p->nx * p->ny;
    /* Distributed: p's taps are this rank's receivers only, some in its lower ghosts. */
    const int kend = g->z0 + g->nz + (c->mpi ? p->radius : 0);
    int *start = calloc((size_t)nrec + 1, sizeof *start);
    long *off = malloc(sizeof *off * (size_t)(p->nrec_taps + 1));
    float *w = malloc(sizeof *w * (size_t)(p->nrec_taps + 1));
    int rc = -1;
    if (start && off && w) {
        for (int t = 0; t < p->nrec_taps; t++) {
            int k = (int)(p->rec_taps[t].index / nxy);
            if (k >= g->z0 && k < kend)
                start[p->rec_taps[t].owner + 1]++;
        }
        for (int r = 0; r < nrec; r++)
            start[r + 1] += start[r];
        int *fill = calloc((size_t)nrec + 1, sizeof *fill);
        if (fill) {
            for (int t = 0; t < p->nrec_taps; t++) {
                const fdw_tap *tp = &p->rec_taps[t];
                int k = (int)(tp->index / nxy);
                if (k < g->z0 || k >= kend)
                    continue;
                int rem = (int)(tp->index % nxy);
                int pos = start[tp->owner] + fill[tp->owner]++;
                off[pos] = (long)(k - g->z0) * g->L.plane + (long)(rem / p->nx) * g->L.pitch +
                           rem % p->nx;
                w[pos] = tp->weight;
            }
            int ntap = start[nrec];
            rc = cuda_upload_array(g, (void **)&g->rec_start, start, sizeof *start * (size_t)(nrec + 1));
            if (!rc)
                rc = cuda_upload_array(g, (void **)&g->rec_off, off, sizeof *off * (size_t)ntap);
            if (!rc)
                rc = cuda_upload_array(g, (void **)&g->rec_w, w, sizeof *w * (size_t)ntap);
            free(fill);
        }
    }
    free(start);
    free(off);
    free(w);
    return rc;
}

static void free_src(src_set *s)
{
    fdwk_free(s->offset);
    fdwk_free(s->start);
    fdwk_free(s->owner);
    fdwk_free(s->weight);
    memset(s, 0, sizeof *s);
}

fdw_status cuda_setup_taps(cuda_ctx *c, gpu_slab *g, fdw_error *err)
{
    const fdw_problem *p = &c->prob;
    if (p->nsrc_taps > 0) {
        int rc = build_sources(c, g, 0, &g->src_int);
        if (!rc)
            rc = build_sources(c, g, 1, &g->src_edge);
        if (rc)
            return rc == -1 ? fdw_fail(err, FDW_ERR_NOMEM, NULL, "cuda backend: out of host memory")
                            : cuda_device_fail(err, g, g->status, g->where);
    }
    if (p->nreceivers > 0 && p->nrec_slots > 0) {
        size_t bytes = (size_t)p->nrec_slots * (size_t)p->nreceivers * sizeof(float);
        int rc = build_receivers(c, g);
        if (!rc)
            rc = fdwk_malloc((void **)&g->rec, bytes);
        if (!rc)
            rc = fdwk_memset_async(g->rec, 0, bytes, g->si);
        if (!rc)
            rc = fdwk_stream_sync(g->si);
        if (rc)
            return rc == -1 ? fdw_fail(err, FDW_ERR_NOMEM, NULL, "cuda backend: out of host memory")
                            : fdw_fail(err, FDW_ERR_NOMEM, NULL,
                                       "cuda backend: no room on GPU %d for %zu bytes of "
                                       "receiver traces: %s", g->id, bytes, fdwk_strerror(rc));
    }
    return FDW_OK;
}

uint64_t cuda_field_bytes(const struct fdw_cuda_ops *ops, const fdwk_layout *L)
{
    return (2u + (uint64_t)ops->extra_arrays) * (uint64_t)L->total * 4u;
}

/* Bytes slab g needs on its GPU: its whole-layout arrays, the kind's own state, and for
 * wave kinds the sponge, sources, receivers and their recordings. */
uint64_t cuda_slab_bytes(const cuda_ctx *c, const gpu_slab *g)
{
    const fdw_problem *p = &c->prob;
    uint64_t bytes = cuda_field_bytes(c->ops, &g->L);
    if (c->ops->slab_bytes)
        bytes += c->ops->slab_bytes(p, g);
    if (p->kind->wave) {
        bytes += (uint64_t)(p->nx + p->ny + p->nz) * 4u;
        bytes += (uint64_t)p->nsrc_taps * 24u + (uint64_t)(p->nsrc_taps > 0 ? p->nt : 0) *
                 4u * (uint64_t)p->nsrc_taps;
        bytes += (uint64_t)p->nrec_taps * 12u + (uint64_t)p->nreceivers * 4u;
        bytes += (uint64_t)p->nrec_slots * (uint64_t)p->nreceivers * 4u;
    }
    return bytes;
}

int cuda_upload_planes(const cuda_ctx *c, const gpu_slab *g, float *dst, const float *src,
                       int k0, int k1)
{
    const fdw_problem *p = &c->prob;
    const size_t row = (size_t)p->nx * sizeof(float);
    int rc = 0;
    for (int k = k0; k < k1 && !rc; k++)
        rc = fdwk_h2d_2d(dst + (long)k * g->L.plane, (size_t)g->L.pitch * sizeof(float),
                         src + (size_t)(g->z0 + k) * p->ny * p->nx, row, row, (size_t)p->ny);
    return rc;
}

void cuda_release(cuda_ctx *c)
{
    if (!c)
        return;
    cuda_stop_threads(c);
    for (int d = 0; d < c->ndev; d++) {
        gpu_slab *g = &c->dev[d];
        if (fdwk_set_device(g->id))
            continue;
        fdwk_device_sync();
        if (c->ops && c->ops->slab_destroy && g->kstate)
            c->ops->slab_destroy(g);
        fdwk_free(g->raw[0]);
        fdwk_free(g->raw[1]);
        fdwk_free(g->qx);
        fdwk_free(g->qy);
        fdwk_free(g->qz);
        fdwk_free(g->wavelets);
        free_src(&g->src_edge);
        free_src(&g->src_int);
        fdwk_free(g->rec_start);
        fdwk_free(g->rec_off);
        fdwk_free(g->rec_w);
        fdwk_free(g->rec);
        fdwk_free(g->stage);
        fdwk_free(g->peak);
        for (int b = 0; b < 2; b++) {
            fdwk_event_destroy(g->ev_edge[b]);
            fdwk_event_destroy(g->ev_push[b]);
            fdwk_event_destroy(g->ev_int[b]);
        }
        for (int i = 0; i < c->npend; i++)
            if (c->pend[i].ev[d])
                fdwk_event_destroy(c->pend[i].ev[d]);
        if (g->si != g->se)
            fdwk_stream_destroy(g->si);
        fdwk_stream_destroy(g->se);
    }
    for (int i = 0; i < c->npend; i++) {
        fdwk_host_free(c->pend[i].pinned);
        free(c->pend[i].dst);
        free(c->pend[i].off);
        free(c->pend[i].n);
    }
    free(c->pend);
    fdw_cuda_image_free(c);
    cuda_mpi_destroy(c->mpi);
    free(c);
}

/* Whether the slab's bytes fit what GPU g has free (*fr, and its name, for later
 * messages). */
static fdw_status slab_fits(gpu_slab *g, uint64_t *fr, char *name, size_t cap, fdw_error *err)
{
    uint64_t tot = 0;
    const int rc = fdwk_mem_info(fr, &tot);
    if (rc)
        return cuda_device_fail(err, g, rc, "cudaMemGetInfo");
    fdwk_device_name(g->id, name, cap);
    if (g->bytes > *fr)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                        "cuda backend: the job needs %.2f GiB on GPU %d (%s) for planes "
                        "%d..%d but only %.2f GiB of its %.2f GiB is free (%llu bytes "
                        "needed, %llu free)",
                        g->bytes / 1073741824.0, g->id, name, g->z0, g->z0 + g->nz - 1,
                        *fr / 1073741824.0, tot / 1073741824.0,
                        (unsigned long long)g->bytes, (unsigned long long)*fr);
    return FDW_OK;
}

/* The slab's streams (an interior one apart when split) and its events. */
static fdw_status slab_streams(gpu_slab *g, fdw_error *err)
{
    int rc = fdwk_stream_create(&g->se, g->split);
    if (!rc && g->split)
        rc = fdwk_stream_create(&g->si, 0);
    else
        g->si = g->se;
    for (int b = 0; b < 2 && !rc; b++) {
        rc = fdwk_event_create(&g->ev_edge[b], 0);
        if (!rc)
            rc = fdwk_event_create(&g->ev_push[b], 0);
        if (!rc)
            rc = fdwk_event_create(&g->ev_int[b], 0);
    }
    return rc ? cuda_device_fail(err, g, rc, "stream/event creation") : FDW_OK;
}

/* The two field buffers, zeroed, and the field watch's word (name, fr: the messages'). */
static fdw_status slab_fields(gpu_slab *g, const char *name, uint64_t fr, fdw_error *err)
{
    const size_t fbytes = g->L.total * sizeof(float);
    int rc;
    for (int b = 0; b < 2; b++) {
        rc = fdwk_malloc((void **)&g->raw[b], fbytes);
        if (rc)
            return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                            "cuda backend: allocating %.2f GiB on GPU %d (%s) failed: %s "
                            "(the job needs %llu bytes there, %llu were free)",
                            fbytes / 1073741824.0, g->id, name, fdwk_strerror(rc),
                            (unsigned long long)g->bytes, (unsigned long long)fr);
        rc = fdwk_memset_async(g->raw[b], 0, fbytes, g->se);
        if (rc)
            return cuda_device_fail(err, g, rc, "cudaMemset");
    }
    rc = fdwk_malloc((void **)&g->peak, sizeof *g->peak);
    if (rc)
        return cuda_device_fail(err, g, rc, "allocating the field watch's word");
    rc = fdwk_stream_sync(g->se);
    if (rc)
        return cuda_device_fail(err, g, rc, "zeroing the fields");
    const long org = fdwk_origin(&g->L);
    g->f[0] = g->raw[0] + org;
    g->f[1] = g->raw[1] + org;
    return FDW_OK;
}

/* Wave kinds: the sponge (its axes zero where none) and the source wavelets. */
static fdw_status slab_wave(gpu_slab *g, const fdw_problem *p, fdw_error *err)
{
    int rc = 0;
    if (p->qx || p->qy || p->qz) {
        const int n[3] = {p->nx, p->ny, p->nz};
        const float *q[3] = {p->qx, p->qy, p->qz};
        float **dst[3] = {&g->qx, &g->qy, &g->qz};
        float *z = calloc((size_t)(p->nx + p->ny + p->nz), sizeof(float));
        if (!z)
            return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cuda backend: out of host memory");
        for (int a = 0; a < 3 && !rc; a++)
            rc = cuda_upload_array(g, (void **)dst[a], q[a] ? q[a] : z, (size_t)n[a] * 4);
        free(z);
    }
    if (!rc && p->nsrc_taps > 0)
        rc = cuda_upload_array(g, (void **)&g->wavelets, p->wavelets,
                               sizeof(float) * (size_t)p->nt * (size_t)fdw_problem_sources(p));
    if (!rc)
        rc = fdwk_stream_sync(g->se);
    return rc ? cuda_device_fail(err, g, rc, "uploading the sponge and sources") : FDW_OK;
}

fdw_status cuda_setup_slab(cuda_ctx *c, int d, fdw_error *err)
{
    const fdw_problem *p = &c->prob;
    gpu_slab *g = &c->dev[d];
    const int r = c->ops->single_slab ? 0 : p->radius;
    int rc = fdwk_set_device(g->id);
    if (rc)
        return cuda_device_fail(err, g, rc, "cudaSetDevice");
    fdwk_layout_init(&g->L, p->nx, p->ny, g->nz, r);
    g->bytes = cuda_slab_bytes(c, g);
    uint64_t fr = 0;
    char name[128] = "";
    fdw_status st = slab_fits(g, &fr, name, sizeof name, err);
    if (st == FDW_OK)
        st = slab_streams(g, err);
    if (st == FDW_OK)
        st = slab_fields(g, name, fr, err);
    if (st != FDW_OK)
        return st;
    /* Field kinds: the initial field, plane by plane, its ghost planes too. */
    if (!p->kind->wave) {
        const int kfirst = g->z0 - r < 0 ? -g->z0 : -r;
        const int klast = g->z0 + g->nz + r > p->nz ? p->nz - g->z0 : g->nz + r;
        rc = cuda_upload_planes(c, g, g->f[0], p->init, kfirst, klast);
        if (rc)
            return cuda_device_fail(err, g, rc, "uploading the initial field");
    }
    if (c->ops->slab_create && (st = c->ops->slab_create(c, g, err)) != FDW_OK)
        return st;
    return p->kind->wave ? slab_wave(g, p, err) : FDW_OK;
}
