/* test_gpu_checkpoint.c — checkpoints on the CUDA backend (issues 16, 26): for each case,
 * a run suspended at two random steps (fdw_callbacks.suspend: its checkpoint is written
 * there and the run stops) and resumed each time, with checkpoints also every random
 * number of steps, ends with outputs identical bit for bit to an uninterrupted GPU run's.
 * Every checkpoint's write is held in flight (tests/checkpoint/ckpt_gate.h) until the run
 * waits for it (the next checkpoint, the suspension, the end), so the GPU steps on while
 * the pinned image is written; and a run cancelled while the write of a periodic
 * checkpoint is held resumes from that checkpoint: the image was the state of its step.
 * The largest checkpoint fits the engine's host estimate of the image.
 * Cases: acoustic with a CPML on 1 slab and on 2 slabs (a small grid and one of several
 * kernel tiles), acoustic with a sponge and a free surface on 3 slabs, stencil on 2,
 * derivative on 1 (the CUDA backend runs it on one GPU), ETE on 2, and the sweep kind (its own engine keeps no checkpoints: a
 * resumed run starts again and must still end the same). Several slabs run on GPU 0 (the
 * device list repeats it), as tests/gpu/test_gpu.c spreads them. The specs and the
 * comparison are tests/checkpoint's (ckpt_util.h). Runs without Check's fork (CUDA is
 * initialised by the GPU count); exits 77 (ctest: skipped) without a GPU. The seed of the
 * random steps is printed (FDW_TEST_SEED sets it). */
#include "ckpt_gate.h"
#include "ckpt_util.h"
#include "fdwave/fdwave.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static unsigned g_seed;
static char g_dir[512];

/* A larger acoustic job (several 2.5D tiles per plane, interior and boundary slabs), CPML
 * with a free surface, receivers and snapshots. */
static const char BIG_ACOUSTIC[] =
    "{\"kind\":\"acoustic\",\"grid\":{\"nx\":96,\"ny\":80,\"nz\":72,\"dx\":10,\"dy\":10,"
    "\"dz\":10},\"order\":8,\"velocity\":{\"type\":\"layered\",\"layers\":[{\"top\":0,"
    "\"v\":1800},{\"top\":300,\"v\":2600}]},\"time\":{\"nt\":70,\"dt\":\"auto\"},"
    "\"sources\":[{\"position\":[480,400,250],\"wavelet\":{\"type\":\"ricker\",\"f0\":20}}],"
    "\"receivers\":{\"lines\":[{\"from\":[50,400,355],\"to\":[900,400,355],\"count\":40}]},"
    "\"boundary\":{\"type\":\"cpml\",\"width\":8,\"free_surface\":true},"
    "\"snapshots\":{\"every\":16,\"slices\":[{\"plane\":\"xz\",\"index\":40}],\"png\":false,"
    "\"raw\":true},\"devices\":2}";

/* The cases: a spec (tests/checkpoint's by index, or BIG_ACOUSTIC for -1) and the number
 * of slabs, all on GPU 0. */
static const struct {
    int spec;
    int slabs;
    const char *name;
} CASES[] = {
    {0, 1, "acoustic cpml, 1 slab"},
    {0, 2, "acoustic cpml, 2 slabs"},
    {-1, 1, "acoustic cpml 96x80x72 + free surface, 1 slab"},
    {-1, 2, "acoustic cpml 96x80x72 + free surface, 2 slabs"},
    {1, 3, "acoustic sponge + free surface, 3 slabs"},
    {2, 2, "stencil, 2 slabs"},
    {3, 1, "derivative along z, 1 slab (the CUDA backend runs it on one GPU)"},
    {4, 2, "ete, 2 slabs"},
    {5, 1, "sweep (no checkpoints)"},
};
#define NCASES ((int)(sizeof CASES / sizeof CASES[0]))

typedef ckpt_watch watch;

static const char *path_in(const char *name)
{
    static char bufs[4][700];
    static int next;
    char *b = bufs[next++ & 3];
    snprintf(b, sizeof bufs[0], "%s/%s", g_dir, name);
    return b;
}

