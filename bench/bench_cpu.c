/* bench_cpu.c — fdwave-bench-cpu: times the CPU backend (default: order-8 acoustic on
 * 256^3) and compares it with the memory roofline measured in the same run.
 *
 * Roofline: a parallel stream copy of a buffer much larger than the caches gives the copy
 * bandwidth B (read + write bytes per second); the acoustic update moves at least 16 bytes
 * per point (read u, u_prev, vdt2; write u_next), so it cannot beat B / 16 points/s. The
 * stencil and derivative kinds move 8 bytes per point (read one field, write another).
 *
 *   fdwave-bench-cpu [--size N | --nx N --ny N --nz N] [--order K] [--kind acoustic|stencil|
 *                    derivative] [--steps S] [--reps R] [--slabs D] [--sponge]
 *                    [--copy-mib M] [--json FILE]
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run/backend.h"
#include "kinds/acoustic/acoustic.h"
#include "kinds/derivative/derivative.h"
#include "kinds/kind.h"
#include "kinds/stencil/stencil.h"
#include "core/error.h"
#include "core/fd_coeffs.h"
#include "run/plan.h"

typedef struct bench_opts {
    int nx, ny, nz, order, steps, reps, slabs, sponge;
    long copy_mib;
    const fdw_kind_ops *kind;
    const char *json;
} bench_opts;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds used by the whole process (all threads). */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Median copy bandwidth (bytes read + written per second) over `reps` parallel copies of
 * a buffer of `mib` MiB, after one warm-up copy that also faults the pages in. */
static double copy_bandwidth(long mib, int reps)
{
    size_t n = (size_t)mib * 1024 * 1024 / sizeof(float);
    float *a = aligned_alloc(64, n * sizeof(float)), *b = aligned_alloc(64, n * sizeof(float));
    if (!a || !b) {
        free(a);
        free(b);
        return 0;
    }
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        a[i] = (float)(i & 1023);
        b[i] = 0;
    }
    double *bw = malloc((size_t)(reps + 1) * sizeof *bw);
    for (int r = 0; r <= reps; r++) {
        double t0 = now_s();
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            b[i] = a[i];
        double t = now_s() - t0;
        bw[r] = 2.0 * (double)n * sizeof(float) / t;
    }
    volatile float sink = b[n / 3];
    (void)sink;
    double m = median(bw + 1, reps);
    free(bw);
    free(a);
    free(b);
    return m;
}

static void cpu_model(char *out, size_t len)
{
    snprintf(out, len, "unknown cpu");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *p = strchr(line, ':');
            if (p) {
                p++;
                while (*p == ' ' || *p == '\t')
                    p++;
                p[strcspn(p, "\n")] = '\0';
                snprintf(out, len, "%s", p);
            }
            break;
        }
    }
    fclose(f);
}

/* The 1-minute load average (other work on a shared machine skews every figure). */
static double load_average(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1;
        fclose(f);
    }
    return l;
}

static int parse_args(int argc, char **argv, bench_opts *o)
{
    *o = (bench_opts){256, 256, 256, 8, 10, 5, 1, 0, 256, NULL, NULL};
    o->kind = fdw_kind_find("acoustic");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--sponge")) {
            o->sponge = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "fdwave-bench-cpu: %s needs a value (or unknown option)\n", a);
            return -1;
        }
        i++;
        if (!strcmp(a, "--size"))
            o->nx = o->ny = o->nz = atoi(v);
        else if (!strcmp(a, "--nx"))
            o->nx = atoi(v);
        else if (!strcmp(a, "--ny"))
            o->ny = atoi(v);
        else if (!strcmp(a, "--nz"))
            o->nz = atoi(v);
        else if (!strcmp(a, "--order"))
            o->order = atoi(v);
        else if (!strcmp(a, "--steps"))
            o->steps = atoi(v);
        else if (!strcmp(a, "--reps"))
            o->reps = atoi(v);
        else if (!strcmp(a, "--slabs"))
            o->slabs = atoi(v);
        else if (!strcmp(a, "--copy-mib"))
            o->copy_mib = atol(v);
        else if (!strcmp(a, "--json"))
            o->json = v;
        else if (!strcmp(a, "--kind")) {
            o->kind = fdw_kind_find(v);
            if (!o->kind) {
                fprintf(stderr, "fdwave-bench-cpu: unknown kind '%s'\n", v);
                return -1;
            }
        } else {
            fprintf(stderr, "fdwave-bench-cpu: unknown option %s\n", a);
            return -1;
        }
    }
    if (!strcmp(o->kind->name, "derivative"))
        o->order = 8;
    if (o->nx < 1 || o->ny < 1 || o->nz < 1 || o->order < 2 || o->order > 16 || o->order % 2 ||
        o->steps < 1 || o->reps < 1 || o->slabs < 1 || o->copy_mib < 1) {
        fprintf(stderr, "fdwave-bench-cpu: sizes, steps, reps, slabs must be positive and "
                        "order even in 2..16\n");
        return -1;
    }
    return 0;
}

