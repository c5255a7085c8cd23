/* test_checkpoint_kill.c — fdwave-run --checkpoint killed with SIGKILL at random moments
 * (up to four times, wherever the run is: mid-step, mid-checkpoint, mid-snapshot) and
 * started again with the same command until it completes: the outputs equal an
 * uninterrupted run's bit for bit, and the later starts resumed from a checkpoint. Once on
 * one process (2 slabs), once on 2 MPI ranks (skipped where fdwave-run has no MPI or there
 * is no mpirun). The seed of the kill times is printed (FDW_TEST_SEED sets it).
 * FDW_CKPT_RUN_ARGS adds words to every fdwave-run command line (tests/gpu/run.sh's
 * checkpoint stage: "--backend cuda --devices 0,0", the same kills on the GPU). */
#include "ckpt_util.h"

#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned g_seed;
static char g_dir[512];

static const char *path_in(const char *name)
{
    static char bufs[8][700];
    static int next;
    char *b = bufs[next++ & 7];
    snprintf(b, sizeof bufs[0], "%s/%s", g_dir, name);
    return b;
}

static void setup(void)
{
    ckpt_tmpdir("ckill", g_dir, sizeof g_dir);
    ck_assert(g_dir[0]);
    /* The acoustic job with a CPML on 2 slabs, long enough to be killed several times. */
    char spec[4096];
    snprintf(spec, sizeof spec, "%s", ckpt_spec(0, NULL));
    char *nt = strstr(spec, "\"nt\":90");
    ck_assert_ptr_nonnull(nt);
    memmove(nt + 9, nt + 7, strlen(nt + 7) + 1);
    memcpy(nt, "\"nt\":1500", 9);
    ck_assert_int_eq(ckpt_write_file(path_in("job.json"), spec), 0);
}

static void teardown(void)
{
    ckpt_rmtree(g_dir);
}

/* Start argv in a process group of its own (so mpirun and its ranks die together), its
 * output into log. */
static pid_t start(char *const argv[], const char *log)
{
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

/* Wait up to ms for pid; its status, or -1 when it still runs. */
static int wait_for(pid_t pid, long ms)
{
    for (long t = 0; t <= ms; t += 10) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid)
            return status;
        usleep(10000);
    }
    return -1;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *p = calloc(1, 1 << 20);
    if (f) {
        size_t n = fread(p, 1, (1 << 20) - 1, f);
        p[n] = '\0';
        fclose(f);
    }
    return p;
}

/* The words of FDW_CKPT_RUN_ARGS appended to argv at *n (at most 8). */
static void extra_args(char **argv, int *n)
{
    static char buf[512];
    const char *e = getenv("FDW_CKPT_RUN_ARGS");
    snprintf(buf, sizeof buf, "%s", e ? e : "");
    int k = 0;
    for (char *save = NULL, *w = strtok_r(buf, " \t", &save); w && k < 8;
         w = strtok_r(NULL, " \t", &save), k++)
        argv[(*n)++] = w;
}

/* The last 3000 bytes of text (Check refuses longer messages). */
static const char *tail_of(const char *text)
{
    const size_t n = strlen(text);
    return n > 3000 ? text + n - 3000 : text;
}

