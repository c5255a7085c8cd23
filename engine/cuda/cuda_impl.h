/* cuda_impl.h — internals shared by the files of the CUDA backend (cuda_backend.c creation
 * and the table, cuda_setup.c slab memory and uploads, cuda_step.c the step, cuda_threads.c
 * one host thread per GPU, cuda_extract.c snapshots and receivers) and by the kinds' CUDA
 * hooks (cuda_kind.h). The rest of the engine sees only fdw_cuda_backend() in backend.h. */
#ifndef FDW_CUDA_IMPL_H
#define FDW_CUDA_IMPL_H

#include "run/backend.h"
#include "common/fdwk_runtime.h"

#include <pthread.h>
#include <stdint.h>

struct fdw_cuda_ops;
struct cuda_mpi;

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
    float *raw[2];             /* allocations */
    float *f[2];               /* interior origins of the two fields */
    void *kstate;              /* the kind's own state of this slab (cuda_kind.h) */
    float *qx, *qy, *qz;       /* sponge, or NULL */
    float *wavelets;
    src_set src_edge, src_int;
    int *rec_start;            /* nreceivers + 1 */
    long *rec_off;
    float *rec_w;
    float *rec;                /* nrec_slots * nreceivers */
    float *stage;              /* device staging for extraction */
    unsigned *peak;            /* the field watch's result (cuda_field_peak) */
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
    const struct fdw_cuda_ops *ops; /* the kind's hooks */
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
    void *ckpt_block;          /* checkpoints' host image (cuda_checkpoint.c, pageable); NULL:
                                * none yet */
    size_t ckpt_size;
    void *ckpt_stage[2];       /* its staging buffers (FDW_CKPT_STAGES of FDW_CKPT_STAGE_BYTES,
                                * run/ckpt_image.h; pinned where they can be) */
    int ckpt_stage_pinned[2];
} cuda_ctx;

/* Record the first CUDA error rc of slab g's work with where it happened; returns rc. */
int cuda_note(gpu_slab *g, int rc, const char *where);
/* FDW_ERR_DEVICE naming g's GPU, where and the CUDA error. */
fdw_status cuda_device_fail(fdw_error *err, const gpu_slab *g, int rc, const char *where);
/* cudaMalloc + copy of bytes from host into *dptr (nothing for 0 bytes); a CUDA error is
 * noted on g and returned. */
int cuda_upload_array(gpu_slab *g, void **dptr, const void *host, size_t bytes);
/* Upload a whole-grid host array (nx*ny*nz, x fastest) into a slab array with the slab's
 * layout whose interior origin is dst, planes [k0, k1) local (ghost planes may be < 0 or
 * >= nz). Returns a CUDA error code or 0. */
int cuda_upload_planes(const cuda_ctx *c, const gpu_slab *g, float *dst, const float *src,
                       int k0, int k1);
/* Bytes of a slab's whole-layout arrays with layout L for kind ops (the two fields and the
 * kind's per-point arrays). */
uint64_t cuda_field_bytes(const struct fdw_cuda_ops *ops, const fdwk_layout *L);

/* cuda_setup.c: slab g's memory (streams, events, fields, the kind's state, sponge,
 * wavelets), its sources and receivers; everything release. */
fdw_status cuda_setup_slab(cuda_ctx *c, int d, fdw_error *err);
fdw_status cuda_setup_taps(cuda_ctx *c, gpu_slab *g, fdw_error *err);
uint64_t cuda_slab_bytes(const cuda_ctx *c, const gpu_slab *g);
void cuda_release(cuda_ctx *c);

/* cuda_step.c: issue step it on slab d (all work asynchronous). */
void cuda_issue_step(cuda_ctx *c, int d, long it);
/* The status of the work issued so far (the first error noted on any slab, or a failed
 * MPI exchange). */
fdw_status cuda_collect_status(cuda_ctx *c, fdw_error *err);

/* cuda_threads.c: one host thread per GPU when the context holds several slabs; a step is
 * issued on every slab before step returns. */
int cuda_start_threads(cuda_ctx *c);
void cuda_stop_threads(cuda_ctx *c);
fdw_status cuda_step(void *vctx, long it, fdw_error *err);

/* cuda_extract.c: the backend table's copies back to the host. */
fdw_status cuda_extract(void *vctx, int nregions, const fdw_slice *regions, float **host,
                        fdw_error *err);
fdw_status cuda_extract_done(void *vctx, int *done, fdw_error *err);
fdw_status cuda_wait(void *vctx, fdw_error *err);
fdw_status cuda_field_peak(void *vctx, uint32_t *bits, fdw_error *err);
fdw_status cuda_fetch_receivers(void *vctx, long first, long count, float *host,
                                fdw_error *err);

struct fdw_ckpt_io;
struct fdw_ckpt_image;
/* cuda_checkpoint.c: the backend table's prepare, capture and load (backend.h), and the
 * image's release (cuda_release). */
fdw_status fdw_cuda_prepare(void *ctx, fdw_error *err);
fdw_status fdw_cuda_capture(void *ctx, struct fdw_ckpt_image *img, fdw_error *err);
fdw_status fdw_cuda_load(void *ctx, struct fdw_ckpt_io *io, fdw_error *err);
void fdw_cuda_image_free(cuda_ctx *c);

#endif
