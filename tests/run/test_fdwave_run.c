/* test_fdwave_run.c — the fdwave-run program driven as a user would: bad specs and bad
 * usage exit 2 with the field path on stderr; a tiny job exits 0, prints where its
 * outputs are and leaves a manifest listing files that exist with the recorded sizes;
 * --json prints a parsable summary; without a terminal progress comes as plain lines,
 * on a pseudo-terminal as one redrawn line; SIGINT cancels with exit 130 and keeps the
 * outputs written so far. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <math.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[512];

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void setup(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/fdw-run-XXXXXX", t && t[0] ? t : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *in_dir(const char *name)
{
    static char bufs[4][1024];
    static int next;
    char *b = bufs[next++ & 3];
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return strdup("");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = calloc(1, (size_t)n + 1);
    ck_assert_uint_eq(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return p;
}

#define ck_assert_contains(hay, needle)                                                    \
    ck_assert_msg(strstr((hay), (needle)) != NULL, "expected \"%s\" in \"%s\"", (needle), \
                  (hay))

/* Start fdwave-run with args (NULL-terminated) in dir, stdout/stderr to files. */
static pid_t start(const char *const *args)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(99);
        int o = open("stdout.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open("stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0)
            _exit(99);
        dup2(o, 1);
        dup2(e, 2);
        char *argv[32];
        int n = 0;
        argv[n++] = (char *)FDWAVE_RUN;
        for (; args[n - 1] && n < 31; n++)
            argv[n] = (char *)args[n - 1];
        argv[n] = NULL;
        execv(FDWAVE_RUN, argv);
        _exit(98);
    }
    return pid;
}

/* Wait up to limit_s for pid; returns its exit status (128+signal if killed). */
static int finish(pid_t pid, double limit_s)
{
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) * 1e-9 > limit_s) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            ck_abort_msg("fdwave-run did not finish within %.0f s", limit_s);
        }
        usleep(20000);
    }
}

static int run(const char *const *args, char **out, char **err)
{
    int rc = finish(start(args), 50);
    *out = read_text(in_dir("stdout.txt"));
    *err = read_text(in_dir("stderr.txt"));
    return rc;
}

/* A job that runs in well under a second. */
static const char *tiny_spec =
    "{\"kind\":\"acoustic\",\"name\":\"tiny\",\n"
    " \"grid\":{\"nx\":24,\"ny\":22,\"nz\":20,\"dx\":10,\"dy\":10,\"dz\":10},\n"
    " \"order\":4,\"velocity\":{\"type\":\"constant\",\"value\":1500},\n"
    " \"time\":{\"nt\":40,\"dt\":\"auto\"},\n"
    " \"sources\":[{\"position\":[120,110,100],\"wavelet\":{\"type\":\"ricker\",\"f0\":25}}],\n"
    " \"receivers\":{\"points\":[[100,110,100],[140,110,100]]},\n"
    " \"boundary\":{\"type\":\"sponge\",\"width\":4},\n"
    " \"snapshots\":{\"every\":20,\"slices\":[{\"plane\":\"xy\",\"index\":10}]}}\n";

START_TEST(bad_spec_names_field)
{
    write_text(in_dir("bad.json"),
               "{\"grid\":{\"nx\":\"many\",\"ny\":8,\"nz\":8,\"dx\":10,\"dy\":10,\"dz\":10}}");
    const char *args[] = {in_dir("bad.json"), NULL};
    char *out, *err;
    ck_assert_int_eq(run(args, &out, &err), 2);
    char want[1200];
    snprintf(want, sizeof want, "fdwave-run: %s: grid.nx: ", in_dir("bad.json"));
    ck_assert_contains(err, want);
    free(out);
    free(err);

    /* --json also reports it on stdout. */
    const char *args2[] = {"--json", in_dir("bad.json"), NULL};
    ck_assert_int_eq(run(args2, &out, &err), 2);
    json_t *j = json_loads(out, 0, NULL);
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(json_string_value(json_object_get(j, "status")), "invalid");
    ck_assert_str_eq(
        json_string_value(json_object_get(json_object_get(j, "error"), "field")), "grid.nx");
    json_decref(j);
    free(out);
    free(err);
}
END_TEST

START_TEST(bad_spec_nested_and_missing)
{
    char *spec = strdup(tiny_spec);
    char *p = strstr(spec, "\"f0\":25");
    memcpy(p, "\"f0\":-1", 7);
    write_text(in_dir("neg.json"), spec);
    free(spec);
    const char *args[] = {in_dir("neg.json"), NULL};
    char *out, *err;
    ck_assert_int_eq(run(args, &out, &err), 2);
    ck_assert_contains(err, ": sources[0].wavelet.f0: ");
    free(out);
    free(err);

    const char *args2[] = {in_dir("absent.json"), NULL};
    ck_assert_int_eq(run(args2, &out, &err), 2);
    ck_assert_contains(err, "absent.json");
    free(out);
    free(err);

    write_text(in_dir("junk.json"), "{\"grid\": ");
    const char *args3[] = {in_dir("junk.json"), NULL};
    ck_assert_int_eq(run(args3, &out, &err), 2);
    ck_assert_contains(err, "junk.json");
    free(out);
    free(err);
}
END_TEST

