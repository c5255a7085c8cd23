/* test_checkpoint.c — checkpoints in the engine, through the public API (CPU backend): for
 * every kind, a run suspended at random steps (fdw_callbacks.suspend: a checkpoint is
 * written there and the run stops) and resumed, twice, ends with outputs identical bit for
 * bit to an uninterrupted run's; a checkpoint damaged, cut short, written for another spec
 * or another device count, or named by a malformed "current", is not used (the log says
 * why) and the run starts at step 0 with the same outputs; a checkpoint that cannot be
 * written fails the run naming the file and the reason (the previous one stays current),
 * and so does a directory that cannot be made; a completed run removes its checkpoints,
 * and a resumed run removes the temporary of an output a killed run left. Checkpoints are
 * written by a thread of their own while the loop goes on: a write held in flight
 * (ckpt_gate.h, no timing) is waited for by a cancellation, a suspension and the run's
 * end, each leaving a complete checkpoint to resume from, and a kill -9 during it leaves
 * the previous one. The seed of the random steps is printed (FDW_TEST_SEED sets it). */
#include "ckpt_gate.h"
#include "ckpt_util.h"
#include "fdwave/fdwave.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned g_seed;
static char g_dir[512];
static int g_hold_writes; /* run() holds every checkpoint's write in flight (ckpt_gate.h) */

typedef ckpt_watch watch;

static fdw_spec *parse(const char *json)
{
    fdw_spec *spec = NULL;
    fdw_error err;
    fdw_status st = fdw_spec_parse(json, strlen(json), NULL, &spec, &err);
    ck_assert_msg(st == FDW_OK, "spec: %s: %s", err.field, err.message);
    return spec;
}

/* One run into out with callbacks cb; checkpoints every `every` steps in ck (NULL:
 * none). Returns the status; err and res get the run's. */
static fdw_status run_with(const fdw_spec *spec, const char *out, const char *ck, long every,
                           const fdw_callbacks *cb, fdw_result *res, fdw_error *err)
{
    fdw_checkpoint_opts co = {.dir = ck, .every_steps = every, .resume = 1};
    fdw_run_opts ro = {.out_dir = out, .backend = FDW_BACKEND_CPU, .threads = 2,
                       .checkpoint = ck ? &co : NULL};
    memset(err, 0, sizeof *err);
    memset(res, 0, sizeof *res);
    return fdw_run(spec, &ro, cb, res, err);
}

