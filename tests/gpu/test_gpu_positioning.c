/* test_gpu_positioning.c — windowed-sinc sources and receivers (run/positioning.h) on the
 * CUDA backend: an off-grid job (a source right below the free surface, where the image
 * method folds its weights, one whose support straddles the boundary of two slabs, one
 * on a node; receivers off the grid in every axis, some straddling the slab boundary)
 * run on the GPU with 1 and 2 slabs (sharing GPU 0 when there is one) equals the CPU
 * backend's portable kernel with 1 and 2 slabs bit for bit: the final wavefield and every
 * receiver trace (the rows summed as fdw_run sums them). Exits 77 (ctest: skipped) without
 * a CUDA device. Run by tests/gpu/run.sh's "positioning" stage. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/kind.h"
#include "run/backend.h"
#include "run/plan.h"
#include "run/positioning.h"
#include "run/problem.h"
#include "spec/spec.h"

#define NSTEPS 160

static const char *JOB =
    "{\"kind\":\"acoustic\",\"grid\":{\"nx\":96,\"ny\":80,\"nz\":64,\"dx\":10,\"dy\":12,"
    "\"dz\":10},\"order\":8,"
    "\"velocity\":{\"type\":\"gaussian\",\"background\":2200,\"center\":[480,480,320],"
    "\"sigma\":150,\"dv\":-500},"
    "\"time\":{\"nt\":%d,\"dt\":\"auto\"},"
    "\"sources\":[{\"position\":[401.7,333.3,13.1],\"wavelet\":{\"type\":\"ricker\",\"f0\":14}},"
    "{\"position\":[522.2,470.9,318.7],\"wavelet\":{\"type\":\"ricker\",\"f0\":12,"
    "\"delay\":0.1,\"amplitude\":-2}},"
    "{\"position\":[300,360,200],\"wavelet\":{\"type\":\"ricker\",\"f0\":10}}],"
    "\"receivers\":{\"lines\":[{\"from\":[105.5,100.3,4.4],\"to\":[850.5,800.1,600.7],"
    "\"count\":33}],\"points\":[[480.4,480.6,316.3],[611.1,222.2,2.2],[500,480,320]],"
    "\"interval\":2},"
    "\"boundary\":{\"type\":\"cpml\",\"width\":10,\"free_surface\":true}}";

typedef struct result {
    float *vol;                /* nx*ny*nz */
    float *traces;             /* nrec_out x nrec_slots, as the gather holds them */
    size_t nvol, ntr;
} result;

/* nsteps of prob on be over ndev slabs sharing the devices ids; the final field and the
 * combined receiver traces. */
static void run_on(const fdw_backend *be, const fdw_problem *prob, int ndev, const int *ids,
                   result *out)
{
    fdw_error err;
    fdw_plan plan;
    ck_assert_msg(fdw_plan_slabs(prob->nz, prob->radius, ndev, ids, &plan, &err) == FDW_OK,
                  "plan: %s", err.message);
    void *ctx = NULL;
    ck_assert_msg(be->create(prob, &plan, &ctx, &err) == FDW_OK, "%s create: %s", be->name,
                  err.message);
    for (long it = 0; it < NSTEPS; it++)
        ck_assert_msg(be->step(ctx, it, &err) == FDW_OK, "%s step: %s", be->name,
                      err.message);
    out->nvol = (size_t)prob->nx * prob->ny * prob->nz;
    out->vol = malloc(out->nvol * sizeof(float));
    fdw_slice vol = {FDW_PLANE_VOLUME, 0};
    ck_assert(be->extract(ctx, 1, &vol, &out->vol, &err) == FDW_OK);
    ck_assert(fdw_backend_wait(be, ctx, &err) == FDW_OK);
    const long ns = prob->nrec_slots;
    const int nrows = prob->nreceivers;
    float *slots = malloc((size_t)ns * nrows * sizeof(float));
    float *rows = malloc((size_t)ns * nrows * sizeof(float));
    ck_assert_msg(be->fetch_receivers(ctx, 0, ns, slots, &err) == FDW_OK, "%s receivers: %s",
                  be->name, err.message);
    for (long s = 0; s < ns; s++)
        for (int r = 0; r < nrows; r++)
            rows[(size_t)r * ns + s] = slots[(size_t)s * nrows + r];
    out->ntr = (size_t)fdw_problem_receivers(prob) * (size_t)ns;
    out->traces = malloc(out->ntr * sizeof(float));
    fdw_receivers_combine(prob, rows, ns, out->traces);
    free(slots);
    free(rows);
    be->destroy(ctx);
}

