/* kind.h — the job-kind module contract. A kind (acoustic, stencil, derivative, ...) is a
 * folder engine/kinds/<kind>/ (and kernels/<kind>/ for its device code) that fills one
 * fdw_kind_ops and adds it to the table in kinds.c. The engine's shared machinery (spec
 * top level, grid, devices, plan, model I/O, slabs, ghost exchange, sources, receivers,
 * snapshots, outputs, progress) calls a kind only through this table:
 *
 *   section   keys + parse: the kind's members of the job spec (after kind, name, grid,
 *             order, devices), their normalised form, its own data in spec->kspec;
 *   problem   build: the kind's part of the fdw_problem a backend runs (its coefficients
 *             and arrays in prob->kdata, and the shared wave / field parts it uses);
 *   run       backends: the hooks each backend's shared slab engine calls per slab and
 *             per step (engine/cpu/cpu_kind.h, engine/cuda/cuda_kind.h), or the kind's
 *             own engine for a backend (the sweep, the imaging kinds);
 *   out       finish: what a completed run leaves besides snapshots (gathers, final field)
 *             and the extra members of the manifest's "result"; what an unstable run names;
 *   stack     what a survey's shots add up to (run/survey_stack.c).
 * A kind fills what it uses: members marked "may be NULL" stay NULL where it has none.
 * Internal to libfdwave. */
#ifndef FDW_KIND_H
#define FDW_KIND_H

#include "fdwave/fdwave.h"

#include <stddef.h>
#include <stdint.h>

struct spec_ctx;           /* spec/spec_parse.h */
struct json_t;             /* jansson */
struct fdw_spec;           /* spec/spec.h */
struct fdw_problem;        /* run/backend.h */
struct fdw_plan;           /* run/plan.h */
struct fdw_cpu_ops;        /* cpu/cpu_kind.h */
struct fdw_cuda_ops;       /* cuda/cuda_kind.h */
struct fdw_backend;        /* run/backend.h */
struct fdw_run_state;      /* run/run_state.h */
struct fdw_manifest;       /* output/outputs.h */

/* What the shots of a survey of this kind add up to (the imaging kinds: an image, a
 * gradient), summed in shot order by run/survey_stack.c. */
typedef struct fdw_stack_ops {
    /* The volumes of the grid (raw float32, x fastest) a shot's run of spec leaves in its
     * directory as <name>.f32, summed over the shots: their names into names and their
     * units into units (when not NULL), at most max; returns how many. */
    int (*volumes)(const struct fdw_spec *spec, const char **names, const char **units,
                   int max);
    /* Members of a shot's manifest "result" that add up (NULL-terminated; may be NULL). */
    const char *const *numbers;
    /* After the last shot: the stacked volumes (in volumes' order) and numbers as the
     * kind's outputs in out_dir, listed in m; ", \"key\": value" members for the survey's
     * result into extra (length len). */
    fdw_status (*write)(const struct fdw_spec *spec, const char *out_dir,
                        struct fdw_manifest *m, const float *const *vol, const double *num,
                        int nshots, char *extra, size_t len, fdw_error *err);
} fdw_stack_ops;

/* spec: the kind's section of the job spec. */
typedef struct fdw_kind_section {
    /* Top-level members this kind owns (NULL-terminated), besides the common ones (kind,
     * name, grid, order, devices, snapshots); listed in the unknown-field message. */
    const char *const *keys;
    /* Parse the kind's members of root into c->spec (its own data in spec->kspec) and add
     * their normalised form to c->norm. Returns 0, or -1 with the error set (sp_fail). */
    int (*parse)(struct spec_ctx *c, const struct json_t *root);
    /* Warnings that need the whole parsed spec (may be NULL). */
    void (*warnings)(struct spec_ctx *c);
    /* Release spec->kspec (may be NULL when the kind keeps none). */
    void (*free)(struct fdw_spec *spec);
    /* Bytes of device memory the whole run needs on all devices together (admission
     * estimate, fdw_spec_device_bytes; the backends make the exact check at create). */
    uint64_t (*device_bytes)(const struct fdw_spec *spec);
    /* Bytes one device holds for planes [z0, z0 + nz) of the grid (its slab); NULL: the
     * device_bytes of the whole grid shared out with the planes (fdw_spec_device_bytes_max). */
    uint64_t (*device_bytes_slab)(const struct fdw_spec *spec, int z0, int nz);
    /* Bytes of the kind's state that changes from step to step, all slabs together, which
     * a checkpoint holds besides the two fields and the recordings (the acoustic CPML's
     * psi and zeta); NULL: none. Part of the host estimate (fdw_spec_host_bytes). */
    uint64_t (*state_bytes)(const struct fdw_spec *spec);
} fdw_kind_section;

