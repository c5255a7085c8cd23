/* cuda_backend.c — the CUDA backend (host side, C11): one slab of the plan per GPU, the
 * time step issued asynchronously on CUDA streams, ghost planes pushed to the neighbours
 * with peer copies, snapshots copied back through pinned buffers, receivers recorded on
 * the device. Talks to the GPU only through the kernels' C headers (kernels/common,
 * kernels/<kind>).
 *
 * Per step and device (DESIGN.md's multi-device plan): the planes next to a neighbour
 * ("edge" planes, r deep) are updated first on a high-priority stream, their sources
 * added, and pushed into the neighbours' ghost planes; meanwhile the interior is updated
 * on a second stream. Events order the two streams and the devices:
 *   edge(it)     after interior(it-1) of this device and the neighbours' pushes of it-1;
 *   push(it)     after the neighbour's edge(it-1), which read the ghosts it overwrites;
 *   interior(it) after edge(it-1) of this device.
 * Events are double-buffered by step parity, and one host thread per GPU issues the work;
 * all threads finish issuing step it before any issues it+1, so every event waited on
 * has been recorded. Results equal one GPU's bit for bit (the same kernel computes every
 * point), except receivers whose interpolation taps straddle two slabs: their partial
 * sums are added on the host, which may change the last bit.
 *
 * Distributed run (prob->comm set, one MPI rank per slab): the context holds slab
 * comm->rank on the GPU the plan names for it, and cuda_mpi.c swaps the edge planes with
 * the neighbouring ranks while the interior runs; a receiver is recorded whole by one rank
 * (ghost planes included), so every output equals one GPU's bit for bit. */
#include "run/backend.h"
#include "kinds/acoustic/cpml.h"
#include "cuda/cuda_mpi.h"
#include "core/error.h"
#include "acoustic/fdwk_acoustic.h"
#include "common/fdwk_runtime.h"
#include "derivative/fdwk_derivative.h"
#include "stencil/fdwk_stencil.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Source taps of one region of a slab, grouped by grid point (CSR), on the device. */
typedef struct src_set {
    int npoints;
    long *offset;              /* device: field offset from the interior origin */
    int *start;                /* device: npoints + 1 */
    int *owner;                /* device: per tap */
    float *weight;             /* device: per tap */
} src_set;

typedef struct pending_copy {
    float *pinned;             /* host staging (pinned), filled by the device copies */
    size_t cap;
    int nregions;
    float **dst;               /* engine's buffers */
    size_t *off, *n;           /* region offset in pinned and its size (floats) */
    int busy;
    fdwk_event ev[FDW_MAX_DEVICES]; /* per slab, after its copies (NULL until first used) */
} pending_copy;

typedef struct gpu_slab {
    int id;                    /* CUDA ordinal */
    int z0, nz;                /* owned global planes */
    int up, down;              /* has a neighbour above (z0 > 0) / below */
    int split;                 /* edges and interior on separate streams */
    int ktop, kbot;            /* edge planes [0,ktop) and [kbot,nz); interior between */
    fdwk_layout L;
    float *raw[2], *raw_v;     /* allocations */
    float *f[2];               /* interior origins of the two fields */
    float *v;                  /* (v dt)^2 origin */
    float *qx, *qy, *qz;       /* sponge, or NULL */
    /* CPML per axis (NULL: no layer on that axis): coefficients by global index, psi and
     * zeta on this slab's layer points (acoustic/fdwk_acoustic.h gives the compact layout); for z, pw0/pw1
     * are the layer planes this slab holds. */
    float *pa[3], *pb[3], *psi[3], *zeta[3];
    int pw0[3], pw1[3];
    float *wavelets;
    src_set src_edge, src_int;
    int *rec_start;            /* nreceivers + 1 */
    long *rec_off;
    float *rec_w;
    float *rec;                /* nrec_slots * nreceivers */
    float *stage;              /* device staging for extraction */
    size_t stage_cap;
    fdwk_stream se, si;        /* edge (high priority) and interior streams; equal when !split */
    fdwk_event ev_edge[2], ev_push[2], ev_int[2];
    uint64_t bytes;
    int status;                /* CUDA error of the last issued work, 0 if none */
    char where[64];
    pthread_t thread;
    struct cuda_ctx *ctx;      /* back pointer for the worker thread */
    int index;                 /* slab index d */
} gpu_slab;

typedef struct cuda_ctx {
    fdw_problem prob;          /* shallow copy; arrays belong to the engine */
    int ndev;
    gpu_slab dev[FDW_MAX_DEVICES];
    int cur;                   /* f[cur] holds the current field */
    long steps;                /* steps issued */
    pending_copy *pend;
    int npend;
    /* worker threads (ndev > 1) */
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    long gen;
    int ndone, quit, threads_started;
    long cmd_it;
    struct cuda_mpi *mpi;      /* distributed run: the exchange with the other ranks */
} cuda_ctx;

/* ---- small helpers ------------------------------------------------------- */

static int note(gpu_slab *g, int rc, const char *where)
{
    if (rc && !g->status) {
        g->status = rc;
        snprintf(g->where, sizeof g->where, "%s", where);
    }
    return rc;
}

static fdw_status device_fail(fdw_error *err, const gpu_slab *g, int rc, const char *where)
{
    return fdw_fail(err, FDW_ERR_DEVICE, NULL, "cuda backend: GPU %d: %s failed: %s", g->id,
                    where, fdwk_strerror(rc));
}

int fdw_gpu_count(void)
{
    int n = 0;
    if (fdwk_device_count(&n) != 0)
        return 0;
    return n;
}

const char *fdw_cuda_config_name(int n) { return fdwk_fd_config_name(n); }

fdw_status fdw_gpu_info(int id, fdw_device_info *info, fdw_error *err)
{
    int n = fdw_gpu_count();
    if (id < 0 || id >= n)
        return fdw_fail(err, FDW_ERR_DEVICE, NULL, "GPU %d does not exist (%d GPU%s found)", id,
                        n, n == 1 ? "" : "s");
    memset(info, 0, sizeof *info);
    info->id = id;
    info->is_gpu = 1;
    int rc = fdwk_device_name(id, info->name, sizeof info->name);
    if (!rc)
        rc = fdwk_set_device(id);
    if (!rc)
        rc = fdwk_mem_info(&info->free_bytes, &info->total_bytes);
    if (rc)
        return fdw_fail(err, FDW_ERR_DEVICE, NULL, "GPU %d: %s", id, fdwk_strerror(rc));
    return FDW_OK;
}

