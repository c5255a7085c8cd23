/* main.c — fdwaved's entry point: settings, quotas, memory limits, data directory,
 * database (checked first) and recovery, the disk reserve, then the event writer, SSE
 * timer, scheduler and HTTP threads; SIGTERM/SIGINT shut it down in order (stop
 * accepting, suspend running jobs with a checkpoint and re-queue them, store their
 * events, end the streams, stop HTTP) and it exits 0. `fdwaved token ...` manages API
 * tokens; `fdwaved check` and `fdwaved backup FILE` check and copy the database. */
#include "sched/accept.h"
#include "auth/access.h"
#include "auth/admission.h"
#include "core/app.h"
#include "auth/auth.h"
#include "core/datadir.h"
#include "core/db.h"
#include "core/dbcheck.h"
#include "core/diskguard.h"
#include "events/events.h"
#include "http/http.h"
#include "store/jobs.h"
#include "core/log.h"
#include "sched/memlimit.h"
#include "data/factcache.h"
#include "data/datasets.h"
#include "data/models.h"
#include "core/notify.h"
#include "core/quota.h"
#include "sched/scheduler.h"
#include "auth/sharing.h"
#include "events/sse.h"
#include "data/sweep.h"
#include "auth/validate.h"

#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/* Daemon crashes a running job may live through before it is failed (a crash is not the
 * job's: it is re-queued and resumes from its checkpoint). */
#define MAX_INTERRUPTIONS 10

/* Is every address the listen host resolves to a loopback address? */
static int is_loopback(const char *host)
{
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    if (getaddrinfo(host, "0", &hints, &ai) != 0 || !ai)
        return 0;
    int all = 1;
    for (struct addrinfo *p = ai; p; p = p->ai_next) {
        if (p->ai_family == AF_INET) {
            const struct sockaddr_in *a = (const void *)p->ai_addr;
            all &= (ntohl(a->sin_addr.s_addr) >> 24) == 127;
        } else if (p->ai_family == AF_INET6) {
            const struct sockaddr_in6 *a = (const void *)p->ai_addr;
            all &= IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
        } else {
            all = 0;
        }
    }
    freeaddrinfo(ai);
    return all;
}

/* `fdwaved token ...`: the settings' flags (--data, --config, ...) and --admin may stand
 * anywhere among the command's words. */
static int token_main(fdwd_app *app, int argc, char **argv)
{
    char err[1024];
    if (config_load(&app->cfg, argc, argv, 2, environ, err, sizeof err)) {
        fprintf(stderr, "fdwaved: %s\n", err);
        return 2;
    }
    if (app->cfg.nargs == 0) /* just the usage: no data directory to create */
        return auth_token_command(app, 0, NULL, 0);
    log_set_level(LOG_WARN);
    if (datadir_open(app, err, sizeof err)) {
        fprintf(stderr, "fdwaved: %s\n", err);
        return 1;
    }
    int rc = auth_token_command(app, app->cfg.nargs, app->cfg.args, app->cfg.admin);
    db_close(app->db);
    return rc;
}

/* `fdwaved check` and `fdwaved backup FILE`: on the database as it is, without opening
 * it the daemon's way (which refuses a damaged one). */
static int database_main(fdwd_app *app, int argc, char **argv)
{
    char err[1024];
    if (config_load(&app->cfg, argc, argv, 2, environ, err, sizeof err)) {
        fprintf(stderr, "fdwaved: %s\n", err);
        return 2;
    }
    char path[CFG_PATH + 16];
    snprintf(path, sizeof path, "%s/fdwave.db", app->cfg.data_dir);
    return dbcheck_command(argv[1], app->cfg.nargs, app->cfg.args, path);
}

/* Step 1: the daemon's settings. Returns -1 to go on, else the exit status (--help,
 * --version, a bad flag). */
static int read_settings(fdwd_app *app, int argc, char **argv)
{
    char err[2048];
    if (config_load(&app->cfg, argc, argv, 1, environ, err, sizeof err)) {
        fprintf(stderr, "fdwaved: %s\n", err);
        return 2;
    }
    if (app->cfg.help) {
        config_usage(stdout);
        return 0;
    }
    if (app->cfg.version) {
        printf("fdwaved %s\n", FDW_VERSION);
        return 0;
    }
    if (app->cfg.nargs > 0) {
        fprintf(stderr, "fdwaved: unexpected argument \"%s\" (see --help)\n",
                app->cfg.args[0]);
        return 2;
    }
    if (app->cfg.admin) {
        fprintf(stderr, "fdwaved: --admin belongs to `fdwaved token add` (see --help)\n");
        return 2;
    }
    log_set_level(app->cfg.log_level);
    app->started_ms = now_ms();
    app->loopback = is_loopback(app->cfg.listen_host);
    return -1;
}

/* Step 2: what the daemon stands on before any thread: quotas, the data directory and
 * its database, the allowed directories, the devices, the rooms' start-up state, the
 * memory limits and budget, the disk reserve. Returns 0, or -1 with the reason in err. */
