/* test_snapwriter.c — the snapshot writer thread of fdw_run (engine/run_snapshots.c), CPU
 * backend: snapshot files are written while the loop thread is elsewhere (parked in a user
 * callback between steps), the manifest and the snapshot callback come later from the loop
 * thread in order, the writer's debug log line adds up, a snapshot every step goes through
 * the two buffer sets without loss, cancellation keeps what was submitted, and a file the
 * writer cannot create (before or after the start) fails the run with FDW_ERR_IO naming it,
 * without hanging or leaving temporary files. */
#include "physics_util.h"

#include <check.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Acoustic job on nx x ny x nz with xy, xz, yz slices and the volume: 7 files a
 * snapshot. */
static void job_json_grid(char *json, size_t len, int nx, int ny, int nz, int nt, int every)
{
    snprintf(json, len,
             "{\"kind\":\"acoustic\",\"name\":\"snapshot writer test\","
             "\"grid\":{\"nx\":%d,\"ny\":%d,\"nz\":%d,\"dx\":10,\"dy\":10,\"dz\":10},"
             "\"order\":8,\"velocity\":{\"type\":\"constant\",\"value\":2000},"
             "\"time\":{\"nt\":%d,\"dt\":\"auto\"},"
             "\"sources\":[{\"position\":[200,180,240],"
             "\"wavelet\":{\"type\":\"ricker\",\"f0\":15,\"delay\":0.02}}],"
             "\"receivers\":{\"points\":[[100,100,100]]},"
             "\"boundary\":{\"type\":\"sponge\",\"width\":8},"
             "\"snapshots\":{\"every\":%d,\"slices\":[{\"plane\":\"xy\",\"index\":16},"
             "{\"plane\":\"xz\",\"index\":18},{\"plane\":\"yz\",\"index\":20}],"
             "\"volume\":true,\"png\":true,\"raw\":true}}",
             nx, ny, nz, nt, every);
}

static void job_json(char *json, size_t len, int nt, int every)
{
    job_json_grid(json, len, 40, 36, 48, nt, every);
}

static const char *const snap_suffixes[7] = {"xy_k16.f32", "xy_k16.png", "xz_j18.f32",
                                             "xz_j18.png", "yz_i20.f32", "yz_i20.png",
                                             "volume.f32"};

/* What the callbacks saw. */
typedef struct watch {
    char dir[256];
    pthread_t loop_thread;
    int polls;                 /* cancelled() calls: poll p comes before step p-1 */
    int hold_every;            /* hold the loop at the poll after each snapshot step */
    int nholds;
    struct {
        long step;             /* the snapshot just submitted */
        int absent;            /* its files were not all there when the hold began */
        int seen;              /* they were all there when it ended */
        int nsnap;             /* snapshot callbacks made before the hold ended */
        int listed;            /* manifest.json listed it during the hold */
    } holds[32];
    int cancel_at_poll;
    int break_at_poll;         /* replace the output directory by a file at this poll */
    int nsnap;
    long snap_step[512];
    int snap_index[512];
    int snap_poll[512];        /* polls made when the callback came */
    int snap_on_loop_thread;   /* every snapshot callback came on the loop thread */
    char stats_line[1024];
} watch;

static int all_files_exist(const char *dir, long step)
{
    for (int f = 0; f < 7; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/snap_%06ld_%s", dir, step, snap_suffixes[f]);
        struct stat sb;
        if (stat(path, &sb) != 0)
            return 0;
    }
    return 1;
}

static int manifest_mentions(const char *dir, const char *needle)
{
    char path[512];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    size_t len = 0;
    unsigned char *text = phys_read_file(path, &len);
    if (!text)
        return 0;
    char *z = realloc(text, len + 1);
    ck_assert_ptr_nonnull(z);
    z[len] = '\0';
    const int found = strstr(z, needle) != NULL;
    free(z);
    return found;
}

