/* bench_ete.c — fdwave-bench's "ete" section (bench_ete.h). Kernels: kernels/ete's default
 * and its fallback, and the seed's three-kernel decomposition (bench/kernels/ete_three.cu) on a
 * field of random values, 900 velocity bins at random (the seed's hardest case: neighbours
 * read different table rows), the table interpolated between two fitted operators; median
 * of 3 timings of 20 steps; Mpoints/s and the fraction of the 14 B/point roofline at the
 * run's copy bandwidth. Then through fdw_run: the whole ETE job (sponge, 1000 receivers,
 * a snapshot every 100 steps) against the bare kernel, and the seed's Table 3 case. */
#include "bench_ete.h"
#include "ete_three.h"

#include "common/fdwk_runtime.h"
#include "ete/fdwk_ete.h"
#include "fdwave/fdwave.h"
#include "kinds/ete/ete_fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BINS 900
#define THREE (-1) /* the three-kernel variant */

typedef struct ctx {
    json_t *records;
    double copy_bps;
    const char *device, *date, *command;
} ctx;

static void add(const ctx *c, const char *variant, int nx, int ny, int nz, double mpts,
                json_t *extra)
{
    json_t *r = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:s, s:f, s:f, s:f, s:s, s:s, s:f, "
                          "s:s}", "kind", "ete", "order", 8, "nx", nx, "ny", ny, "nz", nz,
                          "gpus", 1, "device", c->device, "mpts", mpts, "roofline_fraction",
                          mpts * 1e6 * 14.0 / c->copy_bps, "copy_gbs", c->copy_bps / 1e9,
                          "date", c->date, "variant", variant, "bytes_per_point", 14.0,
                          "command", c->command);
    if (extra)
        json_object_update(r, extra);
    json_decref(extra);
    json_array_append_new(c->records, r);
}

/* 900 table rows (ete.h's form: w[0] = alpha = r^2, w[s] = 2 c[s] / alpha) between the
 * operators fitted at r = 0.5 and r = 1.0 (band 6 points per wavelength), interpolated in
 * r^2. */
static int make_table(float *table)
{
    ete_op a, b;
    const ete_band ba = {{0.5, 0.5, 0.5}, 0.5 * M_PI / 3, 0, 0};
    const ete_band bb = {{1.0, 1.0, 1.0}, 1.0 * M_PI / 3, 0, 0};
    if (ete_fit(&ba, &a) != ETE_FIT_OK || ete_fit(&bb, &b) != ETE_FIT_OK)
        return -1;
    for (int q = 0; q < BINS; q++) {
        const double lam = (double)q / (BINS - 1);
        const double alpha = (1 - lam) * 0.25 + lam * 1.0;
        table[q * 16] = (float)alpha;
        for (int s = 1; s < 16; s++)
            table[q * 16 + s] = (float)(2.0 * ((1 - lam) * a.c[s] + lam * b.c[s]) / alpha);
    }
    return 0;
}

/* Median Mpoints/s of variant v (THREE: the three-kernel one) on nx x ny x nz; 0 on an
 * error (printed). */
