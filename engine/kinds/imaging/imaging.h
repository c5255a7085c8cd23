/* imaging.h — what the imaging kinds share (born, rtm, gradient: engine/kinds/born, rtm,
 * gradient; docs/imaging.md): their spec members, their problem data and their engine.
 * They are the acoustic kind's propagator (order 2..16, sponge, CPML or none, free surface)
 * and its exact discrete linearisation and adjoint (the CPML's, its memory variables and
 * their transpose: imaging_cpml.h):
 *
 * The acoustic scheme (acoustic.h) with V = (v dt)^2, D = 1 + q (the sponge), Z the free
 * surface's hold of plane 0 and s the sources:
 *     u[n+1] = Z D^-1 (2 u[n] + V lap u[n] - (1 - q) u[n-1]) + s[n],   d = R u   (receivers)
 * Born (born): a perturbation dv of the velocity is dV = 2 v dv dt^2 and
 *     du[n+1] = Z D^-1 (2 du[n] + V lap du[n] - (1 - q) du[n-1] + dV lap u[n]),   dd = R du.
 * Its adjoint: z[m] = Z D^-1 (2 z[m+1] + V lap z[m+1] - (1 - q) z[m+2]) + V D^-1 Z R^T r[m]
 * (the same scheme run backwards in time from z = 0, fed the traces r at the receivers,
 * weighted by V / (1 + q) there), and
 *     I(x) = 2 v dt^2 sum_n lap u[n](x) z[n+1](x) / V(x)
 * is exactly born's transpose in velocity: sum dd r = sum_x dv(x) I(x) (rtm's condition
 * "adjoint"). The gradient of J = 1/2 sum (R u - d_obs)^2 with respect to v is that image
 * of the residual r = R u - d_obs (gradient), with respect to the slowness squared
 * -v^3 / 2 times it. lap is the scheme's Laplacian (its coefficients, the free surface's
 * odd mirror), computed apart from the update with a fixed order of operations.
 *
 * The background field u[n] is needed backwards in time while z runs (imaging_recon.h
 * chooses how). Checkpoints: the forward pass keeps u at every L-th step (a checkpoint of
 * u[n] and u[n-1]), and the backward pass steps each segment of L steps forward again from
 * its checkpoint into a store of L fields, then runs z through it (imaging_sched.c's L:
 * about sqrt(2 N), the least memory for two forward passes and one adjoint); with a CPML
 * the checkpoints keep u's memory variables too and the store each step's layer term.
 * Boundary: the forward pass saves the band around the interior every step, and the
 * backward pass steps u back on the interior beside z, the band put back each step. */
#ifndef FDW_IMAGING_H
#define FDW_IMAGING_H

#include "run/backend.h"

#include <stdint.h>

typedef enum { IMG_BORN = 0, IMG_RTM, IMG_GRADIENT } img_mode;
typedef enum { IMG_COND_ADJOINT = 0, IMG_COND_XCORR } img_condition;
typedef enum { IMG_PARAM_VELOCITY = 0, IMG_PARAM_SLOWNESS2 } img_parameter;
/* How rtm and gradient get u[n] backwards in time (docs/imaging.md, "Reconstructing the
 * source field"): checkpoints and recomputation (exact), or the interior's boundary band
 * saved every step and u stepped back in time beside z (to rounding, the image inside the
 * absorbing layers zero). */
typedef enum { IMG_RECON_CHECKPOINTS = 0, IMG_RECON_BOUNDARY } img_recon;

/* A perturbation of the velocity (born): a file of dv per point, points, or layers. */
typedef enum { IMG_PERT_FILE = 0, IMG_PERT_POINTS, IMG_PERT_LAYERS } img_pert_type;

#define IMG_MAX_PIECES 1024    /* points or layers of a perturbation */

typedef struct img_piece {
    double pos[3];             /* points: where (m); layers: pos[2] the top depth */
    double dv;                 /* m/s */
} img_piece;