/* The uninterrupted run, then runs killed at random until one completes; compare. */
static void kill_and_resume(int mpi)
{
    char *full[24] = {FDWAVE_RUN, (char *)path_in("job.json"), "-q", "-o",
                      (char *)path_in("full"), NULL};
    int nfull = 5;
    extra_args(full, &nfull);
    full[nfull] = NULL;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = start(full, path_in("full.log"));
    int status = wait_for(pid, 100000);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* kills fall within the first 80% of an uninterrupted run's time */
    const long span = (long)(800.0 * (double)(t1.tv_sec - t0.tv_sec) +
                             0.8e-6 * (double)(t1.tv_nsec - t0.tv_nsec));
    ck_assert_msg(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "uninterrupted run failed: %s", tail_of(read_text(path_in("full.log"))));
    char *argv[32];
    int n = 0;
    if (mpi) {
        argv[n++] = MPIRUN;
        argv[n++] = "--oversubscribe";
        argv[n++] = "-np";
        argv[n++] = "2";
    }
    /* path_in's buffers are reused: the loop's paths are copied once */
    char job[700], part[700], ck[700], part_log[700];
    snprintf(job, sizeof job, "%s", path_in("job.json"));
    snprintf(part, sizeof part, "%s", path_in("part"));
    snprintf(ck, sizeof ck, "%s", path_in("ck"));
    snprintf(part_log, sizeof part_log, "%s", path_in("part.log"));
    argv[n++] = FDWAVE_RUN;
    argv[n++] = job;
    argv[n++] = "-o";
    argv[n++] = part;
    argv[n++] = "--checkpoint";
    argv[n++] = ck;
    argv[n++] = "--checkpoint-steps";
    argv[n++] = "40";
    extra_args(argv, &n);
    argv[n] = NULL;
    /* under mpirun the start takes longer: the kills spread over it too */
    const long window = (span > 30 ? span : 30) + (mpi ? 1500 : 0);
    int kills = 0, done = 0;
    long final_from = 0; /* where the completing run's part of part.log begins */
    for (int attempt = 0; attempt < 12 && !done; attempt++) {
        struct stat lb;
        final_from = stat(part_log, &lb) == 0 ? (long)lb.st_size : 0;
        pid = start(argv, part_log);
        if (kills < 4) {
            long ms = 30 + (long)(rand_r(&g_seed) % (unsigned)window);
            status = wait_for(pid, ms);
            if (status < 0) {
                kill(-pid, SIGKILL);
                waitpid(pid, &status, 0);
                kills++;
                fprintf(stderr, "%s: killed after %ld ms\n", mpi ? "2 ranks" : "1 process", ms);
                continue;
            }
        } else {
            status = wait_for(pid, 100000);
        }
        ck_assert_msg(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "seed %u: run failed: %s", g_seed, tail_of(read_text(part_log)));
        done = 1;
    }
    ck_assert_msg(done, "the run never completed");
    char *log = read_text(path_in("part.log"));
    /* a checkpoint written by a killed run: the completing run resumed from one (unless a
     * "killed" run had completed, removing its checkpoints, before its launcher exited:
     * only what was written since counts) */
    const long logged = (long)strlen(log);
    char *last = log + (final_from < logged ? final_from : logged);
    const char saved = *last;
    *last = '\0';
    const char *since = log;
    const char *done_line = "fdwave-run: done:";
    for (const char *d = strstr(log, done_line); d; d = strstr(d + 1, done_line))
        since = d;
    const int written_before = strstr(since, "checkpoint written at step") != NULL;
    *last = saved;
    if (written_before)
        ck_assert_msg(strstr(last, "resumed from the checkpoint of step") != NULL,
                      "seed %u: no resume after a checkpoint was written:\n%s", g_seed,
                      tail_of(log));
    ck_assert_msg(strstr(log, "not used") == NULL, "seed %u: a checkpoint was refused:\n%s",
                  g_seed, tail_of(log));
    free(log);
    char why[512] = "";
    ck_assert_msg(ckpt_outputs_equal(path_in("full"), path_in("part"), why, sizeof why),
                  "seed %u: %s", g_seed, why);
}

START_TEST(kill9_one_process)
{
    kill_and_resume(0);
}
END_TEST

START_TEST(kill9_two_mpi_ranks)
{
    struct stat sb;
    if (!HAVE_MPI || stat(MPIRUN, &sb) != 0) {
        fprintf(stderr, "kill9_two_mpi_ranks: no MPI in fdwave-run or no mpirun: skipped\n");
        return;
    }
    kill_and_resume(1);
}
END_TEST

int main(void)
{
    const char *s = getenv("FDW_TEST_SEED");
    g_seed = s && s[0] ? (unsigned)strtoul(s, NULL, 10) : (unsigned)time(NULL);
    fprintf(stderr, "test_checkpoint_kill: FDW_TEST_SEED=%u\n", g_seed);
    Suite *suite = suite_create("checkpoint_kill");
    TCase *tc = tcase_create("kill9");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, kill9_one_process);
    tcase_add_test(tc, kill9_two_mpi_ranks);
    suite_add_tcase(suite, tc);
    SRunner *sr = srunner_create(suite);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