static double time_kernel(int v, int nx, int ny, int nz)
{
    fdwk_layout L;
    fdwk_layout_init(&L, nx, ny, nz, 4);
    float *f[2] = {NULL, NULL}, *table = NULL, *tabc = NULL;
    uint16_t *idx = NULL, *hidx = malloc(L.total * sizeof *hidx);
    float htab[BINS * 16];
    double mpts = 0;
    int rc = !hidx || make_table(htab);
    for (int b = 0; b < 2 && !rc; b++) {
        rc = fdwk_malloc((void **)&f[b], L.total * 4);
        if (!rc)
            rc = fdwk_memset_async(f[b], 0, L.total * 4, NULL);
        if (!rc)
            rc = fdwk_fill_random(f[b] + fdwk_origin(&L), &L, 7u + (unsigned)b, 1e-3f, 0.f, NULL);
    }
    unsigned long long x = 88172645463325252ull;
    for (size_t p = 0; !rc && p < L.total; p++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        hidx[p] = (uint16_t)(x % BINS);
    }
    if (!rc)
        rc = fdwk_malloc((void **)&idx, L.total * sizeof *idx);
    if (!rc)
        rc = fdwk_h2d(idx, hidx, L.total * sizeof *idx);
    if (!rc)
        rc = fdwk_malloc((void **)&table, sizeof htab);
    if (!rc)
        rc = fdwk_h2d(table, htab, sizeof htab);
    /* the shared-table kernels' copy: the distinct columns, transposed (as cuda_ete.c) */
    unsigned char col[16];
    int src[16], ncol = 0;
    float *htc = rc ? NULL : malloc((size_t)16 * BINS * sizeof *htc);
    rc = rc || !htc;
    if (!rc)
        ncol = fdwk_ete_columns(htab, BINS, col, src, htc);
    if (!rc)
        rc = fdwk_malloc((void **)&tabc, (size_t)ncol * BINS * sizeof *htc);
    if (!rc)
        rc = fdwk_h2d(tabc, htc, (size_t)ncol * BINS * sizeof *htc);
    free(htc);
    fdwk_event e0 = NULL, e1 = NULL;
    if (!rc)
        rc = fdwk_event_create(&e0, 1) || fdwk_event_create(&e1, 1);
    double t[3];
    for (int rep = 0; rep < 4 && !rc; rep++) {
        const int steps = rep ? 20 : 3; /* the first round warms up */
        rc = fdwk_event_record(e0, NULL);
        for (int s = 0; s < steps && !rc; s++) {
            fdwk_ete_args a;
            memset(&a, 0, sizeof a);
            a.u = f[s & 1] + fdwk_origin(&L);
            a.out = f[1 - (s & 1)] + fdwk_origin(&L);
            a.idx = idx + fdwk_origin(&L);
            a.table = table;
            a.nbins = BINS;
            a.tabc = tabc;
            a.ncol = ncol;
            memcpy(a.col, col, sizeof a.col);
            a.nx = nx;
            a.ny = ny;
            a.k0 = 0;
            a.k1 = nz;
            a.pitch = L.pitch;
            a.plane = L.plane;
            a.variant = v < 0 ? 0 : v;
            rc = v == THREE ? fdwk_ete_three_step(&a, NULL) : fdwk_ete_step(&a, NULL);
        }
        float ms = 0;
        if (!rc)
            rc = fdwk_event_record(e1, NULL) || fdwk_event_sync(e1) || fdwk_event_ms(e0, e1, &ms);
        if (rep)
            t[rep - 1] = ms * 1e-3 / steps;
    }
    if (rc) {
        fprintf(stderr, "ete bench, variant %d, %dx%dx%d: %s\n", v, nx, ny, nz, fdwk_strerror(rc));
    } else {
        for (int i = 0; i < 3; i++) /* sort the three */
            for (int j = i + 1; j < 3; j++)
                if (t[j] < t[i]) {
                    double s = t[i];
                    t[i] = t[j];
                    t[j] = s;
                }
        mpts = (double)nx * ny * nz / t[1] / 1e6;
    }
    if (e0)
        fdwk_event_destroy(e0);
    if (e1)
        fdwk_event_destroy(e1);
    fdwk_free(f[0]);
    fdwk_free(f[1]);
    fdwk_free(idx);
    fdwk_free(table);
    fdwk_free(tabc);
    free(hidx);
    return mpts;
}

/* fdw_run of an ETE or acoustic job on the GPU; the loop's seconds, 0 on an error. */
static double run_job(const char *json, int variant, double *mpts)
{
    fdw_spec *spec = NULL;
    fdw_error err;
    if (fdw_spec_parse(json, strlen(json), NULL, &spec, &err) != FDW_OK) {
        fprintf(stderr, "ete bench job: %s: %s\n", err.field, err.message);
        return 0;
    }
    char dir[] = "/tmp/fdw-bench-ete-XXXXXX";
    if (!mkdtemp(dir)) {
        fdw_spec_free(spec);
        return 0;
    }
    fdw_tuning tune = {.cuda_config = variant};
    fdw_run_opts opts = {.out_dir = dir, .backend = FDW_BACKEND_CUDA, .tuning = &tune};
    fdw_result res;
    fdw_status st = fdw_run(spec, &opts, NULL, &res, &err);
    fdw_spec_free(spec);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    if (st != FDW_OK) {
        fprintf(stderr, "ete bench job: %s\n", err.message);
        return 0;
    }
    *mpts = res.mpts;
    return res.elapsed_s;
}