/* ---- set-up -------------------------------------------------------------- */

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

static int upload_array(gpu_slab *g, void **dptr, const void *host, size_t bytes)
{
    *dptr = NULL;
    if (bytes == 0)
        return 0;
    int rc = fdwk_malloc(dptr, bytes);
    if (!rc)
        rc = fdwk_h2d(*dptr, host, bytes);
    return note(g, rc, "upload");
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
            rc = upload_array(g, (void **)&set->offset, off, sizeof *off * (size_t)np);
            if (!rc)
                rc = upload_array(g, (void **)&set->start, start, sizeof *start * (size_t)(np + 1));
            if (!rc)
                rc = upload_array(g, (void **)&set->owner, owner, sizeof *owner * (size_t)n);
            if (!rc)
                rc = upload_array(g, (void **)&set->weight, w, sizeof *w * (size_t)n);
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
            rc = upload_array(g, (void **)&g->rec_start, start, sizeof *start * (size_t)(nrec + 1));
            if (!rc)
                rc = upload_array(g, (void **)&g->rec_off, off, sizeof *off * (size_t)ntap);
            if (!rc)
                rc = upload_array(g, (void **)&g->rec_w, w, sizeof *w * (size_t)ntap);
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

static void stop_threads(cuda_ctx *c);

static void cuda_destroy(void *vctx)
{
    cuda_ctx *c = vctx;
    if (!c)
        return;
    stop_threads(c);
    for (int d = 0; d < c->ndev; d++) {
        gpu_slab *g = &c->dev[d];
        if (fdwk_set_device(g->id))
            continue;
        fdwk_device_sync();
        fdwk_free(g->raw[0]);
        fdwk_free(g->raw[1]);
        fdwk_free(g->raw_v);
        fdwk_free(g->qx);
        fdwk_free(g->qy);
        fdwk_free(g->qz);
        for (int a = 0; a < 3; a++) {
            fdwk_free(g->pa[a]);
            fdwk_free(g->pb[a]);
            fdwk_free(g->psi[a]);
            fdwk_free(g->zeta[a]);
        }
        fdwk_free(g->wavelets);
        free_src(&g->src_edge);
        free_src(&g->src_int);
        fdwk_free(g->rec_start);
        fdwk_free(g->rec_off);
        fdwk_free(g->rec_w);
        fdwk_free(g->rec);
        fdwk_free(g->stage);
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
    cuda_mpi_destroy(c->mpi);
    free(c);
}

/* CPML layer points of axis a held by a slab of nz planes starting at global z0
 * (fdw_cpml_slab_points); sets *w0, *w1 to the layer widths this slab's compact psi/zeta
 * layout uses (acoustic/fdwk_acoustic.h): for z, the layers lie whole in the top and bottom slabs
 * (engine/backend.h), so a slab holds the top layer if it starts at 0, the bottom one if
 * it ends at nz. */
static uint64_t pml_points(const fdw_problem *p, int a, int z0, int nz, int *w0, int *w1)
{
    const uint64_t n = fdw_cpml_slab_points(p, a, z0, nz);
    *w0 = n ? p->pml_w[a][0] : 0;
    *w1 = n ? p->pml_w[a][1] : 0;
    if (a == 2 && z0 != 0)
        *w0 = 0;
    if (a == 2 && z0 + nz != p->nz)
        *w1 = 0;
    return n;
}

/* Bytes of a slab's wavefields with layout L: u, u' and (v dt)^2 (acoustic), or the field
 * and its output. */
static uint64_t wavefield_bytes(fdw_kind kind, const fdwk_layout *L)
{
    return (kind == FDW_KIND_ACOUSTIC ? 3u : 2u) * (uint64_t)L->total * 4u;
}

/* Bytes slab g needs on its GPU. */
static uint64_t slab_bytes(const fdw_problem *p, const gpu_slab *g)
{
    uint64_t fields = wavefield_bytes(p->kind, &g->L);
    uint64_t extra = 0;
    if (p->kind == FDW_KIND_ACOUSTIC) {
        extra += (uint64_t)(p->nx + p->ny + p->nz) * 4u;
        extra += (uint64_t)p->nsrc_taps * 24u + (uint64_t)(p->nsrc_taps > 0 ? p->nt : 0) *
                 4u * (uint64_t)p->nsrc_taps;
        extra += (uint64_t)p->nrec_taps * 12u + (uint64_t)p->nreceivers * 4u;
        extra += (uint64_t)p->nrec_slots * (uint64_t)p->nreceivers * 4u;
        for (int a = 0; a < 3; a++) {
            int w0, w1;
            extra += 8u * pml_points(p, a, g->z0, g->nz, &w0, &w1);
            if (p->pml_a[a])
                extra += 8u * (uint64_t)(a == 0 ? p->nx : a == 1 ? p->ny : p->nz);
        }
    }
    return fields + extra;
}

static fdw_status setup_slab(cuda_ctx *c, int d, fdw_error *err)
{
    const fdw_problem *p = &c->prob;
    gpu_slab *g = &c->dev[d];
    const int r = p->kind == FDW_KIND_DERIVATIVE ? 0 : p->radius;
    int rc = fdwk_set_device(g->id);
    if (rc)
        return device_fail(err, g, rc, "cudaSetDevice");
    fdwk_layout_init(&g->L, p->nx, p->ny, g->nz, r);
    g->bytes = slab_bytes(p, g);

    uint64_t fr = 0, tot = 0;
    rc = fdwk_mem_info(&fr, &tot);
    if (rc)
        return device_fail(err, g, rc, "cudaMemGetInfo");
    char name[128] = "";
    fdwk_device_name(g->id, name, sizeof name);
    if (g->bytes > fr)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                        "cuda backend: the job needs %.2f GiB on GPU %d (%s) for planes "
                        "%d..%d but only %.2f GiB of its %.2f GiB is free (%llu bytes "
                        "needed, %llu free)",
                        g->bytes / 1073741824.0, g->id, name, g->z0, g->z0 + g->nz - 1,
                        fr / 1073741824.0, tot / 1073741824.0,
                        (unsigned long long)g->bytes, (unsigned long long)fr);

    rc = fdwk_stream_create(&g->se, g->split);
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
    if (rc)
        return device_fail(err, g, rc, "stream/event creation");

    const size_t fbytes = g->L.total * sizeof(float);
    const long org = fdwk_origin(&g->L);
    const int nfield = p->kind == FDW_KIND_ACOUSTIC ? 3 : 2;
    for (int b = 0; b < nfield; b++) {
        float **raw = b < 2 ? &g->raw[b] : &g->raw_v;
        rc = fdwk_malloc((void **)raw, fbytes);
        if (rc)
            return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                            "cuda backend: allocating %.2f GiB on GPU %d (%s) failed: %s "
                            "(the job needs %llu bytes there, %llu were free)",
                            fbytes / 1073741824.0, g->id, name, fdwk_strerror(rc),
                            (unsigned long long)g->bytes, (unsigned long long)fr);
        rc = fdwk_memset_async(*raw, 0, fbytes, g->se);
        if (rc)
            return device_fail(err, g, rc, "cudaMemset");
    }
    rc = fdwk_stream_sync(g->se);
    if (rc)
        return device_fail(err, g, rc, "zeroing the fields");
    g->f[0] = g->raw[0] + org;
    g->f[1] = g->raw[1] + org;
    g->v = g->raw_v ? g->raw_v + org : NULL;

    /* Model or initial field, plane by plane (ghost planes of the initial field too). */
    const size_t row = (size_t)p->nx * sizeof(float);
    const float *src = p->kind == FDW_KIND_ACOUSTIC ? p->vdt2 : p->init;
    float *dst0 = p->kind == FDW_KIND_ACOUSTIC ? g->v : g->f[0];
    int kfirst = 0, klast = g->nz;
    if (p->kind != FDW_KIND_ACOUSTIC) {
        kfirst = g->z0 - r < 0 ? -g->z0 : -r;
        klast = g->z0 + g->nz + r > p->nz ? p->nz - g->z0 : g->nz + r;
    }
    for (int k = kfirst; k < klast && !rc; k++)
        rc = fdwk_h2d_2d(dst0 + (long)k * g->L.plane, (size_t)g->L.pitch * sizeof(float),
                         src + (size_t)(g->z0 + k) * p->ny * p->nx, row, row, (size_t)p->ny);
    if (rc)
        return device_fail(err, g, rc, "uploading the model");

    if (p->kind == FDW_KIND_ACOUSTIC) {
        if (p->qx || p->qy || p->qz) {
            float *z = calloc((size_t)(p->nx + p->ny + p->nz), sizeof(float));
            if (!z)
                return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cuda backend: out of host memory");
            rc = upload_array(g, (void **)&g->qx, p->qx ? p->qx : z, (size_t)p->nx * 4);
            if (!rc)
                rc = upload_array(g, (void **)&g->qy, p->qy ? p->qy : z, (size_t)p->ny * 4);
            if (!rc)
                rc = upload_array(g, (void **)&g->qz, p->qz ? p->qz : z, (size_t)p->nz * 4);
            free(z);
        }
        if (!rc && p->nsrc_taps > 0) {
            int nsrc = 0; /* wavelets hold one row of nt samples per source */
            for (int t = 0; t < p->nsrc_taps; t++)
                if (p->src_taps[t].owner + 1 > nsrc)
                    nsrc = p->src_taps[t].owner + 1;
            rc = upload_array(g, (void **)&g->wavelets, p->wavelets,
                              sizeof(float) * (size_t)p->nt * (size_t)nsrc);
        }
        static const char *axes = "xyz";
        for (int ax = 0; ax < 3 && !rc; ax++) {
            const uint64_t npts = pml_points(p, ax, g->z0, g->nz, &g->pw0[ax], &g->pw1[ax]);
            if (!p->pml_a[ax])
                continue;
            const size_t n = (size_t)(ax == 0 ? p->nx : ax == 1 ? p->ny : p->nz);
            rc = upload_array(g, (void **)&g->pa[ax], p->pml_a[ax], n * 4);
            if (!rc)
                rc = upload_array(g, (void **)&g->pb[ax], p->pml_b[ax], n * 4);
            for (int z = 0; z < 2 && !rc && npts > 0; z++) {
                float **dst = z ? &g->zeta[ax] : &g->psi[ax];
                rc = fdwk_malloc((void **)dst, (size_t)npts * 4);
                if (!rc)
                    rc = fdwk_memset_async(*dst, 0, (size_t)npts * 4, g->se);
            }
            if (rc)
                return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                                "cuda backend: allocating the CPML arrays of axis %c on GPU %d "
                                "(%s) failed: %s", axes[ax], g->id, name, fdwk_strerror(rc));
        }
        if (!rc)
            rc = fdwk_stream_sync(g->se);
        if (rc)
            return device_fail(err, g, rc, "uploading the sponge and sources");
    }
    return FDW_OK;
}