/* problem: the kind's part of the fdw_problem a backend runs. */
typedef struct fdw_kind_problem {
    /* Fill the kind's part of prob (prob->kdata and the shared parts it uses); reads the
     * velocity model where the kind has one. On failure prob holds nothing of the kind's
     * to free. */
    fdw_status (*build)(const struct fdw_spec *spec, struct fdw_problem *prob,
                        fdw_error *err);
    /* Release what build allocated (prob->kdata and the shared arrays it filled). */
    void (*free)(struct fdw_problem *prob);
    /* What every backend checks of a problem and plan before it allocates (may be NULL):
     * FDW_ERR_INTERNAL when the kind's data cannot run on this plan (a CPML z layer split
     * by a slab boundary: the engine refuses such plans earlier, with a spec error). */
    fdw_status (*check)(const struct fdw_problem *prob, const struct fdw_plan *plan,
                        fdw_error *err);
    /* Release the whole-grid host arrays of prob that the backends copy at create (a rank
     * of a distributed run then keeps its slab only); may be NULL. */
    void (*shed)(struct fdw_problem *prob);
    /* A survey's shots share what build derives from the model and the time step alone
     * (may be NULL: each shot builds its own): share makes it once from the model the
     * survey read, each shot's spec->kind_cache points to it and build borrows it, and
     * unshare releases it after the last shot. */
    fdw_status (*share)(const struct fdw_spec *spec, const float *model, void **shared,
                        fdw_error *err);
    void (*unshare)(void *shared);
} fdw_kind_problem;

/* backends: how each backend runs the kind. A kind whose computation is a step of slab
 * stencils gives the hooks the backend's shared slab engine calls per slab and per step
 * (cpu, cuda: engine/cpu/cpu_kind.h, engine/cuda/cuda_kind.h); a kind whose computation
 * is not (the sweep: planes in sequence along x, y and z with its own partitionings,
 * fields and precision; the imaging kinds: a forward, recomputing and adjoint schedule)
 * brings its whole engine instead (cpu_engine, cuda_engine: a backend table, run/backend.h,
 * that fdw_run uses in place of the backend's; its create gets the same problem and plan,
 * its step is one step of the run loop, extract gives float32 regions for snapshots; the
 * kind's after_step and outputs may read its context through fdw_run_state.ctx). Neither
 * for CUDA: the kind does not run there (or no CUDA). */
typedef struct fdw_kind_backends {
    const struct fdw_cpu_ops *cpu;
    const struct fdw_cuda_ops *cuda;
    const struct fdw_backend *cpu_engine;
    const struct fdw_backend *cuda_engine;
    /* After each step (may be NULL): e.g. the derivative kind checks iteration 1. */
    fdw_status (*after_step)(struct fdw_run_state *r, long done, fdw_error *err);
} fdw_kind_backends;

/* outputs: what a completed (or failed) run says besides snapshots. */
typedef struct fdw_kind_outputs {
    /* After a completed run, on every rank (collective parts inside): write the kind's
     * final outputs and append ", \"key\": value" members for the manifest's result to
     * extra (length len). */
    fdw_status (*finish)(struct fdw_run_state *r, char *extra, size_t len, fdw_error *err);
    /* What a run that blew up names (run/watch.h): the spec field most likely at fault and
     * a sentence on the likely cause. */
    const char *unstable_field;
    const char *unstable_hint;
} fdw_kind_outputs;

typedef struct fdw_kind_ops {
    const char *name;                 /* the spec's "kind" */
    /* 0: any even order 2..16; else the only order the kind computes (derivative: 8). */
    int fixed_order;
    /* 1: time stepping with sources, receivers and a dt ("time" section); 0: iterations
     * of a field with an initial value (benchmark kinds). */
    int wave;
    /* 1: the field is periodic along z (ghost planes wrap around). */
    int periodic;

    fdw_kind_section section;
    fdw_kind_problem problem;
    fdw_kind_backends run;
    fdw_kind_outputs out;
    /* A survey's shots that add up to one result (may be NULL: each shot's gathers stand
     * alone, joined in shot order at the end). */
    const fdw_stack_ops *stack;
} fdw_kind_ops;

/* The kind named name, or NULL. */
const fdw_kind_ops *fdw_kind_find(const char *name);
/* The i-th kind of the table (NULL past the end): for listings and messages. */
const fdw_kind_ops *fdw_kind_at(int i);
/* Whether kind runs on the CUDA backend (slab hooks or an engine of its own). */
int fdw_kind_on_cuda(const fdw_kind_ops *kind);

#endif
