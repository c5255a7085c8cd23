/* memlimit.c — a runner's memory limit (see memlimit.h). cgroup v2: the daemon's cgroup
 * must list the memory controller and let the daemon make children (delegation); the
 * daemon then lives in the leaf "daemon" (a cgroup with children may hold no process),
 * each runner in job-<id> with memory.max, memory.swap.max 0 and memory.oom.group 1 (an
 * OOM kill takes the runner with its launcher and ranks). The child joins its cgroup by
 * writing "0" to cgroup.procs, opened before fork. */
#include "sched/memlimit.h"
#include "core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* How runners are limited on this host (app->memlimit). */
struct memlimit {
    memlimit_mode mode;
    char root[4096];           /* cgroup: the delegated directory the job cgroups go under */
};

/* Write text into dir/name; 0 or -1 (errno set). (O_CREAT: a cgroup file system has the
 * file already; a --cgroup-dir that is a plain directory, as in the tests, gets it.) */
static int write_file(const char *dir, const char *name, const char *text)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    ssize_t n = (ssize_t)strlen(text);
    int rc = write(fd, text, (size_t)n) == n ? 0 : -1;
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

/* The first line of dir/name holding key, its number after the key ("oom_kill 3"), or
 * the file's first number when key is NULL ("123456"). -1 when absent. */
static long long read_number(const char *dir, const char *name, const char *key)
{
    char path[4400], line[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long long v = -1;
    while (fgets(line, sizeof line, f)) {
        size_t kl = key ? strlen(key) : 0;
        if (key && (strncmp(line, key, kl) != 0 || line[kl] != ' '))
            continue;
        char *end;
        long long x = strtoll(line + kl, &end, 10);
        if (end != line + kl)
            v = x;
        break;
    }
    fclose(f);
    return v;
}

/* The daemon's own cgroup directory under a pure cgroup v2 mount, or -1 with why. */
static int own_cgroup(char *out, size_t len, char *why, size_t wlen)
{
    if (access("/sys/fs/cgroup/cgroup.controllers", R_OK) != 0) {
        snprintf(why, wlen, "no cgroup v2 hierarchy at /sys/fs/cgroup");
        return -1;
    }
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[4096];
    int found = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "0::", 3) != 0)
            continue;
        line[strcspn(line, "\n")] = '\0';
        snprintf(out, len, "/sys/fs/cgroup%.3900s", strcmp(line + 3, "/") ? line + 3 : "");
        found = 1;
    }
    if (f)
        fclose(f);
    if (!found)
        snprintf(why, wlen, "/proc/self/cgroup names no cgroup v2");
    return found ? 0 : -1;
}

memlimit_mode memlimit_init(fdwd_app *app, const char *dir, char *msg, size_t len)
{
    struct memlimit *ml = calloc(1, sizeof *ml);
    if (!ml) { /* memlimit_prepare takes a NULL as "off" */
        snprintf(msg, len, "memory limits: off (out of memory)");
        return MEMLIMIT_OFF;
    }
    app->memlimit = ml;
    char cg[4096], why[512] = "";
    ml->mode = MEMLIMIT_RLIMIT;
    if (dir && dir[0])
        snprintf(cg, sizeof cg, "%s", dir);
    else if (own_cgroup(cg, sizeof cg, why, sizeof why) != 0)
        goto fallback;
    char ctl[4400], ctrls[512] = "";
    snprintf(ctl, sizeof ctl, "%s/cgroup.controllers", cg);
    FILE *f = fopen(ctl, "r");
    if (!f || !fgets(ctrls, sizeof ctrls, f) || !strstr(ctrls, "memory")) {
        snprintf(why, sizeof why, "%.300s lists no memory controller", cg);
        if (f)
            fclose(f);
        goto fallback;
    }
    fclose(f);
    char leaf[4200], pid[32];
    snprintf(leaf, sizeof leaf, "%s/daemon", cg);
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    if ((mkdir(leaf, 0755) != 0 && errno != EEXIST) || write_file(leaf, "cgroup.procs", pid) ||
        write_file(cg, "cgroup.subtree_control", "+memory")) {
        snprintf(why, sizeof why, "cgroup %.300s is not delegated to this daemon (%s)", cg,
                 strerror(errno));
        goto fallback;
    }
    snprintf(ml->root, sizeof ml->root, "%s", cg);
    ml->mode = MEMLIMIT_CGROUP;
    snprintf(msg, len, "memory limits: a cgroup per runner under %s", cg);
    return ml->mode;
fallback:
    snprintf(msg, len, "memory limits: RLIMIT_DATA for CPU jobs (%s; run under systemd with "
             "Delegate=yes for cgroup limits)", why);
    return ml->mode;
}

