/* bench_sweep.c — fdwave-bench's "sweep" section: the sweep kind's CUDA engine (through its
 * backend table, so each operation's time is at hand) on the seed paper's Table 1 sizes,
 * 512^3 and 640^3, 8 sweeps, in float64 (the seed's) and float32: the seed's case (a point
 * source, constant F, psi, a; exact skipping) and every plane computed (fdw_tuning
 * sweep_full, the worst case). Per sweep: points computed, seconds, shuffle and sub-sweep
 * seconds. Per case: the fraction of the memory bound (a sub-sweep reads and writes T once:
 * 16 B per point in float64, 8 in float32, at the measured copy bandwidth) and of the
 * compute floor (a ninth sweep with every point computed and no waiting between blocks:
 * the update's cost alone, times the points the case computed). Then the halo exchange on
 * two slabs of one GPU (and on --gpus GPUs) against one slab: the exchange not hidden. */
#include "bench_sweep.h"

#include "fdwave/fdwave.h"
#include "kinds/sweep/cuda_sweep.h"
#include "run/problem.h"
#include "spec/spec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SWEEPS 8

typedef struct sweep_case {
    int n;                     /* points per side of the seed's cube (side 10) */
    int f64;
    int every_plane;
    int nids;                  /* slabs, on GPUs ids[] */
    int ids[8];
    int reach;                 /* fdw_tuning.sweep_reach (0: the engine's default) */
} sweep_case;

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Sub-sweep and shuffle seconds of one sweep's log entry. */
static void split(const sweep_stats *s, double *sub, double *shuf)
{
    *sub = *shuf = 0.0;
    for (int op = 0; op < SWEEP_NOPS; op++)
        *(op == SWEEP_OP_TO_A || op == SWEEP_OP_TO_B ? shuf : sub) += s->op_s[op];
}

/* One case: 8 timed sweeps, then the compute-floor sweep. Returns the 8 sweeps' seconds
 * (and fills the record), or a negative value when it could not run. */
