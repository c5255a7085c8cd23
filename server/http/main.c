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
    const char *quota_lines[CFG_MAX_QUOTAS];
    for (int i = 0; i < app->cfg.nquotas; i++)
        quota_lines[i] = app->cfg.user_quotas[i];
    if (quota_init(&app->quotas, app->cfg.default_quota, quota_lines, app->cfg.nquotas, err,
                   sizeof err) ||
        datadir_open(app, err, sizeof err) || datadir_allowed(app, err, sizeof err) ||
        access_check_allowed(app, err, sizeof err) || app_init_devices(app, err, sizeof err)) {
        log_error("%s", err);
        return 1;
    }
    if (models_init(app) || factcache_init(app) || sharing_init(app)) {
        log_error("out of memory");
        return 1;
    }
    /* Before any thread: a delegated cgroup takes the daemon into its leaf. */
    memlimit_init(app, app->cfg.cgroup_dir, err, sizeof err);
    log_info("%s", err);
    if (admission_init(app, err, sizeof err)) {
        log_error("%s", err);
        return 1;
    }
    log_info("%s", err);
    diskguard_init(app);
    app->workers = app->cfg.workers > 0 ? app->cfg.workers : app->ndevices;
    int ntokens = auth_token_count(app);
    if (!app->loopback && ntokens <= 0) {
        log_error("refusing to listen on %s with no API tokens: create one with "
                  "`fdwaved token add NAME --admin --data %s` first",
                  app->cfg.listen_host, app->data_dir);
        return 1;
    }
    if (ntokens == 0)
        log_warn("no API tokens: authentication is off (loopback only); everyone is \"local\"");
    int swept = models_sweep_partial(app, 0); /* no upload is in progress yet */
    if (swept > 0)
        log_info("removed %d partial model upload(s) left by an earlier run", swept);
    if (jobs_recover(app, MAX_INTERRUPTIONS)) {
        log_error("recovery of interrupted jobs failed");
        return 1;
    }
    log_info("fdwaved %s: data %s, %d %s device(s), %d worker(s)", FDW_VERSION, app->data_dir,
             app->ndevices, app->backend == FDW_BACKEND_CUDA ? "GPU" : "CPU", app->workers);

    /* Signals are taken synchronously by this thread; every other thread blocks them. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    err[0] = '\0';
    /* The streams first: committed events wake the jobs' event streams, so the notifier
     * is installed before any thread that commits events starts. */
    const int streams = sse_start(app, app->cfg.sse_keepalive * 1000, app->cfg.sse_wake_rate);
    if (streams == 0)
        app->notify = (job_notifier){sse_notify_jobs, app->sse};
    if (streams || events_start(app) || accept_start(app) ||
        validate_start(app, app->cfg.validate_threads, app->cfg.validate_queue) ||
        sweep_start(app, app->cfg.upload_sweep) || sched_start(app) ||
        http_start(app, err, sizeof err)) {
        log_error("startup failed: %s", err[0] ? err : "cannot start threads");
        atomic_store(&app->shutting_down, 1);
        validate_stop(app);
        sweep_stop(app);
        accept_stop(app);
        sched_stop(app);
        events_stop(app);
        sse_shutdown(app);
        http_stop(app);
        db_close(app->db);
        return 1;
    }
    int sig = 0;
    sigwait(&set, &sig);
    log_info("received %s: shutting down", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    /* From here new connections are refused (conn_accept_policy) while the ones open are
     * answered. Not MHD_quiesce_daemon: on an epoll daemon with its own threads it races
     * the polling threads' removal of the listen socket and libmicrohttpd aborts the
     * process ("Failed to remove listen FD from epoll set", seen in CI at a SIGTERM). */
    atomic_store(&app->shutting_down, 1);
    validate_stop(app); /* specs being checked are answered */
    sweep_stop(app);
    accept_stop(app);  /* jobs being accepted are stored and answered */
    sched_stop(app);   /* running jobs write a checkpoint and re-queue themselves */
    events_stop(app);  /* every event stored */
    sse_shutdown(app); /* streams end; suspended connections resumed */
    http_stop(app);
    db_close(app->db);
    log_info("stopped");
    return 0;
}