/* One GPU run into out on `slabs` slabs of GPU 0; checkpoints in ck (NULL: none). Every
 * checkpoint's write is held until the run waits for it; cancel: only the first one's,
 * and the run is cancelled at w->stop_at once it is held (ckpt_gate_stop). */
static fdw_status run_as(const fdw_spec *spec, int slabs, const char *out, const char *ck,
                         long every, int cancel, watch *w, fdw_result *res)
{
    int ids[8] = {0};
    fdw_checkpoint_opts co = {.dir = ck, .every_steps = every, .resume = 1};
    fdw_run_opts ro = {.out_dir = out, .backend = FDW_BACKEND_CUDA, .device_ids = ids,
                       .ndevice_ids = slabs, .checkpoint = ck ? &co : NULL};
    w->on_line = ckpt_gate_on_log; /* a held write goes on once the run waits for it */
    fdw_callbacks cb = ckpt_callbacks(w);
    if (cancel)
        cb.cancelled = ckpt_gate_stop;
    fdw_error err;
    memset(&err, 0, sizeof err);
    ckpt_gate_hold(0, cancel ? 1 : -1);
    fdw_status st = fdw_run(spec, &ro, &cb, res, &err);
    if (st != FDW_OK && st != FDW_ERR_CANCELLED)
        ck_abort_msg("GPU run failed: %s: %s", err.field, err.message);
    ck_assert_str_eq(res->backend, "cuda");
    ck_assert_int_eq(w->empty, 0);
    return st;
}

static fdw_status run(const fdw_spec *spec, int slabs, const char *out, const char *ck,
                      long every, watch *w, fdw_result *res)
{
    return run_as(spec, slabs, out, ck, every, 0, w, res);
}

/* Case i's spec, a scratch directory g_dir and its uninterrupted run in g_dir/full. */
static fdw_spec *case_with_full_run(int i)
{
    const char *text = CASES[i].spec < 0 ? BIG_ACOUSTIC : ckpt_spec(CASES[i].spec, NULL);
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_msg(fdw_spec_parse(text, strlen(text), NULL, &spec, &err) == FDW_OK, "spec: %s: %s",
                  err.field, err.message);
    ckpt_tmpdir("gpuckpt", g_dir, sizeof g_dir);
    ck_assert(g_dir[0]);
    watch w;
    fdw_result res;
    memset(&w, 0, sizeof w);
    ck_assert_int_eq(run(spec, CASES[i].slabs, path_in("full"), NULL, 0, &w, &res), FDW_OK);
    return spec;
}

/* g_dir/part holds the outputs of g_dir/full bit for bit; then g_dir and spec go. */
static void assert_same_and_clean(int i, fdw_spec *spec)
{
    char why[800] = "";
    ck_assert_msg(ckpt_outputs_equal(path_in("full"), path_in("part"), why, sizeof why),
                  "seed %u, %s: %s", g_seed, CASES[i].name, why);
    ckpt_rmtree(g_dir);
    fdw_spec_free(spec);
}

