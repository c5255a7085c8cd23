/* fdwave_bench.c — fdwave-bench: the GPU benchmark of every kind in one run. Measures the
 * device copy bandwidth (cudaMemcpy device to device, bytes read + written), then times the
 * kernels of every kind and order on 512^3, 1024x1024x512 and the seed paper's table sizes,
 * the seed paper's 16x16 kernel (bench/kernels) on the same grids, the whole job through
 * fdw_run (CPML, 1 source, 1000 receivers, snapshots every 100 steps) against the bare
 * kernel, the largest acoustic grid the GPU holds, and, with --gpus N, 1 vs N GPUs through
 * the backend. Prints Mpoints/s and the fraction of the roofline (16 B/point acoustic,
 * 8 B/point stencil and derivative, at the measured copy bandwidth); --json FILE writes one
 * record per measurement (bench/make_results.py turns the records into bench/RESULTS.md).
 * It calls the kernels directly (kernels/ headers), so a case can force what the library
 * chooses by itself: see usage() for the options. */
#include "run/backend.h"
#include "core/fd_coeffs.h"
#include "fdwave/fdwave.h"
#include "acoustic/fdwk_acoustic.h"
#include "bench_kernels.h"
#include "bench_ete.h"
#include "bench_survey.h"
#include "bench_sweep.h"
#include "common/fdwk_runtime.h"
#include "derivative/fdwk_derivative.h"
#include "stencil/fdwk_stencil.h"
#include "kinds/acoustic/acoustic.h"
#include "kinds/kind.h"
#include "run/plan.h"

#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static json_t *g_records;
static double g_copy_bps;      /* bytes per second, read + written */
static char g_device[128];
static char g_date[32];
static char g_command[1024];   /* this run's command line, in every record */
static int g_quick;
/* --zchunk, --deriv, --deriv-chunk: for --case measurements (each takes the values
 * given before it) and for the job section's fdw_run (the last values given). */
static fdw_tuning g_tuning;

#define CK(call)                                                                          \
    do {                                                                                  \
        int rc_ = (call);                                                                 \
        if (rc_) {                                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                 \
                    fdwk_strerror(rc_));                                                  \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void record(const char *kind, int order, int nx, int ny, int nz, int gpus, double mpts,
                   double bytes_per_pt, const char *variant, json_t *extra)
{
    double frac = bytes_per_pt > 0 ? mpts * 1e6 * bytes_per_pt / g_copy_bps : 0;
    json_t *r = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:s, s:f, s:f, s:f, s:s, s:s}",
                          "kind", kind, "order", order, "nx", nx, "ny", ny, "nz", nz, "gpus",
                          gpus, "device", g_device, "mpts", mpts, "roofline_fraction", frac,
                          "copy_gbs", g_copy_bps / 1e9, "date", g_date, "variant", variant);
    json_object_set_new(r, "bytes_per_point", json_real(bytes_per_pt));
    json_object_set_new(r, "command", json_string(g_command));
    if (extra)
        json_object_update(r, extra);
    json_decref(extra);
    json_array_append_new(g_records, r);
}

/* ---- copy bandwidth ---------------------------------------------------------- */

static void bench_copy(void)
{
    const size_t bytes = (size_t)2 << 30; /* 2 GiB each way */
    void *a, *b;
    CK(fdwk_malloc(&a, bytes));
    CK(fdwk_malloc(&b, bytes));
    CK(fdwk_memset_async(a, 1, bytes, NULL));
    CK(fdwk_memset_async(b, 2, bytes, NULL));
    fdwk_event e0, e1;
    CK(fdwk_event_create(&e0, 1));
    CK(fdwk_event_create(&e1, 1));
    /* Half a second of copies first: the clocks leave their idle state before anything
     * is timed (the section run first measured up to 14% slow without it). */
    const double tw = now_s();
    for (int i = 0; now_s() - tw < 0.5; i++) {
        CK(fdwk_d2d_async(i % 2 ? a : b, i % 2 ? b : a, bytes, NULL));
        CK(fdwk_device_sync());
    }
    double t[30];
    for (int i = 0; i < 33; i++) {
        CK(fdwk_event_record(e0, NULL));
        CK(fdwk_d2d_async(i % 2 ? a : b, i % 2 ? b : a, bytes, NULL));
        CK(fdwk_event_record(e1, NULL));
        CK(fdwk_event_sync(e1));
        float ms;
        CK(fdwk_event_ms(e0, e1, &ms));
        if (i >= 3)
            t[i - 3] = ms * 1e-3;
    }
    double tm = median(t, 30);
    g_copy_bps = 2.0 * bytes / tm;
    printf("copy bandwidth (D2D %zu MiB, read+write, median of 30): %.1f GB/s -> 16 B/pt "
           "floor %.1f Gpts/s, 8 B/pt floor %.1f Gpts/s\n",
           bytes >> 20, g_copy_bps / 1e9, g_copy_bps / 16e9, g_copy_bps / 8e9);
    fdwk_event_destroy(e0);
    fdwk_event_destroy(e1);
    fdwk_free(a);
    fdwk_free(b);
    json_t *r = json_pack("{s:s, s:s, s:f, s:f, s:s, s:i, s:s}", "kind", "copy", "device",
                          g_device, "copy_gbs", g_copy_bps / 1e9, "mpts", 0.0, "date", g_date,
                          "gpus", 1, "command", g_command);
    json_array_append_new(g_records, r);
}

/* ---- kernel timing ------------------------------------------------------------ */

typedef enum { K_ACOUSTIC, K_STENCIL, K_DERIV, K_SEED16 } kkind;

