/* test_gpu.c — the CUDA backend on a real GPU: against the CPU reference backend for every
 * kind (acoustic orders 2..16 on a heterogeneous 203x157x131 model with sponge, free
 * surface, several sources and receivers; stencil; derivative along x, y and z), several
 * slabs against one (bit for bit; on a one-GPU machine the slabs share the GPU, which
 * still runs the exchange code), the analytic homogeneous solution through fdw_run, and
 * a job too large for the GPU failing with FDW_ERR_NOMEM, and every kernel configuration and
 * derivative version giving the default's bits. Exits 77 (ctest: skipped) when no CUDA
 * device is present. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run/backend.h"
#include "core/fd_coeffs.h"
#include "acoustic/fdwk_acoustic.h" /* the kernels themselves: every configuration, version */
#include "derivative/fdwk_derivative.h"
#include "stencil/fdwk_stencil.h"
#include "kinds/acoustic/acoustic.h"
#include "kinds/derivative/derivative.h"
#include "kinds/kind.h"
#include "run/plan.h"
#include "run/problem.h"
#include "spec/spec.h"
#include "run/wavelet.h"

/* ---- running a problem on a backend ------------------------------------------ */

typedef struct outcome {
    float *vol;                 /* nx*ny*nz after the steps */
    float *traces;              /* nrec_slots * nreceivers, or NULL */
    float *slices[3];           /* xy, xz, yz at fixed indices */
    size_t nvol, ntr, nsl[3];
} outcome;

static void outcome_free(outcome *o)
{
    free(o->vol);
    free(o->traces);
    for (int i = 0; i < 3; i++)
        free(o->slices[i]);
    memset(o, 0, sizeof *o);
}

static fdw_spec *parse(const char *json)
{
    fdw_spec *spec = NULL;
    fdw_error err;
    fdw_status st = fdw_spec_parse(json, strlen(json), NULL, &spec, &err);
    ck_assert_msg(st == FDW_OK, "spec rejected: %s: %s", err.field, err.message);
    return spec;
}

/* Run nsteps of prob on backend be over ndev slabs (device ids ids[]); collect the volume,
 * the receiver traces and three slices (extracted half way and at the end). */
static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void run_backend(const fdw_backend *be, const fdw_problem *prob, int ndev, const int *ids,
                        long nsteps, outcome *o)
{
    memset(o, 0, sizeof *o);
    const double t0 = wall_s();
    fdw_error err;
    fdw_plan plan;
    fdw_status st = fdw_plan_slabs(prob->nz, prob->radius, ndev, ids, &plan, &err);
    ck_assert_msg(st == FDW_OK, "plan: %s", err.message);
    void *ctx = NULL;
    st = be->create(prob, &plan, &ctx, &err);
    ck_assert_msg(st == FDW_OK, "%s create: %s", be->name, err.message);
    const int nx = prob->nx, ny = prob->ny, nz = prob->nz;
    fdw_slice sl[3] = {{FDW_PLANE_XY, nz / 3}, {FDW_PLANE_XZ, ny / 2}, {FDW_PLANE_YZ, nx / 4}};
    o->nsl[0] = (size_t)nx * ny;
    o->nsl[1] = (size_t)nx * nz;
    o->nsl[2] = (size_t)ny * nz;
    for (int i = 0; i < 3; i++)
        o->slices[i] = malloc(o->nsl[i] * sizeof(float));
    const long half = nsteps / 2 > 0 ? nsteps / 2 : 1;
    for (long it = 0; it < nsteps; it++) {
        st = be->step(ctx, it, &err);
        ck_assert_msg(st == FDW_OK, "%s step %ld: %s", be->name, it, err.message);
        if (it + 1 == half) {
            /* Issued mid-run, completed by a wait a few steps later: the slices must show
             * the state at this step although later steps were queued meanwhile. */
            st = be->extract(ctx, 3, sl, o->slices, &err);
            ck_assert_msg(st == FDW_OK, "%s extract: %s", be->name, err.message);
        }
        if (it + 1 == half + 3 || it + 1 == nsteps) {
            st = fdw_backend_wait(be, ctx, &err);
            ck_assert_msg(st == FDW_OK, "%s wait: %s", be->name, err.message);
        }
    }
    o->nvol = (size_t)nx * ny * nz;
    o->vol = malloc(o->nvol * sizeof(float));
    fdw_slice vol = {FDW_PLANE_VOLUME, 0};
    st = be->extract(ctx, 1, &vol, &o->vol, &err);
    ck_assert_msg(st == FDW_OK, "%s extract volume: %s", be->name, err.message);
    st = fdw_backend_wait(be, ctx, &err);
    ck_assert_msg(st == FDW_OK, "%s wait: %s", be->name, err.message);
    if (prob->nreceivers > 0 && prob->nrec_slots > 0) {
        o->ntr = (size_t)prob->nrec_slots * prob->nreceivers;
        o->traces = malloc(o->ntr * sizeof(float));
        st = be->fetch_receivers(ctx, 0, prob->nrec_slots, o->traces, &err);
        ck_assert_msg(st == FDW_OK, "%s receivers: %s", be->name, err.message);
    }
    be->destroy(ctx);
    const double t = wall_s() - t0;
    if (t > 0.5) /* where the test time goes */
        printf("  (%s, %d slab%s, %ld steps of %dx%dx%d: %.1f s)\n", be->name, ndev,
               ndev > 1 ? "s" : "", nsteps, prob->nx, prob->ny, prob->nz, t);
}

