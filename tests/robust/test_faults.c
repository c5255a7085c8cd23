/* test_faults.c — disk and database faults (issue 16, point 4), against a real fdwaved:
 *   the disk fills at the end of a job (diskfull_shim.c, loaded with LD_PRELOAD: writes
 *   under the data directory fail with ENOSPC while a trigger file exists, and statvfs
 *   says no space): the job's outputs cannot be written, nor its end recorded; the daemon
 *   gives up its disk reserve, says "degraded" in /v1/health and retries; once space is
 *   back the job ends failed with "disk full" as its reason, a stream opened before ends
 *   with its "end" event, cancel answers 409 (not 500), and the reserve is made again;
 *   a damaged database (the jobs table's root page zeroed) is refused at start with the way
 *   to restore it, `fdwaved check` says so too, and a copy made by `fdwaved backup FILE`
 *   while the daemon ran restores every job. */
#include "robust_util.h"

#include <check.h>
#include <curl/curl.h>
#include <limits.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static daemon_proc D;

static void setup(void)
{
    curl_global_init(CURL_GLOBAL_ALL);
    harness_tmpdir(D.data, sizeof D.data);
    D.wrapper = NULL;
}

static void teardown(void)
{
    harness_stop(&D);
    harness_rmtree(D.data);
    D.wrapper = NULL;
}

/* A live event stream read to its end on a thread. */
typedef struct stream {
    long id;
    pthread_t t;
    char *body;
} stream;

static void *read_stream(void *arg)
{
    stream *s = arg;
    s->body = job_events(&D, s->id);
    return NULL;
}

static char *get_text(const char *path, long *status)
{
    http_resp r;
    ck_assert_int_eq(http(&D, "GET", path, NULL, NULL, 0, &r), 0);
    *status = r.status;
    return r.body; /* taken over */
}

/* The value of metric name in /metrics (-1 when absent). */
static double metric(const char *name)
{
    long st;
    char *m = get_text("/metrics", &st), want[128];
    snprintf(want, sizeof want, "\n%s ", name);
    const char *at = strstr(m, want);
    const double v = at ? atof(at + strlen(want)) : -1;
    free(m);
    return v;
}

START_TEST(disk_full_at_the_end_of_a_job)
{
    char data[PATH_MAX], trigger[PATH_MAX + 16], env_dir[PATH_MAX + 32],
        env_trigger[PATH_MAX + 48], env_preload[PATH_MAX + 32];
    ck_assert_ptr_nonnull(realpath(D.data, data));
    snprintf(trigger, sizeof trigger, "%s.full", data); /* beside the data directory */
    snprintf(env_dir, sizeof env_dir, "FDW_DISKFULL_DIR=%s", data);
    snprintf(env_trigger, sizeof env_trigger, "FDW_DISKFULL_TRIGGER=%s", trigger);
    snprintf(env_preload, sizeof env_preload, "LD_PRELOAD=%s", DISKFULL_SHIM);
    const char *wrapper[] = {"env", env_preload, env_dir, env_trigger, NULL};
    D.wrapper = wrapper;
    const char *extra[] = {"--devices", "cpu:1", "--disk-reserve", "1M", "--min-free-disk",
                           "1M", "--runner-stop-timeout", "20s", NULL};
    ck_assert_msg(harness_start(&D, extra) == 0, "fdwaved did not start: see %s", D.log);
    ck_assert_int_eq(metric("fdwave_disk_reserve_bytes"), 1 << 20);
    /* 150000 steps with a snapshot every 1000: the job runs well past the moment the disk
     * fills (12000 steps took 0.35 s and could end before), and its next snapshot after it
     * fails within a few hundred steps, however loaded the machine (a snapshot only at the
     * last step took a loaded CI machine past the wait below) */
    char spec[4096];
    small_spec(spec, sizeof spec, 20, 150000, 1000, 1);
    long id = submit_expect(&D, spec, 201);
    ck_assert(wait_step(&D, id, 100, 30));
    stream s = {.id = id};
    ck_assert_int_eq(pthread_create(&s.t, NULL, read_stream, &s), 0);
    FILE *t = fopen(trigger, "w"); /* the disk is full from now */
    ck_assert_ptr_nonnull(t);
    fclose(t);
    /* the runner ends (its outputs fail); the end cannot be recorded: still "running" */
    for (int i = 0; i < 600 && runner_pids(&D, (pid_t[4]){0}, 4) > 0; i++)
        usleep(50000);
    ck_assert_int_eq(runner_pids(&D, (pid_t[4]){0}, 4), 0);
    usleep(1500000);
    char state[32];
    job_text(&D, id, "state", state, sizeof state);
    ck_assert_str_eq(state, "running");
    long st;
    char *health = get_text("/v1/health", &st);
    ck_assert_msg(strstr(health, "degraded") != NULL, "health: %s", health);
    free(health);
    ck_assert_int_eq(metric("fdwave_disk_reserve_bytes"), 0); /* given up */
    /* space comes back */
    ck_assert_int_eq(unlink(trigger), 0);
    ck_assert_str_eq(wait_done(&D, id, 60, NULL), "failed");
    char reason[1024];
    job_text(&D, id, "reason", reason, sizeof reason);
    ck_assert_msg(strncmp(reason, "disk full: ", 11) == 0 &&
                      strstr(reason, "No space left on device") != NULL,
                  "reason: %s", reason);
    pthread_join(s.t, NULL);
    ck_assert_msg(strstr(s.body, "event: end") != NULL, "the stream did not end: %.3000s",
                  s.body);
    free(s.body);
    ck_assert_int_eq(job_cancel(&D, id), 409);
    int back = 0;
    for (int i = 0; i < 100 && !(back = metric("fdwave_disk_reserve_bytes") == (1 << 20)); i++)
        usleep(100000);
    ck_assert_msg(back, "the disk reserve was not made again");
    /* and the service goes on */
    small_spec(spec, sizeof spec, 16, 50, 50, 1);
    long next = submit_expect(&D, spec, 201);
    ck_assert_str_eq(wait_done(&D, next, 30, NULL), "succeeded");
}
END_TEST

