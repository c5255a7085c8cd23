/* test_mpi.c — fdwave-run across Open MPI ranks on loopback (CPU backend): the outputs of
 * 2 and 3 ranks are identical byte for byte to one process's (acoustic job with a free
 * surface, a sponge, and sources, receivers and snapshots in different slabs; the same
 * with a CPML on every face; the stencil kind; the periodic derivative along z); a rank
 * count that splits a CPML z layer is refused; an error on one rank ends every rank
 * with the message printed once; --backend cuda and more ranks than slabs can hold are
 * refused clearly; --cuda-aware-mpi off runs and on refuses a library that is not
 * CUDA-aware; Ctrl-C on mpirun cancels every rank and leaves a manifest saying where it
 * stopped.
 * Exits 77 (skipped) when mpirun or MPI support in fdwave-run is missing. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char work[2048];   /* scratch directory of this test run */

/* Run argv with stdout and stderr into log; returns the exit status (128+sig if killed),
 * or -1 if it could not start. If sig_after > 0, sends SIGINT to the child after that
 * many seconds. Kills it and fails after limit_s. */
static int run_logged(char *const argv[], const char *log, double sig_after, double limit_s)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        setpgid(0, 0);
        execv(argv[0], argv);
        _exit(127);
    }
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int sent = 0, status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double el = (double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) * 1e-9;
        if (sig_after > 0 && !sent && el >= sig_after) {
            kill(pid, SIGINT);
            sent = 1;
        }
        if (el > limit_s) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            ck_abort_msg("%s did not finish within %.0f s (log %s)", argv[0], limit_s, log);
        }
        usleep(20000);
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

/* mpirun -np N --oversubscribe fdwave-run SPEC --quiet --out OUT [--backend BACKEND]
 * [extra...] ; np 0: no mpirun. */
static int run_job_with(int np, const char *spec, const char *out, const char *backend,
                        const char *const *extra, const char *log, double sig_after)
{
    char nps[16];
    snprintf(nps, sizeof nps, "%d", np);
    char *argv[24];
    int a = 0;
    if (np > 0) {
        argv[a++] = (char *)MPIRUN;
        argv[a++] = "-np";
        argv[a++] = nps;
        argv[a++] = "--oversubscribe";
    }
    argv[a++] = (char *)FDWAVE_RUN;
    argv[a++] = (char *)spec;
    argv[a++] = "--quiet";
    argv[a++] = "--out";
    argv[a++] = (char *)out;
    if (backend) {
        argv[a++] = "--backend";
        argv[a++] = (char *)backend;
    }
    for (int i = 0; extra && extra[i] && a < 23; i++)
        argv[a++] = (char *)extra[i];
    argv[a] = NULL;
    return run_logged(argv, log, sig_after, 50.0);
}

