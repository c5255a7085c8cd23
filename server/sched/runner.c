/* runner.c — starting and supervising a job's runner process (see runner.h).
 *
 * Launch (one function, runner_spawn): the runner-command template is split into words
 * and its placeholders filled; the child leaves the daemon's signal mask and handlers,
 * gets a process group of its own (so the runner's launcher and ranks are stopped
 * together), its stdin and stdout on two pipes, its stderr appended to the job's
 * runner.log, its memory limit, and nothing else of the daemon's open files.
 * Supervision: poll the stdout pipe, decode whole lines, call the callbacks; poll the
 * worker's cancel and suspend flags and pass them on; kill the group when a stopped
 * runner outstays runner-stop-timeout; at the end of its output, reap it (wait4: its exit
 * or signal and the peak memory of it and its descendants). */
#include "sched/runner.h"
#include "core/app.h"
#include "core/log.h"
#include "sched/memlimit.h"
#include "sched/runlines.h"
#include "runner/command.h"
#include "runner/runner_proto.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef FDWD_INSTALLED_RUNNER
#define FDWD_INSTALLED_RUNNER "/usr/local/libexec/fdwave/fdwave-runner"
#endif

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void runner_program(const fdwd_app *app, char *path, size_t len)
{
    if (app->cfg.runner[0]) {
        snprintf(path, len, "%s", app->cfg.runner);
        return;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            snprintf(path, len, "%s/fdwave-runner", self);
            if (access(path, X_OK) == 0)
                return;
        }
    }
    snprintf(path, len, "%s", FDWD_INSTALLED_RUNNER);
}

void runner_exec(char *const argv[])
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
#endif
        for (int fd = 3; fd < 65536; fd++)
            close(fd);
    execvp(argv[0], argv);
}

/* The child, after fork: only async-signal-safe calls until exec. */
static void child(char **argv, int in, int out, int err, const memlimit_slot *ml)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    setpgid(0, 0);
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
        _exit(126);
    memlimit_child(ml);
    runner_exec(argv);
    static const char msg[] = "fdwave-runner: cannot execute the runner command\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(127);
}

/* The job's runner.log, opened for appending; a log over 4 MiB starts anew. Its size
 * now (where this attempt's part starts) in *start. */
static int open_log(const char *job_dir, off_t *start, char *path, size_t len)
{
    snprintf(path, len, "%s/runner.log", job_dir);
    struct stat sb;
    int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC;
    if (stat(path, &sb) == 0 && sb.st_size > (4 << 20))
        flags |= O_TRUNC;
    int fd = open(path, flags, 0640);
    *start = fd >= 0 ? lseek(fd, 0, SEEK_END) : 0;
    return fd;
}

static void tell(int fd, const char *word)
{
    char line[32];
    int n = snprintf(line, sizeof line, "%s\n", word);
    ssize_t w = write(fd, line, (size_t)n); /* a runner gone already: nothing to tell */
    (void)w;
}

/* The runner's lines until its output ends (s), telling it "cancel" or "suspend" on
 * to_runner as its callbacks ask, and killing its process group when it has not stopped
 * runner-stop-timeout after being told. */
static void follow(fdwd_app *app, supervise *s, pid_t pid, int to_runner, int from_runner)
{
    const fdw_callbacks *cb = s->cb;
    runner_outcome *out = s->out;
    int told_cancel = 0, told_suspend = 0, open_out = 1;
    double deadline = 0;
    char chunk[65536];
    while (open_out) {
        struct pollfd pfd = {.fd = from_runner, .events = POLLIN};
        int pr = poll(&pfd, 1, 100);
        if (pr > 0) {
            ssize_t n = read(from_runner, chunk, sizeof chunk);
            if (n > 0)
                runlines_take(s, chunk, (size_t)n);
            else if (n == 0 || (errno != EINTR && errno != EAGAIN))
                open_out = 0;
        }
        if (!told_cancel && cb->cancelled && cb->cancelled(cb->user)) {
            tell(to_runner, PROTO_CANCEL);
            told_cancel = 1;
            deadline = mono_s() + app->cfg.runner_stop_timeout;
        }
        if (!told_cancel && !told_suspend && cb->suspend && cb->suspend(cb->user)) {
            tell(to_runner, PROTO_SUSPEND);
            told_suspend = 1;
            deadline = mono_s() + app->cfg.runner_stop_timeout;
        }
        if (deadline > 0 && mono_s() > deadline && !out->stop_timed_out) {
            log_warn("job %lld: the runner did not stop within %d s of being told; killed",
                     (long long)s->job_id, app->cfg.runner_stop_timeout);
            kill(-pid, SIGKILL);
            out->stop_timed_out = 1;
        }
    }
}

