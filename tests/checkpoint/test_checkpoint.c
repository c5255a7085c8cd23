/* test_checkpoint.c — checkpoints in the engine, through the public API (CPU backend): for
 * every kind, a run suspended at random steps (fdw_callbacks.suspend: a checkpoint is
 * written there and the run stops) and resumed, twice, ends with outputs identical bit for
 * bit to an uninterrupted run's; a checkpoint damaged, cut short, written for another spec
 * or another device count, or named by a malformed "current", is not used (the log says
 * why) and the run starts at step 0 with the same outputs; a checkpoint that cannot be
 * written, or a directory that cannot be made, leaves the run going; a completed run
 * removes its checkpoints, and a resumed run removes the temporary of an output a killed run
 * left. The seed of the random steps is printed (FDW_TEST_SEED sets it). */
#include "ckpt_util.h"
#include "fdwave/fdwave.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static unsigned g_seed;
static char g_dir[512];

typedef ckpt_watch watch;

static fdw_spec *parse(const char *json)
{
    fdw_spec *spec = NULL;
    fdw_error err;
    fdw_status st = fdw_spec_parse(json, strlen(json), NULL, &spec, &err);
    ck_assert_msg(st == FDW_OK, "spec: %s: %s", err.field, err.message);
    return spec;
}

/* One run into out; checkpoints in ck (NULL: none). Returns the status. */
static fdw_status run(const fdw_spec *spec, const char *out, const char *ck, long every,
                      watch *w, fdw_result *res)
{
    fdw_checkpoint_opts co = {.dir = ck, .every_steps = every, .resume = 1};
    fdw_run_opts ro = {.out_dir = out, .backend = FDW_BACKEND_CPU, .threads = 2,
                       .checkpoint = ck ? &co : NULL};
    fdw_callbacks cb = ckpt_callbacks(w);
    fdw_error err;
    memset(&err, 0, sizeof err);
    memset(res, 0, sizeof *res);
    fdw_status st = fdw_run(spec, &ro, &cb, res, &err);
    if (st != FDW_OK && st != FDW_ERR_CANCELLED)
        ck_abort_msg("run failed: %s: %s", err.field, err.message);
    ck_assert_int_eq(w->empty, 0);
    return st;
}

static const char *path_in(const char *name)
{
    static char bufs[4][700];
    static int next;
    char *b = bufs[next++ & 3];
    snprintf(b, sizeof bufs[0], "%s/%s", g_dir, name);
    return b;
}

static void assert_same(const char *a, const char *b)
{
    char why[512] = "";
    ck_assert_msg(ckpt_outputs_equal(a, b, why, sizeof why), "seed %u: %s", g_seed, why);
}

static void setup(void)
{
    ckpt_tmpdir("ckpt", g_dir, sizeof g_dir);
    ck_assert(g_dir[0]);
}

static void teardown(void)
{
    ckpt_rmtree(g_dir);
}