/* Zero the root page of table `table` in the database file at path (the daemon stopped;
 * its WAL folded into the file first). */
static void zero_root_page(const char *path, const char *table)
{
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_stmt *st;
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT rootpage, (SELECT page_size FROM pragma_page_size) "
                              "FROM sqlite_master WHERE name = '%s'", table);
    ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    const long root = sqlite3_column_int(st, 0), size = sqlite3_column_int(st, 1);
    sqlite3_finalize(st);
    sqlite3_close(db);
    ck_assert_int_gt(root, 1);
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    char *zeros = calloc(1, (size_t)size);
    fseek(f, (root - 1) * size, SEEK_SET);
    ck_assert_int_eq(fwrite(zeros, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    free(zeros);
}

START_TEST(damaged_database_refused_backup_restores)
{
    const char *extra[] = {"--devices", "cpu:2", NULL};
    ck_assert_msg(harness_start(&D, extra) == 0, "fdwaved did not start: see %s", D.log);
    char spec[4096];
    small_spec(spec, sizeof spec, 16, 20, 20, 1);
    long ids[4];
    for (int k = 0; k < 4; k++)
        ids[k] = submit_expect(&D, spec, 201);
    for (int k = 0; k < 4; k++)
        ck_assert_str_eq(wait_done(&D, ids[k], 30, NULL), "succeeded");
    /* a backup while it runs */
    char backup[700], db[700], out[4096];
    snprintf(backup, sizeof backup, "%s.backup.db", D.data);
    snprintf(db, sizeof db, "%s/fdwave.db", D.data);
    unlink(backup);
    const char *bk[] = {"backup", backup, "--data", D.data, NULL};
    ck_assert_msg(harness_run_cli(bk, out, sizeof out) == 0, "fdwaved backup: %s", out);
    const char *again[] = {"backup", backup, "--data", D.data, NULL};
    ck_assert_int_ne(harness_run_cli(again, out, sizeof out), 0); /* never over a file */
    ck_assert_int_eq(harness_stop(&D), 0);

    zero_root_page(db, "jobs");
    ck_assert_int_ne(harness_start(&D, extra), 0); /* refused */
    FILE *f = fopen(D.log, "r");
    char log[16384] = "";
    size_t n = f ? fread(log, 1, sizeof log - 1, f) : 0;
    log[n] = '\0';
    if (f)
        fclose(f);
    ck_assert_msg(strstr(log, "restore it from a backup") && strstr(log, "-wal"),
                  "no refusal with the way to restore in: %s", log);
    const char *check[] = {"check", "--data", D.data, NULL};
    ck_assert_int_ne(harness_run_cli(check, out, sizeof out), 0);

    /* restore as the message says */
    ck_assert_int_eq(rename(backup, db), 0);
    char side[760];
    snprintf(side, sizeof side, "%s-wal", db);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", db);
    unlink(side);
    ck_assert_int_eq(harness_run_cli(check, out, sizeof out), 0);
    ck_assert_msg(harness_start(&D, extra) == 0, "fdwaved did not start: see %s", D.log);
    for (int k = 0; k < 4; k++) {
        char state[32];
        job_text(&D, ids[k], "state", state, sizeof state);
        ck_assert_str_eq(state, "succeeded");
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("robust_faults");
    TCase *tc = tcase_create("faults");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 150);
    tcase_add_test(tc, disk_full_at_the_end_of_a_job);
    tcase_add_test(tc, damaged_database_refused_backup_restores);
    suite_add_tcase(s, tc);
    return robust_run(s);
}