static double rel_l2(const float *a, const float *b, size_t n, double *maxabs)
{
    double num = 0, den = 0, mx = 0;
    size_t bad = n; /* first non-finite value (checked once: a Check assertion per element
                       costs a write to the parent process, seconds on a 4-Mpoint field) */
    for (size_t i = 0; i < n; i++) {
        double d = (double)a[i] - (double)b[i];
        if (bad == n && !isfinite(a[i]))
            bad = i;
        num += d * d;
        den += (double)b[i] * b[i];
        if (fabs(d) > mx)
            mx = fabs(d);
    }
    ck_assert_msg(bad == n, "non-finite value at %zu", bad);
    if (maxabs)
        *maxabs = mx;
    return den > 0 ? sqrt(num / den) : (num > 0 ? INFINITY : 0.0);
}

static double norm2(const float *a, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (double)a[i] * a[i];
    return sqrt(s);
}

/* Compare GPU and CPU outcomes: volume, traces and slices within tol (relative L2). */
static void compare(const char *what, const outcome *g, const outcome *c, double tol)
{
    double mx = 0;
    ck_assert_msg(norm2(c->vol, c->nvol) > 0, "%s: the reference field is zero", what);
    double e = rel_l2(g->vol, c->vol, c->nvol, &mx);
    int same = memcmp(g->vol, c->vol, c->nvol * sizeof(float)) == 0;
    printf("%-34s volume rel L2 %.3e  max|diff| %.3e  %s\n", what, e, mx,
           same ? "(bit-identical)" : "");
    ck_assert_msg(e < tol, "%s: volume relative L2 %.3e >= %.1e", what, e, tol);
    if (c->traces) {
        ck_assert_msg(norm2(c->traces, c->ntr) > 0, "%s: reference traces are zero", what);
        double et = rel_l2(g->traces, c->traces, c->ntr, &mx);
        printf("%-34s traces rel L2 %.3e\n", what, et);
        ck_assert_msg(et < tol, "%s: traces relative L2 %.3e >= %.1e", what, et, tol);
    }
    for (int i = 0; i < 3; i++) {
        double es = rel_l2(g->slices[i], c->slices[i], c->nsl[i], &mx);
        ck_assert_msg(es < tol || norm2(c->slices[i], c->nsl[i]) == 0,
                      "%s: slice %d relative L2 %.3e", what, i, es);
    }
}

static void problem_from(const char *json, fdw_spec **spec, fdw_problem *prob)
{
    *spec = parse(json);
    fdw_error err;
    fdw_status st = fdw_problem_build(*spec, NULL, prob, &err);
    ck_assert_msg(st == FDW_OK, "problem: %s", err.message);
}

/* The acoustic test job: a Gaussian low-velocity anomaly in a 203x157x131 grid with
 * unequal spacings, CPML or sponge on five faces, free surface on top, three off-grid sources and
 * a line plus points of receivers. */
static const char *CPML = "{\"type\":\"cpml\",\"width\":12,\"free_surface\":true}";
static const char *SPONGE = "{\"type\":\"sponge\",\"width\":12,\"free_surface\":true}";

static void acoustic_json(char *buf, size_t len, int order, int nt, const char *velocity,
                          const char *boundary)
{
    snprintf(buf, len,
             "{\"kind\":\"acoustic\",\"grid\":{\"nx\":203,\"ny\":157,\"nz\":131,"
             "\"dx\":10,\"dy\":12,\"dz\":8},\"order\":%d,\"velocity\":%s,"
             "\"time\":{\"nt\":%d,\"dt\":\"auto\"},"
             "\"sources\":[{\"position\":[1003.3,941.7,402.5],\"wavelet\":{\"type\":\"ricker\",\"f0\":14}},"
             "{\"position\":[400,600,96],\"wavelet\":{\"type\":\"ricker\",\"f0\":10,\"delay\":0.12}},"
             "{\"position\":[1500.5,1200.2,800],\"wavelet\":{\"type\":\"ricker\",\"f0\":12,\"amplitude\":2}}],"
             "\"receivers\":{\"lines\":[{\"from\":[100,100,16],\"to\":[1900,1700,1000],\"count\":40}],"
             "\"points\":[[1010,940,400],[55.5,77.7,3.3]],\"interval\":2},"
             "\"boundary\":%s}",
             order, velocity, nt, boundary);
}

static const char *GAUSSIAN =
    "{\"type\":\"gaussian\",\"background\":2200,\"center\":[1000,900,500],\"sigma\":250,"
    "\"dv\":-700}";
static const char *LAYERED =
    "{\"type\":\"layered\",\"layers\":[{\"top\":0,\"v\":1500},{\"top\":300,\"v\":2200},"
    "{\"top\":700,\"v\":3000}]}";

static const int ORDERS[] = {2, 4, 8, 12, 16};

