/* test_run.c — the run machinery of fdw_run: manifest.json lists every file with the right
 * sizes, PNGs are PNGs, snapshot and progress callbacks behave (increasing steps, rate
 * limit, final 100%), cancellation through either callback stops within one step, and
 * N slabs give bit-identical outputs to one slab for the acoustic, stencil and derivative
 * kinds. CPU backend. */
#include "run/backend.h"
#include "physics_util.h"
#include "run/wavelet.h"

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A small but complete acoustic job: Gaussian anomaly, sponge, free surface, two off-grid
 * sources, a receiver line crossing slabs, snapshots of every plane and the volume. */
static void acoustic_json(char *json, size_t len, int devices, int nt, int every)
{
    snprintf(json, len,
             "{\"kind\":\"acoustic\",\"name\":\"run test\","
             "\"grid\":{\"nx\":40,\"ny\":36,\"nz\":48,\"dx\":10,\"dy\":12,\"dz\":10},"
             "\"order\":8,"
             "\"velocity\":{\"type\":\"gaussian\",\"background\":2000,"
             "\"center\":[200,210,240],\"sigma\":80,\"dv\":-400},"
             "\"time\":{\"nt\":%d,\"dt\":\"auto\"},"
             "\"sources\":[{\"position\":[203.3,181.7,137.5],"
             "\"wavelet\":{\"type\":\"ricker\",\"f0\":12}},"
             "{\"position\":[120,150,330],\"wavelet\":{\"type\":\"ricker\",\"f0\":10,"
             "\"delay\":0.1,\"amplitude\":-2}}],"
             "\"receivers\":{\"lines\":[{\"from\":[200,180,5],\"to\":[200,180,465],"
             "\"count\":24}],\"points\":[[101.5,99.9,233.3]]},"
             "\"boundary\":{\"type\":\"sponge\",\"width\":8,\"free_surface\":true},"
             "\"snapshots\":{\"every\":%d,\"slices\":[{\"plane\":\"xy\",\"index\":16},"
             "{\"plane\":\"xz\",\"index\":18},{\"plane\":\"yz\",\"index\":20}],"
             "\"volume\":true,\"png\":true,\"raw\":true},"
             "\"devices\":%d}",
             nt, every, devices);
}

/* Callback recorder. */
typedef struct rec {
    int nsnap;
    long snap_steps[64];
    int snap_files[64];
    int nprog;
    long last_step;
    double last_percent;
    long nsteps;
    int cancel_at_poll;     /* cancelled() returns 1 at this poll (0: never) */
    int polls;
    double sleep_per_poll;  /* seconds, to make a run last */
    int cancel_on_progress; /* progress returns 1 at its first call */
    long cancelled_step;
    int nlog;
} rec;

static void on_snapshot(void *user, const fdw_snapshot_info *s)
{
    rec *r = user;
    if (r->nsnap < 64) {
        r->snap_steps[r->nsnap] = s->step;
        r->snap_files[r->nsnap] = s->nfiles;
    }
    ck_assert_int_eq(s->index, r->nsnap);
    r->nsnap++;
}

static int on_progress(void *user, const fdw_progress *p)
{
    rec *r = user;
    r->nprog++;
    ck_assert_int_ge(p->step, r->last_step);
    r->last_step = p->step;
    r->last_percent = p->percent;
    r->nsteps = p->nsteps;
    ck_assert_int_ge(p->ndevices, 1);
    long nz = 0;
    for (int d = 0; d < p->ndevices; d++)
        nz += p->devices[d].nz;
    ck_assert_int_gt(nz, 0);
    if (r->cancel_on_progress) {
        r->cancelled_step = p->step;
        return 1;
    }
    return 0;
}

static int on_cancelled(void *user)
{
    rec *r = user;
    r->polls++;
    if (r->sleep_per_poll > 0.0) {
        struct timespec ts = {0, (long)(r->sleep_per_poll * 1e9)};
        nanosleep(&ts, NULL);
    }
    return r->cancel_at_poll > 0 && r->polls >= r->cancel_at_poll;
}

static void on_log(void *user, int level, const char *msg)
{
    (void)level;
    (void)msg;
    ((rec *)user)->nlog++;
}