/* Every kind: suspended at two random steps, resumed each time, same outputs. */
START_TEST(suspend_resume_bit_identical)
{
    const char *name;
    fdw_spec *spec = parse(ckpt_spec(_i, &name));
    const long nt = fdw_spec_steps(spec);
    const int saves = _i != CKPT_NSPECS - 1; /* the sweep keeps no checkpoints */
    watch w;
    fdw_result res;
    memset(&w, 0, sizeof w);
    ck_assert_int_eq(run(spec, path_in("full"), NULL, 0, &w, &res), FDW_OK);
    ck_assert_int_eq(res.checkpoint_step, -1);

    long first = 1 + (long)(rand_r(&g_seed) % (unsigned)(nt - 2));
    long second = first + 1 + (long)(rand_r(&g_seed) % (unsigned)(nt - first - 1));
    long every = 1 + (long)(rand_r(&g_seed) % (unsigned)nt);
    fprintf(stderr, "%s: suspend at %ld and %ld of %ld, checkpoints every %ld steps\n", name,
            first, second, nt, every);
    memset(&w, 0, sizeof w);
    w.suspend_at = first;
    ck_assert_int_eq(run(spec, path_in("part"), path_in("ck"), every, &w, &res),
                     FDW_ERR_CANCELLED);
    ck_assert(res.suspended);
    ck_assert_int_eq(res.checkpoint_step, saves ? first : -1);
    ck_assert_int_eq(res.steps_done, first);

    memset(&w, 0, sizeof w);
    w.suspend_at = second;
    ck_assert_int_eq(run(spec, path_in("part"), path_in("ck"), every, &w, &res),
                     FDW_ERR_CANCELLED);
    ck_assert_int_eq(res.resumed_step, saves ? first : 0);
    ck_assert_int_eq(w.resumed, saves);
    ck_assert_int_eq(res.steps_done, second);

    /* what a run killed while writing an output leaves (output/atomic_file.c): removed */
    ck_assert_int_eq(ckpt_write_file(path_in("part/manifest.json.tmpQ1w2E3"), "{"), 0);
    memset(&w, 0, sizeof w);
    ck_assert_int_eq(run(spec, path_in("part"), path_in("ck"), every, &w, &res), FDW_OK);
    ck_assert_msg(strstr(w.log, "removed 1 unfinished output file") != NULL, "%s", w.log);
    ck_assert_int_eq(res.resumed_step, saves ? second : 0);
    if (saves)
        ck_assert_msg(strstr(w.log, "resumed at step") != NULL, "%s", w.log);
    else
        ck_assert_msg(strstr(w.log, "keeps none") != NULL, "%s", w.log);
    assert_same(path_in("full"), path_in("part"));
    struct stat sb;
    ck_assert_msg(stat(path_in("ck"), &sb) != 0, "a completed run left its checkpoints");
    fdw_spec_free(spec);
}
END_TEST

/* Leave a checkpoint of step `at` in ck for spec (acoustic, 2 slabs). */
static void leave_checkpoint(const fdw_spec *spec, long at)
{
    watch w;
    fdw_result res;
    memset(&w, 0, sizeof w);
    w.suspend_at = at;
    ck_assert_int_eq(run(spec, path_in("part"), path_in("ck"), 0, &w, &res),
                     FDW_ERR_CANCELLED);
    ck_assert_int_eq(res.checkpoint_step, at);
}

/* A resume that must not use the checkpoint: starts at 0, says why, same outputs. */
static void resume_refused(const fdw_spec *spec, const char *because)
{
    watch w;
    fdw_result res;
    memset(&w, 0, sizeof w);
    ck_assert_int_eq(run(spec, path_in("part"), path_in("ck"), 0, &w, &res), FDW_OK);
    ck_assert_int_eq(res.resumed_step, 0);
    ck_assert_int_eq(w.resumed, 0);
    ck_assert_msg(strstr(w.log, "not used") && strstr(w.log, because),
                  "expected \"%s\" in the log:\n%s", because, w.log);
    assert_same(path_in("full"), path_in("part"));
}

static fdw_spec *acoustic_with_full_run(void)
{
    fdw_spec *spec = parse(ckpt_spec(0, NULL));
    watch w;
    fdw_result res;
    memset(&w, 0, sizeof w);
    ck_assert_int_eq(run(spec, path_in("full"), NULL, 0, &w, &res), FDW_OK);
    return spec;
}

/* Flip one byte of the checkpoint file of step at, offset off from its end. */
static void damage(long at, long off, int cut)
{
    char path[800];
    snprintf(path, sizeof path, "%s/ckpt-%ld.r0", path_in("ck"), at);
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    if (cut) {
        fclose(f);
        ck_assert_int_eq(truncate(path, n - off), 0);
        return;
    }
    fseek(f, n - off, SEEK_SET);
    int c = fgetc(f);
    fseek(f, n - off, SEEK_SET);
    fputc(c ^ 0x10, f);
    fclose(f);
}

START_TEST(damaged_checkpoint_not_used)
{
    fdw_spec *spec = acoustic_with_full_run();
    leave_checkpoint(spec, 33);
    damage(33, 5000, 0);
    resume_refused(spec, "damaged");
    leave_checkpoint(spec, 41);
    damage(41, 100, 1);
    resume_refused(spec, "damaged");
    fdw_spec_free(spec);
}
END_TEST

