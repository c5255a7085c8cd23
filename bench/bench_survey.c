/* bench_survey.c — fdwave-bench's "survey" section: the whole-job time of a survey, the way
 * a lab uses a several-GPU server. 16 shots on a line over one model (acoustic order 8,
 * 400^3, layered, sponge, a 201-receiver spread moving with the shot, 1000 steps a shot)
 * run through fdw_run on the CUDA backend with 1, 2, 4 ... GPUs, the shots spread one per
 * GPU (the engine's own choice: a shot fits on one GPU). The time includes everything a job
 * pays: the model built once, each shot's set-up, the time loop and its SEG-Y outputs. */
#include "bench_survey.h"

#include "fdwave/fdwave.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Remove the files of a survey's output directory (flat) and the directory. */
static void remove_dir(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

/* One run of the survey on GPUs 0..n-1 (the spec's "devices" n); its wall seconds (the
 * groups it ran in through *groups), or a negative value when it failed. */
static double run_on(const char *body, int n, long nt, int *groups)
{
    char json[1600];
    snprintf(json, sizeof json, "%s, \"devices\": %d}", body, n);
    fdw_error err;
    fdw_spec *spec = NULL;
    if (fdw_spec_parse(json, strlen(json), NULL, &spec, &err) != FDW_OK) {
        printf("  survey spec refused: %s (%s)\n", err.message, err.field);
        return -1.0;
    }
    int ids[8];
    for (int d = 0; d < n; d++)
        ids[d] = d;
    char dir[] = "/tmp/fdw-bench-survey-XXXXXX";
    if (!mkdtemp(dir)) {
        fdw_spec_free(spec);
        return -1.0;
    }
    fdw_run_opts o = {.out_dir = dir, .backend = FDW_BACKEND_CUDA, .device_ids = ids,
                      .ndevice_ids = n};
    fdw_result r;
    const double t0 = wall();
    fdw_status st = fdw_run(spec, &o, NULL, &r, &err);
    const double t = wall() - t0;
    fdw_spec_free(spec);
    remove_dir(dir);
    if (st != FDW_OK) {
        printf("  %d GPU(s): %s: %s\n", n, fdw_status_name(st), err.message);
        return -1.0;
    }
    if (r.shots_done != r.nshots || r.steps_done != r.nshots * nt) {
        printf("  %d GPU(s): %d of %d shots, %ld steps\n", n, r.shots_done, r.nshots,
               r.steps_done);
        return -1.0;
    }
    *groups = r.groups;
    return t;
}

void bench_survey(json_t *records, const char *device, const char *date, const char *command,
                  int quick, int gpus)
{
    const int have = fdw_gpu_count();
    if (have < 1) {
        printf("survey: no GPU, skipped\n");
        return;
    }
    const int N = 400, SHOTS = 16;
    const long nt = quick ? 200 : 1000;
    char json[1536];
    snprintf(json, sizeof json,
             "{\"kind\": \"acoustic\", \"grid\": {\"nx\": %d, \"ny\": %d, \"nz\": %d, \"dx\": 10, "
             "\"dy\": 10, \"dz\": 10}, \"order\": 8, \"velocity\": {\"type\": \"layered\", "
             "\"layers\": [{\"top\": 0, \"v\": 1800}, {\"top\": 1500, \"v\": 2600}, {\"top\": "
             "2800, \"v\": 3400}]}, \"time\": {\"nt\": %ld, \"dt\": \"auto\"}, \"survey\": "
             "{\"generate\": {\"first\": [1000, 2000, 400], \"step\": [130, 0, 0], \"count\": %d}, "
             "\"wavelet\": {\"type\": \"ricker\", \"f0\": 10}, \"spread\": {\"lines\": "
             "[{\"from\": [-1000, 0, -20], \"to\": [1000, 0, -20], \"count\": 201}]}, "
             "\"outside\": \"drop\"}, \"boundary\": {\"type\": \"sponge\"}",
             N, N, N, nt, SHOTS);
    printf("survey: %d shots of %d^3, acoustic order 8, %ld steps a shot, a 201-receiver "
           "spread moving with the shot, on 1, 2, 4 ... GPUs (whole fdw_run)\n",
           SHOTS, N, nt);
    double t1 = -1.0;
    for (int n = 1; n <= gpus && n <= have && n <= 8; n *= 2) {
        int groups = 0;
        const double t = run_on(json, n, nt, &groups);
        if (t < 0)
            continue;
        if (n == 1)
            t1 = t;
        const double mpts = (double)N * N * N * nt * SHOTS / t / 1e6;
        printf("  %d GPU%s: %.2f s (%d group%s at once), %.0f Mpoints/s over the job%s", n,
               n > 1 ? "s" : "", t, groups, groups > 1 ? "s" : "", mpts,
               n > 1 && t1 > 0 ? "" : "\n");
        if (n > 1 && t1 > 0)
            printf(": %.2fx one GPU\n", t1 / t);
        json_t *r = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:s, s:f, s:s, s:s, s:s}", "kind",
                              "acoustic-survey", "order", 8, "nx", N, "ny", N, "nz", N, "gpus",
                              n, "device", device, "mpts", mpts, "date", date, "variant",
                              "survey-16-shots", "command", command);
        json_object_set_new(r, "shots", json_integer(SHOTS));
        json_object_set_new(r, "steps_per_shot", json_integer(nt));
        json_object_set_new(r, "seconds", json_real(t));
        json_object_set_new(r, "groups", json_integer(groups));
        if (n > 1 && t1 > 0)
            json_object_set_new(r, "speedup", json_real(t1 / t));
        json_array_append_new(records, r);
    }
}