typedef struct kcase {
    kkind kind;
    int order;
    int nx, ny, nz;
    int zchunk;     /* 0 auto, -1 whole z */
    int axis;       /* derivative */
    int sponge;     /* acoustic: pass damping arrays (zero inside, as a real job) */
    int deriv;      /* derivative: FDWK_DERIV_* version (0: the default per axis) */
    int deriv_chunk; /* derivative: planes per walk chunk (0: automatic) */
} kcase;

static const char *kind_name(kkind k)
{
    return k == K_ACOUSTIC ? "acoustic" : k == K_STENCIL ? "stencil" : k == K_DERIV ? "derivative" : "acoustic-seed16x16";
}

/* The name of the configuration case kc runs (the records' "tile" field); "-" for the
 * derivative and the seed's kernel. */
static const char *config_name(const kcase *kc)
{
    const char *name = kc->kind == K_ACOUSTIC || kc->kind == K_STENCIL
                           ? fdwk_fd_config_name(kc->kind == K_ACOUSTIC ? FDWK_ACOUSTIC
                                                                        : FDWK_STENCIL,
                                                 kc->order / 2)
                           : NULL;
    return name ? name : "-";
}

/* One step of case kc from bufs[*cur] into the other buffer; 1 if it cannot launch. */
static int bench_step(const kcase *kc, fdwk_fd_args *a, float *bufs[2], int *cur,
                      const fdwk_layout L, const float dc[5])
{
    int rc;
    a->u = bufs[*cur];
    a->out = bufs[1 - *cur];
    switch (kc->kind) {
    case K_ACOUSTIC:
    case K_STENCIL:
        rc = kc->kind == K_ACOUSTIC ? fdwk_acoustic_step(a, NULL) : fdwk_stencil_step(a, NULL);
        if (rc != 0) {
            fprintf(stderr, "  (%s order %d %s: cannot launch: %s)\n", kind_name(kc->kind),
                    kc->order, config_name(kc), fdwk_strerror(rc));
            return 1;
        }
        break;
    case K_SEED16: CK(fdwk_seed16_step(a, NULL)); break;
    case K_DERIV:
        CK(fdwk_derivative(bufs[1 - *cur], bufs[*cur], kc->nx, kc->ny, kc->nz, L.pitch, L.plane,
                           kc->axis, dc, kc->deriv, kc->deriv_chunk, NULL));
        break;
    }
    *cur = 1 - *cur;
    return 0;
}

/* Time one kernel configuration: warm-up, then `reps` steps each between two events;
 * returns the median step time in seconds. Fields hold random data. */
static double time_kernel(const kcase *kc, int reps)
{
    const int r = kc->kind == K_DERIV ? 0 : kc->kind == K_SEED16 ? 4 : kc->order / 2;
    fdwk_layout L;
    fdwk_layout_init(&L, kc->nx, kc->ny, kc->nz, r);
    const size_t bytes = L.total * sizeof(float);
    const int nf = (kc->kind == K_ACOUSTIC || kc->kind == K_SEED16) ? 3 : 2;
    float *raw[3] = {NULL, NULL, NULL};
    for (int f = 0; f < nf; f++) {
        CK(fdwk_malloc((void **)&raw[f], bytes));
        CK(fdwk_memset_async(raw[f], 0, bytes, NULL));
    }
    const long org = fdwk_origin(&L);
    float *f0 = raw[0] + org, *f1 = raw[1] + org, *v = nf > 2 ? raw[2] + org : NULL;
    CK(fdwk_fill_random(f0, &L, 1, 1e-3f, 0.f, NULL));
    CK(fdwk_fill_random(f1, &L, 2, 1e-3f, 0.f, NULL));
    if (v)
        CK(fdwk_fill_random(v, &L, 3, 0.02f, 0.08f, NULL));
    float *q[3] = {NULL, NULL, NULL};
    if (kc->sponge) {
        const int n[3] = {kc->nx, kc->ny, kc->nz};
        for (int a = 0; a < 3; a++) {
            float *h = calloc((size_t)n[a], sizeof(float));
            for (int i = 0; i < 16 && i < n[a]; i++)
                h[i] = h[n[a] - 1 - i] = 0.01f * (float)((16 - i) * (16 - i)) / 256.f;
            CK(fdwk_malloc((void **)&q[a], (size_t)n[a] * 4));
            CK(fdwk_h2d(q[a], h, (size_t)n[a] * 4));
            free(h);
        }
    }
    fdwk_fd_args a;
    memset(&a, 0, sizeof a);
    a.mode = kc->kind == K_STENCIL ? FDWK_STENCIL : FDWK_ACOUSTIC;
    a.radius = r;
    a.vdt2 = v;
    a.qx = q[0];
    a.qy = q[1];
    a.qz = q[2];
    a.nx = kc->nx;
    a.ny = kc->ny;
    a.k0 = 0;
    a.k1 = kc->nz;
    a.pitch = L.pitch;
    a.plane = L.plane;
    a.zchunk = kc->zchunk < 0 ? kc->nz : kc->zchunk;
    double c2[FDW_MAX_RADIUS + 1];
    fdw_fd2_coeffs(kc->kind == K_DERIV ? 8 : kc->order, c2);
    for (int m = 0; m <= r; m++)
        a.cx[m] = a.cy[m] = a.cz[m] = (float)c2[m];
    a.c0 = kc->kind == K_STENCIL ? (float)(1.0 + 0.1 * c2[0]) : (float)(3 * c2[0]);
    if (kc->kind == K_STENCIL)
        for (int m = 1; m <= r; m++)
            a.cx[m] = a.cy[m] = a.cz[m] = (float)(0.1 * c2[m]);
    double d1[5];
    fdw_fd1_coeffs(8, d1);
    float dc[5];
    for (int m = 0; m < 5; m++)
        dc[m] = (float)d1[m];

    fdwk_event *ev = malloc(sizeof *ev * (size_t)(reps + 1));
    for (int i = 0; i <= reps; i++)
        CK(fdwk_event_create(&ev[i], 1));
    double *t = malloc(sizeof *t * (size_t)reps);
    float *bufs[2] = {f0, f1};
    int cur = 0, failed = 0;
    /* Warm-up: at least 3 steps and 20 ms (the first launches load the module, and the
     * clocks settle), then `reps` timed steps. */
    const double tw = now_s();
    for (int w = 0; !failed && (w < 3 || now_s() - tw < 0.02); w++) {
        failed = bench_step(kc, &a, bufs, &cur, L, dc);
        if (w % 4 == 3)
            CK(fdwk_device_sync());
    }
    for (int i = 0; i < reps && !failed; i++) {
        CK(fdwk_event_record(ev[i], NULL));
        failed = bench_step(kc, &a, bufs, &cur, L, dc);
    }
    CK(fdwk_event_record(ev[reps], NULL));
    CK(fdwk_event_sync(ev[reps]));
    for (int i = 0; i < reps && !failed; i++) {
        float ms;
        CK(fdwk_event_ms(ev[i], ev[i + 1], &ms));
        t[i] = ms * 1e-3;
    }
    double tm = failed ? -1.0 : median(t, reps);
    for (int i = 0; i <= reps; i++)
        fdwk_event_destroy(ev[i]);
    free(ev);
    free(t);
    for (int f = 0; f < nf; f++)
        fdwk_free(raw[f]);
    for (int i = 0; i < 3; i++)
        fdwk_free(q[i]);
    return tm;
}

