/* harness.c — a real fdwaved as a child process, and the CLI run as a child process with
 * captured output, for the client tests (see harness.h). */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int fdt_tmpdir(char *out, size_t cap)
{
    const char *base = getenv("TMPDIR");
    snprintf(out, cap, "%s/fdwave-clients-XXXXXX", base && *base ? base : "/tmp");
    return mkdtemp(out) ? 0 : -1;
}

char *fdt_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    size_t r;
    while (b && (r = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (n + 1 == cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb) {
                free(b);
                b = NULL;
            }
            b = nb;
        }
    }
    fclose(f);
    if (b)
        b[n] = '\0';
    if (len)
        *len = n;
    return b;
}

int fdt_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(data, 1, len, f) == len;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int fdt_daemon_start(fdt_daemon *d, const char *daemon_path, const char *data_dir, int port)
{
    memset(d, 0, sizeof *d);
    snprintf(d->data_dir, sizeof d->data_dir, "%s", data_dir);
    snprintf(d->log_path, sizeof d->log_path, "%s/daemon.log", data_dir);
    char listen[64];
    snprintf(listen, sizeof listen, "127.0.0.1:%d", port);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open(d->log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
        int nul = open("/dev/null", O_RDWR);
        if (fd < 0 || nul < 0)
            _exit(127);
        dup2(nul, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        execl(daemon_path, daemon_path, "--listen", listen, "--data", data_dir, "--devices",
              "cpu:2", "--backend", "cpu", "--log-level", "info", (char *)NULL);
        _exit(127);
    }
    d->pid = pid;
    /* The log is appended to across restarts: look for the newest "listening on". */
    double t0 = now_s();
    while (now_s() - t0 < 20.0) {
        char *log = fdt_read_file(d->log_path, NULL);
        const char *p = NULL, *q = log;
        while (q && (q = strstr(q, "listening on http://")) != NULL)
            p = q++;
        int port_read = 0;
        if (p && sscanf(p, "listening on http://127.0.0.1:%d", &port_read) == 1 &&
            (port == 0 || port_read == port)) {
            d->port = port_read;
            snprintf(d->url, sizeof d->url, "http://127.0.0.1:%d", d->port);
            free(log);
            return 0;
        }
        free(log);
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            d->pid = 0;
            return -1;
        }
        usleep(20000);
    }
    fdt_daemon_stop(d);
    return -1;
}

void fdt_daemon_stop(fdt_daemon *d)
{
    if (d->pid <= 0)
        return;
    kill(d->pid, SIGTERM);
    double t0 = now_s();
    int st;
    while (waitpid(d->pid, &st, WNOHANG) == 0) {
        if (now_s() - t0 > 10.0) {
            kill(d->pid, SIGKILL);
            waitpid(d->pid, &st, 0);
            break;
        }
        usleep(20000);
    }
    d->pid = 0;
}

int fdt_spawn(fdt_proc *p, char *const argv[], char *const env_extra[])
{
    memset(p, 0, sizeof *p);
    char outp[600], errp[600];
    if (fdt_tmpdir(p->dir, sizeof p->dir))
        return -1;
    snprintf(outp, sizeof outp, "%s/out", p->dir);
    snprintf(errp, sizeof errp, "%s/err", p->dir);
    /* A clean environment: PATH/HOME/TMPDIR only, plus what the test adds. */
    char *env[32];
    int ne = 0;
    for (char **e = environ; *e && ne < 8; e++)
        if (!strncmp(*e, "PATH=", 5) || !strncmp(*e, "HOME=", 5) || !strncmp(*e, "TMPDIR=", 7))
            env[ne++] = *e;
    for (int i = 0; env_extra && env_extra[i] && ne < 31; i++)
        env[ne++] = env_extra[i];
    env[ne] = NULL;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int o = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int nul = open("/dev/null", O_RDONLY);
        if (o < 0 || e < 0 || nul < 0)
            _exit(127);
        dup2(nul, 0);
        dup2(o, 1);
        dup2(e, 2);
        execve(argv[0], argv, env);
        _exit(127);
    }
    p->pid = pid;
    return 0;
}

int fdt_wait(fdt_proc *p, fdt_run *r, int timeout_s)
{
    memset(r, 0, sizeof *r);
    double t0 = now_s();
    int st = 0;
    for (;;) {
        pid_t w = waitpid(p->pid, &st, WNOHANG);
        if (w == p->pid)
            break;
        if (w < 0)
            return -1;
        if (now_s() - t0 > timeout_s) {
            kill(p->pid, SIGKILL);
            waitpid(p->pid, &st, 0);
            break;
        }
        usleep(10000);
    }
    char outp[600], errp[600];
    snprintf(outp, sizeof outp, "%s/out", p->dir);
    snprintf(errp, sizeof errp, "%s/err", p->dir);
    r->code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r->out = fdt_read_file(outp, NULL);
    r->err = fdt_read_file(errp, NULL);
    if (!r->out)
        r->out = calloc(1, 1);
    if (!r->err)
        r->err = calloc(1, 1);
    unlink(outp);
    unlink(errp);
    rmdir(p->dir);
    return 0;
}

int fdt_exec(fdt_run *r, char *const argv[], char *const env_extra[], int timeout_s)
{
    fdt_proc p;
    if (fdt_spawn(&p, argv, env_extra))
        return -1;
    return fdt_wait(&p, r, timeout_s);
}

int fdt_exec_pty(fdt_run *r, char *const argv[], int timeout_s)
{
    memset(r, 0, sizeof *r);
    char *env[8];
    int ne = 0;
    for (char **e = environ; *e && ne < 6; e++)
        if (!strncmp(*e, "PATH=", 5) || !strncmp(*e, "HOME=", 5))
            env[ne++] = *e;
    env[ne++] = "TERM=xterm";
    env[ne] = NULL;
    int master;
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execve(argv[0], argv, env);
        _exit(127);
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    double t0 = now_s();
    for (;;) {
        struct pollfd pf = {master, POLLIN, 0};
        int pr = poll(&pf, 1, 100);
        if (pr > 0) {
            if (len + 4096 + 1 > cap) {
                char *nb = realloc(buf, cap *= 2);
                if (!nb)
                    break;
                buf = nb;
            }
            ssize_t n = read(master, buf + len, 4096);
            if (n <= 0)
                break; /* EIO: the child closed the terminal */
            len += (size_t)n;
        }
        if (now_s() - t0 > timeout_s) {
            kill(pid, SIGKILL);
            break;
        }
    }
    close(master);
    int st = 0;
    waitpid(pid, &st, 0);
    buf[len] = '\0';
    r->code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r->out = buf;
    r->err = calloc(1, 1);
    return 0;
}

void fdt_run_free(fdt_run *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}