static int open_state(fdwd_app *app, char *err, size_t errlen)
{
    const char *quota_lines[CFG_MAX_QUOTAS];
    for (int i = 0; i < app->cfg.nquotas; i++)
        quota_lines[i] = app->cfg.user_quotas[i];
    if (quota_init(&app->quotas, app->cfg.default_quota, quota_lines, app->cfg.nquotas, err,
                   errlen) ||
        datadir_open(app, err, errlen) || datadir_allowed(app, err, errlen) ||
        access_check_allowed(app, err, errlen) || app_init_devices(app, err, errlen))
        return -1;
    if (models_init(app) || datasets_init(app) || factcache_init(app) || sharing_init(app)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* Before any thread: a delegated cgroup takes the daemon into its leaf. */
    memlimit_init(app, app->cfg.cgroup_dir, err, errlen);
    log_info("%s", err);
    if (admission_init(app, err, errlen))
        return -1;
    log_info("%s", err);
    diskguard_init(app);
    app->workers = app->cfg.workers > 0 ? app->cfg.workers : app->ndevices;
    return 0;
}

/* Step 3: refuse to serve a network without tokens; clear what an earlier run left
 * (partial uploads, interrupted jobs). Returns 0, or -1 (logged). */
static int check_and_recover(fdwd_app *app)
{
    int ntokens = auth_token_count(app);
    if (!app->loopback && ntokens <= 0) {
        log_error("refusing to listen on %s with no API tokens: create one with "
                  "`fdwaved token add NAME --admin --data %s` first",
                  app->cfg.listen_host, app->data_dir);
        return -1;
    }
    if (ntokens == 0)
        log_warn("no API tokens: authentication is off (loopback only); everyone is \"local\"");
    /* no upload is in progress yet */
    int swept = upload_sweep_partial(app->models, 0) + upload_sweep_partial(app->datasets, 0);
    if (swept > 0)
        log_info("removed %d partial upload(s) left by an earlier run", swept);
    if (jobs_recover(app, MAX_INTERRUPTIONS)) {
        log_error("recovery of interrupted jobs failed");
        return -1;
    }
    return 0;
}

/* Step 4: the threads. The streams first: committed events wake the jobs' event streams,
 * so the notifier is installed before any thread that commits events starts. Returns 0,
 * or -1 (err says why when it can). */
static int start_threads(fdwd_app *app, char *err, size_t errlen)
{
    err[0] = '\0';
    if (sse_start(app, app->cfg.sse_keepalive * 1000, app->cfg.sse_wake_rate))
        return -1;
    app->notify = (job_notifier){sse_notify_jobs, app->sse};
    if (events_start(app) || accept_start(app) ||
        validate_start(app, app->cfg.validate_threads, app->cfg.validate_queue) ||
        sweep_start(app, app->cfg.upload_sweep) || sched_start(app) ||
        http_start(app, err, errlen))
        return -1;
    return 0;
}

/* The last step, in this order whether the start failed or a signal came: no new
 * connections (conn_accept_policy refuses them while the open ones are answered; not
 * MHD_quiesce_daemon: on an epoll daemon with its own threads it races the polling
 * threads' removal of the listen socket and libmicrohttpd aborts the process, "Failed to
 * remove listen FD from epoll set", seen in CI at a SIGTERM), then each room stops. */
static void stop_all(fdwd_app *app)
{
    atomic_store(&app->shutting_down, 1);
    validate_stop(app); /* specs being checked are answered */
    sweep_stop(app);
    accept_stop(app);  /* jobs being accepted are stored and answered */
    sched_stop(app);   /* running jobs write a checkpoint and re-queue themselves */
    events_stop(app);  /* every event stored */
    sse_shutdown(app); /* streams end; suspended connections resumed */
    http_stop(app);
    db_close(app->db);
}

int main(int argc, char **argv)
{
    /* The application context: everything the daemon knows, passed down from here. */
    fdwd_app the_app;
    fdwd_app *app = &the_app;
    app_init(app);
    if (argc >= 2 && !strcmp(argv[1], "token"))
        return token_main(app, argc, argv);
    if (argc >= 2 && (!strcmp(argv[1], "check") || !strcmp(argv[1], "backup")))
        return database_main(app, argc, argv);
    const int settled = read_settings(app, argc, argv);
    if (settled >= 0)
        return settled;
    char err[2048];
    if (open_state(app, err, sizeof err)) {
        log_error("%s", err);
        return 1;
    }
    if (check_and_recover(app))
        return 1;
    log_info("fdwaved %s: data %s, %d %s device(s), %d worker(s)", FDW_VERSION, app->data_dir,
             app->ndevices, app->backend == FDW_BACKEND_CUDA ? "GPU" : "CPU", app->workers);

    /* Signals are taken synchronously by this thread; every other thread blocks them. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    if (start_threads(app, err, sizeof err)) {
        log_error("startup failed: %s", err[0] ? err : "cannot start threads");
        stop_all(app);
        return 1;
    }
    int sig = 0;
    sigwait(&set, &sig);
    log_info("received %s: shutting down", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    stop_all(app);
    log_info("stopped");
    return 0;
}
