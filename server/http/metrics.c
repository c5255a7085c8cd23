/* metrics.c — /metrics in the Prometheus text format: jobs by state, queue length,
 * the simulation rate of the running jobs, per-device busy flags, HTTP request counts
 * by status class, open event streams and dropped progress events; the data disk's
 * free space and reserve, the host memory the running jobs hold, and per user the
 * device-seconds and runs of ended jobs (accounting). */
#include "http/metrics.h"
#include "auth/admission.h"
#include "core/app.h"
#include "core/diskguard.h"
#include "events/events.h"
#include "store/jobs.h"
#include "sched/scheduler.h"
#include "events/sse.h"
#include "store/usage.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The HTTP request counters (app->metrics). */
struct metrics {
    atomic_ullong requests;
    atomic_ullong by_class[6]; /* index status/100 */
};

int metrics_init(fdwd_app *app)
{
    app->metrics = calloc(1, sizeof *app->metrics);
    return app->metrics ? 0 : -1;
}

void metrics_count_request(fdwd_app *app) { atomic_fetch_add(&app->metrics->requests, 1); }

void metrics_count_status(fdwd_app *app, unsigned status)
{
    unsigned c = status / 100;
    if (c < 6)
        atomic_fetch_add(&app->metrics->by_class[c], 1);
}

static void device_seconds_line(void *arg, const char *user, double device_seconds, long runs)
{
    (void)runs;
    fprintf(arg, "fdwave_device_seconds_total{user=\"%s\"} %.3f\n", user, device_seconds);
}

static void runs_line(void *arg, const char *user, double device_seconds, long runs)
{
    (void)device_seconds;
    fprintf(arg, "fdwave_job_runs_total{user=\"%s\"} %ld\n", user, runs);
}

char *metrics_text(fdwd_app *app)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int64_t counts[5];
    jobs_count_by_state(app, counts);
    fprintf(f, "# HELP fdwave_jobs Jobs in the database by state.\n# TYPE fdwave_jobs gauge\n");
    for (int i = 0; i < 5; i++)
        fprintf(f, "fdwave_jobs{state=\"%s\"} %lld\n", jobs_states[i], (long long)counts[i]);
    fprintf(f, "# HELP fdwave_queue_length Jobs waiting to run.\n"
               "# TYPE fdwave_queue_length gauge\nfdwave_queue_length %lld\n",
            (long long)counts[0]);
    int running = 0;
    double mpts = sched_mpts(app, &running);
    fprintf(f, "# HELP fdwave_jobs_running Jobs running now.\n"
               "# TYPE fdwave_jobs_running gauge\nfdwave_jobs_running %d\n", running);
    fprintf(f, "# HELP fdwave_mpoints_per_second Grid points updated per second by running "
               "jobs, millions.\n# TYPE fdwave_mpoints_per_second gauge\n"
               "fdwave_mpoints_per_second %.3f\n", mpts);
    fprintf(f, "# HELP fdwave_device_busy 1 while a job runs on the device.\n"
               "# TYPE fdwave_device_busy gauge\n");
    for (int i = 0; i < app->ndevices; i++)
        fprintf(f, "fdwave_device_busy{device=\"%d\",name=\"%s\"} %d\n", app->devices[i].id,
                app->devices[i].name, sched_device_job(app, i) ? 1 : 0);
    fprintf(f, "# HELP fdwave_http_requests_total HTTP requests received.\n"
               "# TYPE fdwave_http_requests_total counter\nfdwave_http_requests_total %llu\n",
            (unsigned long long)atomic_load(&app->metrics->requests));
    fprintf(f, "# HELP fdwave_http_responses_total HTTP responses by status class.\n"
               "# TYPE fdwave_http_responses_total counter\n");
    for (int c = 1; c < 6; c++)
        fprintf(f, "fdwave_http_responses_total{code=\"%dxx\"} %llu\n", c,
                (unsigned long long)atomic_load(&app->metrics->by_class[c]));
    fprintf(f, "# HELP fdwave_event_streams Open event streams (SSE watchers).\n"
               "# TYPE fdwave_event_streams gauge\nfdwave_event_streams %d\n", sse_count(app));
    fprintf(f, "# HELP fdwave_progress_events_dropped_total Progress events dropped because "
               "the event queue was full.\n# TYPE fdwave_progress_events_dropped_total counter\n"
               "fdwave_progress_events_dropped_total %llu\n",
            (unsigned long long)events_dropped(app));
    disk_status ds;
    if (diskguard_status(app, &ds) == 0)
        fprintf(f, "# HELP fdwave_disk_free_bytes Free space of the data directory's file "
                   "system.\n# TYPE fdwave_disk_free_bytes gauge\nfdwave_disk_free_bytes %llu\n"
                   "# HELP fdwave_disk_total_bytes Size of the data directory's file system.\n"
                   "# TYPE fdwave_disk_total_bytes gauge\nfdwave_disk_total_bytes %llu\n"
                   "# HELP fdwave_disk_reserve_bytes Space set aside to record jobs' ends on "
                   "a full disk (0: given up).\n# TYPE fdwave_disk_reserve_bytes gauge\n"
                   "fdwave_disk_reserve_bytes %llu\n# HELP fdwave_disk_low 1 while free space "
                   "is below min-free-disk.\n# TYPE fdwave_disk_low gauge\nfdwave_disk_low %d\n",
                (unsigned long long)ds.free_bytes, (unsigned long long)ds.total_bytes,
                (unsigned long long)ds.reserve_bytes, ds.low);
    fprintf(f, "# HELP fdwave_host_memory_reserved_bytes Host memory the running jobs hold by "
               "their estimates.\n# TYPE fdwave_host_memory_reserved_bytes gauge\n"
               "fdwave_host_memory_reserved_bytes %llu\n# HELP fdwave_host_memory_budget_bytes "
               "Host memory jobs may hold together.\n# TYPE fdwave_host_memory_budget_bytes "
               "gauge\nfdwave_host_memory_budget_bytes %llu\n",
            (unsigned long long)admission_reserved(app),
            (unsigned long long)admission_host_budget(app));
    fprintf(f, "# HELP fdwave_device_seconds_total Device-seconds of the runs that ended, "
               "per user.\n# TYPE fdwave_device_seconds_total counter\n");
    usage_totals(app, device_seconds_line, f);
    fprintf(f, "# HELP fdwave_job_runs_total Runs of jobs that ended, per user.\n"
               "# TYPE fdwave_job_runs_total counter\n");
    usage_totals(app, runs_line, f);
    fclose(f);
    return buf;
}
