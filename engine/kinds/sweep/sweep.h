/* sweep.h — the sweep kind's data (seed: Krishnasamy, Sourouri, Cai 2015): first-arrival
 * times T of a front leaving the surface Gamma0 with F |grad T| + psi (a . grad T) = 1,
 * computed by sweeps of six plane-by-plane sub-sweeps. Its spec members (fdw_spec.kspec),
 * its problem data (fdw_problem.kdata), and what its two engines (cpu_sweep.c,
 * cuda_sweep.c) report of a run for the kind's progress, checks and outputs. */
#ifndef FDW_SWEEP_H
#define FDW_SWEEP_H

#include "kinds/sweep/sweep_geom.h"
#include "spec/spec.h"

#include <stdint.h>

struct fdw_backend;        /* run/backend.h */
struct fdw_problem;
struct fdw_run_state;      /* run/run_state.h */
struct spec_ctx;           /* spec/spec_parse.h */
struct json_t;

typedef enum { SWEEP_F64 = 0, SWEEP_F32 = 1 } sweep_precision;
typedef enum { SWEEP_OUT_NONE = 0, SWEEP_OUT_F32, SWEEP_OUT_F64 } sweep_out_volume;
typedef enum { SWEEP_SURF_NONE = 0, SWEEP_SURF_SINUSOID, SWEEP_SURF_FILE } sweep_surface_type;

/* A point of Gamma0: T(pos) = t0 (the nodes of the cell around pos get t0 + N). */
typedef struct sweep_point_src {
    double pos[3];
    double t0;
} sweep_point_src;

/* A plane of Gamma0 through point with unit normal. */
typedef struct sweep_plane_src {
    double point[3];
    double normal[3];
    double t0;
} sweep_plane_src;

/* A height-field surface z = h(x, y) of Gamma0: analytic, h = z0 + amp[0] sin(2 pi x /
 * wavelength[0] + phase[0]) + amp[1] sin(2 pi y / wavelength[1] + phase[1]) (a wavelength
 * of 0 drops its term), or nx * ny float32 heights (x fastest) from a raw file. */
typedef struct sweep_surface {
    sweep_surface_type type;
    double z0, amp[2], wavelength[2], phase[2];
    char path[FDW_PATH_MAX];
    double t0;
} sweep_surface;

#define SWEEP_MAX_SLICES 64
#define SWEEP_MAX_SOURCES 100000

typedef struct fdw_sweep_spec {
    sweep_precision precision;
    int field;                 /* F is the "velocity" section's field (psi = 0) */
    double F, psi, a[3];       /* F: the constant, or the field's smallest value */
    int npoints, nplanes;
    sweep_point_src *points;
    sweep_plane_src *planes;
    sweep_surface surface;
    int volume_given;          /* initial times from a file */
    int volume_f64;            /* its samples: float64 (1) or float32 (0) */
    double volume_most;        /* the largest |finite time| in it */
    char volume_path[FDW_PATH_MAX];
    int sweeps_auto;           /* sweeps: "auto" (spec->nt is then max_sweeps) */
    double tolerance;
    sweep_out_volume out_volume;
    int nslices;
    fdw_slice slices[SWEEP_MAX_SLICES];
    int isochrons;             /* isochron lines per slice image (0: none) */
    double isochron_interval;  /* or their spacing in T (0: from the count) */
} fdw_sweep_spec;

/* The problem a backend's sweep engine runs. Sweep direction d = 2 * axis + (sign < 0). */
typedef struct fdw_sweep_data {
    sweep_precision precision;
    sweep_metric metric;
    sw_geo_d geo[6];
    sw_geo_f geo_f[6];
    double *t0;                /* initial T (nx*ny*nz, x fastest), +inf: unknown */
    float *speed;              /* F as a field: F per point (x fastest), else NULL */
    int sweeps_auto;
    double tolerance;
} fdw_sweep_data;

/* The order of one sweep's operations. The x and z sub-sweeps run on layout A (slabs cut
 * along y, y fastest), the y sub-sweeps on layout B (slabs along z, the plan's, x
 * fastest); the field is shuffled between them twice per sweep. */
