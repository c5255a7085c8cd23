/* ckpt_gate.c — the tests' fsync, which holds checkpoint files' when armed (see
 * ckpt_gate.h), and their unlink, which notes which thread removes a finished checkpoint
 * file. A hold waits for a release token; tokens given before the write gets there are
 * kept for it. The real calls are the system calls. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ckpt_gate.h"
#include "ckpt_util.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static int g_skip, g_hold; /* files to let through first; then files to hold (< 0: all) */
static int g_held;         /* an fsync is held now */
static int g_tokens;       /* releases not yet used */

void ckpt_gate_hold(int skip, int n)
{
    pthread_mutex_lock(&g_mu);
    g_skip = skip;
    g_hold = n;
    g_tokens = 0;
    pthread_mutex_unlock(&g_mu);
}

void ckpt_gate_wait_held(void)
{
    pthread_mutex_lock(&g_mu);
    while (!g_held)
        pthread_cond_wait(&g_cv, &g_mu);
    pthread_mutex_unlock(&g_mu);
}

void ckpt_gate_release(void)
{
    pthread_mutex_lock(&g_mu);
    g_tokens++;
    pthread_cond_broadcast(&g_cv);
    pthread_mutex_unlock(&g_mu);
}

void ckpt_gate_on_log(const char *msg)
{
    if (strstr(msg, "waits for the write of step"))
        ckpt_gate_release();
}

int ckpt_gate_stop(void *user)
{
    ckpt_watch *w = user;
    if (++w->polls < w->stop_at)
        return 0;
    ckpt_gate_wait_held();
    return 1;
}

/* Whether fd is a checkpoint file being written (its name "ckpt-*.tmp"). */
static int is_checkpoint(int fd)
{
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0)
        return 0;
    path[n] = '\0';
    const char *name = strrchr(path, '/');
    return fnmatch("ckpt-*.tmp", name ? name + 1 : path, 0) == 0;
}

int fsync(int fd)
{
    if (is_checkpoint(fd)) {
        pthread_mutex_lock(&g_mu);
        if (g_skip > 0) {
            g_skip--;
        } else if (g_hold != 0) {
            if (g_hold > 0)
                g_hold--;
            g_held = 1;
            pthread_cond_broadcast(&g_cv);
            while (g_tokens == 0)
                pthread_cond_wait(&g_cv, &g_mu);
            g_tokens--;
            g_held = 0;
        }
        pthread_mutex_unlock(&g_mu);
    }
    return (int)syscall(SYS_fsync, fd);
}

static pid_t g_unlinkers[64]; /* the threads that removed finished checkpoint files */
static int g_nunlinks;

void ckpt_gate_unlinks_reset(void)
{
    pthread_mutex_lock(&g_mu);
    g_nunlinks = 0;
    pthread_mutex_unlock(&g_mu);
}

int ckpt_gate_unlinks(pid_t *tids, int max)
{
    pthread_mutex_lock(&g_mu);
    const int n = g_nunlinks < max ? g_nunlinks : max;
    for (int i = 0; i < n; i++)
        tids[i] = g_unlinkers[i];
    pthread_mutex_unlock(&g_mu);
    return n;
}

int unlink(const char *path)
{
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    if (fnmatch("ckpt-*.r*", name, 0) == 0 && fnmatch("*.tmp", name, 0) != 0) {
        pthread_mutex_lock(&g_mu);
        if (g_nunlinks < (int)(sizeof g_unlinkers / sizeof *g_unlinkers))
            g_unlinkers[g_nunlinks++] = (pid_t)syscall(SYS_gettid);
        pthread_mutex_unlock(&g_mu);
    }
    return (int)syscall(SYS_unlinkat, AT_FDCWD, path, 0);
}