static double run_case(const bench_sweep_ctx *b, const sweep_case *k, const char *variant,
                       double *subsweep_s)
{
    char json[768];
    const double h = 10.0 / (k->n - 1);
    snprintf(json, sizeof json,
             "{\"kind\": \"sweep\", \"grid\": {\"nx\": %d, \"ny\": %d, \"nz\": %d, \"dx\": %.17g, "
             "\"dy\": %.17g, \"dz\": %.17g}, \"precision\": \"%s\", \"F\": 1.1, \"psi\": 1.0, "
             "\"a\": [-0.34, 0.4, 0.7], \"initial\": {\"points\": [{\"position\": [5, 5, 5]}]}, "
             "\"sweeps\": %d, \"output\": {\"volume\": \"none\", \"slices\": []}}",
             k->n, k->n, k->n, h, h, h, k->f64 ? "float64" : "float32", SWEEPS + 1);
    fdw_spec *spec = NULL;
    fdw_error err;
    fdw_problem prob;
    fdw_plan plan;
    void *ctx = NULL;
    fdw_tuning tu;
    memset(&tu, 0, sizeof tu);
    tu.sweep_full = k->every_plane;
    tu.sweep_reach = k->reach;
    memset(&prob, 0, sizeof prob);
    fdw_status st = fdw_spec_parse(json, strlen(json), NULL, &spec, &err);
    if (st == FDW_OK)
        st = fdw_problem_build(spec, &tu, &prob, &err);
    if (st == FDW_OK)
        st = fdw_plan_slabs(k->n, 1, k->nids, k->ids, &plan, &err);
    if (st == FDW_OK)
        st = fdw_sweep_cuda_engine.create(&prob, &plan, &ctx, &err);
    double total = -1.0;
    if (st == FDW_OK) {
        const double t0 = wall();
        for (long it = 0; it < SWEEPS && st == FDW_OK; it++)
            st = fdw_sweep_cuda_engine.step(ctx, it, &err);
        total = wall() - t0;
        sweep_cuda *c = ctx;
        c->nosync = 1; /* the compute floor: every point, no waiting */
        c->no_skip = 1;
        if (st == FDW_OK)
            st = fdw_sweep_cuda_engine.step(ctx, SWEEPS, &err);
    }
    if (st != FDW_OK) {
        printf("  %-28s %d^3: %s (%s)\n", variant, k->n, err.message, err.field);
        if (ctx)
            fdw_sweep_cuda_engine.destroy(ctx);
        fdw_problem_free(&prob);
        fdw_spec_free(spec);
        return -1.0;
    }
    long nlog = 0;
    const sweep_stats *log = ((const sweep_engine *)ctx)->log(ctx, &nlog);
    const double N = (double)k->n * k->n * k->n;
    double floor_sub, floor_shuf, sub_total = 0.0, shuf_total = 0.0, computed = 0.0;
    split(&log[SWEEPS], &floor_sub, &floor_shuf);
    const double per_point = floor_sub / (double)log[SWEEPS].computed;
    json_t *per = json_array();
    printf("  %-28s %d^3 %s, %d slab%s, reach %d: %.4f s for %d sweeps\n", variant, k->n,
           k->f64 ? "float64" : "float32", k->nids, k->nids == 1 ? "" : "s",
           ((sweep_cuda *)ctx)->parts.reach, total, SWEEPS);
    for (int s = 0; s < SWEEPS; s++) {
        double sub, shuf;
        split(&log[s], &sub, &shuf);
        sub_total += sub;
        shuf_total += shuf;
        computed += (double)log[s].computed;
        printf("    sweep %d: %11llu points computed (%5.1f%%), %8.2f ms: sub-sweeps %8.2f, "
               "shuffles %6.2f; %llu values changed, largest change %.2e\n", s + 1,
               (unsigned long long)log[s].computed, 100.0 * log[s].computed / (6.0 * N),
               1e3 * (sub + shuf), 1e3 * sub, 1e3 * shuf, (unsigned long long)log[s].changed,
               log[s].max_change);
        json_array_append_new(per, json_pack("{sIsfsfsfsIsf}", "computed",
                                             (json_int_t)log[s].computed, "seconds", sub + shuf,
                                             "subsweep_s", sub, "shuffle_s", shuf, "changed",
                                             (json_int_t)log[s].changed, "max_change",
                                             log[s].max_change));
    }
    const double bpp = k->f64 ? 16.0 : 8.0;
    const double mem_floor = SWEEPS * 6.0 * N * bpp / b->copy_bps;
    const double cmp_floor = per_point * computed;
    printf("    memory bound (%.0f B/point per sub-sweep at %.0f GB/s): %.4f s, %.1f%% of it "
           "reached; compute floor (%.3f ns per point update x %.3g updates): %.4f s, %.1f%% "
           "reached; shuffles %.4f s\n", bpp, b->copy_bps / 1e9, mem_floor,
           100.0 * mem_floor / total, 1e9 * per_point, computed, cmp_floor,
           100.0 * cmp_floor / total, shuf_total);
    const double mpts = N * SWEEPS / total / 1e6;
    json_t *r = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:s, s:f, s:f, s:f, s:s, s:s}", "kind",
                          "sweep", "order", 2, "nx", k->n, "ny", k->n, "nz", k->n, "gpus",
                          k->nids, "device", b->device, "mpts", mpts, "roofline_fraction",
                          mem_floor / total, "copy_gbs", b->copy_bps / 1e9, "date", b->date,
                          "variant", variant);
    json_object_set_new(r, "bytes_per_point", json_real(bpp * 6.0));
    json_object_set_new(r, "command", json_string(b->command));
    json_object_set_new(r, "precision", json_string(k->f64 ? "float64" : "float32"));
    json_object_set_new(r, "sweeps", json_integer(SWEEPS));
    json_object_set_new(r, "reach", json_integer(((sweep_cuda *)ctx)->parts.reach));
    json_object_set_new(r, "seconds", json_real(total));
    json_object_set_new(r, "subsweep_s", json_real(sub_total));
    json_object_set_new(r, "shuffle_s", json_real(shuf_total));
    json_object_set_new(r, "computed_fraction", json_real(computed / (SWEEPS * 6.0 * N)));
    json_object_set_new(r, "memory_floor_s", json_real(mem_floor));
    json_object_set_new(r, "compute_floor_s", json_real(cmp_floor));
    json_object_set_new(r, "compute_floor_fraction", json_real(cmp_floor / total));
    json_object_set_new(r, "ns_per_update", json_real(1e9 * per_point));
    json_object_set_new(r, "per_sweep", per);
    json_array_append_new(b->records, r);
    *subsweep_s = sub_total;
    fdw_sweep_cuda_engine.destroy(ctx);
    fdw_problem_free(&prob);
    fdw_spec_free(spec);
    return total;
}