START_TEST(usage_errors)
{
    write_text(in_dir("tiny.json"), tiny_spec);
    const char *cases[][5] = {
        {NULL},
        {"--frobnicate", "tiny.json", NULL},
        {"tiny.json", "--backend", "gpu", NULL},
        {"tiny.json", "--devices", "0,x", NULL},
        {"tiny.json", "--threads", "0", NULL},
        {"tiny.json", "other.json", NULL},
        {"tiny.json", "--out", NULL},
        {"tiny.json", "-o", NULL},
        {"tiny.json", "--quiet=yes", NULL},
        {"tiny.json", "-x", NULL},
        {"tiny.json", "--cuda-aware-mpi", "maybe", NULL},
        {"tiny.json", "--out=", NULL},
    };
    const char *expect[] = {"usage:", "unknown option '--frobnicate'", "--backend must be",
                            "--devices takes", "--threads takes", "one job spec at a time",
                            "--out needs a value", "-o needs a value",
                            "--quiet takes no value", "unknown option '-x'",
                            "--cuda-aware-mpi must be auto, on or off",
                            "--out needs a directory"};
    for (size_t q = 0; q < sizeof cases / sizeof *cases; q++) {
        char *out, *err;
        ck_assert_int_eq(run(cases[q], &out, &err), 2);
        ck_assert_contains(err, expect[q]);
        free(out);
        free(err);
    }
    char *out, *err;
    const char *help[] = {"--help", NULL};
    ck_assert_int_eq(run(help, &out, &err), 0);
    ck_assert_contains(out, "usage: fdwave-run JOB.json");
    free(out);
    free(err);
    const char *ver[] = {"--version", NULL};
    ck_assert_int_eq(run(ver, &out, &err), 0);
    ck_assert_contains(out, "fdwave-run 0.");
    free(out);
    free(err);
}
END_TEST

/* The largest |sample| of a raw float32 file. */
static double file_max_abs(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    float v;
    double m = 0.0;
    while (fread(&v, sizeof v, 1, f) == 1)
        if (fabs((double)v) > m)
            m = fabs((double)v);
    fclose(f);
    return m;
}

/* Every file in the manifest exists with the size recorded; a snapshot's max_abs is its
 * largest |sample| (png and raw of one slice alike), a gather's sample_interval is dt
 * times receivers.interval. */
static void check_manifest(const char *out_dir, const char *job)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/manifest.json", out_dir);
    json_error_t je;
    json_t *m = json_load_file(path, 0, &je);
    ck_assert_msg(m != NULL, "%s: %s", path, je.text);
    ck_assert_str_eq(json_string_value(json_object_get(m, "job")), job);
    json_t *files = json_object_get(m, "files");
    ck_assert_uint_ge(json_array_size(files), 4); /* 2 snapshots x (png, raw) + gathers */
    size_t q;
    json_t *f;
    int pngs = 0, segys = 0;
    json_array_foreach(files, q, f) {
        const char *name = json_string_value(json_object_get(f, "name"));
        snprintf(path, sizeof path, "%s/%s", out_dir, name);
        struct stat st;
        ck_assert_msg(stat(path, &st) == 0, "%s listed but missing", name);
        ck_assert_int_eq(json_integer_value(json_object_get(f, "bytes")), st.st_size);
        const char *fmt = json_string_value(json_object_get(f, "format"));
        const char *kind = json_string_value(json_object_get(f, "kind"));
        if (strcmp(kind, "snapshot") == 0) {
            char raw[1200];
            snprintf(raw, sizeof raw, "%s", path);
            char *dot = strrchr(raw, '.');
            ck_assert_ptr_nonnull(dot);
            strcpy(dot, ".f32"); /* the png of a slice is scaled by its raw file's max */
            const double want = file_max_abs(raw);
            ck_assert_msg(want > 0, "%s: an all-zero snapshot tells nothing", raw);
            ck_assert_double_eq_tol(json_number_value(json_object_get(f, "max_abs")), want,
                                    want * 1e-6);
        }
        if (strcmp(kind, "gather") == 0) {
            json_t *sp = json_object_get(m, "spec");
            const double dt = json_number_value(json_object_get(json_object_get(sp, "time"), "dt"));
            const double every = json_number_value(
                json_object_get(json_object_get(sp, "receivers"), "interval"));
            ck_assert(dt > 0 && every >= 1);
            ck_assert_double_eq_tol(json_number_value(json_object_get(f, "sample_interval")),
                                    dt * every, dt * 1e-9);
        }
        pngs += strcmp(fmt, "png") == 0;
        segys += strcmp(fmt, "segy") == 0;
    }
    ck_assert_int_eq(pngs, 2);
    ck_assert_int_eq(segys, 1);
    json_decref(m);
}

