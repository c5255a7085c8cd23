/* memlimit.h — keeping each runner within its job's memory, so that a job that outgrows
 * it is stopped alone and the kernel's OOM killer never picks the daemon:
 *   cgroup  the daemon's cgroup v2 is delegated to it (systemd Delegate=yes, or
 *           --cgroup-dir): each runner gets a child cgroup job-<id> with memory.max (and
 *           no swap); its OOM kill is read back from memory.events, its peak from
 *           memory.peak;
 *   rlimit  otherwise, a CPU job's runner gets RLIMIT_DATA (a GPU job's cannot: the CUDA
 *           driver's mappings count there), and allocations beyond it fail as the
 *           engine's "out of memory";
 * and in every mode the runner raises its own OOM score to the most (fdwave_runner.c),
 * and admission keeps the jobs' estimates within the host (admission.h). */
#ifndef FDWD_MEMLIMIT_H
#define FDWD_MEMLIMIT_H

#include "core/app.h"
#include <stddef.h>
#include <stdint.h>

typedef enum { MEMLIMIT_OFF = 0, MEMLIMIT_RLIMIT, MEMLIMIT_CGROUP } memlimit_mode;

/* At start-up. dir: the cgroup v2 directory to use ("" : the daemon's own, from
 * /proc/self/cgroup, when it is delegated). With a usable cgroup the daemon moves itself
 * into its leaf "daemon" and enables the memory controller for its children. Returns the
 * mode; msg says which and why (for the log). */
memlimit_mode memlimit_init(fdwd_app *app, const char *dir, char *msg, size_t len);

/* One runner's limit, prepared before fork. */
typedef struct memlimit_slot {
    memlimit_mode mode;
    uint64_t limit;            /* bytes; 0: none */
    int procs_fd;              /* cgroup: the job cgroup's cgroup.procs, open; else -1 */
    long long oom_before;      /* cgroup: its oom_kill count when prepared */
    char dir[4200];            /* cgroup: the job's cgroup directory */
} memlimit_slot;

/* Prepare job's limit of bytes (0: none). cpu: the job runs on the CPU backend (rlimit
 * applies). Returns 0, or -1 with why (the job can still run: the caller logs it). */
int memlimit_prepare(const struct memlimit *ml, memlimit_slot *s, int64_t job, uint64_t bytes,
                     int cpu, char *why, size_t len);
/* In the forked child before exec: async-signal-safe calls only. */
void memlimit_child(const memlimit_slot *s);
/* After the runner ended: whether the limit's OOM killer killed something in it, and its
 * peak memory (0 when unknown); the cgroup is removed. */
void memlimit_finish(memlimit_slot *s, int *oom_killed, uint64_t *peak);

#endif