static fdw_callbacks callbacks(rec *r, double interval)
{
    fdw_callbacks cb = {.progress = on_progress, .snapshot = on_snapshot, .log = on_log,
                        .cancelled = on_cancelled, .user = r, .progress_interval_s = interval};
    return cb;
}

static long file_size(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

START_TEST(test_manifest_and_files)
{
    char json[4096];
    acoustic_json(json, sizeof json, 1, 60, 20);
    rec r = {0};
    fdw_callbacks cb = callbacks(&r, 0.5);
    phys_run run;
    phys_run_spec(json, &cb, 0, &run);
    ck_assert_int_eq(run.result.steps_done, 60);
    ck_assert_str_eq(run.result.backend, "cpu");
    ck_assert_int_gt(r.nlog, 0);

    /* snapshots at 20, 40, 60: 3 slices x (raw + png) + volume raw = 7 files each */
    ck_assert_int_eq(r.nsnap, 3);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(r.snap_steps[i], 20 * (i + 1));
        ck_assert_int_eq(r.snap_files[i], 7);
    }
    ck_assert_double_eq_tol(r.last_percent, 100.0, 1e-9);
    ck_assert_int_eq(r.last_step, 60);

    char path[512];
    snprintf(path, sizeof path, "%s/manifest.json", run.dir);
    json_error_t jerr;
    json_t *m = json_load_file(path, 0, &jerr);
    ck_assert_msg(m != NULL, "manifest.json: %s", jerr.text);
    json_t *files = json_object_get(m, "files");
    ck_assert(json_is_array(files));
    /* 21 snapshot files + gather.segy + gather.f32 */
    ck_assert_int_eq(json_array_size(files), 23);
    size_t i;
    json_t *f;
    int npng = 0, nraw = 0, nsegy = 0;
    json_array_foreach(files, i, f) {
        const char *name = json_string_value(json_object_get(f, "name"));
        const char *format = json_string_value(json_object_get(f, "format"));
        ck_assert_ptr_nonnull(name);
        ck_assert_ptr_nonnull(format);
        const long size = file_size(run.dir, name);
        ck_assert_msg(size > 0, "%s listed but missing", name);
        json_t *dims = json_object_get(f, "dims");
        long count = 1;
        size_t d;
        json_t *dv;
        json_array_foreach(dims, d, dv) count *= (long)json_integer_value(dv);
        if (strcmp(format, "raw-f32") == 0) {
            nraw++;
            ck_assert_msg(size == 4 * count, "%s: %ld bytes for %ld floats", name, size, count);
        } else if (strcmp(format, "png") == 0) {
            npng++;
            size_t len = 0;
            snprintf(path, sizeof path, "%s/%s", run.dir, name);
            unsigned char *b = phys_read_file(path, &len);
            ck_assert_ptr_nonnull(b);
            static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
            ck_assert(len > 8 && memcmp(b, sig, 8) == 0);
            free(b);
        } else if (strcmp(format, "segy") == 0) {
            nsegy++;
            /* 3600-byte header + per trace 240 + 4*ns */
            ck_assert_int_eq(size, 3600 + run.nrec * (240 + 4 * run.ns));
        }
    }
    ck_assert_int_eq(npng, 9);
    ck_assert_int_eq(nraw, 13);
    ck_assert_int_eq(nsegy, 1);
    json_t *res = json_object_get(m, "result");
    ck_assert(json_is_object(res));
    ck_assert_int_eq(json_integer_value(json_object_get(res, "steps")), 60);
    ck_assert_str_eq(json_string_value(json_object_get(res, "backend")), "cpu");
    ck_assert(json_is_true(json_object_get(res, "completed")));
    json_decref(m);

    /* the gather is not all zeros and is finite */
    double peak = 0.0;
    for (long s = 0; s < (long)run.nrec * run.ns; s++) {
        ck_assert(isfinite(run.traces[s]));
        if (fabs(run.traces[s]) > peak)
            peak = fabs(run.traces[s]);
    }
    ck_assert_double_gt(peak, 0.0);
    phys_run_free(&run);
}
END_TEST