/* Issue 17's scaling runs: 512^3 and 640^3, 8 sweeps, float64, the seed's case and every
 * plane, on 1, 2, 4 ... GPUs (up to --gpus), one slab per GPU; the speedup over 1 GPU
 * and where the time went (sub-sweeps, shuffles); on several GPUs also with reach 1 (a wait
 * across each cut every plane) against the default reach. */
static void bench_sweep_gpus(const bench_sweep_ctx *b)
{
    static const int sizes[2] = {512, 640};
    for (int q = 0; q < 2; q++)
        for (int every = 0; every < 2; every++) {
            double t1 = -1.0, s1 = 0.0;
            for (int n = 1; n <= b->gpus && n <= 8; n *= 2) {
                sweep_case k = {sizes[q], 1, every, n, {0}, 0};
                for (int g = 0; g < n; g++)
                    k.ids[g] = g;
                for (int r = 0; r < (n > 1 ? 2 : 1); r++) {
                    char variant[48];
                    k.reach = r ? 1 : 0;
                    snprintf(variant, sizeof variant, "%s-%d-gpu%s%s",
                             every ? "every-plane" : "seed-case", n, n > 1 ? "s" : "",
                             r ? "-reach1" : "");
                    double sub = 0.0;
                    const double t = run_case(b, &k, variant, &sub);
                    if (n == 1) {
                        t1 = t;
                        s1 = sub;
                    } else if (t1 > 0 && t > 0) {
                        printf("  %d^3 %s: %d GPUs vs 1%s: %.2fx (sub-sweeps %.4f vs %.4f s; "
                               "the rest is shuffles and exchange)\n", sizes[q],
                               every ? "every plane" : "seed case", n,
                               r ? " with reach 1" : "", t1 / t, sub, s1);
                    }
                }
            }
        }
}

void bench_sweep(const bench_sweep_ctx *b)
{
    printf("sweep kind: 8 sweeps of the seed's cube (side 10, point source at the centre, F "
           "1.1, psi 1, a (-0.34, 0.4, 0.7))\n");
    static const int sizes[2] = {512, 640};
    double sub;
    for (int f64 = 1; f64 >= 0; f64--)
        for (int q = 0; q < (b->quick ? 1 : 2); q++)
            for (int every = 0; every < 2; every++) {
                sweep_case k = {sizes[q], f64, every, 1, {0}, 0};
                run_case(b, &k, every ? "every-plane" : "seed-case", &sub);
            }
    /* the exchange between slabs (halos in the kernels, flags across parts) */
    sweep_case one = {512, 1, 1, 1, {0}, 0}, two = {512, 1, 1, 2, {0, 0}, 0};
    double s1 = 0.0, s2 = 0.0;
    if (run_case(b, &one, "every-plane-1-slab", &s1) > 0 &&
        run_case(b, &two, "every-plane-2-slabs-1-gpu", &s2) > 0)
        printf("  2 slabs on one GPU vs 1: sub-sweeps %+.2f ms per sweep (the exchange and "
               "waiting not hidden)\n", 1e3 * (s2 - s1) / SWEEPS);
    if (b->gpus > 1)
        bench_sweep_gpus(b);
}