/* Loop index 0..4: CPML, orders 2..16; 5: sponge, order 8. */
START_TEST(test_acoustic_vs_cpu)
{
    const int order = _i < 5 ? ORDERS[_i] : 8;
    char json[2048], what[64];
    acoustic_json(json, sizeof json, order, 500, GAUSSIAN, _i < 5 ? CPML : SPONGE);
    fdw_spec *spec;
    fdw_problem prob;
    problem_from(json, &spec, &prob);
    int id0 = 0;
    outcome g, c;
    run_backend(fdw_cuda_backend(), &prob, 1, &id0, 500, &g);
    run_backend(fdw_cpu_backend(), &prob, 1, &id0, 500, &c);
    snprintf(what, sizeof what, "acoustic order %d, %s, 500 steps", order,
             _i < 5 ? "CPML" : "sponge");
    compare(what, &g, &c, 1e-5);
    outcome_free(&g);
    outcome_free(&c);
    fdw_problem_free(&prob);
    fdw_spec_free(spec);
}
END_TEST

/* The GPU job of `json` against the CPU backend's portable kernel (no fused multiply-adds,
 * like the GPU), `steps` steps: volume and traces must be equal bit for bit. */
static void cpml_bitwise(const char *json, int steps, const char *what)
{
    fdw_spec *spec;
    fdw_problem prob;
    problem_from(json, &spec, &prob);
    int id0 = 0;
    outcome g, c;
    run_backend(fdw_cuda_backend(), &prob, 1, &id0, steps, &g);
    const fdw_tuning portable = {.cpu_portable = 1};
    fdw_problem cprob = prob;
    cprob.tuning = &portable;
    run_backend(fdw_cpu_backend(), &cprob, 1, &id0, steps, &c);
    ck_assert_msg(norm2(c.vol, c.nvol) > 0, "%s: the reference field is zero", what);
    const int same = memcmp(g.vol, c.vol, c.nvol * sizeof(float)) == 0;
    const int tsame = memcmp(g.traces, c.traces, c.ntr * sizeof(float)) == 0;
    double mx = 0, e = rel_l2(g.vol, c.vol, c.nvol, &mx);
    printf("%s vs portable CPU kernel, %d steps: volume %s, traces %s (rel L2 %.3e)\n", what,
           steps, same ? "bit-identical" : "DIFFER", tsame ? "bit-identical" : "DIFFER", e);
    ck_assert_msg(same && tsame, "%s: GPU differs from the portable CPU kernel", what);
    outcome_free(&g);
    outcome_free(&c);
    fdw_problem_free(&prob);
    fdw_spec_free(spec);
}

/* The CPML passes evaluate the CPU reference's operations in its order: the whole job is
 * equal bit for bit, volume and traces, for orders 4, 8 and 16. */
START_TEST(test_cpml_bitwise)
{
    static const int ORD[3] = {4, 8, 16};
    char json[2048], what[64];
    acoustic_json(json, sizeof json, ORD[_i], 120, GAUSSIAN, CPML);
    snprintf(what, sizeof what, "CPML order %d", ORD[_i]);
    cpml_bitwise(json, 120, what);
}
END_TEST

/* The same on grids and per-face widths that take each of cpml.cu's paths for the x
 * layers: 0, x layers closer than the radius (order 16, 5 points apart: one thread per
 * point, psi before the update); 1, x layers wider than the shared-memory kernel takes
 * (140 and 130 points: the same fallback); 2, unequal widths on both sides of x and y
 * (the shared-memory x kernel and the walks); 3, one side of x and of y without a layer. */
START_TEST(test_cpml_paths_bitwise)
{
    static const struct {
        int order, nx, ny, nz;
        const char *width;
    } C[4] = {
        {16, 30, 44, 40, "{\"xmin\":13,\"xmax\":12,\"ymin\":10,\"ymax\":10,\"zmax\":12}"},
        {8, 300, 24, 24, "{\"xmin\":140,\"xmax\":130,\"ymin\":5,\"ymax\":5,\"zmax\":6}"},
        {8, 64, 48, 40, "{\"xmin\":13,\"xmax\":7,\"ymin\":5,\"ymax\":11,\"zmax\":9}"},
        {4, 48, 40, 36, "{\"xmin\":0,\"xmax\":9,\"ymin\":7,\"ymax\":0,\"zmax\":8}"},
    };
    char json[2048], what[96];
    snprintf(json, sizeof json,
             "{\"kind\":\"acoustic\",\"grid\":{\"nx\":%d,\"ny\":%d,\"nz\":%d,"
             "\"dx\":10,\"dy\":12,\"dz\":8},\"order\":%d,\"velocity\":%s,"
             "\"time\":{\"nt\":150,\"dt\":\"auto\"},"
             "\"sources\":[{\"position\":[%g,%g,%g],\"wavelet\":{\"type\":\"ricker\",\"f0\":30}}],"
             "\"receivers\":{\"points\":[[15,30,40],[%g,50,60]],\"interval\":1},"
             "\"boundary\":{\"type\":\"cpml\",\"width\":%s,\"free_surface\":true}}",
             C[_i].nx, C[_i].ny, C[_i].nz, C[_i].order, LAYERED, C[_i].nx * 10 / 2.0 + 3,
             C[_i].ny * 12 / 2.0 - 5, C[_i].nz * 8 / 2.0, (C[_i].nx - 2) * 10.0, C[_i].width);
    snprintf(what, sizeof what, "CPML %dx%dx%d order %d widths %s", C[_i].nx, C[_i].ny,
             C[_i].nz, C[_i].order, C[_i].width);
    cpml_bitwise(json, 150, what);
}
END_TEST

/* Slabs: 2, 3, 4 and 16 slabs (on distinct GPUs when there are enough, else sharing GPU
 * 0) give the 1-slab wavefield and receiver traces (rows, run/positioning.h) bit for bit.
 * Loop index 0: CPML (2, 3, 4 slabs; 16 would cut the z layer), 1: sponge (all four). */