/* ~1.2 s run (5 ms per step from the cancel poll) with a 0.2 s progress interval. */
START_TEST(test_progress_rate_limited)
{
    char json[4096];
    acoustic_json(json, sizeof json, 2, 240, 0);
    /* no snapshots: "every": 0 */
    rec r = {0};
    r.sleep_per_poll = 0.005;
    fdw_callbacks cb = callbacks(&r, 0.2);
    phys_run run;
    /* One thread: idle OpenMP workers spinning while the caller sleeps would make the run
     * crawl on a loaded machine. */
    phys_run_spec(json, &cb, 1, &run);
    const double el = run.result.elapsed_s;
    printf("progress: %d calls in %.2f s at a 0.2 s interval\n", r.nprog, el);
    ck_assert_int_le(r.nprog, (int)(el / 0.2) + 2);
    ck_assert_int_ge(r.nprog, 3);
    ck_assert_double_eq_tol(r.last_percent, 100.0, 1e-9);
    ck_assert_int_eq(r.last_step, 240);
    ck_assert_int_eq(r.nsteps, 240);
    phys_run_free(&run);
}
END_TEST

/* Run a spec expecting FDW_ERR_CANCELLED; returns steps done. One OpenMP thread, for the
 * same reason as in test_progress_rate_limited. */
static long run_cancelled(const char *json, rec *r, double interval)
{
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_int_eq(fdw_spec_parse(json, strlen(json), NULL, &spec, &err), FDW_OK);
    char dir[] = "/tmp/fdw-cancel-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    fdw_run_opts opts = {.out_dir = dir, .backend = FDW_BACKEND_CPU, .threads = 1};
    fdw_callbacks cb = callbacks(r, interval);
    fdw_result res;
    fdw_status st = fdw_run(spec, &opts, &cb, &res, &err);
    ck_assert_int_eq(st, FDW_ERR_CANCELLED);
    ck_assert_int_eq(err.code, FDW_ERR_CANCELLED);
    ck_assert(strstr(err.message, "cancel") != NULL);
    fdw_spec_free(spec);
    phys_run tmp = {0};
    snprintf(tmp.dir, sizeof tmp.dir, "%s", dir);
    phys_run_free(&tmp);
    return res.steps_done;
}

START_TEST(test_cancel_callback)
{
    char json[4096];
    acoustic_json(json, sizeof json, 1, 200, 20);
    rec r = {0};
    r.cancel_at_poll = 31; /* polls 1..30 let steps 0..29 run */
    const long done = run_cancelled(json, &r, 0.5);
    ck_assert_int_eq(done, 30);
    ck_assert_int_eq(r.polls, 31);
    ck_assert_int_eq(r.nsnap, 1); /* the snapshot at step 20 was written */
}
END_TEST

START_TEST(test_cancel_progress)
{
    char json[4096];
    acoustic_json(json, sizeof json, 1, 400, 0);
    rec r = {0};
    r.sleep_per_poll = 0.004;
    r.cancel_on_progress = 1;
    const long done = run_cancelled(json, &r, 0.1);
    ck_assert_int_eq(r.nprog, 1);
    ck_assert_int_eq(done, r.cancelled_step);
    ck_assert_int_lt(done, 400);
}
END_TEST

/* Whole file contents equal. */
static void assert_same_file(const char *d1, const char *d2, const char *name)
{
    char p1[512], p2[512];
    snprintf(p1, sizeof p1, "%s/%s", d1, name);
    snprintf(p2, sizeof p2, "%s/%s", d2, name);
    size_t l1 = 0, l2 = 0;
    unsigned char *a = phys_read_file(p1, &l1), *b = phys_read_file(p2, &l2);
    ck_assert_msg(a && b, "%s missing", name);
    ck_assert_msg(l1 == l2 && memcmp(a, b, l1) == 0, "%s differs between decompositions",
                  name);
    free(a);
    free(b);
}

START_TEST(test_multislab_acoustic)
{
    char json[4096];
    acoustic_json(json, sizeof json, 1, 90, 30);
    phys_run one;
    phys_run_spec(json, NULL, 0, &one);
    for (int ndev = 2; ndev <= 4; ndev++) {
        acoustic_json(json, sizeof json, ndev, 90, 30);
        phys_run many;
        phys_run_spec(json, NULL, 0, &many);
        ck_assert_int_eq(many.nrec, one.nrec);
        ck_assert_msg(memcmp(many.traces, one.traces,
                             (size_t)one.nrec * one.ns * sizeof(float)) == 0,
                      "%d slabs: receiver traces differ from 1 slab", ndev);
        static const char *names[] = {"gather.segy", "snap_000090_volume.f32",
                                      "snap_000090_xy_k16.f32", "snap_000090_xz_j18.f32",
                                      "snap_000090_yz_i20.f32", "snap_000060_xy_k16.png",
                                      "snap_000030_volume.f32"};
        for (size_t n = 0; n < sizeof names / sizeof *names; n++)
            assert_same_file(one.dir, many.dir, names[n]);
        phys_run_free(&many);
    }
    phys_run_free(&one);
}
END_TEST

