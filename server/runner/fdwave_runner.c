/* fdwave_runner.c — fdwave-runner, the process fdwaved starts for each running job
 * (sched/runner.c), directly or under a launcher such as mpirun or srun (the daemon's
 * runner-command), so that a crash, an abort, a GPU fault or an OOM kill of a job takes
 * that job alone. It reads the run file the worker wrote (the normalised spec, the model
 * facts its names stand for, the output and checkpoint directories, the devices and the
 * limits), runs it through fdw_run, and speaks runner_proto.h: the engine's callbacks as
 * JSON lines on stdout, "cancel" and "suspend" from stdin; the end of stdin (the daemon is
 * gone) suspends the run at its next step with a checkpoint. As a Slurm job (the run file
 * names a "control" file: job-backend = slurm) the words come from that file instead, and
 * the daemon's absence stops nothing (a restarted daemon follows the job again). A survey's
 * Slurm array task runs one part of its shots, and its combining run the survey's outputs
 * (the run file's "survey_part": fdw_run_opts.survey_parts).
 *
 *   fdwave-runner RUN.json
 *
 * Under MPI (started by mpirun, srun, ...: docs/operations.md) every rank runs one slab;
 * rank 0 alone takes the job's lock, reads stdin and writes stdout. The process raises its
 * own OOM score to the most, so the kernel's OOM killer takes a runner before the daemon,
 * and a CPU job lowers its own scheduling class (the daemon's cpu-job-sched). Exit status:
 * 0 when the result line was written (whatever the run's outcome), 1 otherwise. */
#include "fdwave/comm.h"
#include "fdwave/fdwave.h"
#ifdef FDW_HAVE_MPI
#include "mpi_comm.h"
#endif
#include "run_setup.h"
#include "runner/runner_proto.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* The runner's line to the daemon: what it was told, whether it is still there, and
 * whether this rank speaks at all (rank 0). main makes one and passes it down; the
 * engine's callbacks and the control thread get it as their user pointer. */
typedef struct daemon_link {
    atomic_int cancel, suspend, daemon_gone;
    pthread_mutex_t out;       /* one line at a time on stdout */
    int root;                  /* rank 0: takes the lock, reads stdin, writes stdout */
    char control_file[4096];   /* under Slurm: the daemon's words come from this file */
} daemon_link;

/* One protocol line on stdout (rank 0). A failed write means the daemon is gone: the
 * run suspends with a checkpoint. */
static void emit(daemon_link *link, char *line)
{
    if (!link->root || !line) {
        free(line);
        return;
    }
    pthread_mutex_lock(&link->out);
    int bad = fputs(line, stdout) == EOF || fputc('\n', stdout) == EOF || fflush(stdout) != 0;
    pthread_mutex_unlock(&link->out);
    free(line);
    if (bad) {
        atomic_store(&link->daemon_gone, 1);
        atomic_store(&link->suspend, 1);
    }
}

static int on_progress(void *user, const fdw_progress *p)
{
    daemon_link *link = user;
    emit(link, proto_progress(p));
    return atomic_load(&link->cancel);
}

static void on_snapshot(void *user, const fdw_snapshot_info *s)
{
    daemon_link *link = user;
    emit(link, proto_snapshot(s));
}

static void on_log(void *user, int level, const char *msg)
{
    daemon_link *link = user;
    if (level >= FDW_LOG_INFO)
        emit(link, proto_log(level, msg));
}

static int on_cancelled(void *user)
{
    daemon_link *link = user;
    return atomic_load(&link->cancel);
}

static int on_suspend(void *user)
{
    daemon_link *link = user;
    return atomic_load(&link->suspend);
}

static void on_checkpoint(void *user, const fdw_checkpoint_info *c)
{
    daemon_link *link = user;
    emit(link, proto_checkpoint(c));
}

/* One line of the daemon's (without its newline). */
static void control_word(daemon_link *link, const char *line)
{
    if (strcmp(line, PROTO_CANCEL) == 0)
        atomic_store(&link->cancel, 1);
    else if (strcmp(line, PROTO_SUSPEND) == 0)
        atomic_store(&link->suspend, 1);
}

/* The daemon's words as bytes arrive: whole lines to control_word (an over-long line is
 * skipped whole). */
typedef struct control_lines {
    char line[64];
    size_t len;
    int skip;                  /* the rest of an over-long line */
} control_lines;

static void control_bytes(daemon_link *link, control_lines *cl, const char *buf, ssize_t n)
{
    for (ssize_t i = 0; i < n; i++) {
        const char c = buf[i];
        if (c == '\n') {
            cl->line[cl->len] = '\0';
            if (!cl->skip) {
                if (cl->len && cl->line[cl->len - 1] == '\r')
                    cl->line[cl->len - 1] = '\0';
                control_word(link, cl->line);
            }
            cl->len = 0;
            cl->skip = 0;
        } else if (cl->len + 1 < sizeof cl->line) {
            cl->line[cl->len++] = c;
        } else {
            cl->skip = 1;
        }
    }
}