/* One run into out; checkpoints in ck (NULL: none). Returns the status. */
static fdw_status run(const fdw_spec *spec, const char *out, const char *ck, long every,
                      watch *w, fdw_result *res)
{
    if (g_hold_writes) { /* each write goes on once the run waits for it */
        w->on_line = ckpt_gate_on_log;
        ckpt_gate_hold(0, -1);
    }
    fdw_callbacks cb = ckpt_callbacks(w);
    fdw_error err;
    fdw_status st = run_with(spec, out, ck, every, &cb, res, &err);
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

/* Every kind: suspended at two random steps, resumed each time, same outputs; a second
 * time with every checkpoint's write held in flight until the run waits for it. */
START_TEST(suspend_resume_bit_identical)
{
    const char *name;
    const int k = _i % CKPT_NSPECS;
    g_hold_writes = _i >= CKPT_NSPECS;
    fdw_spec *spec = parse(ckpt_spec(k, &name));
    const long nt = fdw_spec_steps(spec);
    const int saves = k != CKPT_NSPECS - 1; /* the sweep keeps no checkpoints */
    watch w;
    fdw_result res;
    memset(&w, 0, sizeof w);
    ck_assert_int_eq(run(spec, path_in("full"), NULL, 0, &w, &res), FDW_OK);
    ck_assert_int_eq(res.checkpoint_step, -1);

    long first = 1 + (long)(rand_r(&g_seed) % (unsigned)(nt - 2));
    long second = first + 1 + (long)(rand_r(&g_seed) % (unsigned)(nt - first - 1));
    long every = 1 + (long)(rand_r(&g_seed) % (unsigned)nt);
    fprintf(stderr, "%s: suspend at %ld and %ld of %ld, checkpoints every %ld steps%s\n",
            name, first, second, nt, every, g_hold_writes ? ", writes held" : "");
    memset(&w, 0, sizeof w);
    w.suspend_at = first;
    ck_assert_int_eq(run(spec, path_in("part"), path_in("ck"), every, &w, &res),
                     FDW_ERR_CANCELLED);
    ck_assert(res.suspended);
    ck_assert_int_eq(res.checkpoint_step, saves ? first : -1);
    ck_assert_int_eq(res.steps_done, first);
    /* the host estimate holds the image a checkpoint is copied into */
    ck_assert_msg(ckpt_fits_estimate(&w, spec, FDW_BACKEND_CPU), "%s: a checkpoint of %llu "
                  "bytes; estimate %llu", name, (unsigned long long)w.largest,
                  (unsigned long long)fdw_spec_checkpoint_bytes(spec, FDW_BACKEND_CPU));
    ck_assert_int_eq(fdw_spec_checkpoint_bytes(spec, FDW_BACKEND_CPU) > 0, saves);

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

/* Whether "current" in ck names step (as rank 0 of 1 writes it). */
static void assert_current(long step)
{
    char path[800], want[96], have[96] = "";
    snprintf(path, sizeof path, "%s/current", path_in("ck"));
    snprintf(want, sizeof want, "fdwave checkpoint\nstep %ld\nranks 1\n", step);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    const size_t n = fread(have, 1, sizeof have - 1, f);
    have[n] = '\0';
    fclose(f);
    ck_assert_str_eq(have, want);
}

/* A run that completes from the checkpoint of step `from` in ck: the outputs of one that
 * never stopped. */
static void resume_completes(const fdw_spec *spec, long from, long every)
{
    watch w;
    fdw_result res;
    memset(&w, 0, sizeof w);
    ck_assert_int_eq(run(spec, path_in("part"), path_in("ck"), every, &w, &res), FDW_OK);
    ck_assert_int_eq(res.resumed_step, from);
    assert_same(path_in("full"), path_in("part"));
}

START_TEST(unwritable_checkpoint_fails_the_run)
{
    fdw_spec *spec = acoustic_with_full_run();
    /* The second checkpoint's temporary name is taken by a directory: the run fails
     * naming the file and why, and the first checkpoint stays current. */
    ck_assert_int_eq(mkdir(path_in("ck"), 0750), 0);
    ck_assert_int_eq(mkdir(path_in("ck/ckpt-20.r0.tmp"), 0750), 0);
    watch w;
    memset(&w, 0, sizeof w);
    fdw_callbacks cb = ckpt_callbacks(&w);
    fdw_result res;
    fdw_error err;
    ck_assert_int_eq(run_with(spec, path_in("part"), path_in("ck"), 10, &cb, &res, &err),
                     FDW_ERR_IO);
    ck_assert_msg(strstr(err.message, "checkpoint of step 20 not written") &&
                      strstr(err.message, path_in("ck/ckpt-20.r0.tmp")) &&
                      strstr(err.message, "Is a directory"),
                  "%s", err.message);
    ck_assert_int_eq(res.checkpoint_step, 10);
    ck_assert_int_eq(w.checkpoints, 1);
    assert_current(10);
    /* once the way is clear, a run resumes from it */
    ck_assert_int_eq(rmdir(path_in("ck/ckpt-20.r0.tmp")), 0);
    resume_completes(spec, 10, 10);
    /* A checkpoint directory that cannot be made: the run fails at once, naming it. */
    ckpt_rmtree(path_in("ck"));
    ck_assert_int_eq(ckpt_write_file(path_in("ck"), "a file"), 0);
    memset(&w, 0, sizeof w);
    ck_assert_int_eq(run_with(spec, path_in("part"), path_in("ck/sub"), 10, &cb, &res, &err),
                     FDW_ERR_IO);
    ck_assert_msg(strstr(err.message, "cannot create checkpoint directory") &&
                      strstr(err.message, path_in("ck/sub")),
                  "%s", err.message);
    ck_assert_int_eq(res.steps_done, 0);
    /* One that cannot be written in (root writes anywhere: only for other users). */
    if (geteuid() != 0) {
        ck_assert_int_eq(mkdir(path_in("ro"), 0500), 0);
        ck_assert_int_eq(run_with(spec, path_in("part"), path_in("ro"), 10, &cb, &res, &err),
                         FDW_ERR_IO);
        ck_assert_msg(strstr(err.message, "is not writable") &&
                          strstr(err.message, path_in("ro")),
                      "%s", err.message);
    }
    fdw_spec_free(spec);
}
END_TEST

enum { GO_ON, CANCEL, SUSPEND };

/* A run (acoustic, 2 slabs, a checkpoint every `every` steps) with the first checkpoint's
 * write held until the run waits for it; stopped (how) at the polls-th poll once the write
 * is held (ckpt_gate_stop). Returns the status; res gets the result, w what it saw. */
static fdw_status run_held(const fdw_spec *spec, long every, int how, long polls, watch *w,
                           fdw_result *res)
{
    memset(w, 0, sizeof *w);
    w->on_line = ckpt_gate_on_log;
    w->stop_at = polls;
    fdw_callbacks cb = ckpt_callbacks(w);
    if (how == CANCEL)
        cb.cancelled = ckpt_gate_stop;
    else if (how == SUSPEND)
        cb.suspend = ckpt_gate_stop;
    ckpt_gate_hold(0, 1);
    fdw_error err;
    const fdw_status st = run_with(spec, path_in("part"), path_in("ck"), every, &cb, res, &err);
    ck_assert_msg(st == FDW_OK || st == FDW_ERR_CANCELLED, "run failed: %s", err.message);
    ck_assert_int_eq(w->empty, 0);
    return st;
}

/* A cancellation at step 12 and a suspension at step 15 while the checkpoint of step 10
 * is being written: each waits for it (the suspension before it writes its own), and the
 * run resumes from the last checkpoint complete on disk. */
static const struct {
    int how;
    long polls, stopped_at, current;
    const char *waited;
} STOPS[] = {
    {CANCEL, 13, 12, 10, "the run's stop waits for the write of step 10"},
    {SUSPEND, 15, 15, 15, "the next checkpoint waits for the write of step 10"},
};

START_TEST(stop_waits_for_the_write_in_flight)
{
    fdw_spec *spec = acoustic_with_full_run();
    fdw_result res;
    watch w;
    ck_assert_int_eq(run_held(spec, 10, STOPS[_i].how, STOPS[_i].polls, &w, &res),
                     FDW_ERR_CANCELLED);
    ck_assert_int_eq(res.suspended, STOPS[_i].how == SUSPEND);
    ck_assert_int_eq(res.steps_done, STOPS[_i].stopped_at);
    ck_assert_int_eq(res.checkpoint_step, STOPS[_i].current);
    ck_assert_msg(strstr(w.waited, STOPS[_i].waited), "%s", w.waited);
    assert_current(STOPS[_i].current);
    resume_completes(spec, STOPS[_i].current, 10);
    fdw_spec_free(spec);
}
END_TEST

START_TEST(end_waits_for_the_write_in_flight)
{
    fdw_spec *spec = acoustic_with_full_run();
    fdw_result res;
    watch w;
    /* the checkpoint of step 80 is still being written when step 90 is done */
    ck_assert_int_eq(run_held(spec, 80, GO_ON, 0, &w, &res), FDW_OK);
    ck_assert_msg(strstr(w.waited, "the run's end waits for the write of step 80"), "%s",
                  w.waited);
    ck_assert_int_eq(res.checkpoint_step, 80);
    assert_same(path_in("full"), path_in("part"));
    struct stat sb;
    ck_assert_msg(stat(path_in("ck"), &sb) != 0, "a completed run left its checkpoints");
    fdw_spec_free(spec);
}
END_TEST

/* The loop's thread, as the cancelled poll sees it. */
static pid_t g_loop_tid;
static int note_loop_thread(void *user)
{
    (void)user;
    g_loop_tid = (pid_t)syscall(SYS_gettid);
    return 0;
}

/* A published checkpoint's older file is removed on the writer's thread, not in the loop
 * (a 9.6 GiB file's unlink held an H200 run's loop for seconds): with the last checkpoint
 * kept, every removal the run makes is one of those. */
START_TEST(older_files_removed_beside_the_loop)
{
    fdw_spec *spec = acoustic_with_full_run();
    watch w;
    memset(&w, 0, sizeof w);
    fdw_callbacks cb = ckpt_callbacks(&w);
    cb.cancelled = note_loop_thread;
    fdw_checkpoint_opts co = {.dir = path_in("ck"), .every_steps = 10, .keep = 1};
    fdw_run_opts ro = {.out_dir = path_in("part"), .backend = FDW_BACKEND_CPU, .threads = 2,
                       .checkpoint = &co};
    fdw_result res;
    fdw_error err;
    ckpt_gate_unlinks_reset();
    ck_assert_msg(fdw_run(spec, &ro, &cb, &res, &err) == FDW_OK, "%s", err.message);
    pid_t tids[64];
    const int n = ckpt_gate_unlinks(tids, 64);
    ck_assert_msg(n >= 1 && w.checkpoints >= 2, "%d removals, %d checkpoints", n,
                  w.checkpoints);
    for (int i = 0; i < n; i++)
        ck_assert_msg(tids[i] != g_loop_tid, "removal %d of %d ran on the loop's thread", i + 1,
                      n);
    fdw_spec_free(spec);
}
END_TEST

/* cancelled, in the child of the test below: once the write of the second checkpoint is
 * held, say so on fd g_tell and wait to be killed. */
static int g_tell = -1;
static int tell_when_held(void *user)
{
    if (!ckpt_gate_stop(user))
        return 0;
    if (write(g_tell, "h", 1) != 1)
        _exit(3);
    for (;;)
        pause();
}

START_TEST(kill9_during_a_write_leaves_the_previous_checkpoint)
{
    fdw_spec *spec = parse(ckpt_spec(0, NULL));
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    /* the engine runs in a child (forked before this process starts any thread) */
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        g_tell = fds[1];
        ckpt_gate_hold(1, 1); /* the checkpoint of step 20 */
        watch w;
        memset(&w, 0, sizeof w);
        w.stop_at = 22;
        fdw_callbacks cb = ckpt_callbacks(&w);
        cb.cancelled = tell_when_held;
        fdw_result res;
        fdw_error err;
        run_with(spec, path_in("part"), path_in("ck"), 10, &cb, &res, &err);
        _exit(2); /* not reached */
    }
    close(fds[1]);
    char c = 0;
    ck_assert_int_eq(read(fds[0], &c, 1), 1);
    close(fds[0]);
    kill(pid, SIGKILL);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    /* the write of step 20 was cut short before its rename: step 10 stays current */
    struct stat sb;
    ck_assert_int_eq(stat(path_in("ck/ckpt-20.r0.tmp"), &sb), 0);
    ck_assert_int_ne(stat(path_in("ck/ckpt-20.r0"), &sb), 0);
    assert_current(10);
    watch w;
    fdw_result res;
    memset(&w, 0, sizeof w);
    ck_assert_int_eq(run(spec, path_in("full"), NULL, 0, &w, &res), FDW_OK);
    resume_completes(spec, 10, 10);
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
    tcase_add_loop_test(tc, suspend_resume_bit_identical, 0, 2 * CKPT_NSPECS);
    tcase_add_test(tc, damaged_checkpoint_not_used);
    tcase_add_test(tc, foreign_checkpoint_not_used);
    tcase_add_test(tc, unwritable_checkpoint_fails_the_run);
    tcase_add_loop_test(tc, stop_waits_for_the_write_in_flight, 0,
                        (int)(sizeof STOPS / sizeof STOPS[0]));
    tcase_add_test(tc, end_waits_for_the_write_in_flight);
    tcase_add_test(tc, older_files_removed_beside_the_loop);
    tcase_add_test(tc, kill9_during_a_write_leaves_the_previous_checkpoint);
    suite_add_tcase(suite, tc);
    SRunner *sr = srunner_create(suite);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