/* ---- the time step --------------------------------------------------------- */

/* Start of padded plane k (local, may be a ghost plane) of field b. */
static float *padded_plane(const gpu_slab *g, int b, int k)
{
    return g->f[b] + (long)k * g->L.plane - (long)g->L.ypad * g->L.pitch - g->L.xoff;
}

static void fill_args(const cuda_ctx *c, const gpu_slab *g, int cur, fdwk_fd_args *a)
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
    a->config = 0;
    if (p->kind == FDW_KIND_ACOUSTIC) {
        a->mode = FDWK_ACOUSTIC;
        a->vdt2 = g->v;
        a->qx = g->qx;
        a->qy = g->qy;
        a->qz = g->qz;
        a->free_surface = p->free_surface;
        a->c0 = (p->cx[0] + p->cy[0]) + p->cz[0];
        for (int m = 0; m <= FDW_MAX_RADIUS; m++) {
            a->cx[m] = p->cx[m];
            a->cy[m] = p->cy[m];
            a->cz[m] = p->cz[m];
        }
    } else {
        a->mode = FDWK_STENCIL;
        a->c0 = p->sc[0];
        for (int m = 0; m <= FDW_MAX_RADIUS; m++)
            a->cx[m] = a->cy[m] = a->cz[m] = p->sc[m];
    }
}

static int update_planes(gpu_slab *g, fdwk_fd_args *a, int k0, int k1, fdwk_stream s)
{
    if (k1 <= k0)
        return 0;
    a->k0 = k0;
    a->k1 = k1;
    return note(g, a->mode == FDWK_ACOUSTIC ? fdwk_acoustic_step(a, s) : fdwk_stencil_step(a, s),
                "stencil kernel");
}

/* The update of local planes [k0, k1) with the CPML (engine/backend.h): psi of every
 * axis first (fdwk_pml_psi; a no-op for y and z, whose psi the zeta call updates), then the
 * stencil update, after which fdwk_acoustic_step runs each axis's zeta pass (fdwk_pml_zeta). */