static double run_case(const kcase *kc, const char *variant)
{
    const double pts = (double)kc->nx * kc->ny * kc->nz;
    int reps = pts > 2e8 ? 15 : 25;
    if (g_quick)
        reps = 7;
    double t = time_kernel(kc, reps);
    if (t < 0)
        return 0.0;
    double mpts = pts / t / 1e6;
    double bpp = (kc->kind == K_ACOUSTIC || kc->kind == K_SEED16) ? 16 : 8;
    double frac = mpts * 1e6 * bpp / g_copy_bps;
    char axis[8] = "";
    if (kc->kind == K_DERIV)
        snprintf(axis, sizeof axis, " d/d%c", "xyz"[kc->axis]);
    printf("  %-18s%-6s order %2d %4dx%4dx%4d  %-28s z%-5d %8.0f Mpts/s  %5.1f%% of roofline"
           "  (%.3f ms)\n",
           kind_name(kc->kind), axis, kc->order, kc->nx, kc->ny, kc->nz,
           config_name(kc), kc->zchunk,
           mpts, 100 * frac, t * 1e3);
    json_t *extra = json_pack("{s:s, s:i, s:f, s:b}", "tile", config_name(kc), "zchunk",
                              kc->zchunk, "step_ms", t * 1e3, "sponge", kc->sponge);
    if (kc->kind == K_DERIV) {
        json_object_set_new(extra, "axis", json_string((char[]){"xyz"[kc->axis], 0}));
        json_object_set_new(extra, "deriv_version", json_integer(kc->deriv));
        json_object_set_new(extra, "deriv_chunk", json_integer(kc->deriv_chunk));
    }
    record(kind_name(kc->kind), kc->order, kc->nx, kc->ny, kc->nz, 1, mpts, bpp, variant, extra);
    return mpts;
}

/* ---- sections ------------------------------------------------------------------ */

static const int BIG[2][3] = {{512, 512, 512}, {1024, 1024, 512}};

/* z chunks forced on the tuned configuration of order 8 (acoustic; the stencil at its
 * automatic chunk only). */
static void bench_tune(void)
{
    printf("\nz-chunk sweep, order 8, acoustic (sponge arrays passed) and stencil:\n");
    const int chunks[] = {0, 32, 128, -1};
    for (int mode = 0; mode < 2; mode++)
        for (int s = 0; s < 2; s++)
            for (int ci = 0; ci < 4; ci++) {
                if ((g_quick || mode == 1) && ci > 0) /* z chunks: acoustic only */
                    continue;
                kcase kc = {mode ? K_STENCIL : K_ACOUSTIC, 8, BIG[s][0], BIG[s][1], BIG[s][2],
                            chunks[ci], 0, !mode, 0, 0};
                run_case(&kc, "tune");
            }
}

static void bench_acoustic(void)
{
    printf("\nacoustic, every order (sponge arrays passed, as in a job):\n");
    for (int s = 0; s < 2; s++)
        for (int order = 2; order <= 16; order += 2) {
            kcase kc = {K_ACOUSTIC, order, BIG[s][0], BIG[s][1], BIG[s][2], 0, 0, 1, 0, 0};
            run_case(&kc, "default");
        }
    printf("\nacoustic order 8 on the seed's table 2 sizes, ours vs the seed-style 16x16 kernel:\n");
    static const int T2[5][3] = {{320, 320, 400}, {480, 480, 480}, {544, 544, 544},
                                 {640, 640, 400}, {800, 800, 200}};
    for (int s = 0; s < 5; s++) {
        kcase ours = {K_ACOUSTIC, 8, T2[s][0], T2[s][1], T2[s][2], 0, 0, 0, 0, 0};
        kcase seed = {K_SEED16, 8, T2[s][0], T2[s][1], T2[s][2], 0, 0, 0, 0, 0};
        double a = run_case(&ours, "seed-table2");
        double b = run_case(&seed, "seed-table2");
        printf("    -> %.2fx the 16x16 kernel\n", a / b);
    }
}