/* The benchmark problem: constant velocity at 80% of the stability limit on h = 10 m,
 * one source at the centre (acoustic), a random field (stencil), sines (derivative). */
typedef struct bench_problem {
    fdw_problem p;
    fdw_acoustic_data ad;
    fdw_stencil_data sd;
    fdw_derivative_data dd;
    float *vdt2, *field, *wavelet, *qx, *qy, *qz;
    fdw_tap src;
} bench_problem;

static int make_problem(const bench_opts *o, bench_problem *b)
{
    memset(b, 0, sizeof *b);
    fdw_problem *p = &b->p;
    static const fdw_tuning automatic;
    p->kind = o->kind;
    p->tuning = &automatic;
    p->nx = o->nx;
    p->ny = o->ny;
    p->nz = o->nz;
    p->radius = o->order / 2;
    const double h = 10.0;
    size_t n = (size_t)o->nx * o->ny * o->nz;
    double c[FDW_MAX_RADIUS + 1] = {0};
    if (o->kind->wave) {
        p->kdata = &b->ad;
        fdw_fd2_coeffs(o->order, c);
        for (int m = 0; m <= p->radius; m++)
            b->ad.cx[m] = b->ad.cy[m] = b->ad.cz[m] = (float)(c[m] / (h * h));
        double dt = 0.8 * fdw_dt_max(o->order, h, h, h, 3000.0);
        b->vdt2 = malloc(n * sizeof(float));
        if (!b->vdt2)
            return -1;
        for (size_t i = 0; i < n; i++)
            b->vdt2[i] = (float)(3000.0 * 3000.0 * dt * dt);
        b->ad.vdt2 = b->vdt2;
        p->nt = (long)o->steps * (o->reps + 1) + 16;
        b->wavelet = calloc((size_t)p->nt, sizeof(float));
        if (!b->wavelet)
            return -1;
        for (long it = 0; it < p->nt; it++) {
            double a = M_PI * 15.0 * (it * dt - 0.08);
            b->wavelet[it] = (float)((1 - 2 * a * a) * exp(-a * a) * dt * dt / (h * h * h));
        }
        p->wavelets = b->wavelet;
        b->src.index = (uint64_t)o->nx / 2 +
                       (uint64_t)o->nx * ((uint64_t)o->ny / 2 + (uint64_t)o->ny * (o->nz / 2));
        b->src.weight = 1.0f;
        p->nsrc_taps = 1;
        p->src_taps = &b->src;
        if (o->sponge) {
            int dims[3] = {o->nx, o->ny, o->nz};
            float **q[3] = {&b->qx, &b->qy, &b->qz};
            for (int a = 0; a < 3; a++) {
                int w = dims[a] / 8 > 20 ? 20 : dims[a] / 8;
                *q[a] = calloc((size_t)dims[a], sizeof(float));
                if (!*q[a])
                    return -1;
                for (int i = 0; i < w; i++) {
                    float v = 0.05f * (float)((w - i) * (w - i)) / (float)(w * w);
                    (*q[a])[i] = (*q[a])[dims[a] - 1 - i] = v;
                }
            }
            p->qx = b->qx;
            p->qy = b->qy;
            p->qz = b->qz;
        }
    } else {
        b->field = malloc(n * sizeof(float));
        if (!b->field)
            return -1;
        for (size_t i = 0; i < n; i++)
            b->field[i] = (float)sin(0.001 * (double)(i % 100003));
        p->init = b->field;
        if (!strcmp(o->kind->name, "stencil")) {
            p->kdata = &b->sd;
            fdw_fd2_coeffs(o->order, c);
            for (int m = 1; m <= p->radius; m++)
                b->sd.sc[m] = (float)(0.05 * c[m] / fdw_fd2_lambda(o->order));
            b->sd.sc[0] = (float)(1.0 + 3 * 0.05 * c[0] / fdw_fd2_lambda(o->order));
        } else {
            p->kdata = &b->dd;
            fdw_fd1_coeffs(8, c);
            for (int m = 1; m <= 4; m++)
                b->dd.dc[m] = (float)(c[m] / h);
            b->dd.axis = FDW_AXIS_X;
        }
    }
    return 0;
}

static void free_problem(bench_problem *b)
{
    free(b->vdt2);
    free(b->field);
    free(b->wavelet);
    free(b->qx);
    free(b->qy);
    free(b->qz);
}