START_TEST(test_slabs_bitwise)
{
    char json[2048];
    acoustic_json(json, sizeof json, 8, 200, LAYERED, _i == 0 ? CPML : SPONGE);
    fdw_spec *spec;
    fdw_problem prob;
    problem_from(json, &spec, &prob);
    const int ngpu = fdw_gpu_count();
    int one = 0;
    outcome ref;
    run_backend(fdw_cuda_backend(), &prob, 1, &one, 200, &ref);
    static const int NSLABS[] = {2, 3, 4, 16}; /* 16: slabs thinner than 3r, one stream each */
    for (int q = 0; q < (_i == 0 ? 3 : 4); q++) {
        const int n = NSLABS[q];
        int ids[16];
        for (int d = 0; d < n; d++)
            ids[d] = d % ngpu;
        outcome m;
        run_backend(fdw_cuda_backend(), &prob, n, ids, 200, &m);
        int same = memcmp(m.vol, ref.vol, ref.nvol * sizeof(float)) == 0;
        double mx = 0, e = rel_l2(m.vol, ref.vol, ref.nvol, &mx);
        double et = rel_l2(m.traces, ref.traces, ref.ntr, NULL);
        const int tsame = memcmp(m.traces, ref.traces, ref.ntr * sizeof(float)) == 0;
        printf("%s, %d slabs on %d GPU%s: volume %s (rel L2 %.3e), traces %s (rel L2 %.3e)\n",
               _i == 0 ? "CPML" : "sponge", n, ngpu < n ? ngpu : n, ngpu > 1 ? "s" : "",
               same ? "bit-identical" : "DIFFERS", e, tsame ? "bit-identical" : "DIFFER", et);
        ck_assert_msg(same, "%d slabs: wavefield differs from 1 slab (rel L2 %.3e)", n, e);
        ck_assert_msg(tsame, "%d slabs: traces differ from 1 slab (rel L2 %.3e)", n, et);
        for (int i = 0; i < 3; i++)
            ck_assert_msg(memcmp(m.slices[i], ref.slices[i], ref.nsl[i] * sizeof(float)) == 0,
                          "%d slabs: slice %d differs", n, i);
        outcome_free(&m);
    }
    outcome_free(&ref);
    fdw_problem_free(&prob);
    fdw_spec_free(spec);
}
END_TEST

/* Diagnostic for the report: the first step at which GPU and CPU acoustic fields differ
 * in any bit, and where (the comparison above bounds the difference; this explains it). */
START_TEST(test_first_difference)
{
    char json[2048];
    acoustic_json(json, sizeof json, 8, 40, GAUSSIAN, SPONGE);
    fdw_spec *spec;
    fdw_problem prob;
    problem_from(json, &spec, &prob);
    fdw_plan plan;
    fdw_error err;
    int id0 = 0;
    ck_assert_int_eq(fdw_plan_slabs(prob.nz, prob.radius, 1, &id0, &plan, &err), FDW_OK);
    const fdw_backend *be[2] = {fdw_cuda_backend(), fdw_cpu_backend()};
    void *ctx[2];
    for (int b = 0; b < 2; b++)
        ck_assert_int_eq(be[b]->create(&prob, &plan, &ctx[b], &err), FDW_OK);
    const size_t n = (size_t)prob.nx * prob.ny * prob.nz;
    float *v[2] = {malloc(n * 4), malloc(n * 4)};
    fdw_slice vol = {FDW_PLANE_VOLUME, 0};
    int found = 0;
    for (long it = 0; it < 40 && !found; it++) {
        for (int b = 0; b < 2; b++) {
            ck_assert_int_eq(be[b]->step(ctx[b], it, &err), FDW_OK);
            ck_assert_int_eq(be[b]->extract(ctx[b], 1, &vol, &v[b], &err), FDW_OK);
            ck_assert_int_eq(fdw_backend_wait(be[b], ctx[b], &err), FDW_OK);
        }
        for (size_t e = 0; e < n; e++)
            if (memcmp(&v[0][e], &v[1][e], 4) != 0) {
                int i = (int)(e % prob.nx), j = (int)(e / prob.nx % prob.ny),
                    k = (int)(e / ((size_t)prob.nx * prob.ny));
                printf("first GPU/CPU difference after step %ld at (%d,%d,%d): %.9g vs %.9g "
                       "(sponge q: %g %g %g)\n", it, i, j, k, v[0][e], v[1][e],
                       prob.qx ? prob.qx[i] : 0.0, prob.qy ? prob.qy[j] : 0.0,
                       prob.qz ? prob.qz[k] : 0.0);
                found = 1;
                break;
            }
    }
    if (!found)
        printf("GPU and CPU fields identical for 40 steps\n");
    for (int b = 0; b < 2; b++)
        be[b]->destroy(ctx[b]);
    free(v[0]);
    free(v[1]);
    fdw_problem_free(&prob);
    fdw_spec_free(spec);
}
END_TEST

/* Read a whole file; *n its size in bytes. */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    const long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(len > 0 ? (size_t)len : 1);
    *n = b ? fread(b, 1, (size_t)len, f) : 0;
    fclose(f);
    return b;
}