static void bench_seed(void)
{
    printf("\nours vs the seed-style 16x16 kernel, acoustic order 8 (no sponge in either):\n");
    for (int s = 0; s < 2; s++) {
        kcase ours = {K_ACOUSTIC, 8, BIG[s][0], BIG[s][1], BIG[s][2], 0, 0, 0, 0, 0};
        kcase seed = {K_SEED16, 8, BIG[s][0], BIG[s][1], BIG[s][2], 0, 0, 0, 0, 0};
        double a = run_case(&ours, "vs-seed");
        double b = run_case(&seed, "seed16x16");
        printf("    -> %.2fx the 16x16 kernel\n", a / b);
        json_t *r = json_pack("{s:s, s:i, s:i, s:i, s:i, s:s, s:f, s:s, s:i}", "kind",
                              "speedup-vs-seed16x16", "order", 8, "nx", BIG[s][0], "ny",
                              BIG[s][1], "nz", BIG[s][2], "device", g_device, "ratio", a / b,
                              "date", g_date, "gpus", 1);
        json_array_append_new(g_records, r);
    }
}

static void bench_stencil(void)
{
    printf("\nstencil-only, every order (8 B/point):\n");
    for (int s = 0; s < 2; s++)
        for (int order = 2; order <= 16; order += 2) {
            kcase kc = {K_STENCIL, order, BIG[s][0], BIG[s][1], BIG[s][2], 0, 0, 0, 0, 0};
            run_case(&kc, "default");
        }
    printf("\nstencil-only on the seed's table 1 sizes:\n");
    static const int T1[5][3] = {{480, 480, 400}, {544, 544, 400}, {640, 640, 400},
                                 {800, 800, 400}, {800, 800, 800}};
    for (int s = 0; s < 5; s++)
        for (int order = 6; order <= 12; order += 2) {
            kcase kc = {K_STENCIL, order, T1[s][0], T1[s][1], T1[s][2], 0, 0, 0, 0, 0};
            run_case(&kc, "seed-table1");
        }
}

static void bench_derivative(void)
{
    printf("\nderivative, 8th order periodic (8 B/point = effective bandwidth / copy); versions: "
           "default (x: row segments; y: the tile; z: the walk), scalar, the vector walk, the "
           "vector tile (32 rows x 128 points):\n");
    static const int vers[4] = {FDWK_DERIV_DEFAULT, FDWK_DERIV_SCALAR, FDWK_DERIV_WALK,
                                FDWK_DERIV_TILE};
    static const char *tag[4] = {"default", "deriv-scalar", "deriv-vector-L1-8blocks",
                                 "deriv-tile-32x8"};
    for (int v = 0; v < (g_quick ? 1 : 4); v++)
        for (int s = 0; s < 2; s++)
            for (int axis = 0; axis < 3; axis++) {
                kcase kc = {K_DERIV, 8, BIG[s][0], BIG[s][1], BIG[s][2], 0, axis, 0, vers[v], 0};
                run_case(&kc, tag[v]);
            }
}

/* A job spec run through fdw_run on the CUDA backend with the bench's tuning into a scratch
 * directory removed afterwards: its rate over the time loop, *wall its wall-clock seconds. */
static double run_json(const char *json, double *wall)
{
    fdw_spec *spec = NULL;
    fdw_error err;
    if (fdw_spec_parse(json, strlen(json), NULL, &spec, &err) != FDW_OK) {
        fprintf(stderr, "job spec: %s: %s\n", err.field, err.message);
        exit(1);
    }
    char dir[] = "/tmp/fdwave-bench-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(1);
    }
    fdw_run_opts opts = {.out_dir = dir, .backend = FDW_BACKEND_CUDA, .tuning = &g_tuning};
    fdw_result res;
    double t0 = now_s();
    if (fdw_run(spec, &opts, NULL, &res, &err) != FDW_OK) {
        fprintf(stderr, "job: %s\n", err.message);
        exit(1);
    }
    *wall = now_s() - t0;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    fdw_spec_free(spec);
    return res.mpts;
}

/* Whole job through fdw_run vs the bare kernel on the same grid; then the same job without
 * snapshots, and without snapshots and receivers, to show where the difference goes. */
static double run_job(int n, long nt, int snapshots, int receivers, const char *boundary,
                      double *wall)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"kind\":\"acoustic\",\"grid\":{\"nx\":%d,\"ny\":%d,\"nz\":%d,\"dx\":10,\"dy\":10,"
             "\"dz\":10},\"order\":8,\"velocity\":{\"type\":\"gaussian\",\"background\":2500,"
             "\"center\":[2560,2560,2560],\"sigma\":600,\"dv\":-500},"
             "\"time\":{\"nt\":%ld,\"dt\":\"auto\"},"
             "\"sources\":[{\"position\":[2555,2565,1000],\"wavelet\":{\"type\":\"ricker\",\"f0\":15}}]"
             "%s,\"boundary\":%s%s}",
             n, n, n, nt,
             receivers ? ",\"receivers\":{\"lines\":[{\"from\":[200,2560,200],\"to\":[4900,2560,200],"
                         "\"count\":1000}]}" : "",
             boundary, snapshots ? ",\"snapshots\":{\"every\":100,\"slices\":[{\"plane\":\"xy\",\"index\":256},"
                         "{\"plane\":\"xz\",\"index\":256}],\"png\":true,\"raw\":true}" : "");
    return run_json(json, wall);
}