enum { SWEEP_OP_TO_A, SWEEP_OP_XP, SWEEP_OP_XM, SWEEP_OP_ZP, SWEEP_OP_ZM, SWEEP_OP_TO_B,
       SWEEP_OP_YP, SWEEP_OP_YM, SWEEP_NOPS };
/* The sweep direction (0..5, 2 * axis + (sign < 0)) of operation op, or -1 for a shuffle. */
int sweep_op_direction(int op);

/* What one sweep did, summed over its sub-sweeps and devices. */
typedef struct sweep_stats {
    double max_change;         /* largest decrease of a value that was finite before */
    uint64_t changed;          /* values that decreased (reached ones included) */
    uint64_t reached;          /* values that became finite */
    uint64_t computed;         /* point updates computed (the rest were skipped exactly) */
    double op_s[SWEEP_NOPS];   /* seconds of each operation (CUDA: events; CPU: clock) */
} sweep_stats;

/* The head of both engines' contexts (cpu_sweep.c, cuda_sweep.c): what the kind's hooks
 * ask of a run (fdw_run_state.ctx) besides the backend table. */
typedef struct sweep_engine {
    /* Statistics of every completed sweep (after the backend's wait): *n of them. */
    const sweep_stats *(*log)(const void *ctx, long *n);
    /* The whole field T (x fastest) into out, float64 or float32 as f64 says. */
    fdw_status (*fetch)(void *ctx, void *out, int f64, fdw_error *err);
} sweep_engine;

/* What both engines share (sweep_engine.c): a region must lie in the grid
 * (FDW_ERR_INTERNAL naming it). Their tables leave extract_done and fetch_receivers out:
 * an extract is complete when it returns, and there are no receivers (backend.h). */
fdw_status sweep_engine_region(const struct fdw_problem *p, const fdw_slice *rg,
                               const float *host, int q, fdw_error *err);

/* The two engines' backend tables (kind.h's run.cpu_engine and run.cuda_engine; the CUDA one only
 * in builds with CUDA). */
extern const struct fdw_backend fdw_sweep_cpu_engine;
extern const struct fdw_backend fdw_sweep_cuda_engine;

/* spec (sweep_spec.c) */
int sweep_parse(struct spec_ctx *c, const struct json_t *root);
void sweep_free_spec(fdw_spec *spec);
/* The "initial" section (sweep_spec_initial.c): Gamma0's points, planes, surface and
 * initial-time volume, each checked against the grid, its files read once. */
int sweep_parse_initial(struct spec_ctx *c, fdw_sweep_spec *k, const struct json_t *root);

/* problem (sweep_build.c): the metric, the constants of the six directions, the initial
 * times and the F field. */
fdw_status sweep_build(const fdw_spec *spec, struct fdw_problem *prob, fdw_error *err);
void sweep_free_problem(struct fdw_problem *prob);
/* The spec's Hamiltonian as the update's metric (F as a field: F = 1, b = 0, scaled per
 * point). */
sweep_metric sweep_spec_metric(const fdw_sweep_spec *k);
/* The analytic surface's height at (x, y) and its slopes (hx, hy may be NULL). */
double sweep_surface_height(const sweep_surface *sf, double x, double y, double *hx,
                            double *hy);

/* The samples of an initial-time file (float64 or float32, count of them) as float64,
 * chunk by chunk: each(user, index of the first, values, n) until it returns non-zero.
 * Returns 0 when every sample was visited, 1 when each stopped, -1 when the file could not
 * be read in full (sweep_times_file.c). */
int sweep_read_times(const char *path, int f64, uint64_t count,
                     int (*each)(void *user, uint64_t first, const double *v, size_t n),
                     void *user);

/* Whether the sweep of stats st meets the "auto" criterion: no value became finite and
 * none changed by more than the tolerance. */
int sweep_converged(const fdw_sweep_data *d, const sweep_stats *st);

/* outputs (sweep_outputs.c): T volume, isochron slice images, convergence in the
 * manifest. log holds stats per completed sweep (n of them). */
fdw_status sweep_write_outputs(struct fdw_run_state *r, const sweep_stats *log, long n,
                               char *extra, size_t len, fdw_error *err);

#endif