static int on_cancelled(void *user)
{
    watch *w = user;
    w->polls++;
    if (w->hold_every > 0 && w->polls > 1 && (w->polls - 1) % w->hold_every == 0 &&
        w->nholds < 32) {
        /* The loop thread is parked here, after submitting the snapshot of step polls-1
         * and before issuing the next step; only another thread can write its files now
         * (up to 5 s). */
        const long step = w->polls - 1;
        int seen = all_files_exist(w->dir, step);
        const int absent = !seen;
        for (int i = 0; i < 5000 && !seen; i++) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
            seen = all_files_exist(w->dir, step);
        }
        char needle[64];
        snprintf(needle, sizeof needle, "snap_%06ld_", step);
        w->holds[w->nholds].step = step;
        w->holds[w->nholds].absent = absent;
        w->holds[w->nholds].seen = seen;
        w->holds[w->nholds].nsnap = w->nsnap;
        w->holds[w->nholds].listed = manifest_mentions(w->dir, needle);
        w->nholds++;
    }
    if (w->polls == w->break_at_poll) {
        char moved[320];
        snprintf(moved, sizeof moved, "%s.moved", w->dir);
        ck_assert_int_eq(rename(w->dir, moved), 0);
        FILE *f = fopen(w->dir, "w");
        ck_assert_ptr_nonnull(f);
        fclose(f);
    }
    return w->cancel_at_poll > 0 && w->polls >= w->cancel_at_poll;
}

static void on_snapshot(void *user, const fdw_snapshot_info *s)
{
    watch *w = user;
    if (w->nsnap < 512) {
        w->snap_step[w->nsnap] = s->step;
        w->snap_index[w->nsnap] = s->index;
        w->snap_poll[w->nsnap] = w->polls;
    }
    if (!pthread_equal(pthread_self(), w->loop_thread))
        w->snap_on_loop_thread = 0;
    w->nsnap++;
}

static void on_log(void *user, int level, const char *msg)
{
    watch *w = user;
    if (level == FDW_LOG_DEBUG && strncmp(msg, "snapshot writer:", 16) == 0)
        snprintf(w->stats_line, sizeof w->stats_line, "%s", msg);
}

/* The numbers of the writer's debug line. */
typedef struct line_stats {
    long written, submitted, steps, overlapped, waits;
    int nsets;
} line_stats;

static line_stats parse_stats(const watch *w)
{
    line_stats ls;
    memset(&ls, 0, sizeof ls);
    const int n = sscanf(w->stats_line,
                         "snapshot writer: %ld of %ld snapshots written, %d buffer sets; %ld "
                         "steps issued while writing (%ld snapshots overlapped steps); the "
                         "loop waited %ld times",
                         &ls.written, &ls.submitted, &ls.nsets, &ls.steps, &ls.overlapped,
                         &ls.waits);
    ck_assert_msg(n == 6, "writer log line not understood: \"%s\"", w->stats_line);
    return ls;
}