/* The kinds' own spec members (fdw_spec.kspec). */
typedef struct fdw_img_spec {
    img_mode mode;
    /* born: the perturbation */
    img_pert_type pert;
    char pert_path[4096];
    int npieces;
    img_piece pieces[IMG_MAX_PIECES];
    /* rtm, gradient: the observed (or migrated) traces, [receiver][sample] with the
     * receivers' sampling (nt / receivers.interval + 1 samples, sample 0 at t = 0): a raw
     * float32 file at data_path, or one shot of a SEG-Y file (segy, else NULL) */
    char data_path[4096];
    struct img_segy *segy;
    /* rtm */
    img_condition condition;
    int illumination;          /* divide by the source's illumination sum u^2 */
    int laplacian;             /* the Laplacian of the image (against backscatter) */
    /* gradient */
    img_parameter parameter;
    /* rtm, gradient: "reconstruction" as chosen ("auto" resolved, imaging_band.c) */
    img_recon recon;
} fdw_img_spec;

/* The problem's own data (fdw_problem.kdata). */
typedef struct fdw_img_data {
    img_mode mode;
    img_condition condition;
    int illumination, laplacian;
    img_parameter parameter;
    float cx[FDW_MAX_RADIUS + 1], cy[FDW_MAX_RADIUS + 1], cz[FDW_MAX_RADIUS + 1];
    float *vdt2;               /* V per point, nx*ny*nz */
    float *dvdt2;              /* born: dV = 2 v dv dt^2 per point */
    float *data;               /* rtm, gradient: nrec_out x nrec_slots, [receiver][sample] */
    long nt;                   /* time steps of one propagation */
    double dt;
    int seg;                   /* L: steps between checkpoints */
    img_recon recon;
    /* The interior: the points no absorbing layer touches, [lo, hi) per axis (x, y, z);
     * the boundary scheme reconstructs u there, its band (the points within the radius
     * outside it) saved every step (imaging_band.h). */
    int ilo[3], ihi[3];
    /* CPML (boundary type "cpml"; else pml_a all NULL): the acoustic kind's layers and
     * coefficients (acoustic.h), its recursion and transpose in imaging_cpml.h */
    int pml_w[3][2];
    const float *pml_a[3], *pml_b[3];
    float pml_d1[3][FDW_MAX_RADIUS + 1];
    /* A slab's problem (imaging_slabs.h; the whole grid: 0 and nz): its first plane in the
     * grid and the grid's planes */
    int z0, nzg;
} fdw_img_data;

/* What an engine leaves for the outputs (its context starts with it). */
typedef struct img_result {
    float *image;              /* rtm: the image; gradient: the gradient (nx*ny*nz) */
    float *illum;              /* the source's illumination sum u^2, or NULL */
    double misfit;             /* gradient: 1/2 sum (R u - d_obs)^2 */
    float *predicted;          /* gradient: R u, [slot][row] like fetch_receivers */
    /* Wall-clock seconds of the shot's phases, for the manifest (rtm, gradient): the
     * forward pass; the backward pass (its recomputation included); the image's last pass
     * (the sums to the host and finished). t0: when the first step began. */
    double t0, forward_s, backward_s, finish_s;
} img_result;

/* The outputs' arrays from an engine's sums in the grid's order (imaging_finish.c): the
 * image in the spec's parameter (unless scaled: the engine scaled it as fdwk_img_scale
 * does), the illumination normalisation and the Laplacian filter as rtm asks; res->image
 * and res->illum already allocated. img may be res->image and ill res->illum (finished in
 * place); ill NULL: no illumination sum (res->illum zeroed). 0, or -1 out of memory. */
int fdw_img_finish_sums(const fdw_problem *p, const float *img, const float *ill, int scaled,
                         img_result *res);
/* Whether the image's sum is scaled to the spec's parameter: the adjoint condition and
 * the gradient (the cross-correlation is the sum itself). */
int fdw_img_scales(const fdw_img_data *d);

/* The phase clock of res (imaging_engine.c): fdw_img_clock(res, 0) as a step begins
 * (starts it once), 1 when the forward pass's work is done, 2 when the backward pass's
 * is, 3 when the outputs' arrays are; each engine calls it after its device is idle. */