START_TEST(suspend_resume_bit_identical)
{
    const int slabs = CASES[_i].slabs;
    const int saves = strcmp(CASES[_i].name, "sweep (no checkpoints)") != 0;
    fdw_spec *spec = case_with_full_run(_i);
    const long nt = fdw_spec_steps(spec);
    watch w;
    fdw_result res;

    long first = 1 + (long)(rand_r(&g_seed) % (unsigned)(nt - 2));
    long second = first + 1 + (long)(rand_r(&g_seed) % (unsigned)(nt - first - 1));
    long every = 1 + (long)(rand_r(&g_seed) % (unsigned)nt);
    printf("%s: suspend at %ld and %ld of %ld, checkpoints every %ld steps\n", CASES[_i].name,
           first, second, nt, every);
    memset(&w, 0, sizeof w);
    w.suspend_at = first;
    ck_assert_int_eq(run(spec, slabs, path_in("part"), path_in("ck"), every, &w, &res),
                     FDW_ERR_CANCELLED);
    ck_assert(res.suspended);
    ck_assert_int_eq(res.checkpoint_step, saves ? first : -1);
    ck_assert_int_eq(res.steps_done, first);
    ck_assert_msg(ckpt_fits_estimate(&w, spec, FDW_BACKEND_CUDA), "%s: a checkpoint of %llu "
                  "bytes; estimate %llu", CASES[_i].name, (unsigned long long)w.largest,
                  (unsigned long long)fdw_spec_checkpoint_bytes(spec, FDW_BACKEND_CUDA));

    memset(&w, 0, sizeof w);
    w.suspend_at = second;
    ck_assert_int_eq(run(spec, slabs, path_in("part"), path_in("ck"), every, &w, &res),
                     FDW_ERR_CANCELLED);
    ck_assert_int_eq(res.resumed_step, saves ? first : 0);
    ck_assert_int_eq(w.resumed, saves);
    ck_assert_int_eq(res.steps_done, second);

    memset(&w, 0, sizeof w);
    ck_assert_int_eq(run(spec, slabs, path_in("part"), path_in("ck"), every, &w, &res), FDW_OK);
    ck_assert_int_eq(res.resumed_step, saves ? second : 0);
    ck_assert_msg(strstr(w.log, "not used") == NULL, "seed %u: a checkpoint was refused:\n%s",
                  g_seed, w.log);
    struct stat sb;
    ck_assert_msg(stat(path_in("ck"), &sb) != 0, "a completed run left its checkpoints");
    assert_same_and_clean(_i, spec);
    printf("%s: resumed twice, outputs equal to the uninterrupted GPU run's bit for bit\n",
           CASES[_i].name);
}
END_TEST

/* Cancelled while the write of a periodic checkpoint is held in flight, the GPU stepping
 * on meanwhile: the cancellation waits for the write, and a run resumed from that
 * checkpoint ends as an uninterrupted one. */
START_TEST(cancel_while_writing_resumes_bit_identical)
{
    if (strcmp(CASES[_i].name, "sweep (no checkpoints)") == 0)
        return;
    const int slabs = CASES[_i].slabs;
    fdw_spec *spec = case_with_full_run(_i);
    const long nt = fdw_spec_steps(spec);
    watch w;
    fdw_result res;
    /* a checkpoint at step `every`, cancelled at `at` before the next one is due */
    const long every = 2 + (long)(rand_r(&g_seed) % (unsigned)(nt / 2 - 1));
    const long at = every + 1 + (long)(rand_r(&g_seed) % (unsigned)(every - 1));
    printf("%s: cancelled at %ld of %ld while the checkpoint of step %ld is written\n",
           CASES[_i].name, at, nt, every);
    memset(&w, 0, sizeof w);
    w.stop_at = at + 1; /* cancelled is polled before each step */
    ck_assert_int_eq(run_as(spec, slabs, path_in("part"), path_in("ck"), every, 1, &w, &res),
                     FDW_ERR_CANCELLED);
    ck_assert_int_eq(res.steps_done, at);
    ck_assert_int_eq(res.checkpoint_step, every);
    ck_assert_msg(strstr(w.waited, "the run's stop waits for the write of step"), "%s",
                  w.waited);
    memset(&w, 0, sizeof w);
    ck_assert_int_eq(run(spec, slabs, path_in("part"), path_in("ck"), every, &w, &res), FDW_OK);
    ck_assert_int_eq(res.resumed_step, every);
    assert_same_and_clean(_i, spec);
}
END_TEST

int main(void)
{
    if (fdw_gpu_count() == 0) {
        printf("test_gpu_checkpoint: no CUDA device (or a build without CUDA): skipping\n");
        return 77;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *s = getenv("FDW_TEST_SEED");
    g_seed = s && s[0] ? (unsigned)strtoul(s, NULL, 10) : (unsigned)time(NULL);
    printf("test_gpu_checkpoint: FDW_TEST_SEED=%u\n", g_seed);
    Suite *suite = suite_create("gpu_checkpoint");
    TCase *tc = tcase_create("gpu_checkpoint");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, suspend_resume_bit_identical, 0, NCASES);
    tcase_add_loop_test(tc, cancel_while_writing_resumes_bit_identical, 0, NCASES);
    suite_add_tcase(suite, tc);
    SRunner *sr = srunner_create(suite);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_VERBOSE);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