START_TEST(tiny_job_runs)
{
    write_text(in_dir("tiny.json"), tiny_spec);
    const char *args[] = {"tiny.json", "--backend", "cpu", "--threads", "1", NULL};
    char *out, *err;
    ck_assert_int_eq(run(args, &out, &err), 0);
    /* Default output directory: ./out/<stem>. */
    ck_assert_contains(out, "outputs: out/tiny\n");
    ck_assert_contains(out, "manifest: out/tiny/manifest.json\n");
    check_manifest(in_dir("out/tiny"), "tiny");
    /* Not a terminal: plain lines, no carriage returns. */
    ck_assert_contains(err, "progress 100.0% step 40/40");
    ck_assert_contains(err, "snapshot 0 at step 20");
    ck_assert_ptr_null(strchr(err, '\r'));
    free(out);
    free(err);
}
END_TEST

START_TEST(json_and_quiet)
{
    write_text(in_dir("tiny.json"), tiny_spec);
    /* options before the spec, short and long */
    const char *args[] = {"--out", "elsewhere/run1", "-q", "--json", "tiny.json", NULL};
    char *out, *err;
    ck_assert_int_eq(run(args, &out, &err), 0);
    ck_assert_ptr_null(strstr(err, "progress"));
    ck_assert_ptr_null(strstr(err, "snapshot"));
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    ck_assert_msg(j != NULL, "stdout is not JSON: %s", out);
    ck_assert_str_eq(json_string_value(json_object_get(j, "status")), "succeeded");
    ck_assert_str_eq(json_string_value(json_object_get(j, "out_dir")), "elsewhere/run1");
    ck_assert_str_eq(json_string_value(json_object_get(j, "manifest")),
                     "elsewhere/run1/manifest.json");
    ck_assert_int_eq(json_integer_value(json_object_get(j, "steps_done")), 40);
    ck_assert(json_is_array(json_object_get(j, "warnings")));
    json_decref(j);
    check_manifest(in_dir("elsewhere/run1"), "tiny");
    free(out);
    free(err);
}
END_TEST

/* On a terminal the progress bar is one line redrawn with carriage returns. */
START_TEST(tty_progress_bar)
{
    write_text(in_dir("tiny.json"), tiny_spec);
    int master;
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(99);
        execl(FDWAVE_RUN, FDWAVE_RUN, "tiny.json", "--out", "tty", (char *)NULL);
        _exit(98);
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = calloc(1, cap);
    for (;;) {
        ssize_t n = read(master, buf + len, cap - 1 - len);
        if (n <= 0)
            break; /* EIO once the child has exited */
        len += (size_t)n;
        if (len >= cap - 1)
            break;
    }
    buf[len] = '\0';
    close(master);
    ck_assert_int_eq(finish(pid, 30), 0);
    ck_assert_contains(buf, "\r\033[K[");
    ck_assert_contains(buf, "############################] 100.0%  step 40/40");
    ck_assert_contains(buf, "ETA");
    free(buf);
}
END_TEST

START_TEST(sigint_cancels)
{
    /* Long enough to be interrupted: about a million steps. */
    char *spec = strdup(tiny_spec);
    char *p = strstr(spec, "\"nt\":40");
    memcpy(p, "\"nt\":9", 6);
    char *full = malloc(strlen(spec) + 16);
    sprintf(full, "%.*s999999%s", (int)(p - spec) + 6, spec, p + 7);
    write_text(in_dir("long.json"), full);
    free(full);
    free(spec);
    const char *args[] = {"long.json", "--out", "cancelled", NULL};
    pid_t pid = start(args);
    /* Wait for the first snapshot so some outputs exist, then interrupt. */
    int seen = 0;
    for (int t = 0; t < 600 && !seen; t++) {
        usleep(50000);
        char *err = read_text(in_dir("stderr.txt"));
        seen = strstr(err, "snapshot 0 at step") != NULL;
        free(err);
    }
    ck_assert_msg(seen, "no snapshot within 30 s");
    ck_assert_int_eq(kill(pid, SIGINT), 0);
    ck_assert_int_eq(finish(pid, 20), 130);
    char *err = read_text(in_dir("stderr.txt"));
    ck_assert_contains(err, "fdwave-run: cancelled after");
    ck_assert_contains(err, "outputs so far are in cancelled");
    free(err);
    struct stat st;
    ck_assert_int_eq(stat(in_dir("cancelled/snap_000020_xy_k10.png"), &st), 0);
    ck_assert_int_eq(stat(in_dir("cancelled/manifest.json"), &st), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fdwave-run");
    TCase *tc = tcase_create("program");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, bad_spec_names_field);
    tcase_add_test(tc, bad_spec_nested_and_missing);
    tcase_add_test(tc, usage_errors);
    tcase_add_test(tc, tiny_job_runs);
    tcase_add_test(tc, json_and_quiet);
    tcase_add_test(tc, tty_progress_bar);
    tcase_add_test(tc, sigint_cancels);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