void fdw_img_clock(img_result *res, int phase);

/* ---- spec (imaging_spec.c) ---- */
struct spec_ctx;
struct json_t;
int fdw_img_parse(struct spec_ctx *c, const struct json_t *root, img_mode mode);
void fdw_img_warnings(struct spec_ctx *c);
void fdw_img_free_spec(struct fdw_spec *spec);

/* ---- observed traces from SEG-Y (imaging_segy.c) ---- */
typedef struct img_segy img_segy;
/* Whether root's "data" asks for SEG-Y ("format": "segy"). */
int fdw_img_segy_wanted(const struct json_t *root);
/* Before the wave sections: data's members, the shot's traces and geometry from the
 * headers (or, in a trusted normalised spec, from its record) into k->segy, and *wave, a
 * copy of root with the shot's receivers and sample interval for wave_parse; with a
 * survey, every FFID of the file as a listed shot with its own number and receivers
 * (imaging_segy_survey.c). */
int fdw_img_segy_scan(struct spec_ctx *c, const struct json_t *root, fdw_img_spec *k,
                      struct json_t **wave);
/* After them: the spec's one source against the headers', the traces long enough for nt;
 * the normalised "data" (what was read) in place of "receivers". */
int fdw_img_segy_finish(struct spec_ctx *c, fdw_img_spec *k, struct json_t *norm);
/* Traces first .. first + count - 1 of the scan (a survey's shot: its trace0 and its
 * receivers; one shot: 0 and all), the first `slots` samples of each, into data
 * [receiver][sample]. */
fdw_status fdw_img_segy_load(const img_segy *g, long first, long count, float *data,
                             long slots, fdw_error *err);
/* The file's trace number (1-based) of a receiver (counted over the scan), for messages. */
int fdw_img_segy_trace(const img_segy *g, long receiver);
void fdw_img_segy_free(img_segy *g);

/* ---- problem (imaging_build.c) ---- */
fdw_status fdw_img_build(const struct fdw_spec *spec, fdw_problem *prob, fdw_error *err);
void fdw_img_free_problem(fdw_problem *prob);
/* Device memory of a shot: all its slabs together; one slab's, planes [z0, z0 + nz). */
uint64_t fdw_img_device_bytes(const struct fdw_spec *spec);
uint64_t fdw_img_slab_bytes(const struct fdw_spec *spec, int z0, int nz);
/* The steps between checkpoints and the engine's steps for nt time steps (the run loop's
 * count: born nt; rtm and gradient the forward pass, the recomputation and the adjoint). */
int fdw_img_segment(long nt);
long fdw_img_engine_steps(img_mode mode, long nt, int seg, img_recon recon);

/* ---- the order of the work (imaging_sched.c) ---- */
typedef enum { IMG_FORWARD = 0, IMG_RECOMPUTE, IMG_ADJOINT, IMG_DONE } img_phase;

typedef struct img_sched {
    long nt, K;                /* time steps; segments of L steps */
    int L;
    img_recon recon;
    img_phase phase;
    long seg, pos;             /* the segment and the step within the phase's part */
    int entered;               /* the backward pass has just come to segment seg */
} img_sched;

/* What one engine step does: the phase; it, the time step (IMG_ADJOINT: n, the step
 * whose u[n] meets z[n+1]). The boundary scheme (IMG_RECON_BOUNDARY): IMG_FORWARD's
 * store >= 0 saves u[it+1]'s band after the step as that slot; IMG_ADJOINT's back says the
 * unit also adds the image's term n + 1 (lap u[n+1] z[n+2], before z's step) and steps u
 * back to u[n] (from u[n+1] and u[n+2] less the source of step n + 1), and its store >= 0
 * is the slot of u[n]'s band, put back after that step. The checkpointed scheme:
 * restore: first put segment seg's start (checkpoint or zero)
 * into the background field and the store's first slot; checkpoint >= 0: first save u[it],
 * u[it-1] as that checkpoint; memory >= 0 (a CPML): first save its memory variables
 * (those of step it - 1, segment memory + 1's start) as that memory checkpoint, for
 * segments 1 .. K-1; store >= 0: the store's slot of u[it] (IMG_FORWARD: before the step;
 * IMG_RECOMPUTE: of u[it+1], after it; IMG_ADJOINT: where u[n] is); last: the forward
 * pass's last step (the adjoint's traces follow). */