/* Whether file `name` is the same, byte for byte and non-empty, in directories a and b. */
static int same_file(const char *a, const char *b, const char *name)
{
    char pa[300], pb[300];
    snprintf(pa, sizeof pa, "%s/%s", a, name);
    snprintf(pb, sizeof pb, "%s/%s", b, name);
    size_t na = 0, nb = 0;
    char *fa = slurp(pa, &na), *fb = slurp(pb, &nb);
    ck_assert_msg(fa && fb, "missing %s or %s", pa, pb);
    const int same = na == nb && na > 0 && memcmp(fa, fb, na) == 0;
    free(fa);
    free(fb);
    return same;
}

/* fdw_run of spec on backend with tuning into a new directory made from template dir. */
static void run_job(const fdw_spec *spec, fdw_backend_kind backend, const fdw_tuning *tuning,
                    char *dir)
{
    ck_assert_ptr_nonnull(mkdtemp(dir));
    fdw_run_opts o = {.out_dir = dir, .backend = backend, .tuning = tuning};
    fdw_result res;
    fdw_error err;
    ck_assert_msg(fdw_run(spec, &o, NULL, &res, &err) == FDW_OK, "%s run: %s",
                  backend == FDW_BACKEND_CUDA ? "GPU" : "CPU", err.message);
}

static void remove_dir(const char *dir)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* The 2.5D kernel's configuration of every order (one per kind and radius: the tuned
 * tables) gives, through fdw_run, the bits of the CPU backend's portable kernel: acoustic
 * (sponge, free surface; receivers and the final volume) and stencil (the final field),
 * orders 2..16. */
START_TEST(test_configurations)
{
    static const char *const AC_FILES[] = {"gather.f32", "snap_000060_volume.f32", NULL};
    static const char *const ST_FILES[] = {"field.f32", NULL};
    for (int order = 2; order <= 16; order += 2) {
        for (int kind = 0; kind < 2; kind++) {
            const fdwk_mode mode = kind ? FDWK_STENCIL : FDWK_ACOUSTIC;
            ck_assert_ptr_nonnull(fdwk_fd_config_name(mode, order / 2));
            char json[2300];
            if (kind == 0) {
                acoustic_json(json, sizeof json, order, 60, GAUSSIAN, SPONGE);
                const size_t len = strlen(json); /* and the final volume */
                snprintf(json + len - 1, sizeof json - (len - 1),
                         ",\"snapshots\":{\"every\":60,\"volume\":true,\"raw\":true,"
                         "\"png\":false}}");
            } else {
                snprintf(json, sizeof json,
                         "{\"kind\":\"stencil\",\"grid\":{\"nx\":203,\"ny\":157,\"nz\":131,"
                         "\"dx\":1,\"dy\":1,\"dz\":1},\"order\":%d,\"iterations\":20,\"seed\":5}",
                         order);
            }
            const char *const *files = kind ? ST_FILES : AC_FILES;
            fdw_spec *spec = parse(json);
            const fdw_tuning portable = {.cpu_portable = 1};
            char cdir[] = "/tmp/fdw-conf-cpu-XXXXXX", ddir[] = "/tmp/fdw-conf-def-XXXXXX";
            run_job(spec, FDW_BACKEND_CPU, &portable, cdir);
            run_job(spec, FDW_BACKEND_CUDA, NULL, ddir);
            for (int f = 0; files[f]; f++)
                ck_assert_msg(same_file(ddir, cdir, files[f]),
                              "%s order %d (%s): %s differs from the CPU's portable kernel",
                              kind ? "stencil" : "acoustic", order,
                              fdwk_fd_config_name(mode, order / 2), files[f]);
            remove_dir(cdir);
            remove_dir(ddir);
            fdw_spec_free(spec);
        }
    }
    ck_assert_ptr_null(fdwk_fd_config_name(FDWK_ACOUSTIC, 0));
    ck_assert_ptr_null(fdwk_fd_config_name(FDWK_STENCIL, FDWK_MAX_RADIUS + 1));
    printf("every order's configuration, both kinds, bit-identical to the CPU's portable "
           "kernel\n");
}
END_TEST

/* A radius that does not exist, or a step called with the other kind's arguments, is an
 * error, not a launch. */
START_TEST(test_kernel_bad_args)
{
    fdwk_fd_args bad;
    memset(&bad, 0, sizeof bad);
    bad.mode = FDWK_STENCIL;
    bad.radius = FDWK_MAX_RADIUS + 1;
    bad.nx = bad.ny = 1;
    bad.k1 = 1;
    ck_assert_int_ne(fdwk_stencil_step(&bad, NULL), 0);
    bad.radius = 0;
    ck_assert_int_ne(fdwk_stencil_step(&bad, NULL), 0);
    bad.radius = 4;
    ck_assert_int_ne(fdwk_acoustic_step(&bad, NULL), 0); /* mode says stencil */
    fdwk_last_error();
}
END_TEST

static const int STENCIL_ORDERS[] = {2, 8, 12, 16};