/* Print and record one whole-job measurement (rate m over the time loop, wall-clock
 * seconds) against the bare kernel's rate on the same grid. */
static void report_job(const char *what, int n, double m, double wall, double bare, int snaps,
                       int recs)
{
    printf("  %-28s %.0f Mpts/s over the time loop (%.2f s wall incl. set-up and output) = "
           "%.1f%% of the bare kernel (%.0f Mpts/s)\n", what, m, wall, 100 * m / bare, bare);
    json_t *extra = json_pack("{s:f, s:f, s:f, s:i, s:i, s:i, s:s}", "bare_mpts", bare,
                              "job_fraction_of_bare", m / bare, "wall_s", wall, "receivers",
                              recs ? 1000 : 0, "sources", 1, "snapshot_every", snaps ? 100 : 0,
                              "job", what);
    record("acoustic-job", 8, n, n, n, 1, m, 16, "fdw_run", extra);
}

static void bench_job(void)
{
    const int n = 512;
    const long nt = g_quick ? 200 : 1000;
    printf("\nwhole job through fdw_run: %d^3, order 8, CPML 20 (and sponge 36), 1 source, 1000 "
           "receivers, snapshots (xy+xz slices, PNG + raw) every 100 steps, %ld steps:\n", n, nt);
    kcase kc = {K_ACOUSTIC, 8, n, n, n, g_tuning.cuda_zchunk, 0, 0, 0, 0};
    double bare = run_case(&kc, "bare-for-job");
    /* the last: no boundary and no outputs, the time loop's own cost over the bare kernel */
    static const char *what[7] = {"full job, CPML 20", "CPML 20, no snapshots",
                                  "CPML 20, no snapshots, no receivers", "full job, CPML 10",
                                  "full job, sponge 36", "sponge 36, no snapshots, no receivers",
                                  "no boundary, no snapshots, no receivers"};
    static const char *bnd[4] = {"{\"type\":\"cpml\",\"width\":20}",
                                 "{\"type\":\"cpml\",\"width\":10}",
                                 "{\"type\":\"sponge\",\"width\":36,\"reflection\":0.01}",
                                 "{\"type\":\"none\"}"};
    /* each variant's boundary (bnd), snapshots and receivers */
    static const int b_of[7] = {0, 0, 0, 1, 2, 2, 3}, snaps_of[7] = {1, 0, 0, 1, 1, 0, 0},
                     recs_of[7] = {1, 1, 0, 1, 1, 0, 0};
    for (int v = 0; v < 7; v++) {
        double wall;
        double m = run_job(n, nt, snaps_of[v], recs_of[v], bnd[b_of[v]], &wall);
        report_job(what[v], n, m, wall, bare, snaps_of[v], recs_of[v]);
    }
    /* The full job with CPML 10 on 1024^3: thinner layers on a larger grid, so the layers
     * hold 6% of the points instead of 11% (CPML 10) or 22% (CPML 20) on 512^3. */
    const int n2 = 1024;
    kcase kb = {K_ACOUSTIC, 8, n2, n2, n2, g_tuning.cuda_zchunk, 0, 0, 0, 0};
    const double bare2 = run_case(&kb, "bare-for-job");
    double wall;
    const double m = run_job(n2, g_quick ? 100 : 300, 1, 1, bnd[1], &wall);
    report_job("full job, CPML 10, 1024^3", n2, m, wall, bare2, 1, 1);
}

/* A hand-built acoustic problem: constant (v dt)^2, no sponge or receivers, one source
 * at the centre (so the field is not all zeros). */
static fdw_tap g_tap;
static float g_wavelet[4096];
static fdw_acoustic_data g_acoustic;
static fdw_problem plain_problem(int nx, int ny, int nz, float *vdt2)
{
    fdw_problem p;
    memset(&p, 0, sizeof p);
    p.kind = fdw_kind_find("acoustic");
    p.kdata = &g_acoustic;
    p.tuning = &g_tuning; /* --zchunk: the backend's kernels too */
    p.nx = nx;
    p.ny = ny;
    p.nz = nz;
    p.radius = 4;
    double c[FDW_MAX_RADIUS + 1];
    fdw_fd2_coeffs(8, c);
    memset(&g_acoustic, 0, sizeof g_acoustic);
    for (int m = 0; m <= 4; m++)
        g_acoustic.cx[m] = g_acoustic.cy[m] = g_acoustic.cz[m] = (float)c[m];
    g_acoustic.vdt2 = vdt2;
    p.nt = 4096;
    for (int i = 0; i < 4096; i++) {
        double t = (i - 60) / 25.0;
        g_wavelet[i] = (float)((1 - 2 * t * t) * exp(-t * t));
    }
    g_tap.index = (uint64_t)nx / 2 + (uint64_t)nx * ((uint64_t)ny / 2 + (uint64_t)ny * (uint64_t)(nz / 2));
    g_tap.weight = 1.0f;
    g_tap.owner = 0;
    p.nsrc_taps = 1;
    p.src_taps = &g_tap;
    p.wavelets = g_wavelet;
    return p;
}