static void update_part(const cuda_ctx *c, gpu_slab *g, fdwk_fd_args *a, int cur, int k0, int k1,
                        fdwk_stream s)
{
    const fdw_problem *p = &c->prob;
    fdwk_pml_args pa[3];
    if (k1 <= k0)
        return;
    for (int ax = 0; ax < 3; ax++) {
        a->pml[ax] = NULL;
        if (!g->psi[ax])
            continue;
        fdwk_pml_args *q = &pa[ax];
        memset(q, 0, sizeof *q);
        q->axis = ax;
        q->radius = p->radius;
        q->nx = p->nx;
        q->ny = p->ny;
        q->pitch = g->L.pitch;
        q->plane = g->L.plane;
        q->k0 = k0;
        q->k1 = k1;
        q->kglob = g->z0;
        q->n = ax == 0 ? p->nx : ax == 1 ? p->ny : p->nz;
        q->w0 = g->pw0[ax];
        q->w1 = g->pw1[ax];
        q->free_surface = p->free_surface;
        q->a = g->pa[ax];
        q->b = g->pb[ax];
        q->u = g->f[cur];
        q->vdt2 = g->v;
        q->out = g->f[1 - cur];
        q->psi = g->psi[ax];
        q->zeta = g->zeta[ax];
        const float *c2 = ax == 0 ? p->cx : ax == 1 ? p->cy : p->cz;
        for (int m = 0; m <= FDW_MAX_RADIUS && m <= FDWK_MAX_RADIUS; m++) {
            q->d1[m] = p->pml_d1[ax][m];
            q->d2[m] = c2[m];
        }
        note(g, fdwk_pml_psi(q, s), "CPML psi kernel");
        a->pml[ax] = q;
    }
    update_planes(g, a, k0, k1, s);
    for (int ax = 0; ax < 3; ax++)
        a->pml[ax] = NULL; /* pa lives on this stack frame */
}

static int inject(const cuda_ctx *c, gpu_slab *g, const src_set *set, float *field, long it,
                  fdwk_stream s)
{
    if (set->npoints == 0 || it < 0 || it >= c->prob.nt)
        return 0;
    return note(g, fdwk_inject(field, set->npoints, set->offset, set->start, set->owner,
                               set->weight, g->wavelets, c->prob.nt, it, s),
                "source injection");
}

/* Push the r edge planes of field b to the neighbours' ghost planes (same field index). */
static void push_ghosts(cuda_ctx *c, gpu_slab *g, int d, int b, int first, int prv)
{
    const int r = c->prob.radius;
    const size_t bytes = (size_t)r * (size_t)g->L.plane * sizeof(float);
    if (g->up) {
        gpu_slab *n = &c->dev[d - 1];
        if (!first)
            note(g, fdwk_stream_wait(g->se, n->ev_edge[prv]), "event wait");
        note(g, fdwk_peer_async(padded_plane(n, b, n->nz), n->id, padded_plane(g, b, 0), g->id,
                                bytes, g->se),
             "ghost copy");
    }
    if (g->down) {
        gpu_slab *n = &c->dev[d + 1];
        if (!first)
            note(g, fdwk_stream_wait(g->se, n->ev_edge[prv]), "event wait");
        note(g, fdwk_peer_async(padded_plane(n, b, -r), n->id, padded_plane(g, b, g->nz - r),
                                g->id, bytes, g->se),
             "ghost copy");
    }
}

/* Issue step `it` on slab d (all work asynchronous). */
static void issue_step(cuda_ctx *c, int d, long it)
{
    const fdw_problem *p = &c->prob;
    gpu_slab *g = &c->dev[d];
    const int cur = c->cur, nw = 1 - cur;
    const int par = (int)(c->steps & 1), prv = 1 - par, first = c->steps == 0;
    const int multi = c->ndev > 1;

    if (p->kind == FDW_KIND_DERIVATIVE) {
        note(g, fdwk_derivative(g->f[nw], g->f[cur], p->nx, p->ny, p->nz, g->L.pitch,
                                g->L.plane, (int)p->deriv_axis, p->dc, 0, 0, g->se),
             "derivative kernel");
        return;
    }
    fdwk_fd_args a;
    fill_args(c, g, cur, &a);
    const int acoustic = p->kind == FDW_KIND_ACOUSTIC;
    const int mirror = acoustic && p->free_surface && g->z0 == 0;

    /* Edge planes (or, unsplit, the whole slab) on se. */
    if (multi && !first) {
        if (g->split)
            note(g, fdwk_stream_wait(g->se, g->ev_int[prv]), "event wait");
        if (g->up)
            note(g, fdwk_stream_wait(g->se, c->dev[d - 1].ev_push[prv]), "event wait");
        if (g->down)
            note(g, fdwk_stream_wait(g->se, c->dev[d + 1].ev_push[prv]), "event wait");
    }
    if (c->mpi && g->split && !first)
        note(g, fdwk_stream_wait(g->se, g->ev_int[prv]), "event wait");
    if (!g->split) {
        if (mirror)
            note(g, fdwk_free_surface(g->f[cur], &g->L, p->radius, g->se), "free surface");
        update_part(c, g, &a, cur, 0, g->nz, g->se);
        if (acoustic)
            inject(c, g, &g->src_int, g->f[nw], it, g->se);
    } else {
        update_part(c, g, &a, cur, 0, g->ktop, g->se);
        update_part(c, g, &a, cur, g->kbot, g->nz, g->se);
        if (acoustic)
            inject(c, g, &g->src_edge, g->f[nw], it, g->se);
    }
    if (multi) {
        note(g, fdwk_event_record(g->ev_edge[par], g->se), "event record");
        push_ghosts(c, g, d, nw, first, prv);
        note(g, fdwk_event_record(g->ev_push[par], g->se), "event record");
    }

    if (c->mpi) { /* distributed: the new edge planes go to the neighbouring ranks */
        note(g, fdwk_event_record(g->ev_edge[par], g->se), "event record");
        note(g, cuda_mpi_send(c->mpi, padded_plane(g, nw, 0),
                              padded_plane(g, nw, g->nz - p->radius), g->se),
             "copying edge planes for MPI");
    }

    /* Interior on si, overlapping the pushes. */
    if (g->split) {
        if (!first)
            note(g, fdwk_stream_wait(g->si, g->ev_edge[prv]), "event wait");
        if (mirror)
            note(g, fdwk_free_surface(g->f[cur], &g->L, p->radius, g->si), "free surface");
        update_part(c, g, &a, cur, g->ktop, g->kbot, g->si);
        if (acoustic)
            inject(c, g, &g->src_int, g->f[nw], it, g->si);
        note(g, fdwk_event_record(g->ev_int[par], g->si), "event record");
        note(g, fdwk_stream_wait(g->si, g->ev_edge[par]), "event wait");
    } else if (multi) {
        note(g, fdwk_event_record(g->ev_int[par], g->si), "event record");
    }

    const int recording = g->rec && (it + 1) % p->rec_interval == 0;
    if (c->mpi) /* exchange while the interior runs; ghosts in before the receivers */
        note(g, cuda_mpi_receive(c->mpi, padded_plane(g, nw, -p->radius),
                                 padded_plane(g, nw, g->nz), g->se, g->si, recording),
             "ghost planes through MPI");

    /* Receivers read the new field once both parts are done. */
    if (recording) {
        long slot = (it + 1) / p->rec_interval;
        if (slot < p->nrec_slots)
            note(g, fdwk_record(g->rec, slot, p->nreceivers, g->rec_start, g->rec_off, g->rec_w,
                                g->f[nw], g->si),
                 "receiver kernel");
    }
}