/* Stencil and derivative kinds: field.f32 and the result in the manifest; 3 slabs give the
 * same field as 1; the derivative's error after iteration 1 is small. */
static void kind_run(const char *kind_json, int devices, phys_run *out)
{
    char json[1024];
    snprintf(json, sizeof json, kind_json, devices);
    phys_run_spec(json, NULL, 0, out);
}

START_TEST(test_stencil_and_derivative)
{
    const char *stencil = "{\"kind\":\"stencil\",\"grid\":{\"nx\":33,\"ny\":30,\"nz\":36,"
                          "\"dx\":1,\"dy\":1,\"dz\":1},\"order\":6,\"iterations\":7,"
                          "\"seed\":3,\"devices\":%d}";
    const char *deriv = "{\"kind\":\"derivative\",\"grid\":{\"nx\":64,\"ny\":32,\"nz\":48,"
                        "\"dx\":10,\"dy\":10,\"dz\":5},\"axis\":\"z\",\"periods\":[1,2,1],"
                        "\"iterations\":3,\"devices\":%d}";
    const char *kinds[2] = {stencil, deriv};
    for (int k = 0; k < 2; k++) {
        phys_run a, b;
        kind_run(kinds[k], 1, &a);
        kind_run(kinds[k], 3, &b);
        assert_same_file(a.dir, b.dir, "field.f32");
        ck_assert_int_eq(a.result.steps_done, k == 0 ? 7 : 3);
        char path[512];
        snprintf(path, sizeof path, "%s/manifest.json", a.dir);
        json_t *m = json_load_file(path, 0, NULL);
        ck_assert_ptr_nonnull(m);
        json_t *res = json_object_get(m, "result");
        ck_assert(json_is_number(json_object_get(res, "l2_norm")));
        ck_assert_double_gt(json_number_value(json_object_get(res, "l2_norm")), 0.0);
        if (k == 1) {
            /* d/dz of sin(2 pi z / 240 m): amplitude 2 pi / 240 = 0.026 per metre; 8th
             * order at 48 points per period is accurate to ~1e-9 relative, so what is left
             * is float rounding. */
            const double amp = 2.0 * M_PI / (48 * 5.0);
            printf("derivative: max |error| after iteration 1 = %.3e (derivative amplitude "
                   "%.3e)\n",
                   a.result.max_abs_error, amp);
            ck_assert_double_lt(a.result.max_abs_error, 1e-4 * amp);
            ck_assert_double_eq(a.result.max_abs_error, b.result.max_abs_error);
            ck_assert_double_eq_tol(json_number_value(json_object_get(res, "max_abs_error")),
                                    a.result.max_abs_error, 1e-12);
        }
        json_decref(m);
        phys_run_free(&a);
        phys_run_free(&b);
    }
}
END_TEST

/* A small homogeneous job with one receiver line; wavelet and interval text as given. */
static void simple_json(char *json, size_t len, const char *wavelet, int interval)
{
    snprintf(json, len,
             "{\"grid\":{\"nx\":40,\"ny\":40,\"nz\":40,\"dx\":10,\"dy\":10,\"dz\":10},"
             "\"order\":4,\"velocity\":{\"type\":\"constant\",\"value\":2000},"
             "\"time\":{\"nt\":90,\"dt\":0.0015},"
             "\"sources\":[{\"position\":[200,200,200],\"wavelet\":%s}],"
             "\"receivers\":{\"lines\":[{\"from\":[50,200,200],\"to\":[350,215,200],"
             "\"count\":7}],\"interval\":%d},\"boundary\":{\"type\":\"sponge\",\"width\":8}}",
             wavelet, interval);
}