/* Time nsteps through the backend on ndev GPUs (wall clock, after a warm-up). */
static double backend_rate(fdw_problem *p, int ndev, long nsteps, double *step_s)
{
    int ids[FDW_MAX_DEVICES];
    for (int d = 0; d < ndev; d++)
        ids[d] = d;
    fdw_plan plan;
    fdw_error err;
    if (fdw_plan_slabs(p->nz, p->radius, ndev, ids, &plan, &err) != FDW_OK) {
        fprintf(stderr, "plan: %s\n", err.message);
        exit(1);
    }
    const fdw_backend *be = fdw_cuda_backend();
    void *ctx;
    if (be->create(p, &plan, &ctx, &err) != FDW_OK) {
        printf("  create on %d GPU(s): %s: %s\n", ndev, fdw_status_name(err.code), err.message);
        return -1;
    }
    for (long it = 0; it < 5; it++)
        be->step(ctx, it, &err);
    fdw_backend_wait(be, ctx, &err);
    double t0 = now_s();
    for (long it = 0; it < nsteps; it++)
        if (be->step(ctx, it, &err) != FDW_OK) {
            fprintf(stderr, "step: %s\n", err.message);
            exit(1);
        }
    if (fdw_backend_wait(be, ctx, &err) != FDW_OK) {
        fprintf(stderr, "wait: %s\n", err.message);
        exit(1);
    }
    double t = (now_s() - t0) / nsteps;
    be->destroy(ctx);
    if (step_s)
        *step_s = t;
    return (double)p->nx * p->ny * p->nz / t / 1e6;
}

static void bench_largest(void)
{
    uint64_t fr, tot;
    CK(fdwk_mem_info(&fr, &tot));
    /* nx = ny = 2048 (pitch 2112, 2056 rows/plane with r = 4); as many planes as fit. */
    const int nx = 2048, ny = 2048;
    fdwk_layout L;
    fdwk_layout_init(&L, nx, ny, 1, 4);
    const double plane_bytes = (double)L.plane * 4.0 * 3.0;
    int nz = (int)((double)(fr - (256u << 20)) / plane_bytes) - 8;
    const double target = 0.9 * (double)fr / 12.0;
    printf("\nlargest acoustic grid: %.2f GiB free of %.2f GiB; target 90%% of free/12 B = "
           "%.3f Gpts\n", fr / 1073741824.0, tot / 1073741824.0, target / 1e9);
    size_t npts = (size_t)nx * ny * (size_t)nz;
    float *v = malloc(npts * sizeof(float));
    if (!v) {
        printf("  host memory too small for the model (%zu bytes)\n", npts * 4);
        return;
    }
#pragma omp parallel for
    for (long i = 0; i < (long)npts; i++)
        v[i] = 0.1f;
    fdw_problem p = plain_problem(nx, ny, nz, v);
    double step;
    double mpts = backend_rate(&p, 1, 5, &step);
    double frac = (double)npts / ((double)fr / 12.0);
    printf("  %dx%dx%d = %.3f Gpts ran (%.0f Mpts/s): %.1f%% of free/12 B\n", nx, ny, nz,
           npts / 1e9, mpts, 100 * frac);
    json_t *extra = json_pack("{s:f, s:f, s:f}", "points", (double)npts, "fraction_of_free_over_12",
                              frac, "free_bytes", (double)fr);
    record("acoustic-largest", 8, nx, ny, nz, 1, mpts, 16, "backend", extra);
    /* One plane more than fits must be refused cleanly. */
    fdw_problem big = plain_problem(nx, ny, nz + 64, v);
    int ids[1] = {0};
    fdw_plan plan;
    fdw_error err;
    fdw_plan_slabs(big.nz, 4, 1, ids, &plan, &err);
    void *ctx = NULL;
    fdw_status st = fdw_cuda_backend()->create(&big, &plan, &ctx, &err);
    printf("  %d planes: %s: %s\n", nz + 64, fdw_status_name(st), err.message);
    if (ctx)
        fdw_cuda_backend()->destroy(ctx);
    free(v);
}

static void bench_multi(int ngpu)
{
    int have = fdw_gpu_count();
    if (ngpu > have)
        ngpu = have;
    if (ngpu < 2) {
        printf("\nmulti-GPU: %d GPU(s) present, skipped\n", have);
        return;
    }
    static const int SZ[2][3] = {{512, 512, 512}, {1024, 1024, 1024}};
    printf("\nmulti-GPU, acoustic order 8 through the backend (wall clock per step, one host "
           "thread per GPU, peer copies):\n");
    for (int s = 0; s < 2; s++) {
        size_t npts = (size_t)SZ[s][0] * SZ[s][1] * SZ[s][2];
        float *v = malloc(npts * sizeof(float));
#pragma omp parallel for
        for (long i = 0; i < (long)npts; i++)
            v[i] = 0.1f;
        fdw_problem p = plain_problem(SZ[s][0], SZ[s][1], SZ[s][2], v);
        const long nsteps = g_quick ? 20 : 100;
        double t1 = 0;
        double m1 = backend_rate(&p, 1, nsteps, &t1);
        record("acoustic", 8, SZ[s][0], SZ[s][1], SZ[s][2], 1, m1, 16, "backend-1gpu", NULL);
        printf("  %dx%dx%d: 1 GPU %.0f Mpts/s (step %.3f ms)\n", SZ[s][0], SZ[s][1], SZ[s][2], m1,
               t1 * 1e3);
        for (int n = 2; n <= ngpu; n *= 2) {
            double tn = 0;
            double mn = backend_rate(&p, n, nsteps, &tn);
            /* Compute time of the largest slab alone, at the 1-GPU rate: what remains is
             * exchange (and synchronisation) not hidden behind compute. */
            int maxslab = (SZ[s][2] + n - 1) / n;
            double tcomp = t1 * maxslab / SZ[s][2];
            double exposed = tn - tcomp;
            printf("  %dx%dx%d: %d GPUs %.0f Mpts/s: speedup %.2fx; step %.3f ms, largest slab's "
                   "compute %.3f ms, not hidden %.3f ms\n",
                   SZ[s][0], SZ[s][1], SZ[s][2], n, mn, mn / m1, tn * 1e3, tcomp * 1e3,
                   exposed * 1e3);
            json_t *extra = json_pack("{s:f, s:f, s:f}", "speedup", mn / m1, "step_ms", tn * 1e3,
                                      "exposed_exchange_ms", exposed * 1e3);
            record("acoustic", 8, SZ[s][0], SZ[s][1], SZ[s][2], n, mn, 16, "backend-multi", extra);
        }
        free(v);
    }
}