START_TEST(foreign_checkpoint_not_used)
{
    fdw_spec *spec = acoustic_with_full_run();
    /* written for the same grid with another nt: another spec */
    char other[4096];
    snprintf(other, sizeof other, "%s", ckpt_spec(0, NULL));
    char *nt = strstr(other, "\"nt\":90");
    ck_assert_ptr_nonnull(nt);
    memcpy(nt, "\"nt\":91", 7);
    fdw_spec *o = parse(other);
    leave_checkpoint(o, 20);
    resume_refused(spec, "another job spec");
    /* written for 1 slab of the same grid */
    snprintf(other, sizeof other, "%s", ckpt_spec(0, NULL));
    char *dev = strstr(other, "\"devices\":2");
    ck_assert_ptr_nonnull(dev);
    dev[10] = '1';
    fdw_spec_free(o);
    o = parse(other);
    leave_checkpoint(o, 20);
    resume_refused(spec, "another job spec");
    fdw_spec_free(o);
    /* "current" naming a step that has no file, and a malformed "current" */
    leave_checkpoint(spec, 25);
    char cur[800];
    snprintf(cur, sizeof cur, "%s/current", path_in("ck"));
    ck_assert_int_eq(ckpt_write_file(cur, "fdwave checkpoint\nstep 26\nranks 1\n"), 0);
    resume_refused(spec, "cannot open");
    leave_checkpoint(spec, 25);
    ck_assert_int_eq(ckpt_write_file(cur, "step 25\n"), 0);
    resume_refused(spec, "malformed");
    fdw_spec_free(spec);
}
END_TEST

START_TEST(unwritable_checkpoint_run_goes_on)
{
    fdw_spec *spec = acoustic_with_full_run();
    /* The first checkpoint's temporary name is taken by a directory: that one cannot be
     * written, the later ones can. */
    ck_assert_int_eq(mkdir(path_in("ck"), 0750), 0);
    ck_assert_int_eq(mkdir(path_in("ck/ckpt-10.r0.tmp"), 0750), 0);
    watch w;
    fdw_result res;
    memset(&w, 0, sizeof w);
    ck_assert_int_eq(run(spec, path_in("part"), path_in("ck"), 10, &w, &res), FDW_OK);
    ck_assert_msg(strstr(w.log, "checkpoint at step 10 not written") != NULL, "%s", w.log);
    ck_assert_int_eq(w.checkpoints, 7); /* steps 20 .. 80 */
    assert_same(path_in("full"), path_in("part"));
    /* A checkpoint directory that cannot be made: the run goes on without. */
    ckpt_rmtree(path_in("ck"));
    ck_assert_int_eq(ckpt_write_file(path_in("ck"), "a file"), 0);
    memset(&w, 0, sizeof w);
    ck_assert_int_eq(run(spec, path_in("part"), path_in("ck/sub"), 10, &w, &res), FDW_OK);
    ck_assert_msg(strstr(w.log, "checkpoints off") != NULL, "%s", w.log);
    ck_assert_int_eq(w.checkpoints, 0);
    assert_same(path_in("full"), path_in("part"));
    fdw_spec_free(spec);
}
END_TEST

int main(void)
{
    const char *s = getenv("FDW_TEST_SEED");
    g_seed = s && s[0] ? (unsigned)strtoul(s, NULL, 10) : (unsigned)time(NULL);
    fprintf(stderr, "test_checkpoint: FDW_TEST_SEED=%u\n", g_seed);
    Suite *suite = suite_create("checkpoint");
    TCase *tc = tcase_create("engine");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, suspend_resume_bit_identical, 0, CKPT_NSPECS);
    tcase_add_test(tc, damaged_checkpoint_not_used);
    tcase_add_test(tc, foreign_checkpoint_not_used);
    tcase_add_test(tc, unwritable_checkpoint_run_goes_on);
    suite_add_tcase(suite, tc);
    SRunner *sr = srunner_create(suite);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
