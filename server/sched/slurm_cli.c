/* slurm_cli.c — running sbatch, scontrol, squeue and scancel for the Slurm back end (see
 * slurm_cli.h). A child gets /dev/null as stdin, a pipe for stdout and stderr, nothing
 * else of the daemon's descriptors (runner_exec), and is killed past its time limit. */
#include "sched/slurm_cli.h"
#include "sched/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The child, after fork: only async-signal-safe calls until exec. */
static void child(char *const argv[], int out)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    const int in = open("/dev/null", O_RDONLY);
    if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
        _exit(126);
    runner_exec(argv);
    _exit(127);
}

/* Read the child's output until it closes or the deadline passes. 0, or -1 on timeout. */
static int collect(int fd, time_t deadline, char *out, size_t cap, size_t *n)
{
    for (;;) {
        const time_t now = time(NULL);
        if (now > deadline)
            return -1;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 200) <= 0)
            continue;
        char chunk[1024];
        const ssize_t r = read(fd, chunk, sizeof chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return 0;
        const size_t take = (size_t)r < cap - 1 - *n ? (size_t)r : cap - 1 - *n;
        memcpy(out + *n, chunk, take);
        *n += take;
    }
}

int slurm_cmd(char *const argv[], int timeout_s, char *out, size_t cap)
{
    out[0] = '\0';
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
        snprintf(out, cap, "cannot run %s: %s", argv[0], strerror(errno));
        return -1;
    }
    const pid_t pid = fork();
    if (pid == 0)
        child(argv, p[1]);
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        snprintf(out, cap, "cannot run %s: %s", argv[0], strerror(errno));
        return -1;
    }
    size_t n = 0;
    const int timed_out = collect(p[0], time(NULL) + timeout_s, out, cap, &n);
    close(p[0]);
    if (timed_out)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    out[n] = '\0';
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
        out[--n] = '\0';
    if (timed_out) {
        snprintf(out, cap, "%s did not answer within %d s", argv[0], timeout_s);
        return -1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        snprintf(out, cap, "cannot run %s (not on PATH?)", argv[0]);
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Is state one a Slurm job does not leave? */
static int final_state(const char *state)
{
    static const char *const running[] = {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING",
                                          "SUSPENDED", "REQUEUED", "REQUEUE_HOLD",
                                          "REQUEUE_FED", "RESIZING", "SIGNALING", "STAGE_OUT",
                                          "STOPPED", "RESV_DEL_HOLD", "SPECIAL_EXIT"};
    for (size_t i = 0; i < sizeof running / sizeof running[0]; i++)
        if (!strcmp(state, running[i]))
            return 0;
    return 1;
}

/* One record of `scontrol show job -o` (one line: a job, an array's task, or an array's
 * tasks still pending together) into s; its ArrayTaskId list into tasks ("" when none). */
static void parse_record(const char *line, slurm_state *s, char *tasks, size_t cap)
{
    memset(s, 0, sizeof *s);
    tasks[0] = '\0';
    const char *st = strstr(line, "JobState="), *ec = strstr(line, " ExitCode=");
    const char *at = strstr(line, " ArrayTaskId=");
    s->known = st != NULL;
    if (st)
        sscanf(st, "JobState=%31[A-Z_]", s->state);
    if (ec)
        sscanf(ec, " ExitCode=%d:%d", &s->exit_code, &s->signal);
    if (at && cap > 1) {
        char fmt[32];
        snprintf(fmt, sizeof fmt, " ArrayTaskId=%%%zu[0-9,-]", cap - 1);
        sscanf(at, fmt, tasks);
    }
    s->ended = s->known && final_state(s->state);
}

/* scontrol show job -o ID into out. 1: shown; 0: Slurm does not know the job; -1 with why. */
static int scontrol_show(int64_t slurm_id, char *out, size_t cap, char *why, size_t len)
{
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)slurm_id);
    char *argv[] = {"scontrol", "show", "job", "-o", id, NULL};
    const int rc = slurm_cmd(argv, 30, out, cap);
    if (rc != 0 && strstr(out, "Invalid job id"))
        return 0; /* purged after MinJobAge, or never known */
    if (rc != 0 || !strstr(out, "JobState=")) {
        snprintf(why, len, "scontrol show job %s: %.300s", id, out);
        return -1;
    }
    return 1;
}

int slurm_query(int64_t slurm_id, slurm_state *s, char *why, size_t len)
{
    memset(s, 0, sizeof *s);
    char *out = malloc(1 << 16), tasks[8];
    if (!out) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    const int shown = scontrol_show(slurm_id, out, 1 << 16, why, len);
    char *save = NULL;
    for (char *l = shown == 1 ? strtok_r(out, "\n", &save) : NULL; l;
         l = strtok_r(NULL, "\n", &save)) {
        slurm_state one;
        parse_record(l, &one, tasks, sizeof tasks);
        if (one.known && (!s->known || (s->ended && !one.ended)))
            *s = one; /* the first record, or one that has not ended */
    }
    free(out);
    return shown < 0 ? -1 : 0;
}

/* Mark the tasks of list ("0,2-5", each below n) with state one. */
static void mark_tasks(const char *list, const slurm_state *one, int n, slurm_state *s)
{
    for (const char *p = list; *p;) {
        char *end;
        const long a = strtol(p, &end, 10);
        long b = a;
        if (end == p)
            return;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (long k = a < 0 ? 0 : a; k <= b && k < n; k++)
            s[k] = *one;
        p = *end == ',' ? end + 1 : end;
        if (*end != ',')
            return;
    }
}

int slurm_query_tasks(int64_t array_id, int n, slurm_state *s, char *why, size_t len)
{
    memset(s, 0, (size_t)n * sizeof *s);
    const size_t cap = (size_t)(1 << 16) + (size_t)n * 1024; /* about 900 bytes a task */
    char *out = malloc(cap), tasks[4096];
    if (!out) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    const int shown = scontrol_show(array_id, out, cap, why, len);
    char *save = NULL;
    for (char *l = shown == 1 ? strtok_r(out, "\n", &save) : NULL; l;
         l = strtok_r(NULL, "\n", &save)) {
        slurm_state one;
        parse_record(l, &one, tasks, sizeof tasks);
        mark_tasks(tasks, &one, n, s);
    }
    free(out);
    return shown < 0 ? -1 : 0;
}

int slurm_find_named(const char *name, int64_t *slurm_id, char *why, size_t len)
{
    char arg[128], out[4096];
    snprintf(arg, sizeof arg, "--name=%s", name);
    char *argv[] = {"squeue", "-h", "--states=all", arg, "-o", "%F", NULL};
    if (slurm_cmd(argv, 30, out, sizeof out) != 0) {
        snprintf(why, len, "squeue --name=%s: %.300s", name, out);
        return -1;
    }
    long long id = 0;
    if (sscanf(out, "%lld", &id) != 1 || id <= 0)
        return 0;
    *slurm_id = id;
    return 1;
}

int slurm_cancel(int64_t slurm_id, char *why, size_t len)
{
    char id[32], out[1024];
    snprintf(id, sizeof id, "%lld", (long long)slurm_id);
    char *argv[] = {"scancel", id, NULL};
    if (slurm_cmd(argv, 30, out, sizeof out) != 0) {
        snprintf(why, len, "scancel %s: %.300s", id, out);
        return -1;
    }
    return 0;
}