/* ---- one host thread per GPU ---------------------------------------------- */

static void *worker_main(void *vp)
{
    gpu_slab *g = vp;
    cuda_ctx *c = g->ctx;
    long seen = 0;
    note(g, fdwk_set_device(g->id), "cudaSetDevice");
    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (c->gen == seen && !c->quit)
            pthread_cond_wait(&c->go, &c->mu);
        if (c->quit)
            break;
        seen = c->gen;
        long it = c->cmd_it;
        pthread_mutex_unlock(&c->mu);
        issue_step(c, g->index, it);
        pthread_mutex_lock(&c->mu);
        if (++c->ndone == c->ndev)
            pthread_cond_signal(&c->done);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

static int start_threads(cuda_ctx *c)
{
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->go, NULL);
    pthread_cond_init(&c->done, NULL);
    c->threads_started = 0;
    for (int d = 0; d < c->ndev; d++) {
        c->dev[d].ctx = c;
        c->dev[d].index = d;
        if (pthread_create(&c->dev[d].thread, NULL, worker_main, &c->dev[d]) != 0)
            return -1;
        c->threads_started++;
    }
    return 0;
}

static void stop_threads(cuda_ctx *c)
{
    if (c->threads_started == 0)
        return;
    pthread_mutex_lock(&c->mu);
    c->quit = 1;
    pthread_cond_broadcast(&c->go);
    pthread_mutex_unlock(&c->mu);
    for (int d = 0; d < c->threads_started; d++)
        pthread_join(c->dev[d].thread, NULL);
    c->threads_started = 0;
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->go);
    pthread_cond_destroy(&c->done);
}

static fdw_status collect_status(cuda_ctx *c, fdw_error *err)
{
    if (c->mpi && cuda_mpi_failed(c->mpi))
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "cuda backend: rank %d: the ghost exchange with the neighbouring ranks "
                        "failed", c->prob.comm->rank);
    for (int d = 0; d < c->ndev; d++)
        if (c->dev[d].status)
            return device_fail(err, &c->dev[d], c->dev[d].status, c->dev[d].where);
    return FDW_OK;
}

static fdw_status cuda_step(void *vctx, long it, fdw_error *err)
{
    cuda_ctx *c = vctx;
    if (c->ndev == 1) {
        gpu_slab *g = &c->dev[0];
        note(g, fdwk_set_device(g->id), "cudaSetDevice");
        issue_step(c, 0, it);
    } else {
        pthread_mutex_lock(&c->mu);
        c->cmd_it = it;
        c->ndone = 0;
        c->gen++;
        pthread_cond_broadcast(&c->go);
        while (c->ndone < c->ndev)
            pthread_cond_wait(&c->done, &c->mu);
        pthread_mutex_unlock(&c->mu);
    }
    c->cur = 1 - c->cur;
    c->steps++;
    return collect_status(c, err);
}

/* ---- extraction, waiting, receivers --------------------------------------- */

static size_t region_floats(const fdw_problem *p, const fdw_slice *rg)
{
    switch (rg->plane) {
    case FDW_PLANE_XY: return rg->index >= 0 && rg->index < p->nz ? (size_t)p->nx * p->ny : 0;
    case FDW_PLANE_XZ: return rg->index >= 0 && rg->index < p->ny ? (size_t)p->nx * p->nz : 0;
    case FDW_PLANE_YZ: return rg->index >= 0 && rg->index < p->nx ? (size_t)p->ny * p->nz : 0;
    case FDW_PLANE_VOLUME: return (size_t)p->nx * p->ny * p->nz;
    }
    return 0;
}

static pending_copy *get_pending(cuda_ctx *c, size_t floats, int nregions)
{
    pending_copy *pc = NULL;
    for (int i = 0; i < c->npend; i++)
        if (!c->pend[i].busy && c->pend[i].cap >= floats) {
            pc = &c->pend[i];
            break;
        }
    if (!pc) {
        pending_copy *np = realloc(c->pend, sizeof *np * (size_t)(c->npend + 1));
        if (!np)
            return NULL;
        c->pend = np;
        pc = &c->pend[c->npend++];
        memset(pc, 0, sizeof *pc);
        if (fdwk_host_alloc((void **)&pc->pinned, floats * sizeof(float) + 64)) {
            c->npend--;
            return NULL;
        }
        pc->cap = floats;
    }
    free(pc->dst);
    free(pc->off);
    free(pc->n);
    pc->dst = calloc((size_t)nregions, sizeof *pc->dst);
    pc->off = calloc((size_t)nregions, sizeof *pc->off);
    pc->n = calloc((size_t)nregions, sizeof *pc->n);
    if (!pc->dst || !pc->off || !pc->n)
        return NULL;
    pc->nregions = nregions;
    pc->busy = 1;
    return pc;
}