/* Receiver slots follow the time convention: with interval 3, slot s is step 3s of the
 * interval-1 gather, bit for bit. */
START_TEST(test_receiver_interval)
{
    char json[2048];
    const char *ricker = "{\"type\":\"ricker\",\"f0\":15}";
    simple_json(json, sizeof json, ricker, 1);
    phys_run every;
    phys_run_spec(json, NULL, 0, &every);
    simple_json(json, sizeof json, ricker, 3);
    phys_run third;
    phys_run_spec(json, NULL, 0, &third);
    ck_assert_int_eq(every.ns, 91);
    ck_assert_int_eq(third.ns, 31);
    ck_assert_double_eq_tol(third.dt, 3 * every.dt, 1e-15);
    for (int r = 0; r < every.nrec; r++)
        for (long s = 0; s < third.ns; s++)
            ck_assert_float_eq(third.traces[r * third.ns + s], every.traces[r * every.ns + 3 * s]);
    ck_assert_float_eq(every.traces[0], 0.0f); /* slot 0 is the zero initial state */
    phys_run_free(&every);
    phys_run_free(&third);
}
END_TEST

/* A wavelet file holding the Ricker samples gives the Ricker run's gather (to float
 * rounding of the samples). */
START_TEST(test_wavelet_file)
{
    char path[] = "/tmp/fdw-wavelet-XXXXXX";
    const int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "wb");
    for (int it = 0; it < 90; it++) {
        const float v = (float)fdw_ricker(it * 0.0015, 15.0, 1.2 / 15.0, 1.0);
        fwrite(&v, sizeof v, 1, f);
    }
    fclose(f);
    char json[2048], wav[512];
    snprintf(wav, sizeof wav, "{\"type\":\"file\",\"path\":\"%s\"}", path);
    simple_json(json, sizeof json, wav, 1);
    phys_run file;
    phys_run_spec(json, NULL, 0, &file);
    simple_json(json, sizeof json, "{\"type\":\"ricker\",\"f0\":15}", 1);
    phys_run ricker;
    phys_run_spec(json, NULL, 0, &ricker);
    double peak = 0.0, worst = 0.0;
    for (long s = 0; s < (long)ricker.nrec * ricker.ns; s++) {
        peak = fmax(peak, fabs(ricker.traces[s]));
        worst = fmax(worst, fabs(ricker.traces[s] - file.traces[s]));
    }
    ck_assert_double_gt(peak, 0.0);
    ck_assert_double_lt(worst, 1e-5 * peak);
    remove(path);
    phys_run_free(&file);
    phys_run_free(&ricker);
}
END_TEST

/* Bad run options come back as errors, not crashes. */
START_TEST(test_bad_options)
{
    char json[4096];
    acoustic_json(json, sizeof json, 1, 10, 0);
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_int_eq(fdw_spec_parse(json, strlen(json), NULL, &spec, &err), FDW_OK);
    fdw_run_opts opts = {.out_dir = NULL, .backend = FDW_BACKEND_CPU};
    ck_assert_int_eq(fdw_run(spec, &opts, NULL, NULL, &err), FDW_ERR_IO);
    opts.out_dir = "/proc/fdw-cannot-be-here";
    ck_assert_int_eq(fdw_run(spec, &opts, NULL, NULL, &err), FDW_ERR_IO);
    ck_assert(strstr(err.message, "/proc") != NULL);
    if (fdw_cuda_backend() == NULL) {
        opts.out_dir = "/tmp";
        opts.backend = FDW_BACKEND_CUDA;
        ck_assert_int_eq(fdw_run(spec, &opts, NULL, NULL, &err), FDW_ERR_UNSUPPORTED);
    }
    fdw_spec_free(spec);
}
END_TEST

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    Suite *s = suite_create("physics-run");
    TCase *tc = tcase_create("run");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_manifest_and_files);
    tcase_add_test(tc, test_progress_rate_limited);
    tcase_add_test(tc, test_cancel_callback);
    tcase_add_test(tc, test_cancel_progress);
    tcase_add_test(tc, test_multislab_acoustic);
    tcase_add_test(tc, test_stencil_and_derivative);
    tcase_add_test(tc, test_receiver_interval);
    tcase_add_test(tc, test_wavelet_file);
    tcase_add_test(tc, test_bad_options);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