/* A grid larger than one GPU holds, spread over ngpu GPUs (issue 5: 2500x2500x2000). */
static void bench_huge(int ngpu)
{
    const int nx = 2500, ny = 2500, nz = 2000;
    int have = fdw_gpu_count();
    if (ngpu > have)
        ngpu = have;
    uint64_t fr, tot;
    CK(fdwk_mem_info(&fr, &tot));
    size_t npts = (size_t)nx * ny * nz;
    printf("\n%dx%dx%d (%.1f Gpts, about %.0f GiB at 12 B/point; GPU 0 has %.0f GiB free) on %d "
           "GPUs:\n", nx, ny, nz, npts / 1e9, npts * 12.0 / 1073741824.0, fr / 1073741824.0, ngpu);
    float *v = malloc(npts * sizeof(float));
    if (!v) {
        printf("  host memory too small for the model\n");
        return;
    }
#pragma omp parallel for
    for (long i = 0; i < (long)npts; i++)
        v[i] = 0.1f;
    fdw_problem p = plain_problem(nx, ny, nz, v);
    double t;
    double m = backend_rate(&p, ngpu, 10, &t);
    if (m > 0) {
        printf("  ran: %.0f Mpts/s, %.1f ms per step\n", m, t * 1e3);
        record("acoustic-huge", 8, nx, ny, nz, ngpu, m, 16, "backend-multi", NULL);
    }
    if (ngpu > 1) {
        double t1 = 0;
        double m1 = backend_rate(&p, 1, 1, &t1);
        printf("  on 1 GPU: %s\n", m1 < 0 ? "refused (see the message above)" : "ran");
    }
    free(v);
}

static void usage(FILE *f, const char *argv0)
{
    fprintf(f,
            "usage: %s [options] [--only SECTION[,SECTION...]]\n"
            "       %s [options] --case KIND,ORDER,NX,NY,NZ[,AXIS] [--case ...]\n"
            "  --json FILE        write every measurement as a JSON record\n"
            "  --quick            fewer repetitions, z chunks and derivative versions\n"
            "  --gpus N           the multi, huge, sweep and survey sections use up to N GPUs\n"
            "  --only LIST        sections, in this order: tune seed acoustic stencil\n"
            "                     derivative job multi huge largest sweep survey\n"
            "                     (default: all but sweep and survey, which run when\n"
            "                     named)\n"
            "  --case SPEC        one kernel measurement instead of the sections (repeatable;\n"
            "                     KIND: acoustic, stencil, derivative or seed; AXIS x|y|z)\n"
            "  --zchunk N         planes per block along z (0: automatic)\n"
            "  --deriv V          derivative version: 0 default, 1 scalar, 2 walk, 3 tile\n"
            "  --deriv-chunk N    derivative planes per walk chunk (0: automatic)\n"
            "The last three apply to each --case given after them, and to the job section's\n"
            "fdw_run and bare kernel and the backend in largest, multi and huge (fdw_tuning).\n",
            argv0, argv0);
}

/* One --case SPEC with the settings in force: the kernel case, its record's variant. */
static int parse_case(const char *spec, kcase *kc, char *variant, size_t vlen)
{
    char kind[32] = "", axis[8] = "x";
    memset(kc, 0, sizeof *kc);
    const int n = sscanf(spec, "%31[^,],%d,%d,%d,%d,%7s", kind, &kc->order, &kc->nx, &kc->ny,
                         &kc->nz, axis);
    if (n < 5 || kc->order < 2 || kc->order > 2 * FDWK_MAX_RADIUS || kc->order % 2 ||
        kc->nx < 1 || kc->ny < 1 || kc->nz < 1)
        return -1;
    if (!strcmp(kind, "acoustic"))
        kc->kind = K_ACOUSTIC;
    else if (!strcmp(kind, "stencil"))
        kc->kind = K_STENCIL;
    else if (!strcmp(kind, "derivative"))
        kc->kind = K_DERIV;
    else if (!strcmp(kind, "seed"))
        kc->kind = K_SEED16;
    else
        return -1;
    const char *ax = strchr("xyz012", axis[0]);
    if (!ax || axis[1])
        return -1;
    kc->axis = (int)(ax - "xyz012") % 3;
    kc->sponge = kc->kind == K_ACOUSTIC;
    kc->zchunk = g_tuning.cuda_zchunk;
    kc->deriv = g_tuning.cuda_deriv;
    kc->deriv_chunk = g_tuning.cuda_deriv_chunk;
    if (kc->kind == K_DERIV)
        snprintf(variant, vlen, "case deriv=%d deriv-chunk=%d", kc->deriv, kc->deriv_chunk);
    else
        snprintf(variant, vlen, "case zchunk=%d", kc->zchunk);
    return 0;
}

/* A non-negative integer option value no larger than max, or exit 2. */
static int int_arg(const char *opt, const char *v, int max)
{
    char *end;
    const long x = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0' || x < 0 || x > max) {
        fprintf(stderr, "fdwave-bench: %s: '%s' is not an integer in 0..%d\n", opt, v, max);
        exit(2);
    }
    return (int)x;
}