/* Copy the part of region rg held by slab g into dst (host, region-ordered). */
static int extract_part(gpu_slab *g, const fdw_problem *p, const fdw_slice *rg, int b,
                        float *dst, int pinned_ok)
{
    const fdwk_layout *L = &g->L;
    const size_t fl = sizeof(float);
    const float *f = g->f[b];
    int rc = 0;
    switch (rg->plane) {
    case FDW_PLANE_XY:
        if (rg->index >= g->z0 && rg->index < g->z0 + g->nz)
            rc = fdwk_d2h_2d_async(dst, (size_t)p->nx * fl, f + (long)(rg->index - g->z0) * L->plane,
                                   (size_t)L->pitch * fl, (size_t)p->nx * fl, (size_t)p->ny, g->si);
        break;
    case FDW_PLANE_XZ:
        rc = fdwk_d2h_2d_async(dst + (size_t)g->z0 * p->nx, (size_t)p->nx * fl,
                               f + (long)rg->index * L->pitch, (size_t)L->plane * fl,
                               (size_t)p->nx * fl, (size_t)g->nz, g->si);
        break;
    case FDW_PLANE_YZ: {
        size_t need = (size_t)p->ny * g->nz;
        if (need > g->stage_cap) {
            rc = fdwk_stream_sync(g->si);
            if (!rc) {
                fdwk_free(g->stage);
                g->stage = NULL;
                g->stage_cap = 0;
                rc = fdwk_malloc((void **)&g->stage, need * fl);
                if (!rc)
                    g->stage_cap = need;
            }
        }
        if (!rc)
            rc = fdwk_gather(g->stage, f, L, rg->index, 1, 0, p->ny, 0, g->nz, g->si);
        if (!rc)
            rc = fdwk_d2h_async(dst + (size_t)g->z0 * p->ny, g->stage, need * fl, g->si);
        break;
    }
    case FDW_PLANE_VOLUME:
        for (int k = 0; k < g->nz && !rc; k++)
            rc = fdwk_d2h_2d_async(dst + ((size_t)(g->z0 + k) * p->ny) * p->nx, (size_t)p->nx * fl,
                                   f + (long)k * L->plane, (size_t)L->pitch * fl,
                                   (size_t)p->nx * fl, (size_t)p->ny, g->si);
        break;
    }
    (void)pinned_ok;
    return rc;
}

static fdw_status cuda_extract(void *vctx, int nregions, const fdw_slice *regions, float **host,
                               fdw_error *err)
{
    cuda_ctx *c = vctx;
    const fdw_problem *p = &c->prob;
    size_t total = 0;
    for (int q = 0; q < nregions; q++) {
        size_t n = region_floats(p, &regions[q]);
        if (!n || !host[q])
            return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                            "cuda backend: extract region %d (plane %d, index %d) is outside "
                            "the %dx%dx%d grid",
                            q, (int)regions[q].plane, regions[q].index, p->nx, p->ny, p->nz);
        if (regions[q].plane != FDW_PLANE_VOLUME)
            total += n;
    }
    /* Slices go through a pinned buffer (truly asynchronous); volumes are copied straight
     * into the engine's buffer (the copy waits for the queued steps). */
    pending_copy *pc = NULL;
    if (total > 0) {
        pc = get_pending(c, total, nregions);
        if (!pc)
            return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                            "cuda backend: no pinned host memory for %zu snapshot floats", total);
    }
    size_t off = 0;
    for (int q = 0; q < nregions; q++) {
        const fdw_slice *rg = &regions[q];
        float *dst = host[q];
        if (rg->plane != FDW_PLANE_VOLUME) {
            pc->dst[q] = host[q];
            pc->off[q] = off;
            pc->n[q] = region_floats(p, rg);
            dst = pc->pinned + off;
            off += pc->n[q];
        }
        for (int d = 0; d < c->ndev; d++) {
            gpu_slab *g = &c->dev[d];
            int rc = fdwk_set_device(g->id);
            if (!rc)
                rc = extract_part(g, p, rg, c->cur, dst, 1);
            if (rc)
                return device_fail(err, g, rc, "snapshot copy");
        }
    }
    /* Each slab's copies end with an event, which extract_done() polls. */
    for (int d = 0; pc && d < c->ndev; d++) {
        gpu_slab *g = &c->dev[d];
        int rc = fdwk_set_device(g->id);
        if (!rc && !pc->ev[d])
            rc = fdwk_event_create(&pc->ev[d], 0);
        if (!rc)
            rc = fdwk_event_record(pc->ev[d], g->si);
        if (rc)
            return device_fail(err, g, rc, "snapshot copy event");
    }
    return FDW_OK;
}

/* Hand a finished copy's regions from the pinned staging to the engine's buffers. */
static void deliver(pending_copy *pc)
{
    for (int q = 0; q < pc->nregions; q++)
        if (pc->dst[q])
            memcpy(pc->dst[q], pc->pinned + pc->off[q], pc->n[q] * sizeof(float));
    pc->busy = 0;
}

static fdw_status cuda_extract_done(void *vctx, int *done, fdw_error *err)
{
    cuda_ctx *c = vctx;
    *done = 1;
    for (int i = 0; i < c->npend; i++) {
        pending_copy *pc = &c->pend[i];
        if (!pc->busy)
            continue;
        int all = 1;
        for (int d = 0; d < c->ndev && all; d++) {
            gpu_slab *g = &c->dev[d];
            int fin = 1, rc = fdwk_set_device(g->id);
            if (!rc && pc->ev[d])
                rc = fdwk_event_query(pc->ev[d], &fin);
            if (rc)
                return device_fail(err, g, rc, "snapshot copy");
            all = fin;
        }
        if (all)
            deliver(pc);
        else
            *done = 0;
    }
    return FDW_OK;
}

static fdw_status cuda_wait(void *vctx, fdw_error *err)
{
    cuda_ctx *c = vctx;
    for (int d = 0; d < c->ndev; d++) {
        gpu_slab *g = &c->dev[d];
        int rc = fdwk_set_device(g->id);
        if (!rc)
            rc = fdwk_stream_sync(g->se);
        if (!rc && g->si != g->se)
            rc = fdwk_stream_sync(g->si);
        if (!rc)
            rc = fdwk_last_error();
        note(g, rc, "waiting for the GPU");
    }
    fdw_status st = collect_status(c, err);
    if (st != FDW_OK)
        return st;
    for (int i = 0; i < c->npend; i++)
        if (c->pend[i].busy)
            deliver(&c->pend[i]);
    return FDW_OK;
}