/* Its output ended: the runner ends too, or is made to (runner-stop-timeout), and so
 * does anything its launcher left in its process group. Its status and usage. */
static void reap_runner(fdwd_app *app, const runner_job *job, pid_t pid, runner_outcome *out,
                        int *status, struct rusage *ru)
{
    memset(ru, 0, sizeof *ru);
    const double reap_by = mono_s() + app->cfg.runner_stop_timeout;
    for (;;) {
        pid_t w = wait4(pid, status, WNOHANG, ru);
        if (w == pid || (w < 0 && errno != EINTR))
            break;
        if (mono_s() > reap_by && !out->stop_timed_out) {
            log_warn("job %lld: the runner closed its output but did not exit; killed",
                     (long long)job->job_id);
            kill(-pid, SIGKILL);
            out->stop_timed_out = 1;
        }
        usleep(20000);
    }
    kill(-pid, SIGKILL); /* anything its launcher left behind */
}

int runner_run(fdwd_app *app, const runner_job *job, const fdw_callbacks *cb, runner_outcome *out)
{
    memset(out, 0, sizeof *out);
    out->res.checkpoint_step = -1;
    char *argv[RUNNER_MAX_WORDS], words[16384];
    char program[PATH_MAX + 32];
    runner_program(app, program, sizeof program);
    const runner_words w = {program, job->run_file, job->job_id, job->ndevices,
                            job->device_ids};
    if (runner_command_argv(app->cfg.runner_command, &w, argv, words, sizeof words, out->why,
                            sizeof out->why) < 0)
        return -1;
    int in[2] = {-1, -1}, pout[2] = {-1, -1};
    char logpath[CFG_PATH + 32];
    off_t log_start = 0;
    int logfd = open_log(job->job_dir, &log_start, logpath, sizeof logpath);
    if (logfd < 0 || pipe2(in, O_CLOEXEC) != 0 || pipe2(pout, O_CLOEXEC) != 0) {
        snprintf(out->why, sizeof out->why, "cannot set up the runner's pipes or log: %s",
                 strerror(errno));
        goto fail_early;
    }
    memlimit_slot ml;
    char mwhy[400] = "";
    if (memlimit_prepare(app->memlimit, &ml, job->job_id, job->memory_limit, job->cpu, mwhy,
                         sizeof mwhy))
        log_warn("job %lld: no memory limit: %s", (long long)job->job_id, mwhy);
    supervise s;
    if (runlines_init(&s, job->job_id, cb, out)) {
        snprintf(out->why, sizeof out->why, "out of memory");
        memlimit_finish(&ml, &out->oom_killed, &out->peak_rss);
        goto fail_early;
    }
    const double t0 = mono_s();
    pid_t pid = fork();
    if (pid == 0)
        child(argv, in[0], pout[1], logfd, &ml);
    if (pid < 0) {
        snprintf(out->why, sizeof out->why, "cannot start the runner: %s", strerror(errno));
        runlines_free(&s);
        memlimit_finish(&ml, &out->oom_killed, &out->peak_rss);
        goto fail_early;
    }
    setpgid(pid, pid); /* also here: no window where a kill of the group misses it */
    out->started = 1;
    close(in[0]);
    close(pout[1]);
    close(logfd);
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    log_debug("job %lld: runner %ld started: %s", (long long)job->job_id, (long)pid,
              app->cfg.runner_command);

    follow(app, &s, pid, in[1], pout[0]);
    close(in[1]);
    close(pout[0]);
    int status = 0;
    struct rusage ru;
    reap_runner(app, job, pid, out, &status, &ru);
    out->wall_s = mono_s() - t0;
    if (WIFSIGNALED(status))
        out->signal = WTERMSIG(status);
    else if (WIFEXITED(status))
        out->exit_code = WEXITSTATUS(status);
    const uint64_t rss = (uint64_t)ru.ru_maxrss * 1024u;
    if (rss > out->peak_rss)
        out->peak_rss = rss;
    uint64_t cg_peak = 0;
    memlimit_finish(&ml, &out->oom_killed, &cg_peak);
    if (cg_peak > out->peak_rss)
        out->peak_rss = cg_peak;
    runlines_tail(logpath, log_start, out->tail, sizeof out->tail);
    runlines_free(&s);
    return 0;

fail_early:
    for (int k = 0; k < 2; k++) {
        if (in[k] >= 0)
            close(in[k]);
        if (pout[k] >= 0)
            close(pout[k]);
    }
    if (logfd >= 0)
        close(logfd);
    return -1;
}