int main(int argc, char **argv)
{
    const char *json_path = NULL, *only = NULL;
    static kcase cases[256];
    static char variants[256][96];
    int ncases = 0;
    int gpus = 1;
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress shows through tee, line by line */
    for (int i = 0, len = 0; i < argc && len < (int)sizeof g_command - 1; i++)
        len += snprintf(g_command + len, sizeof g_command - (size_t)len, "%s%s", i ? " " : "",
                        i ? argv[i] : "fdwave-bench");
    enum { O_ZCHUNK = 256, O_DERIV, O_DERIV_CHUNK };
    static const struct option OPTS[] = {
        {"json", required_argument, NULL, 'j'},   {"quick", no_argument, NULL, 'q'},
        {"gpus", required_argument, NULL, 'g'},   {"only", required_argument, NULL, 'o'},
        {"case", required_argument, NULL, 'c'},   {"zchunk", required_argument, NULL, O_ZCHUNK},
        {"deriv", required_argument, NULL, O_DERIV},
        {"deriv-chunk", required_argument, NULL, O_DERIV_CHUNK},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "", OPTS, NULL)) != -1) {
        switch (opt) {
        case 'j': json_path = optarg; break;
        case 'q': g_quick = 1; break;
        case 'g': gpus = int_arg("--gpus", optarg, 1024); break;
        case 'o': only = optarg; break;
        case 'c':
            if (ncases == 256 || parse_case(optarg, &cases[ncases], variants[ncases],
                                            sizeof variants[0]) != 0) {
                fprintf(stderr, "fdwave-bench: --case %s: expected KIND,ORDER,NX,NY,NZ[,AXIS] "
                                "(at most 256 cases)\n", optarg);
                return 2;
            }
            ncases++;
            break;
        case O_ZCHUNK: g_tuning.cuda_zchunk = int_arg("--zchunk", optarg, 1 << 20); break;
        case O_DERIV: g_tuning.cuda_deriv = int_arg("--deriv", optarg, FDWK_DERIV_TILE); break;
        case O_DERIV_CHUNK:
            g_tuning.cuda_deriv_chunk = int_arg("--deriv-chunk", optarg, 1 << 20);
            break;
        case 'h': usage(stdout, argv[0]); return 0;
        default: usage(stderr, argv[0]); return 2;
        }
    }
    if (optind < argc) {
        usage(stderr, argv[0]);
        return 2;
    }
    if (fdw_gpu_count() == 0) {
        fprintf(stderr, "fdwave-bench: no CUDA device\n");
        return 77;
    }
    CK(fdwk_set_device(0));
    CK(fdwk_device_name(0, g_device, sizeof g_device));
    time_t tt = time(NULL);
    strftime(g_date, sizeof g_date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
    g_records = json_array();
    printf("fdwave-bench on %s, %s\n", g_device, g_date);
    bench_copy();
    /* --case: single measurements (for profilers and sweeps) instead of the sections. */
    for (int c = 0; c < ncases; c++) {
        printf("  [%s]\n", variants[c]);
        run_case(&cases[c], variants[c]);
        only = "none";
    }
    if (only && strstr(only, "ete")) /* runs when named: bench_ete.c */
        bench_ete(g_records, g_copy_bps, g_device, g_date, g_command, g_quick);
    /* Sections in the order given by --only (all, in this order, without it); the records
     * are written after each, so a run cut short keeps what it measured. */
    static const char *const SECTIONS[] = {"tune", "seed", "acoustic", "stencil", "derivative",
                                           "job", "multi", "huge", "largest", "sweep",
                                           "survey"};
    const int nsec = (int)(sizeof SECTIONS / sizeof SECTIONS[0]);
    int order_[16], n_ = 0;
    if (only) {
        for (const char *p = only; *p;) {
            size_t len = strcspn(p, ",");
            for (int q = 0; q < nsec; q++)
                if (strlen(SECTIONS[q]) == len && !strncmp(p, SECTIONS[q], len) && n_ < 16)
                    order_[n_++] = q;
            p += len;
            if (*p == ',')
                p++;
        }
    } else {
        for (int q = 0; q < nsec - 2; q++) /* all but sweep and survey: when named */
            order_[n_++] = q;
    }
    for (int x = 0; x < n_; x++) {
        const double t0 = now_s();
        switch (order_[x]) {
        case 0: bench_tune(); break;
        case 1: bench_seed(); break;
        case 2: bench_acoustic(); break;
        case 3: bench_stencil(); break;
        case 4: bench_derivative(); break;
        case 5: bench_job(); break;
        case 6: if (gpus > 1) bench_multi(gpus); break;
        case 7: if (gpus > 1) bench_huge(gpus); break;
        case 8: bench_largest(); break;
        case 9: {
            const bench_sweep_ctx b = {g_records, g_copy_bps, g_device, g_date, g_command,
                                       g_quick, gpus};
            bench_sweep(&b);
            break;
        }
        case 10: bench_survey(g_records, g_device, g_date, g_command, g_quick, gpus); break;
        }
        printf("[section %s: %.1f s]\n", SECTIONS[order_[x]], now_s() - t0);
        fflush(stdout);
        if (json_path)
            json_dump_file(g_records, json_path, JSON_INDENT(1));
    }
    if (json_path) {
        if (json_dump_file(g_records, json_path, JSON_INDENT(1)) != 0) {
            fprintf(stderr, "could not write %s\n", json_path);
            return 1;
        }
        printf("records written to %s\n", json_path);
    }
    json_decref(g_records);
    return 0;
}