void bench_ete(json_t *records, double copy_bps, const char *device, const char *date,
               const char *command, int quick)
{
    const ctx c = {records, copy_bps, device, date, command};
    const int grids[2][3] = {{512, 512, 512}, {1024, 1024, 512}};
    printf("\nete, 37 points, %d velocity bins at random (14 B/point floor %.1f Gpts/s):\n",
           BINS, copy_bps / 14e9);
    double bare512 = 0, three512 = 0;
    for (int g = 0; g < (quick ? 1 : 2); g++) {
        const int *n = grids[g];
        for (int v = THREE; v < FDWK_ETE_VARIANTS; v++) {
            const double m = time_kernel(v, n[0], n[1], n[2]);
            const char *name = v == THREE ? "seed three kernels (42 B/pt)"
                                          : fdwk_ete_variant_name(v);
            printf("  %4dx%4dx%4d  %-30s %9.0f Mpts/s  %5.1f%% of the 14 B/pt roofline\n",
                   n[0], n[1], n[2], name, m, 100 * m * 14e6 / copy_bps);
            if (m > 0)
                add(&c, name, n[0], n[1], n[2], m, NULL);
            if (g == 0 && v == FDWK_ETE_DEFAULT)
                bare512 = m;
            if (g == 0 && v == THREE)
                three512 = m;
        }
    }
    if (three512 > 0)
        printf("  default over the seed's three kernels at 512^3: %.2f x\n", bare512 / three512);
    /* the whole job against the bare kernel */
    const int nj = quick ? 256 : 512;
    char json[2048];
    snprintf(json, sizeof json,
             "{\"kind\":\"ete\",\"grid\":{\"nx\":%d,\"ny\":%d,\"nz\":%d,\"dx\":10,\"dy\":10,"
             "\"dz\":10},\"velocity\":{\"type\":\"gaussian\",\"background\":2500,\"center\":"
             "[%d,%d,%d],\"sigma\":800,\"dv\":1000},\"time\":{\"nt\":200,\"dt\":\"auto\"},"
             "\"sources\":[{\"position\":[%d,%d,1000],\"wavelet\":{\"type\":\"ricker\",\"f0\":"
             "12}}],\"receivers\":{\"lines\":[{\"from\":[100,%d,50],\"to\":[%d,%d,50],"
             "\"count\":1000}]},\"boundary\":{\"type\":\"sponge\",\"width\":20},\"snapshots\":"
             "{\"every\":100,\"slices\":[{\"plane\":\"xz\",\"index\":%d}]}}",
             nj, nj, nj, nj * 5, nj * 5, nj * 5, nj * 5, nj * 5, nj * 5, nj * 10 - 100, nj * 5,
             nj / 2);
    double jm = 0;
    const double js = run_job(json, FDWK_ETE_DEFAULT, &jm);
    const double km = time_kernel(FDWK_ETE_DEFAULT, nj, nj, nj);
    if (js > 0 && km > 0) {
        printf("  whole job %d^3, smooth Gaussian model (sponge, 1000 receivers, a snapshot "
               "every 100 steps): %.0f Mpts/s = %.2f of the bare kernel's %.0f (900 random "
               "bins)\n", nj, jm, jm / km, km);
        add(&c, "whole job (sponge, 1000 receivers, snapshots/100)", nj, nj, nj, jm,
            json_pack("{s:f}", "of_bare_kernel", jm / km));
    }
    /* the same job on the bare kernel's model: 900 velocities at random (a file), so the
     * ratio compares like with like */
    char model[] = "/tmp/fdw-bench-ete-model-XXXXXX";
    const int mfd = mkstemp(model);
    const size_t npts = (size_t)nj * nj * nj;
    float *vm = mfd >= 0 ? malloc(npts * sizeof *vm) : NULL;
    if (vm) {
        unsigned long long x = 88172645463325252ull;
        for (size_t p = 0; p < npts; p++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            vm[p] = (float)(1500.0 + 1500.0 * (double)(p < BINS ? p : x % BINS) / (BINS - 1));
        }
        const int ok = write(mfd, vm, npts * sizeof *vm) == (ssize_t)(npts * sizeof *vm);
        free(vm);
        close(mfd);
        snprintf(json, sizeof json,
                 "{\"kind\":\"ete\",\"grid\":{\"nx\":%d,\"ny\":%d,\"nz\":%d,\"dx\":10,\"dy\":10,"
                 "\"dz\":10},\"velocity\":{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":"
                 "\"%s\"},\"time\":{\"nt\":200,\"dt\":\"auto\"},\"sources\":[{\"position\":"
                 "[%d,%d,1000],\"wavelet\":{\"type\":\"ricker\",\"f0\":12}}],\"receivers\":"
                 "{\"lines\":[{\"from\":[100,%d,50],\"to\":[%d,%d,50],\"count\":1000}]},"
                 "\"boundary\":{\"type\":\"sponge\",\"width\":20},\"snapshots\":{\"every\":100,"
                 "\"slices\":[{\"plane\":\"xz\",\"index\":%d}]}}",
                 nj, nj, nj, model, nj * 5, nj * 5, nj * 5, nj * 10 - 100, nj * 5, nj / 2);
        double rm = 0;
        const double rs = ok ? run_job(json, FDWK_ETE_DEFAULT, &rm) : 0;
        if (rs > 0 && km > 0) {
            printf("  whole job %d^3, 900 velocities at random: %.0f Mpts/s = %.2f of the bare "
                   "kernel's %.0f\n", nj, rm, rm / km, km);
            add(&c, "whole job, 900 random velocities (sponge, 1000 receivers, snapshots/100)",
                nj, nj, nj, rm, json_pack("{s:f}", "of_bare_kernel", rm / km));
        }
    } else if (mfd >= 0) {
        close(mfd);
    }
    if (mfd >= 0)
        unlink(model);
    /* the seed's Table 3 case: 320 x 320 x 912, 1 s, ETE at 1 ms against FD at 0.2 ms */
    /* ETE with the default kernel, FD */
    const double dts[2] = {1e-3, 2e-4};
    const char *kinds[2] = {"ete", "acoustic"};
    double secs[2] = {0, 0}, mp[2] = {0, 0};
    for (int q = 0; q < 2 && !quick; q++) {
        snprintf(json, sizeof json,
                 "{\"kind\":\"%s\",\"grid\":{\"nx\":320,\"ny\":320,\"nz\":912,\"dx\":10,\"dy\":10,"
                 "\"dz\":10},\"order\":8,\"velocity\":{\"type\":\"layered\",\"layers\":[{\"top\":0,"
                 "\"v\":1800},{\"top\":3000,\"v\":2800},{\"top\":6500,\"v\":3600}]},\"time\":"
                 "{\"nt\":%ld,\"dt\":%g},\"sources\":[{\"position\":[1600,1600,100],\"wavelet\":"
                 "{\"type\":\"ricker\",\"f0\":10}}],\"receivers\":{\"lines\":[{\"from\":[0,1600,"
                 "50],\"to\":[3190,1600,50],\"count\":320}]}}",
                 kinds[q], (long)lround(1.0 / dts[q]), dts[q]);
        secs[q] = run_job(json, FDWK_ETE_DEFAULT, &mp[q]);
    }
    if (secs[0] > 0 && secs[1] > 0) {
        printf("  seed Table 3 case 320x320x912, 1 s: ETE at 1 ms %.2f s (%.0f Mpts/s), "
               "acoustic order 8 at 0.2 ms %.2f s (%.0f Mpts/s): ETE %.2f x faster\n",
               secs[0], mp[0], secs[1], mp[1], secs[1] / secs[0]);
        add(&c, "seed table 3: ete dt 1 ms, 1 s", 320, 320, 912, mp[0],
            json_pack("{s:f, s:f}", "seconds", secs[0], "acoustic_seconds_dt_0.2ms", secs[1]));
    }
}