START_TEST(test_stencil_vs_cpu)
{
    const int order = STENCIL_ORDERS[_i];
    char json[1024], what[64];
    snprintf(json, sizeof json,
             "{\"kind\":\"stencil\",\"grid\":{\"nx\":203,\"ny\":157,\"nz\":131,\"dx\":1,"
             "\"dy\":1,\"dz\":1},\"order\":%d,\"iterations\":60,\"seed\":7}",
             order);
    fdw_spec *spec;
    fdw_problem prob;
    problem_from(json, &spec, &prob);
    int id0 = 0;
    outcome g, c;
    run_backend(fdw_cuda_backend(), &prob, 1, &id0, 60, &g);
    run_backend(fdw_cpu_backend(), &prob, 1, &id0, 60, &c);
    snprintf(what, sizeof what, "stencil order %d, 60 iterations", order);
    compare(what, &g, &c, 1e-5);
    if (order == 8) { /* and 2 slabs, bit for bit */
        int ids[2] = {0, fdw_gpu_count() > 1 ? 1 : 0};
        outcome m;
        run_backend(fdw_cuda_backend(), &prob, 2, ids, 60, &m);
        ck_assert_msg(memcmp(m.vol, g.vol, g.nvol * sizeof(float)) == 0,
                      "stencil: 2 slabs differ from 1");
        outcome_free(&m);
    }
    outcome_free(&g);
    outcome_free(&c);
    fdw_problem_free(&prob);
    fdw_spec_free(spec);
}
END_TEST

/* The derivative of prob's initial field along axis by every kernel version and two walk
 * chunks, called directly on a copy of the field in the backend's layout: each equals the
 * default version bit for bit. */
static void deriv_versions_same(const fdw_problem *prob, int axis)
{
    fdwk_layout L;
    fdwk_layout_init(&L, prob->nx, prob->ny, prob->nz, 0);
    const size_t bytes = L.total * sizeof(float);
    const long org = fdwk_origin(&L);
    float *in, *ref, *out;
    ck_assert_int_eq(fdwk_malloc((void **)&in, bytes), 0);
    ck_assert_int_eq(fdwk_malloc((void **)&ref, bytes), 0);
    ck_assert_int_eq(fdwk_malloc((void **)&out, bytes), 0);
    ck_assert_int_eq(fdwk_memset_async(in, 0, bytes, NULL), 0);
    ck_assert_int_eq(fdwk_fill_random(in + org, &L, 7, 1.f, 0.f, NULL), 0);
    float dc[5];
    for (int m = 0; m < 5; m++)
        dc[m] = ((const fdw_derivative_data *)prob->kdata)->dc[m];
    const size_t npts = L.total;
    float *hr = malloc(bytes), *ho = malloc(bytes);
    ck_assert_int_eq(fdwk_memset_async(ref, 0, bytes, NULL), 0);
    ck_assert_int_eq(fdwk_derivative(ref + org, in + org, L.nx, L.ny, L.nz, L.pitch, L.plane,
                                     axis, dc, FDWK_DERIV_DEFAULT, 0, NULL), 0);
    ck_assert_int_eq(fdwk_d2h(hr, ref, bytes), 0);
    static const struct { int version, chunk; } V[] = {
        {FDWK_DERIV_SCALAR, 0}, {FDWK_DERIV_WALK, 0}, {FDWK_DERIV_TILE, 0},
        {FDWK_DERIV_WALK, 37}, {FDWK_DERIV_SCALAR, 50}};
    for (size_t v = 0; v < sizeof V / sizeof V[0]; v++) {
        ck_assert_int_eq(fdwk_memset_async(out, 0, bytes, NULL), 0);
        ck_assert_int_eq(fdwk_derivative(out + org, in + org, L.nx, L.ny, L.nz, L.pitch, L.plane,
                                         axis, dc, V[v].version, V[v].chunk, NULL), 0);
        ck_assert_int_eq(fdwk_d2h(ho, out, bytes), 0);
        ck_assert_msg(memcmp(hr, ho, npts * sizeof(float)) == 0,
                      "derivative along %c: version %d, chunk %d differs from the default",
                      "xyz"[axis], V[v].version, V[v].chunk);
    }
    ck_assert_int_ne(fdwk_derivative(out + org, in + org, L.nx, L.ny, L.nz, L.pitch, L.plane,
                                     axis, dc, FDWK_DERIV_TILE + 1, 0, NULL), 0);
    free(hr);
    free(ho);
    fdwk_free(in);
    fdwk_free(ref);
    fdwk_free(out);
}

START_TEST(test_derivative_vs_cpu)
{
    static const char *AX[] = {"x", "y", "z"};
    char json[1024], what[64];
    snprintf(json, sizeof json,
             "{\"kind\":\"derivative\",\"grid\":{\"nx\":203,\"ny\":157,\"nz\":131,\"dx\":2,"
             "\"dy\":3,\"dz\":4},\"iterations\":2,\"axis\":\"%s\",\"periods\":[3,2,5]}",
             AX[_i]);
    fdw_spec *spec;
    fdw_problem prob;
    problem_from(json, &spec, &prob);
    int id0 = 0;
    outcome g, c;
    run_backend(fdw_cuda_backend(), &prob, 1, &id0, 1, &g);
    run_backend(fdw_cpu_backend(), &prob, 1, &id0, 1, &c);
    snprintf(what, sizeof what, "derivative along %s", AX[_i]);
    compare(what, &g, &c, 1e-6);
    /* Every kernel version (fdwk_derivative's version: scalar, walk, tile) and a walk chunk
     * evaluate the same operations in the same order: the same bits as the default. */
    deriv_versions_same(&prob, _i);
    /* and against the exact derivative */
    double maxerr = fdw_derivative_max_error(spec, g.vol);
    double scale = 0;
    for (size_t i = 0; i < c.nvol; i++)
        scale = fmax(scale, fabs(c.vol[i]));
    printf("derivative along %s: max |error| %.3e (max |f'| %.3e)\n", AX[_i], maxerr, scale);
    ck_assert_msg(maxerr >= 0 && maxerr < 1e-4 * scale, "derivative error %.3e", maxerr);
    outcome_free(&g);
    outcome_free(&c);
    fdw_problem_free(&prob);
    fdw_spec_free(spec);
}
END_TEST