/* Rank 0: the daemon's words on stdin, read with read(2), never through stdin's FILE: a
 * thread blocked inside fgets holds that FILE's lock, and glibc 2.37 and later take every
 * FILE's lock in exit(), so the runner would never exit after its last line (seen on
 * Ubuntu 24.04: every job stayed "running"). */
static void *control_main(void *arg)
{
    daemon_link *link = arg;
    control_lines cl = {.len = 0};
    for (;;) {
        char buf[256];
        const ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        control_bytes(link, &cl, buf, n);
    }
    atomic_store(&link->daemon_gone, 1); /* the daemon closed our stdin or died */
    atomic_store(&link->suspend, 1);
    return NULL;
}

/* Rank 0 of a Slurm job (the run file's "control"): no pipe reaches it from the daemon's
 * node, so the daemon appends its words to a file on the shared file system, read here
 * four times a second from where the last read ended. The daemon's absence says nothing
 * (it may restart and follow the job again), so nothing here suspends the run by itself. */
static void *control_file_main(void *arg)
{
    daemon_link *link = arg;
    control_lines cl = {.len = 0};
    off_t at = 0;
    for (;;) {
        const int fd = open(link->control_file, O_RDONLY | O_CLOEXEC);
        ssize_t n = 0;
        char buf[256];
        while (fd >= 0 && (n = pread(fd, buf, sizeof buf, at)) > 0) {
            control_bytes(link, &cl, buf, n);
            at += n;
        }
        if (fd >= 0)
            close(fd);
        struct timespec ts = {0, 250000000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* ---- the run file ---------------------------------------------------------------- */

typedef struct run_file {
    json_t *root;
    json_t *models;            /* name -> facts */
} run_file;

static const char *str_or_empty(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* A model the spec names ("velocity": {"type": "model"}), from the facts the daemon put
 * in the run file (it resolved the name with the submitter's rights). */
static int resolve_model(void *user, const char *name, char *path, size_t len,
                         fdw_model_info *info)
{
    const run_file *rf = user;
    json_t *m = json_object_get(rf->models, name);
    const char *p = json_string_value(json_object_get(m, "path"));
    if (!p || strlen(p) >= len)
        return -1;
    snprintf(path, len, "%s", p);
    memset(info, 0, sizeof *info);
    snprintf(info->format, sizeof info->format, "%s", str_or_empty(m, "format"));
    info->nvalues = (uint64_t)json_integer_value(json_object_get(m, "nvalues"));
    info->nx = (int)json_integer_value(json_object_get(m, "nx"));
    info->ny = (int)json_integer_value(json_object_get(m, "ny"));
    info->nz = (int)json_integer_value(json_object_get(m, "nz"));
    info->dx = json_number_value(json_object_get(m, "dx"));
    info->dy = json_number_value(json_object_get(m, "dy"));
    info->dz = json_number_value(json_object_get(m, "dz"));
    info->vmin = json_number_value(json_object_get(m, "vmin"));
    info->vmax = json_number_value(json_object_get(m, "vmax"));
    snprintf(info->sha256, sizeof info->sha256, "%s", str_or_empty(m, "sha256"));
    return 0;
}

static const char *str_of(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* Rank 0: hold the job's lock for the whole run, so a runner left by a daemon that
 * crashed (still writing its checkpoint) and a new one never share the job's files. */
static int take_lock(daemon_link *link, const char *path, int wait_s)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0)
        return -1;
    for (int waited = 0;; waited++) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return fd;
        if (errno != EWOULDBLOCK || waited >= wait_s * 10) {
            close(fd);
            return -1;
        }
        if (waited == 0)
            emit(link, proto_log(FDW_LOG_INFO, "waiting for the previous runner of this job to "
                                         "finish its checkpoint"));
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
}

/* The OOM killer takes the process with the highest score: make it a runner. */
static void raise_oom_score(void)
{
    int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) { /* a failure is not fatal: the limits and admission still hold */
        ssize_t w = write(fd, "1000", 4);
        (void)w;
        close(fd);
    }
}

/* A CPU job at the daemon's cpu-job-sched, for the whole process (threads made later
 * inherit it): SCHED_IDLE, or nice 10. */
static void lower_priority(const char *sched)
{
    if (sched && strcmp(sched, "nice") == 0) {
        setpriority(PRIO_PROCESS, 0, 10);
        return;
    }
    struct sched_param sp = {.sched_priority = 0};
    if (sched_setscheduler(0, SCHED_IDLE, &sp) != 0)
        setpriority(PRIO_PROCESS, 0, 19);
}

static uint64_t peak_rss(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_maxrss * 1024u : 0;
}

/* The run's end as the last line; 0 when it was written. */
static int finish(daemon_link *link, fdw_status st, const fdw_error *err, const fdw_result *res)
{
    if (!link->root)
        return 0;
    char *line = proto_result(st, err, res, peak_rss());
    if (!line)
        return 1;
    emit(link, line);
    return atomic_load(&link->daemon_gone) ? 1 : 0;
}

static int fail_early(daemon_link *link, const char *field, const char *fmt, const char *detail)
{
    fdw_error err;
    memset(&err, 0, sizeof err);
    err.code = FDW_ERR_INTERNAL;
    snprintf(err.field, sizeof err.field, "%s", field);
    snprintf(err.message, sizeof err.message, fmt, detail);
    fdw_result res;
    memset(&res, 0, sizeof res);
    res.checkpoint_step = -1;
    if (link->root)
        fprintf(stderr, "fdwave-runner: %s\n", err.message);
    return finish(link, FDW_ERR_INTERNAL, &err, &res);
}

/* The run file's settings for fdw_run (run_setup.h). Returns 0, or -1 for a backend
 * that is none of auto, cpu and cuda. */
static int setup_from(const run_file *rf, const fdw_comm *comm, run_setup *rs)
{
    memset(rs, 0, sizeof *rs);
    rs->out_dir = str_of(rf->root, "out_dir");
    if (run_setup_backend(str_of(rf->root, "backend"), &rs->backend))
        return -1;
    rs->threads = (int)json_integer_value(json_object_get(rf->root, "threads"));
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(rf->root, "device_ids"), i, v) {
        if (rs->ndevice_ids < RUN_SETUP_MAX_DEVICES)
            rs->device_ids[rs->ndevice_ids++] = (int)json_integer_value(v);
    }
    rs->comm = comm;
    json_t *ck = json_object_get(rf->root, "checkpoint");
    rs->checkpoint_dir = str_of(ck, "dir");
    rs->checkpoint_interval_s = json_number_value(json_object_get(ck, "interval_s"));
    rs->checkpoint_every_steps = (long)json_integer_value(json_object_get(ck, "every_steps"));
    return 0;
}

/* The run file's "survey_part" (fdwaved's Slurm back end: a survey's array task or its
 * combining run): {"parts": K, "part": k} or {"parts": K, "combine": true}. Returns 0
 * (nothing set without one), or -1 with why for one that is neither. */
static int survey_part_from(const run_file *rf, run_setup *rs, char *why, size_t len)
{
    json_t *sp = json_object_get(rf->root, "survey_part");
    if (!sp)
        return 0;
    json_t *parts = json_object_get(sp, "parts"), *part = json_object_get(sp, "part");
    const int combine = json_is_true(json_object_get(sp, "combine"));
    if (!json_is_integer(parts) || json_integer_value(parts) < 2 ||
        json_integer_value(parts) > 1000000 || combine == (part != NULL) ||
        (part && (!json_is_integer(part) || json_integer_value(part) < 0 ||
                  json_integer_value(part) >= json_integer_value(parts)))) {
        snprintf(why, len, "the run file's survey_part is not {\"parts\": K >= 2, \"part\": k "
                 "in 0..K-1} nor {\"parts\": K, \"combine\": true}");
        return -1;
    }
    rs->survey_parts = (int)json_integer_value(parts);
    rs->survey_part = combine ? FDW_SURVEY_COMBINE : (int)json_integer_value(part);
    return 0;
}

/* The normalised spec of the run file, parsed with its recorded facts (the models' from
 * the run file), under the directories it may read; every rank agrees on the outcome. */
static fdw_status parse_spec(run_file *rf, const fdw_run_opts *ro, fdw_spec **spec,
                             fdw_error *err)
{
    const char *allowed[34];
    int nallowed = 0;
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(rf->root, "allowed_dirs"), i, v) {
        if (nallowed < 33 && json_is_string(v))
            allowed[nallowed++] = json_string_value(v);
    }
    allowed[nallowed] = NULL;
    fdw_parse_opts po;
    memset(&po, 0, sizeof po);
    po.base_dir = str_of(rf->root, "base_dir");
    po.allowed_dirs = nallowed ? allowed : NULL;
    po.resolve_model = resolve_model;
    po.resolve_user = rf;
    po.normalised = 1;
    const char *text = str_of(rf->root, "spec");
    fdw_status st = fdw_spec_parse(text, strlen(text), &po, spec, err);
    return ro->comm ? fdw_comm_agree(ro->comm, st, err) : st;
}

/* Say hello, listen to the daemon (rank 0), and run the spec with the callbacks that
 * speak runner_proto.h when it parsed (st FDW_OK). Returns the run's status. */
static fdw_status run_spec(daemon_link *link, const run_file *rf, fdw_status st,
                           const fdw_spec *spec, const fdw_run_opts *ro, int ranks,
                           fdw_result *res, fdw_error *err)
{
    if (link->root) {
        emit(link, proto_hello((long)getpid(), ranks));
        const char *control = str_of(rf->root, "control");
        if (control)
            snprintf(link->control_file, sizeof link->control_file, "%s", control);
        pthread_t t;
        if (pthread_create(&t, NULL, control ? control_file_main : control_main, link) == 0)
            pthread_detach(t);
    }
    if (st != FDW_OK)
        return st;
    fdw_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.progress = on_progress;
    cb.snapshot = on_snapshot;
    cb.log = on_log;
    cb.cancelled = on_cancelled;
    cb.suspend = on_suspend;
    cb.checkpoint = on_checkpoint;
    cb.user = link;
    cb.progress_interval_s = json_number_value(json_object_get(rf->root, "progress_interval_s"));
    return fdw_run(spec, ro, &cb, res, err);
}

/* The job of run file path: read it, take the job's lock (rank 0), set up, parse and run
 * its spec, and write the result line. Returns the exit status. */
static int run_job(daemon_link *link, const char *path, const fdw_comm *comm, int ranks)
{
    json_error_t jerr;
    run_file rf = {.root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr)};
    if (!json_is_object(rf.root))
        return fail_early(link, "", "cannot read the run file: %s", jerr.text);
    rf.models = json_object_get(rf.root, "models");
    int rc, lock_fd = -1;
    char why[200];
    const char *lock = str_of(rf.root, "lock");
    run_setup rs;
    if (!str_of(rf.root, "spec") || !str_of(rf.root, "out_dir") || !str_of(rf.root, "backend")) {
        rc = fail_early(link, "", "the run file %s lacks spec, out_dir or backend", path);
    } else if (link->root && lock &&
               (lock_fd = take_lock(link, lock, (int)json_integer_value(
                                              json_object_get(rf.root, "lock_wait_s")))) < 0) {
        rc = fail_early(link, "", "another runner of this job still holds %s", lock);
    } else if (setup_from(&rf, comm, &rs)) {
        rc = fail_early(link, "", "the run file's backend \"%s\" is none of auto, cpu, cuda",
                        str_of(rf.root, "backend"));
    } else if (survey_part_from(&rf, &rs, why, sizeof why)) {
        rc = fail_early(link, "survey_part", "%s", why);
    } else {
        if (rs.backend == FDW_BACKEND_CPU)
            lower_priority(str_of(rf.root, "cpu_job_sched"));
        const fdw_run_opts *ro = run_setup_opts(&rs);
        fdw_spec *spec = NULL;
        fdw_error err;
        memset(&err, 0, sizeof err);
        fdw_result res;
        memset(&res, 0, sizeof res);
        res.checkpoint_step = -1;
        fdw_status st = parse_spec(&rf, ro, &spec, &err);
        st = run_spec(link, &rf, st, spec, ro, ranks, &res, &err);
        rc = finish(link, st, &err, &res);
        fdw_spec_free(spec);
    }
    json_decref(rf.root);
    if (lock_fd >= 0)
        close(lock_fd);
    return rc;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    /* Static storage, not main's frame: the detached control thread may still store into
     * it while the process exits. */
    static daemon_link the_link = {.out = PTHREAD_MUTEX_INITIALIZER, .root = 1};
    daemon_link *link = &the_link;
    fdw_comm comm;
    memset(&comm, 0, sizeof comm);
    int mpi = 0;
#ifdef FDW_HAVE_MPI
    if (fdw_mpi_launched()) {
        char msg[256];
        const int init = fdw_mpi_init(&argc, &argv, FDW_MPI_CUDA_AUTO, &comm, msg, sizeof msg);
        if (init != 0) {
            link->root = comm.rank == 0;
            int rc = fail_early(link, "", "MPI: %s", msg);
            if (init > 0)
                fdw_mpi_finalize();
            return rc;
        }
        mpi = 1;
        link->root = comm.rank == 0;
    }
#endif
    int rc = 2;
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: fdwave-runner RUN.json (started by fdwaved for each job; "
                        "see docs/operations.md)\n");
    } else {
        raise_oom_score();
        rc = run_job(link, argv[1], mpi ? &comm : NULL, mpi ? comm.size : 1);
    }
#ifdef FDW_HAVE_MPI
    if (mpi)
        fdw_mpi_finalize();
#endif
    return rc;
}