typedef struct img_unit {
    img_phase phase;
    long it, seg, pos;
    long checkpoint, memory, store;
    int restore, last, back;
} img_unit;

void img_sched_init(img_sched *s, long nt, int L, img_recon recon);
img_unit img_sched_unit(const img_sched *s);
void img_sched_advance(img_sched *s);

/* ---- outputs (imaging_outputs.c) ---- */
struct fdw_run_state;
struct fdw_stack_ops;
fdw_status fdw_img_finish(struct fdw_run_state *r, char *extra, size_t len, fdw_error *err);
/* A survey's sums (kind.h): rtm's image and illumination, the gradient and its misfit. */
extern const struct fdw_stack_ops fdw_img_rtm_stack;
extern const struct fdw_stack_ops fdw_img_gradient_stack;

/* The entry in the kind table (kind.h) the imaging kinds share: each gives its name, its
 * top-level keys and its parse (its fdw_img_kind), and rtm and gradient their stack. */
#ifdef FDW_HAVE_CUDA
#define FDW_IMG_CUDA_ENGINE .cuda_engine = &fdw_img_cuda_engine
#else
#define FDW_IMG_CUDA_ENGINE .cuda_engine = NULL
#endif
#define FDW_IMG_KIND(name_, keys_, parse_)                                                   \
    .name = name_, .wave = 1,                                                                \
    .section = {.keys = keys_, .parse = parse_, .warnings = fdw_img_warnings,                \
                .free = fdw_img_free_spec, .device_bytes = fdw_img_device_bytes,             \
                .device_bytes_slab = fdw_img_slab_bytes},                                \
    .problem = {.build = fdw_img_build, .free = fdw_img_free_problem},                       \
    .run = {.cpu_engine = &fdw_img_cpu_engine, FDW_IMG_CUDA_ENGINE},                         \
    .out = {.finish = fdw_img_finish, .unstable_field = "velocity",                          \
            .unstable_hint = "the finite-difference scheme is stable at this dt for the "   \
                             "model's largest velocity (time.dt is checked against it), so " \
                             "look at the velocity model and the data's amplitudes"}

/* ---- what both engines work out alike on the host (imaging_engine.c) ---- */
/* The sponge's q = qx + (qy + qz) at global grid index g (0 without a sponge). */
float fdw_img_sponge_at(const fdw_problem *p, uint64_t g);
/* born's source term dV / (1 + q) per point (grid order), a new array in *out; 0 or -1. */
int fdw_img_born_source(const fdw_problem *p, float **out);
/* The output receiver whose rows include receiver tap t's row. */
int fdw_img_tap_receiver(const fdw_problem *p, const fdw_tap *t);
/* The adjoint's weight at receiver tap t: the tap's weight times V / (1 + q) there. */
float fdw_img_adjoint_weight(const fdw_problem *p, const fdw_tap *t);
/* gradient: the residual tr = R u - d_obs ([receiver][slot]) of the recorded rows slots
 * ([slot][row]) and the misfit 1/2 sum tr^2; 0, or -1 out of memory. */
int fdw_img_residual(const fdw_problem *p, const float *slots, float *tr, double *misfit);
/* fetch_receivers' range check. */
fdw_status fdw_img_check_slots(const fdw_problem *p, long first, long count, fdw_error *err);

/* ---- the engines: the CPU's (cpu_imaging.c), the GPU's (cuda_imaging.c, CUDA builds),
 * each over the plan's slabs (imaging_slabs.h); their entries in the kinds' tables ---- */
extern const fdw_backend fdw_img_cpu_engine;
extern const fdw_backend fdw_img_cuda_engine;

#endif