static fdw_status cuda_fetch_receivers(void *vctx, long first, long count, float *host,
                                       fdw_error *err)
{
    cuda_ctx *c = vctx;
    const fdw_problem *p = &c->prob;
    if (count == 0)
        return FDW_OK;
    if (!c->dev[0].rec || first < 0 || count < 0 || first + count > p->nrec_slots || !host)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "cuda backend: receiver slots [%ld, %ld) requested, %ld recorded", first,
                        first + count, c->dev[0].rec ? p->nrec_slots : 0L);
    const size_t n = (size_t)count * (size_t)p->nreceivers;
    float *tmp = host;
    if (c->ndev > 1) {
        tmp = malloc(n * sizeof(float));
        if (!tmp)
            return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cuda backend: out of host memory");
        for (size_t e = 0; e < n; e++)
            host[e] = 0.0f;
    }
    for (int d = 0; d < c->ndev; d++) {
        gpu_slab *g = &c->dev[d];
        int rc = fdwk_set_device(g->id);
        if (!rc)
            rc = fdwk_stream_sync(g->si);
        if (!rc)
            rc = fdwk_d2h(tmp, g->rec + (size_t)first * (size_t)p->nreceivers, n * sizeof(float));
        if (rc) {
            if (tmp != host)
                free(tmp);
            return device_fail(err, g, rc, "copying receiver traces");
        }
        if (c->ndev > 1)
            for (size_t e = 0; e < n; e++)
                host[e] += tmp[e];
    }
    if (tmp != host)
        free(tmp);
    return FDW_OK;
}

static uint64_t cuda_device_bytes(void *vctx, int dev)
{
    cuda_ctx *c = vctx;
    if (c->mpi) /* every slab of the plan, whichever rank holds it */
        return cuda_mpi_slab_bytes(c->mpi, dev);
    return dev >= 0 && dev < c->ndev ? c->dev[dev].bytes : 0;
}

/* ---- creation -------------------------------------------------------------- */

static fdw_status check_problem(const fdw_problem *p, const fdw_plan *plan, fdw_error *err)
{
    if (p->nx < 1 || p->ny < 1 || p->nz < 1)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: grid %dx%dx%d is empty",
                        p->nx, p->ny, p->nz);
    if (p->radius < 1 || p->radius > FDW_MAX_RADIUS)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: radius %d outside 1..%d",
                        p->radius, FDW_MAX_RADIUS);
    if (p->kind == FDW_KIND_ACOUSTIC && !p->vdt2)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: acoustic problem without vdt2");
    if (p->kind != FDW_KIND_ACOUSTIC && !p->init)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: no initial field");
    if (p->kind == FDW_KIND_ACOUSTIC && p->nsrc_taps > 0 && (!p->src_taps || !p->wavelets))
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: source taps without data");
    if (p->nrec_taps > 0 && (!p->rec_taps || p->rec_interval < 1 || p->nreceivers < 1))
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: bad receiver set-up");
    const uint64_t npts = (uint64_t)p->nx * p->ny * p->nz;
    for (int t = 0; t < p->nsrc_taps; t++)
        if (p->src_taps[t].index >= npts || p->src_taps[t].owner < 0)
            return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: source tap %d is off the grid", t);
    for (int t = 0; t < p->nrec_taps; t++)
        if (p->rec_taps[t].index >= npts || p->rec_taps[t].owner < 0 ||
            p->rec_taps[t].owner >= p->nreceivers)
            return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: receiver tap %d is invalid", t);
    if (!plan || plan->ndev < 1 || plan->ndev > FDW_MAX_DEVICES || plan->radius != p->radius)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: the plan does not match the problem");
    int z = 0;
    for (int d = 0; d < plan->ndev; d++) {
        if (plan->z0[d] != z || plan->nz[d] < p->radius || plan->nz[d] < 1)
            return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: slab %d of the plan is malformed", d);
        z += plan->nz[d];
    }
    if (z != p->nz)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "cuda backend: the plan's slabs cover %d planes, the grid has %d", z, p->nz);
    for (int d = 1; d < plan->ndev && p->kind == FDW_KIND_ACOUSTIC && p->pml_a[2]; d++)
        if (plan->z0[d] < p->pml_w[2][0] + p->radius ||
            plan->z0[d] > p->nz - p->pml_w[2][1] - p->radius)
            return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                            "cuda backend: slab boundary at plane %d cuts a CPML z layer",
                            plan->z0[d]);
    if (p->kind == FDW_KIND_DERIVATIVE && plan->ndev > 1)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, "devices",
                        "the derivative kind runs on one GPU in the cuda backend (%d asked); "
                        "set \"devices\": 1", plan->ndev);
    /* A GPU may hold several slabs (the exchange then copies within it): useful to test
     * the multi-slab path on one GPU. */
    const int ngpu = fdw_gpu_count();
    for (int d = 0; d < plan->ndev; d++) {
        if (p->comm && d != p->comm->rank)
            continue; /* another rank's GPU, on its host */
        if (plan->device_ids[d] < 0 || plan->device_ids[d] >= ngpu)
            return fdw_fail(err, FDW_ERR_DEVICE, "devices",
                            "GPU %d does not exist (%d GPU%s found)", plan->device_ids[d], ngpu,
                            ngpu == 1 ? "" : "s");
    }
    return FDW_OK;
}

/* Distributed run (p->comm set): what this backend needs of the ranks and the plan. */
static fdw_status check_distributed(const fdw_problem *p, const fdw_plan *plan,
                                    fdw_error *err)
{
    if (!plan || p->comm->size != plan->ndev || p->comm->rank < 0 ||
        p->comm->rank >= plan->ndev)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "cuda backend: rank %d of %d does not match a plan of %d slabs",
                        p->comm->rank, p->comm->size, plan ? plan->ndev : 0);
    if (p->kind == FDW_KIND_DERIVATIVE)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, NULL,
                        "the derivative kind does not run across MPI ranks on the cuda "
                        "backend (%d ranks); run it in one process, or with --backend cpu "
                        "under mpirun", p->comm->size);
    return FDW_OK;
}

/* Distributed run: the exchange with the neighbouring ranks, this rank's receivers (in
 * place of the problem's, so build_receivers takes them), every slab's memory figure. */
static fdw_status setup_distributed(cuda_ctx *c, const fdw_plan *plan, fdw_error *err)
{
    gpu_slab *g = &c->dev[0];
    int rc = fdwk_set_device(g->id);
    if (rc)
        return device_fail(err, g, rc, "cudaSetDevice");
    fdwk_layout L;
    fdwk_layout_init(&L, c->prob.nx, c->prob.ny, g->nz, c->prob.radius);
    rc = cuda_mpi_create(&c->prob, plan, g->id, (size_t)c->prob.radius * (size_t)L.plane,
                         &c->mpi);
    if (rc == -1)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cuda backend: out of host memory");
    if (rc)
        return device_fail(err, g, rc, "setting up the MPI exchange (pinned buffers, events)");
    c->prob.rec_taps = cuda_mpi_rec_taps(c->mpi, &c->prob.nrec_taps);
    for (int d = 0; d < plan->ndev; d++) {
        gpu_slab tmp;
        fdwk_layout_init(&tmp.L, c->prob.nx, c->prob.ny, plan->nz[d], c->prob.radius);
        cuda_mpi_set_slab_bytes(c->mpi, d, slab_bytes(&c->prob, &tmp));
    }
    return FDW_OK;
}