int main(int argc, char **argv)
{
    bench_opts o;
    if (parse_args(argc, argv, &o))
        return 2;
    const char *kind = o.kind->name;
    const double bytes_per_point = o.kind->wave ? 16.0 : 8.0;
    int threads = omp_get_max_threads();
    char model[256], device[320];
    cpu_model(model, sizeof model);
    snprintf(device, sizeof device, "cpu (%s, %d threads)", model, threads);

    double load0 = load_average();
    double copy_bw = copy_bandwidth(o.copy_mib, 7);
    if (copy_bw <= 0) {
        fprintf(stderr, "fdwave-bench-cpu: could not allocate the copy buffers\n");
        return 1;
    }

    bench_problem bp;
    if (make_problem(&o, &bp)) {
        fprintf(stderr, "fdwave-bench-cpu: out of memory building the problem\n");
        free_problem(&bp);
        return 1;
    }
    fdw_error err;
    fdw_error_clear(&err);
    fdw_plan plan;
    void *ctx = NULL;
    const fdw_backend *be = fdw_cpu_backend();
    if (fdw_plan_slabs(o.nz, bp.p.radius, o.slabs, NULL, &plan, &err) != FDW_OK ||
        be->create(&bp.p, &plan, &ctx, &err) != FDW_OK) {
        fprintf(stderr, "fdwave-bench-cpu: %s\n", err.message);
        free_problem(&bp);
        return 1;
    }
    long it = 0;
    for (int w = 0; w < 2; w++) /* warm-up */
        be->step(ctx, it++, &err);
    double *mpts = malloc((size_t)o.reps * sizeof *mpts);
    double *cpts = malloc((size_t)o.reps * sizeof *cpts);
    const double npts = (double)o.nx * o.ny * o.nz;
    for (int r = 0; r < o.reps; r++) {
        double t0 = now_s(), c0 = cpu_s();
        for (int s = 0; s < o.steps; s++)
            if (be->step(ctx, it++, &err) != FDW_OK) {
                fprintf(stderr, "fdwave-bench-cpu: %s\n", err.message);
                return 1;
            }
        fdw_backend_wait(be, ctx, &err);
        double t = now_s() - t0;
        mpts[r] = npts * o.steps / t / 1e6;
        /* rate per CPU-second times threads: what the run would reach with its cores to
         * itself (a diagnostic for shared machines; the wall-clock rate is the result) */
        cpts[r] = npts * o.steps / ((cpu_s() - c0) / threads) / 1e6;
        printf("  rep %d: %.1f Mpoints/s (cpu-time rate %.1f)\n", r, mpts[r], cpts[r]);
    }
    double mmin = mpts[0], mmax = mpts[0];
    for (int r = 1; r < o.reps; r++) {
        mmin = fmin(mmin, mpts[r]);
        mmax = fmax(mmax, mpts[r]);
    }
    double med = median(mpts, o.reps), cmed = median(cpts, o.reps);
    double roof = copy_bw / bytes_per_point / 1e6;
    double frac = med / roof;
    be->destroy(ctx);
    free_problem(&bp);
    free(mpts);
    free(cpts);

    time_t tnow = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tnow));
    double load1 = load_average();
    printf("%s order %d %dx%dx%d, %d slab%s%s, %s\n", kind, o.order, o.nx, o.ny, o.nz, o.slabs,
           o.slabs == 1 ? "" : "s", o.sponge ? ", sponge" : "", device);
    printf("copy bandwidth %.2f GB/s (read+write) -> roofline %.1f Mpoints/s at %.0f B/point\n",
           copy_bw / 1e9, roof, bytes_per_point);
    printf("median %.1f Mpoints/s (min %.1f, max %.1f over %d x %d steps) = %.1f%% of the "
           "roofline\n",
           med, mmin, mmax, o.reps, o.steps, 100 * frac);
    printf("cpu-time rate (points per CPU-second x threads) %.1f Mpoints/s = %.1f%% of the "
           "roofline\n", cmed, 100 * cmed / roof);
    printf("load average (1 min) %.2f before, %.2f after; OMP_WAIT_POLICY=%s\n", load0, load1,
           getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "(unset)");
    if (o.json) {
        FILE *f = fopen(o.json, "w");
        if (!f) {
            fprintf(stderr, "fdwave-bench-cpu: cannot write %s\n", o.json);
            return 1;
        }
        fprintf(f,
                "[{\"kind\": \"%s\", \"order\": %d, \"nx\": %d, \"ny\": %d, \"nz\": %d, "
                "\"gpus\": 0, \"slabs\": %d, \"sponge\": %s, \"device\": \"%s\", "
                "\"mpts\": %.2f, \"roofline_fraction\": %.4f, \"copy_gbs\": %.3f, "
                "\"cpu_time_mpts\": %.2f, \"loadavg\": %.2f, \"date\": \"%s\"}]\n",
                kind, o.order, o.nx, o.ny, o.nz, o.slabs, o.sponge ? "true" : "false", device,
                med, frac, copy_bw / 1e9, cmed, load1, date);
        fclose(f);
    }
    return 0;
}