int memlimit_prepare(const struct memlimit *ml, memlimit_slot *s, int64_t job, uint64_t bytes,
                     int cpu, char *why, size_t len)
{
    memset(s, 0, sizeof *s);
    s->procs_fd = -1;
    s->limit = bytes;
    if (bytes == 0 || !ml)
        return 0;
    if (ml->mode == MEMLIMIT_RLIMIT) {
        s->mode = cpu ? MEMLIMIT_RLIMIT : MEMLIMIT_OFF;
        return 0;
    }
    if (ml->mode != MEMLIMIT_CGROUP)
        return 0;
    snprintf(s->dir, sizeof s->dir, "%s/job-%lld", ml->root, (long long)job);
    char max[32];
    snprintf(max, sizeof max, "%llu", (unsigned long long)bytes);
    if ((mkdir(s->dir, 0755) != 0 && errno != EEXIST) ||
        write_file(s->dir, "memory.max", max)) {
        snprintf(why, len, "cannot set up cgroup %.300s: %s", s->dir, strerror(errno));
        return -1;
    }
    write_file(s->dir, "memory.swap.max", "0");  /* absent without swap accounting */
    write_file(s->dir, "memory.oom.group", "1"); /* absent before Linux 4.19 */
    char procs[4400];
    snprintf(procs, sizeof procs, "%s/cgroup.procs", s->dir);
    s->procs_fd = open(procs, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (s->procs_fd < 0) {
        snprintf(why, len, "cannot open %.300s: %s", procs, strerror(errno));
        return -1;
    }
    s->oom_before = read_number(s->dir, "memory.events", "oom_kill");
    s->mode = MEMLIMIT_CGROUP;
    return 0;
}

void memlimit_child(const memlimit_slot *s)
{
    if (s->mode == MEMLIMIT_CGROUP && s->procs_fd >= 0) {
        ssize_t w = write(s->procs_fd, "0", 1); /* "0": the writing process */
        (void)w;
    } else if (s->mode == MEMLIMIT_RLIMIT) {
        struct rlimit rl = {.rlim_cur = s->limit, .rlim_max = s->limit};
        setrlimit(RLIMIT_DATA, &rl);
    }
}

void memlimit_finish(memlimit_slot *s, int *oom_killed, uint64_t *peak)
{
    *oom_killed = 0;
    *peak = 0;
    if (s->mode != MEMLIMIT_CGROUP)
        return;
    if (s->procs_fd >= 0)
        close(s->procs_fd);
    s->procs_fd = -1;
    const long long kills = read_number(s->dir, "memory.events", "oom_kill");
    *oom_killed = kills > 0 && kills > s->oom_before;
    long long p = read_number(s->dir, "memory.peak", NULL);
    *peak = p > 0 ? (uint64_t)p : 0;
    if (rmdir(s->dir) != 0 && errno == EBUSY) { /* something of the job lives on */
        write_file(s->dir, "cgroup.kill", "1");
        usleep(100000);
        if (rmdir(s->dir) != 0)
            log_warn("cannot remove cgroup %s: %s", s->dir, strerror(errno));
    }
}