static void result_free(result *r)
{
    free(r->vol);
    free(r->traces);
}

/* Bit for bit, or the first difference named. */
static void same(const char *what, const result *a, const result *b)
{
    size_t v = 0, t = 0;
    while (v < a->nvol && memcmp(&a->vol[v], &b->vol[v], sizeof(float)) == 0)
        v++;
    while (t < a->ntr && memcmp(&a->traces[t], &b->traces[t], sizeof(float)) == 0)
        t++;
    printf("%s: wavefield %s, traces %s\n", what, v == a->nvol ? "bit-identical" : "DIFFER",
           t == a->ntr ? "bit-identical" : "DIFFER");
    ck_assert_msg(v == a->nvol, "%s: wavefield differs first at point %zu (%.9g vs %.9g)",
                  what, v, v < a->nvol ? a->vol[v] : 0.0, v < a->nvol ? b->vol[v] : 0.0);
    ck_assert_msg(t == a->ntr, "%s: traces differ first at sample %zu (%.9g vs %.9g)", what,
                  t, t < a->ntr ? a->traces[t] : 0.0, t < a->ntr ? b->traces[t] : 0.0);
}

START_TEST(test_sinc_gpu_equals_cpu)
{
    char json[4096];
    snprintf(json, sizeof json, JOB, NSTEPS);
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_msg(fdw_spec_parse(json, strlen(json), NULL, &spec, &err) == FDW_OK, "%s: %s",
                  err.field, err.message);
    fdw_problem prob;
    ck_assert_msg(fdw_problem_build(spec, NULL, &prob, &err) == FDW_OK, "%s", err.message);
    /* sinc really is in use: 512 taps off the grid, folded ones at the surface, a delta */
    printf("source taps %d, receivers %d in %d rows of %d taps\n", prob.nsrc_taps,
           prob.nrec_out, prob.nreceivers, prob.nrec_taps);
    ck_assert_int_gt(prob.nsrc_taps, 512);
    ck_assert_int_gt(prob.nreceivers, 4 * prob.nrec_out);
    const fdw_tuning portable = {.cpu_portable = 1};
    fdw_problem cprob = prob;
    cprob.tuning = &portable;
    const int ids1[1] = {0}, ids2[2] = {0, fdw_gpu_count() > 1 ? 1 : 0};
    result c1, c2, g1, g2;
    run_on(fdw_cpu_backend(), &cprob, 1, ids1, &c1);
    run_on(fdw_cpu_backend(), &cprob, 2, ids2, &c2);
    run_on(fdw_cuda_backend(), &prob, 1, ids1, &g1);
    run_on(fdw_cuda_backend(), &prob, 2, ids2, &g2);
    double peak = 0;
    for (size_t e = 0; e < c1.ntr; e++)
        peak = fmax(peak, fabs(c1.traces[e]));
    ck_assert_double_gt(peak, 0);
    same("CPU 2 slabs vs CPU 1 slab", &c2, &c1);
    same("GPU 1 slab vs CPU 1 slab (portable kernel)", &g1, &c1);
    same("GPU 2 slabs vs GPU 1 slab", &g2, &g1);
    result_free(&c1);
    result_free(&c2);
    result_free(&g1);
    result_free(&g2);
    fdw_problem_free(&prob);
    fdw_spec_free(spec);
}
END_TEST

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (!fdw_cuda_backend() || fdw_gpu_count() < 1) {
        printf("test_gpu_positioning: no CUDA device, skipped\n");
        return 77;
    }
    Suite *s = suite_create("gpu-positioning");
    TCase *tc = tcase_create("sinc");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_sinc_gpu_equals_cpu);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