/* Run the job into w->dir (made here unless it exists); returns the status. */
static fdw_status run_job(const char *json, watch *w, int threads, fdw_result *res,
                          fdw_error *err)
{
    fdw_spec *spec = NULL;
    ck_assert_int_eq(fdw_spec_parse(json, strlen(json), NULL, &spec, err), FDW_OK);
    if (!w->dir[0]) {
        snprintf(w->dir, sizeof w->dir, "/tmp/fdw-snapwriter-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(w->dir));
    }
    w->loop_thread = pthread_self();
    w->snap_on_loop_thread = 1;
    fdw_run_opts opts = {.out_dir = w->dir, .backend = FDW_BACKEND_CPU, .threads = threads};
    fdw_callbacks cb = {.snapshot = on_snapshot, .log = on_log, .cancelled = on_cancelled,
                        .user = w, .progress_interval_s = 1000.0};
    const fdw_status st = fdw_run(spec, &opts, &cb, res, err);
    fdw_spec_free(spec);
    return st;
}

/* Entries of dir whose name contains ".tmp" (left-over temporary files). */
static int count_tmp(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strstr(e->d_name, ".tmp") != NULL;
    closedir(d);
    return n;
}

static void remove_dir(const char *dir)
{
    phys_run tmp = {0};
    ck_assert_uint_lt(strlen(dir), sizeof tmp.dir);
    memcpy(tmp.dir, dir, strlen(dir) + 1);
    phys_run_free(&tmp);
}

/* One run whose loop is held in the cancellation callback right after each of 10
 * snapshots was submitted. The files of every one appear during the hold; for those not
 * yet there when the hold began, they cannot have been written by the held loop thread,
 * and no callback or manifest entry came before the loop went on. Returns how many holds
 * saw files appear (the rest were finished by the writer before the loop thread reached
 * the callback, e.g. when waking the writer preempted the loop on a busy machine). */
static int held_run_appeared(void)
{
    /* 128^3: the writer's 7 files (an 8 MB volume) take longer than a scheduler time
     * slice, so the loop thread reaches its hold before the writer is done even when
     * waking the writer preempted it */
    enum { E = 4 };
    char json[4096];
    job_json_grid(json, sizeof json, 128, 128, 128, 10 * E + 1, E); /* holds at polls 5, ... 41 */
    watch w = {0};
    w.hold_every = E;
    fdw_result res;
    fdw_error err;
    ck_assert_int_eq(run_job(json, &w, 1, &res, &err), FDW_OK);
    ck_assert_int_eq(w.nholds, 10);
    int appeared = 0;
    for (int h = 0; h < w.nholds; h++) {
        ck_assert_int_eq(w.holds[h].step, E * (h + 1));
        ck_assert_msg(w.holds[h].seen, "the files of snapshot %ld did not appear while the "
                      "loop was held", w.holds[h].step);
        if (!w.holds[h].absent)
            continue;
        appeared++;
        /* this one was not delivered before the loop went on (earlier ones may still be
         * on their way too, if the writer was descheduled after its last rename) */
        ck_assert_int_le(w.holds[h].nsnap, h);
        ck_assert_msg(!w.holds[h].listed,
                      "manifest.json listed snapshot %ld before the loop delivered it",
                      w.holds[h].step);
        ck_assert_int_ge(w.snap_poll[h], E * (h + 1) + 1); /* not before the hold */
    }
    ck_assert_int_eq(w.nsnap, 10);
    for (int k = 0; k < 10; k++) {
        ck_assert_int_eq(w.snap_index[k], k);
        ck_assert_int_eq(w.snap_step[k], E * (k + 1));
        char needle[64];
        snprintf(needle, sizeof needle, "snap_%06ld_volume.f32", (long)E * (k + 1));
        ck_assert(manifest_mentions(w.dir, needle));
    }
    ck_assert(w.snap_on_loop_thread);
    const line_stats ls = parse_stats(&w);
    ck_assert_int_eq(ls.written, 10);
    ck_assert_int_eq(ls.submitted, 10);
    ck_assert_int_eq(ls.nsets, 2);
    ck_assert_int_le(ls.overlapped, 10);
    ck_assert_int_eq(count_tmp(w.dir), 0);
    remove_dir(w.dir);
    return appeared;
}

/* Files appear while the loop thread is held: a loop that wrote its snapshots itself would
 * never show that. On a loaded machine a run's writer may win every race, so up to five
 * runs are made; every run's other checks must pass. */
START_TEST(test_files_written_while_loop_is_held)
{
    int appeared = 0, runs = 0;
    while (appeared == 0 && runs < 5) {
        appeared = held_run_appeared();
        runs++;
    }
    printf("files appeared during %d of 10 holds of the loop (run %d)\n", appeared, runs);
    ck_assert_int_ge(appeared, 1);
}
END_TEST

/* Many snapshots of a job whose steps are quick next to writing seven files (an 8 MB
 * volume among them): the writer is still writing when the loop issues the next steps.
 * (The writes take longer than a scheduler time slice, so even a writer that preempts the
 * loop when woken cannot finish all 20 before the loop goes on.) */
START_TEST(test_steps_issued_while_writing)
{
    char json[4096];
    job_json_grid(json, sizeof json, 128, 128, 128, 40, 2);
    watch w = {0};
    fdw_result res;
    fdw_error err;
    ck_assert_int_eq(run_job(json, &w, 1, &res, &err), FDW_OK);
    ck_assert_int_eq(w.nsnap, 20);
    const line_stats ls = parse_stats(&w);
    printf("writer: %s\n", w.stats_line);
    ck_assert_int_eq(ls.written, 20);
    ck_assert_int_eq(ls.submitted, 20);
    ck_assert_int_ge(ls.overlapped, 1);
    ck_assert_int_ge(ls.steps, ls.overlapped);
    remove_dir(w.dir);
}
END_TEST

/* A snapshot every step: the loop keeps waiting for a free buffer set; nothing is lost or
 * reordered. */
START_TEST(test_snapshot_every_step)
{
    char json[4096];
    job_json(json, sizeof json, 30, 1);
    watch w = {0};
    fdw_result res;
    fdw_error err;
    ck_assert_int_eq(run_job(json, &w, 1, &res, &err), FDW_OK);
    ck_assert_int_eq(w.nsnap, 30);
    for (int k = 0; k < 30; k++) {
        ck_assert_int_eq(w.snap_index[k], k);
        ck_assert_int_eq(w.snap_step[k], k + 1);
        ck_assert(all_files_exist(w.dir, k + 1));
    }
    ck_assert(w.snap_on_loop_thread);
    const line_stats ls = parse_stats(&w);
    ck_assert_int_eq(ls.written, 30);
    remove_dir(w.dir);
}
END_TEST

/* Cancelled right after a snapshot was handed to the writer: the run still waits for it,
 * calls back and lists it in a manifest that says where the run stopped. */
START_TEST(test_cancel_keeps_submitted)
{
    char json[4096];
    job_json(json, sizeof json, 100, 20);
    watch w = {0};
    w.cancel_at_poll = 21;
    fdw_result res;
    fdw_error err;
    ck_assert_int_eq(run_job(json, &w, 1, &res, &err), FDW_ERR_CANCELLED);
    ck_assert_int_eq(res.steps_done, 20);
    ck_assert_int_eq(w.nsnap, 1);
    ck_assert_int_eq(w.snap_step[0], 20);
    ck_assert(all_files_exist(w.dir, 20));
    ck_assert(manifest_mentions(w.dir, "snap_000020_xz_j18.png"));
    ck_assert(manifest_mentions(w.dir, "\"completed\": false"));
    remove_dir(w.dir);
}
END_TEST

/* A snapshot file that cannot be created (a directory sits at its name): FDW_ERR_IO naming
 * it, no callback for that snapshot, no temporary file left. */
START_TEST(test_writer_error_fails_run)
{
    char json[4096];
    job_json(json, sizeof json, 60, 20);
    watch w = {0};
    snprintf(w.dir, sizeof w.dir, "/tmp/fdw-snapwriter-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(w.dir));
    char blocker[512];
    snprintf(blocker, sizeof blocker, "%s/snap_000040_yz_i20.png", w.dir);
    ck_assert_int_eq(mkdir(blocker, 0755), 0);
    fdw_result res;
    fdw_error err;
    ck_assert_int_eq(run_job(json, &w, 1, &res, &err), FDW_ERR_IO);
    ck_assert_int_eq(err.code, FDW_ERR_IO);
    ck_assert_msg(strstr(err.message, "snap_000040_yz_i20.png") != NULL, "message: %s",
                  err.message);
    ck_assert_int_eq(w.nsnap, 1); /* step 20 only */
    ck_assert_int_eq(w.snap_step[0], 20);
    ck_assert_int_eq(count_tmp(w.dir), 0);
    remove_dir(w.dir);
}
END_TEST

/* The output directory is replaced by a plain file after the run started: the writer's
 * failure ends the run with FDW_ERR_IO. */
START_TEST(test_output_dir_gone_after_start)
{
    char json[4096];
    job_json(json, sizeof json, 60, 20);
    watch w = {0};
    snprintf(w.dir, sizeof w.dir, "/tmp/fdw-snapwriter-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(w.dir));
    w.break_at_poll = 5;
    fdw_result res;
    fdw_error err;
    ck_assert_int_eq(run_job(json, &w, 1, &res, &err), FDW_ERR_IO);
    ck_assert_msg(strstr(err.message, "snap_000020_") != NULL, "message: %s", err.message);
    ck_assert_int_eq(w.nsnap, 0);
    ck_assert_int_le(res.steps_done, 60);
    char moved[320];
    snprintf(moved, sizeof moved, "%s.moved", w.dir);
    ck_assert_int_eq(unlink(w.dir), 0);
    remove_dir(moved);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("snapshot writer");
    TCase *tc = tcase_create("writer");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_files_written_while_loop_is_held);
    tcase_add_test(tc, test_steps_issued_while_writing);
    tcase_add_test(tc, test_snapshot_every_step);
    tcase_add_test(tc, test_cancel_keeps_submitted);
    tcase_add_test(tc, test_writer_error_fails_run);
    tcase_add_test(tc, test_output_dir_gone_after_start);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