static int run_job(int np, const char *spec, const char *out, const char *backend,
                   const char *log, double sig_after)
{
    return run_job_with(np, spec, out, backend, NULL, log, sig_after);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    if (b)
        b[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return b;
}

static int count_substr(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted file names of dir; returns the count. */
static int list_dir(const char *dir, char ***names)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s", dir);
    int n = 0, cap = 64;
    char **v = malloc((size_t)cap * sizeof *v);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap)
            v = realloc(v, (size_t)(cap *= 2) * sizeof *v);
        v[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(v, (size_t)n, sizeof *v, cmp_names);
    *names = v;
    return n;
}

/* manifest.json of both runs: equal except the timing and device count of "result". */
static void compare_manifests(const char *a, const char *b)
{
    json_error_t je;
    json_t *ma = json_load_file(a, 0, &je), *mb = json_load_file(b, 0, &je);
    ck_assert_msg(ma && mb, "cannot parse %s or %s", a, b);
    const char *drop[] = {"elapsed_s", "mpts", "devices"};
    for (int i = 0; i < 3; i++) {
        json_object_del(json_object_get(ma, "result"), drop[i]);
        json_object_del(json_object_get(mb, "result"), drop[i]);
    }
    ck_assert_msg(json_is_true(json_object_get(json_object_get(ma, "result"), "completed")),
                  "%s: the run did not complete", a);
    ck_assert_msg(json_equal(ma, mb), "%s and %s differ beyond timing", a, b);
    json_decref(ma);
    json_decref(mb);
}

/* Every file of dir a has an identical twin in b, and b has no other files. */
static void compare_dirs(const char *a, const char *b)
{
    char **na, **nb;
    int ca = list_dir(a, &na), cb = list_dir(b, &nb);
    ck_assert_msg(ca == cb, "%s has %d files, %s has %d", a, ca, b, cb);
    ck_assert_msg(ca > 1, "%s holds no outputs", a);
    for (int i = 0; i < ca; i++) {
        ck_assert_msg(strcmp(na[i], nb[i]) == 0, "file %s in %s, %s in %s", na[i], a, nb[i], b);
        char pa[8192], pb[8192];
        snprintf(pa, sizeof pa, "%s/%s", a, na[i]);
        snprintf(pb, sizeof pb, "%s/%s", b, nb[i]);
        if (strcmp(na[i], "manifest.json") == 0) {
            compare_manifests(pa, pb);
            continue;
        }
        size_t la, lb;
        char *da = read_all(pa, &la), *db = read_all(pb, &lb);
        ck_assert_msg(da && db, "cannot read %s or %s", pa, pb);
        ck_assert_msg(la == lb && memcmp(da, db, la) == 0, "%s and %s differ", pa, pb);
        free(da);
        free(db);
    }
    for (int i = 0; i < ca; i++) {
        free(na[i]);
        free(nb[i]);
    }
    free(na);
    free(nb);
}

/* Run a failing job on np ranks and on one process: both must exit with `want`, and
 * `needle` must appear in the MPI run's output as often as in the single process's
 * (rank 0 prints; the others stay silent) and at least once. */
static void check_fails_alike(int np, const char *spec, const char *out, const char *backend,
                              const char *tag, int want, const char *needle)
{
    char log[2][4300];
    char *text[2];
    int count[2];
    for (int i = 0; i < 2; i++) {
        snprintf(log[i], sizeof log[i], "%s/%s-%s.log", work, tag, i ? "mpi" : "one");
        int rc = run_job(i ? np : 0, spec, out, backend, log[i], 0);
        size_t n;
        text[i] = read_all(log[i], &n);
        ck_assert_ptr_nonnull(text[i]);
        ck_assert_msg(rc == want, "%s: exit status %d, expected %d; log:\n%s", log[i], rc, want,
                      text[i]);
        count[i] = count_substr(text[i], needle);
    }
    ck_assert_msg(count[0] >= 1, "'%s' missing from\n%s", needle, text[0]);
    ck_assert_msg(count[1] == count[0], "'%s' printed %d times by %d ranks, %d by one "
                  "process:\n%s", needle, count[1], np, count[0], text[1]);
    free(text[0]);
    free(text[1]);
}

/* One process, then 2 and 3 ranks; outputs must match byte for byte. */
static void check_bit_exact(const char *name)
{
    char spec[4096], out[3][4200], log[4300];
    snprintf(spec, sizeof spec, "%s/%s.json", SPEC_DIR, name);
    const int nps[3] = {0, 2, 3};
    for (int i = 0; i < 3; i++) {
        snprintf(out[i], sizeof out[i], "%s/%s-np%d", work, name, nps[i]);
        snprintf(log, sizeof log, "%.4200s.log", out[i]);
        int rc = run_job(nps[i], spec, out[i], NULL, log, 0);
        ck_assert_msg(rc == 0, "%s on %d ranks exited %d (log %s)", name, nps[i], rc, log);
    }
    compare_dirs(out[0], out[1]);
    compare_dirs(out[0], out[2]);
}

START_TEST(acoustic_bit_exact) { check_bit_exact("acoustic"); }
END_TEST

START_TEST(acoustic_cpml_bit_exact) { check_bit_exact("acoustic_cpml"); }
END_TEST

/* 4 ranks would put a slab boundary (plane 9) inside the CPML's top layer plus the
 * stencil radius (6 + 4): a spec error from rank 0 alone, saying what fits. */
START_TEST(cpml_split_refused)
{
    char spec[4096], log[4300], out[4300];
    snprintf(spec, sizeof spec, "%s/acoustic_cpml.json", SPEC_DIR);
    snprintf(log, sizeof log, "%s/cpml4.log", work);
    snprintf(out, sizeof out, "%s/cpml4-out", work);
    int rc = run_job(4, spec, out, NULL, log, 0);
    size_t n;
    char *text = read_all(log, &n);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(rc == 2, "exit status %d, expected 2; log:\n%s", rc, text);
    ck_assert_msg(count_substr(text, "boundary.width: 4 MPI ranks split") == 2 &&
                      count_substr(text, "use at most 3 MPI ranks") == 2,
                  "unexpected output:\n%s", text);
    free(text);
}
END_TEST

START_TEST(stencil_bit_exact) { check_bit_exact("stencil"); }
END_TEST

START_TEST(derivative_bit_exact) { check_bit_exact("derivative"); }
END_TEST

/* Rank 0 cannot create the output directory (a file is in the way) while the others
 * could go on: every rank stops, exit status 1, the error printed once. */
START_TEST(error_on_one_rank_ends_all)
{
    char blocker[4200], out[4300], spec[4096];
    snprintf(blocker, sizeof blocker, "%s/blocker", work);
    FILE *f = fopen(blocker, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    snprintf(out, sizeof out, "%s/out", blocker);
    snprintf(spec, sizeof spec, "%s/stencil.json", SPEC_DIR);
    check_fails_alike(3, spec, out, NULL, "error", 1, "cannot create output directory");
}
END_TEST

/* A bad spec: exit status 2 and the field path printed once. */
START_TEST(bad_spec_reported_once)
{
    char spec[4200], out[4300];
    snprintf(spec, sizeof spec, "%s/bad.json", work);
    FILE *f = fopen(spec, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"kind\": \"stencil\", \"grid\": {\"nx\": 16, \"ny\": 16, \"nz\": -3, \"dx\": 1, "
          "\"dy\": 1, \"dz\": 1}, \"iterations\": 2}\n", f);
    fclose(f);
    snprintf(out, sizeof out, "%s/bad-out", work);
    check_fails_alike(2, spec, out, NULL, "bad", 2, "grid.nz");
}
END_TEST

/* More ranks than the grid has room for (slabs thinner than the stencil radius): a spec
 * error naming the largest usable rank count, from rank 0 alone. */
START_TEST(too_many_ranks_refused)
{
    char spec[4200], log[4300], out[4300];
    snprintf(spec, sizeof spec, "%s/thin.json", work);
    FILE *f = fopen(spec, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"kind\": \"stencil\", \"grid\": {\"nx\": 16, \"ny\": 16, \"nz\": 10, "
          "\"dx\": 1, \"dy\": 1, \"dz\": 1}, \"order\": 8, \"iterations\": 2}\n", f);
    fclose(f);
    snprintf(log, sizeof log, "%s/thin.log", work);
    snprintf(out, sizeof out, "%s/thin-out", work);
    int rc = run_job(3, spec, out, NULL, log, 0);
    size_t n;
    char *text = read_all(log, &n);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(rc == 2, "exit status %d, expected 2; log:\n%s", rc, text);
    /* shown twice by rank 0 (the engine's log line and the summary), never by others */
    ck_assert_msg(count_substr(text, "grid.nz: 3 MPI ranks would give slabs thinner than 4 "
                                     "planes") == 2 &&
                      count_substr(text, "run with at most 2 ranks") == 2,
                  "unexpected output:\n%s", text);
    free(text);
}
END_TEST

/* --backend cuda across ranks: on a host with GPUs it runs (the manifest names the cuda
 * backend; tests/gpu/run.sh's "mpi" stage checks its outputs bit for bit); without a GPU,
 * or in a build without CUDA, a clear refusal printed by rank 0 alone, not a hang. */
START_TEST(cuda_backend_needs_gpus)
{
    char spec[4096], log[4300], out[4300], manifest[4400];
    snprintf(spec, sizeof spec, "%s/stencil.json", SPEC_DIR);
    snprintf(log, sizeof log, "%s/cuda.log", work);
    snprintf(out, sizeof out, "%s/cuda-out", work);
    int rc = run_job(2, spec, out, "cuda", log, 0);
    size_t n;
    char *text = read_all(log, &n);
    ck_assert_ptr_nonnull(text);
    if (rc == 0) {
        snprintf(manifest, sizeof manifest, "%s/manifest.json", out);
        json_error_t je;
        json_t *m = json_load_file(manifest, 0, &je);
        ck_assert_msg(m != NULL, "no manifest: %s", je.text);
        const char *be = json_string_value(json_object_get(json_object_get(m, "result"),
                                                           "backend"));
        ck_assert_msg(be && strcmp(be, "cuda") == 0, "ran on backend %s, not cuda",
                      be ? be : "?");
        json_decref(m);
    } else {
        ck_assert_msg(rc == 1, "exit status %d, expected 1; log:\n%s", rc, text);
        /* fdwave-run shows a failure twice (the engine's log line, then the summary) */
        int why = count_substr(text, "rank 0 of the MPI run sees no GPU") +
                  count_substr(text, "this build has no CUDA backend");
        ck_assert_msg(why == 2, "the refusal should be printed by rank 0 alone:\n%s", text);
    }
    free(text);
}
END_TEST

/* --cuda-aware-mpi: "off" stages through host memory (a CPU run does not care); "on"
 * insists on a CUDA-aware MPI library: with one (rc 0) it runs, with Debian's Open MPI,
 * which is not, every rank stops at start with exit status 1 and rank 0 says why. */
START_TEST(cuda_aware_mpi_flag)
{
    char spec[4096], log[4300], out[4300];
    snprintf(spec, sizeof spec, "%s/stencil.json", SPEC_DIR);
    snprintf(log, sizeof log, "%s/cuda-aware-off.log", work);
    snprintf(out, sizeof out, "%s/cuda-aware-off", work);
    const char *off[] = {"--cuda-aware-mpi", "off", NULL};
    int rc = run_job_with(2, spec, out, NULL, off, log, 0);
    ck_assert_msg(rc == 0, "--cuda-aware-mpi off: exit status %d (log %s)", rc, log);
    snprintf(log, sizeof log, "%s/cuda-aware-on.log", work);
    snprintf(out, sizeof out, "%s/cuda-aware-on", work);
    const char *on[] = {"--cuda-aware-mpi=on", NULL};
    rc = run_job_with(2, spec, out, NULL, on, log, 0);
    size_t n;
    char *text = read_all(log, &n);
    ck_assert_ptr_nonnull(text);
    if (rc != 0) {
        ck_assert_msg(rc == 1, "exit status %d, expected 1; log:\n%s", rc, text);
        ck_assert_msg(count_substr(text, "--cuda-aware-mpi on: this MPI library is not "
                                         "CUDA-aware") == 1,
                      "the refusal should be printed once, by rank 0:\n%s", text);
    }
    free(text);
}
END_TEST

/* Ctrl-C on mpirun cancels every rank; rank 0 leaves a manifest with completed false. */
START_TEST(sigint_cancels_all_ranks)
{
    char spec[4200], log[4300], out[4300], manifest[4400];
    snprintf(spec, sizeof spec, "%s/long.json", work);
    FILE *f = fopen(spec, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"kind\": \"stencil\", \"grid\": {\"nx\": 48, \"ny\": 48, \"nz\": 48, \"dx\": 1, "
          "\"dy\": 1, \"dz\": 1}, \"order\": 8, \"iterations\": 1000000}\n", f);
    fclose(f);
    snprintf(log, sizeof log, "%s/long.log", work);
    snprintf(out, sizeof out, "%s/long-out", work);
    int rc = run_job(2, spec, out, NULL, log, 2.0);
    size_t n;
    char *text = read_all(log, &n);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(rc != 0, "a cancelled run exited 0:\n%s", text);
    ck_assert_msg(count_substr(text, "cancelled after") == 1,
                  "the cancellation should be reported once:\n%s", text);
    snprintf(manifest, sizeof manifest, "%s/manifest.json", out);
    json_error_t je;
    json_t *m = json_load_file(manifest, 0, &je);
    ck_assert_msg(m != NULL, "no manifest after cancelling: %s", je.text);
    json_t *res = json_object_get(m, "result");
    ck_assert(json_is_false(json_object_get(res, "completed")));
    ck_assert_int_gt(json_integer_value(json_object_get(res, "steps")), 0);
    json_decref(m);
    free(text);
}
END_TEST

int main(void)
{
    if (!HAVE_MPI || access(MPIRUN, X_OK) != 0) {
        printf("skipped: %s\n", !HAVE_MPI ? "fdwave-run was built without MPI"
                                           : "mpirun (" MPIRUN ") is not available");
        return 77;
    }
    /* Loopback runs, possibly as root (containers), with more ranks than cores. */
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
    setenv("OMP_NUM_THREADS", "1", 0);
    setenv("OMP_WAIT_POLICY", "passive", 0);
    snprintf(work, sizeof work, "%s/mpi-work-XXXXXX", BUILD_DIR);
    if (!mkdtemp(work)) {
        perror("mkdtemp");
        return 1;
    }
    Suite *s = suite_create("mpi");
    TCase *tc = tcase_create("ranks");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, acoustic_bit_exact);
    tcase_add_test(tc, acoustic_cpml_bit_exact);
    tcase_add_test(tc, cpml_split_refused);
    tcase_add_test(tc, stencil_bit_exact);
    tcase_add_test(tc, derivative_bit_exact);
    tcase_add_test(tc, error_on_one_rank_ends_all);
    tcase_add_test(tc, bad_spec_reported_once);
    tcase_add_test(tc, cuda_backend_needs_gpus);
    tcase_add_test(tc, cuda_aware_mpi_flag);
    tcase_add_test(tc, too_many_ranks_refused);
    tcase_add_test(tc, sigint_cancels_all_ranks);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