static fdw_status cuda_create(const fdw_problem *prob, const fdw_plan *plan, void **out,
                              fdw_error *err)
{
    *out = NULL;
    fdw_status st = prob->comm ? check_distributed(prob, plan, err) : FDW_OK;
    if (st == FDW_OK)
        st = check_problem(prob, plan, err);
    if (st != FDW_OK)
        return st;
    cuda_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cuda backend: out of host memory");
    c->prob = *prob;
    c->ndev = prob->comm ? 1 : plan->ndev;      /* slabs held by this process */
    const int s0 = prob->comm ? prob->comm->rank : 0; /* plan index of dev[0] */
    const int r = prob->radius;
    for (int d = 0; d < c->ndev; d++) {
        gpu_slab *g = &c->dev[d];
        g->id = plan->device_ids[s0 + d];
        g->z0 = plan->z0[s0 + d];
        g->nz = plan->nz[s0 + d];
        g->up = s0 + d > 0;
        g->down = s0 + d < plan->ndev - 1;
        g->ctx = c;
        g->index = d;
        g->split = plan->ndev > 1 && g->nz >= 3 * r && prob->kind != FDW_KIND_DERIVATIVE;
        g->ktop = g->split && g->up ? r : 0;
        g->kbot = g->split && g->down ? g->nz - r : g->nz;
    }
    /* Peer access between neighbours (copies are staged by the runtime where not possible). */
    for (int d = 0; d < c->ndev && !prob->comm; d++) {
        gpu_slab *g = &c->dev[d];
        int en = 0, rc = fdwk_set_device(g->id);
        if (!rc && g->up)
            rc = fdwk_enable_peer(c->dev[d - 1].id, &en);
        if (!rc && g->down)
            rc = fdwk_enable_peer(c->dev[d + 1].id, &en);
        if (rc) {
            st = device_fail(err, g, rc, "enabling peer access");
            goto fail;
        }
    }
    if (prob->comm) {
        st = setup_distributed(c, plan, err);
        if (st != FDW_OK)
            goto fail;
    }
    for (int d = 0; d < c->ndev; d++) {
        gpu_slab *g = &c->dev[d];
        st = setup_slab(c, d, err);
        if (st != FDW_OK)
            goto fail;
        if (prob->kind == FDW_KIND_ACOUSTIC && prob->nsrc_taps > 0) {
            int rc = build_sources(c, g, 0, &g->src_int);
            if (!rc)
                rc = build_sources(c, g, 1, &g->src_edge);
            if (rc) {
                st = rc == -1 ? fdw_fail(err, FDW_ERR_NOMEM, NULL, "cuda backend: out of host memory")
                              : device_fail(err, g, g->status, g->where);
                goto fail;
            }
        }
        if (prob->kind == FDW_KIND_ACOUSTIC && prob->nreceivers > 0 && prob->nrec_slots > 0) {
            size_t bytes = (size_t)prob->nrec_slots * (size_t)prob->nreceivers * sizeof(float);
            int rc = build_receivers(c, g);
            if (!rc)
                rc = fdwk_malloc((void **)&g->rec, bytes);
            if (!rc)
                rc = fdwk_memset_async(g->rec, 0, bytes, g->si);
            if (!rc)
                rc = fdwk_stream_sync(g->si);
            if (rc) {
                st = rc == -1 ? fdw_fail(err, FDW_ERR_NOMEM, NULL, "cuda backend: out of host memory")
                              : fdw_fail(err, FDW_ERR_NOMEM, NULL,
                                         "cuda backend: no room on GPU %d for %zu bytes of "
                                         "receiver traces: %s", g->id, bytes, fdwk_strerror(rc));
                goto fail;
            }
        }
    }
    if (c->ndev > 1 && start_threads(c) != 0) {
        st = fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: could not start host threads");
        goto fail;
    }
    *out = c;
    return FDW_OK;
fail:
    cuda_destroy(c);
    return st;
}

/* The backend's precheck (backend.h): the three (acoustic) or two wavefields of every slab,
 * summed per GPU (slabs may share one), against the GPU's free memory. */
static fdw_status cuda_precheck(fdw_kind kind, int nx, int ny, int radius, const fdw_plan *plan,
                                fdw_error *err)
{
    const int r = kind == FDW_KIND_DERIVATIVE ? 0 : radius;
    for (int d = 0; d < plan->ndev; d++) {
        const int id = plan->device_ids[d];
        int first = 1;
        for (int e = 0; e < d; e++)
            if (plan->device_ids[e] == id)
                first = 0;
        if (!first) /* counted with the first slab on this GPU */
            continue;
        uint64_t need = 0;
        for (int e = d; e < plan->ndev; e++) {
            if (plan->device_ids[e] != id)
                continue;
            fdwk_layout L;
            fdwk_layout_init(&L, nx, ny, plan->nz[e], r);
            need += wavefield_bytes(kind, &L);
        }
        uint64_t fr = 0, tot = 0;
        int rc = fdwk_set_device(id);
        if (!rc)
            rc = fdwk_mem_info(&fr, &tot);
        if (rc)
            return fdw_fail(err, FDW_ERR_DEVICE, NULL, "cuda backend: GPU %d: %s", id,
                            fdwk_strerror(rc));
        if (need > fr) {
            char name[128] = "";
            fdwk_device_name(id, name, sizeof name);
            return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                            "cuda backend: the job needs %.2f GiB on GPU %d (%s) for its "
                            "wavefields alone but only %.2f GiB of its %.2f GiB is free "
                            "(%llu bytes needed, %llu free); ask for more devices or a "
                            "smaller grid",
                            need / 1073741824.0, id, name, fr / 1073741824.0,
                            tot / 1073741824.0, (unsigned long long)need,
                            (unsigned long long)fr);
        }
    }
    return FDW_OK;
}

static const fdw_backend cuda_backend = {
    .name = "cuda",
    .create = cuda_create,
    .destroy = cuda_destroy,
    .step = cuda_step,
    .extract = cuda_extract,
    .extract_done = cuda_extract_done,
    .wait = cuda_wait,
    .fetch_receivers = cuda_fetch_receivers,
    .device_bytes = cuda_device_bytes,
    .precheck = cuda_precheck,
};

const fdw_backend *fdw_cuda_backend(void) { return &cuda_backend; }