/* A problem far larger than any GPU: create fails with FDW_ERR_NOMEM and says how much is
 * needed and how much is free; nothing is uploaded (the check comes first). */
START_TEST(test_too_large)
{
    static const fdw_tuning automatic;
    float dummy[4] = {0};
    fdw_acoustic_data ad;
    memset(&ad, 0, sizeof ad);
    ad.vdt2 = dummy;
    ad.cx[0] = ad.cy[0] = ad.cz[0] = -1.0f;
    fdw_problem p;
    memset(&p, 0, sizeof p);
    p.kind = fdw_kind_find("acoustic");
    p.kdata = &ad;
    p.tuning = &automatic;
    p.nx = 4000;
    p.ny = 4000;
    p.nz = 3000; /* 48 Gpoints: 576 GB */
    p.radius = 4;
    fdw_plan plan;
    fdw_error err;
    int id0 = 0;
    ck_assert_int_eq(fdw_plan_slabs(p.nz, 4, 1, &id0, &plan, &err), FDW_OK);
    void *ctx = NULL;
    fdw_status st = fdw_cuda_backend()->create(&p, &plan, &ctx, &err);
    printf("too large: %s: %s\n", fdw_status_name(st), err.message);
    ck_assert_int_eq(st, FDW_ERR_NOMEM);
    ck_assert_ptr_null(ctx);
    ck_assert_ptr_nonnull(strstr(err.message, "needs"));
    ck_assert_ptr_nonnull(strstr(err.message, "free"));
    /* The GPU is still usable afterwards. */
    fdw_device_info info;
    ck_assert_int_eq(fdw_gpu_info(0, &info, &err), FDW_OK);
    ck_assert_uint_gt(info.free_bytes, 0);
}
END_TEST

/* The analytic homogeneous test through fdw_run on the GPU: order 8, 6.7 points per
 * wavelength, receivers 100..250 m from a Ricker point source; each trace within 2% (rel
 * L2) of f(t - r/c) / (4 pi c^2 r). The box (880 x 680 x 680 m, no absorbing layer) is
 * large enough that no reflection from its faces reaches a receiver within 0.36 s (the
 * geometry of tests/physics/test_analytic.c). */
START_TEST(test_analytic_gpu)
{
    const double c0 = 2000.0, h = 10.0, f0 = 12.0;
    const double dt = 0.8 * fdw_dt_max(8, h, h, h, c0);
    const long nt = (long)ceil(0.36 / dt);
    const double src[3] = {290.0, 340.0, 340.0};
    const double offs[5] = {100.0, 140.0, 180.0, 220.0, 250.0};
    char json[2048];
    snprintf(json, sizeof json,
             "{\"kind\":\"acoustic\",\"grid\":{\"nx\":89,\"ny\":69,\"nz\":69,\"dx\":10,"
             "\"dy\":10,\"dz\":10},\"order\":8,\"velocity\":{\"type\":\"constant\",\"value\":%g},"
             "\"time\":{\"nt\":%ld,\"dt\":%.17g},"
             "\"sources\":[{\"position\":[%g,%g,%g],\"wavelet\":{\"type\":\"ricker\",\"f0\":%g,"
             "\"delay\":%g}}],\"receivers\":{\"points\":[[%g,%g,%g],[%g,%g,%g],[%g,%g,%g],"
             "[%g,%g,%g],[%g,%g,%g]]},\"boundary\":{\"type\":\"none\"},"
             "\"snapshots\":{\"every\":50,\"slices\":[{\"plane\":\"xy\",\"index\":34}]}}",
             c0, nt, dt, src[0], src[1], src[2], f0, 1.2 / f0, src[0] + offs[0], src[1], src[2],
             src[0] + offs[1], src[1], src[2], src[0] + offs[2], src[1], src[2],
             src[0] + offs[3], src[1], src[2], src[0] + offs[4], src[1], src[2]);
    fdw_spec *spec = parse(json);
    char dir[] = "/tmp/fdw-gpu-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    fdw_run_opts opts = {.out_dir = dir, .backend = FDW_BACKEND_CUDA};
    fdw_result res;
    fdw_error err;
    fdw_status st = fdw_run(spec, &opts, NULL, &res, &err);
    ck_assert_msg(st == FDW_OK, "run: %s", err.message);
    ck_assert_str_eq(res.backend, "cuda");
    char path[300];
    snprintf(path, sizeof path, "%s/gather.f32", dir);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    const long ns = nt + 1;
    float *tr = malloc(sizeof(float) * 5 * (size_t)ns);
    ck_assert_uint_eq(fread(tr, sizeof(float), 5 * (size_t)ns, f), 5 * (size_t)ns);
    fclose(f);
    fdw_source s = {.wavelet = FDW_WAVELET_RICKER, .f0 = f0, .delay = 1.2 / f0, .amplitude = 1.0};
    for (int r = 0; r < 5; r++) {
        double num = 0, den = 0;
        for (long k = 0; k < ns; k++) {
            double a = fdw_source_value(&s, k * dt - offs[r] / c0, dt) /
                       (4.0 * M_PI * c0 * c0 * offs[r]);
            double d = tr[(size_t)r * ns + k] - a;
            num += d * d;
            den += a * a;
        }
        double e = sqrt(num / den);
        printf("analytic on GPU: receiver at %.0f m: relative L2 error %.3f%%\n", offs[r],
               100 * e);
        ck_assert_msg(e < 0.02, "receiver %d: error %.4f", r, e);
    }
    free(tr);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    fdw_spec_free(spec);
}
END_TEST

/* Snapshots through fdw_run: the loop issues the next steps while a snapshot's slices
 * travel to the host (cuda_backend's extract_done, engine/run.c settle_snapshot), the last
 * one still under way when the loop ends. Every raw slice file of the GPU run (1 and 2
 * slabs) must equal the CPU backend's portable kernel's bit for bit: 4 snapshots of 3
 * slices, at steps 7, 14, 21 and 28 of 30. */
START_TEST(test_run_snapshots_vs_cpu)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"kind\":\"acoustic\",\"grid\":{\"nx\":53,\"ny\":47,\"nz\":41,\"dx\":10,"
             "\"dy\":10,\"dz\":10},\"order\":8,\"velocity\":%s,\"time\":{\"nt\":30,\"dt\":\"auto\"},"
             "\"sources\":[{\"position\":[262,231,155],\"wavelet\":{\"type\":\"ricker\",\"f0\":25}}],"
             "\"boundary\":{\"type\":\"cpml\",\"width\":6,\"free_surface\":true},"
             "\"snapshots\":{\"every\":7,\"slices\":[{\"plane\":\"xy\",\"index\":15},"
             "{\"plane\":\"xz\",\"index\":23},{\"plane\":\"yz\",\"index\":26}],\"png\":false}}",
             LAYERED);
    fdw_spec *spec = parse(json);
    char gdir[] = "/tmp/fdw-gpu-snap-XXXXXX", cdir[] = "/tmp/fdw-cpu-snap-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(gdir));
    ck_assert_ptr_nonnull(mkdtemp(cdir));
    const int ids[2] = {0, fdw_gpu_count() > 1 ? 1 : 0};
    fdw_run_opts go = {.out_dir = gdir, .backend = FDW_BACKEND_CUDA, .device_ids = ids,
                       .ndevice_ids = _i ? 2 : 1};
    const fdw_tuning portable = {.cpu_portable = 1};
    fdw_run_opts co = {.out_dir = cdir, .backend = FDW_BACKEND_CPU, .threads = 2,
                       .tuning = &portable};
    fdw_result res;
    fdw_error err;
    ck_assert_msg(fdw_run(spec, &go, NULL, &res, &err) == FDW_OK, "GPU run: %s", err.message);
    ck_assert_str_eq(res.backend, "cuda");
    const fdw_status cst = fdw_run(spec, &co, NULL, &res, &err);
    ck_assert_msg(cst == FDW_OK, "CPU run: %s", err.message);
    static const char *const SL[3] = {"xy_k15", "xz_j23", "yz_i26"};
    int same = 0;
    for (int t = 7; t <= 28; t += 7)
        for (int q = 0; q < 3; q++) {
            char gp[300], cp[300];
            snprintf(gp, sizeof gp, "%s/snap_%06d_%s.f32", gdir, t, SL[q]);
            snprintf(cp, sizeof cp, "%s/snap_%06d_%s.f32", cdir, t, SL[q]);
            size_t gn = 0, cn = 0;
            char *g = slurp(gp, &gn), *c = slurp(cp, &cn);
            ck_assert_msg(g && c, "missing %s or %s", gp, cp);
            ck_assert_msg(gn == cn && gn > 0 && memcmp(g, c, gn) == 0,
                          "%d slab(s): snapshot file %s differs from the CPU's", _i ? 2 : 1,
                          strrchr(gp, '/') + 1);
            same++;
            free(g);
            free(c);
        }
    printf("snapshots through fdw_run, %d slab(s): %d raw slice files equal to the CPU's\n",
           _i ? 2 : 1, same);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", gdir, cdir);
    ck_assert_int_eq(system(cmd), 0);
    fdw_spec_free(spec);
}
END_TEST

int main(void)
{
    if (fdw_cuda_backend() == NULL || fdw_gpu_count() == 0) {
        printf("no CUDA device: skipping\n");
        return 77;
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* the log shows how far a run got if it is killed */
    Suite *s = suite_create("gpu");
    TCase *tc = tcase_create("gpu");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_acoustic_vs_cpu, 0, 6);
    tcase_add_test(tc, test_first_difference);
    tcase_add_test(tc, test_configurations);
    tcase_add_test(tc, test_kernel_bad_args);
    tcase_add_loop_test(tc, test_slabs_bitwise, 0, 2);
    tcase_add_loop_test(tc, test_cpml_bitwise, 0, 3);
    tcase_add_loop_test(tc, test_cpml_paths_bitwise, 0, 4);
    tcase_add_loop_test(tc, test_stencil_vs_cpu, 0, 4);
    tcase_add_loop_test(tc, test_derivative_vs_cpu, 0, 3);
    tcase_add_test(tc, test_too_large);
    tcase_add_test(tc, test_analytic_gpu);
    tcase_add_loop_test(tc, test_run_snapshots_vs_cpu, 0, 2);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_VERBOSE);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
