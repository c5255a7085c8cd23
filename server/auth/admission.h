/* admission.h — memory admission. At submission (specs.c): the engine's estimates of the
 * job's memory (fdw_spec_device_bytes_max on its largest device, fdw_spec_host_bytes on
 * this server's backend, plus runner-memory-overhead) against the largest device and the
 * host's budget; a job that can never fit is refused naming the figures. At start
 * (scheduler.c): the estimates of the running jobs are reserved against the budget, so a
 * job that fits but not now waits. The runner's memory limit (memlimit.h) is the same
 * figure. Also the rest of what a new job must pass before it is stored: its wall-time
 * limit and its owner's quotas (sharing.h). */
#ifndef FDWD_ADMISSION_H
#define FDWD_ADMISSION_H

#include "core/app.h"
#include "fdwave/fdwave.h"

struct identity;

#include <stddef.h>
#include <stdint.h>

/* At start-up: the host budget (host-memory, else the host's memory less 10%, at least
 * 1 GiB less). msg for the log. Returns 0, or -1 (out of memory, in msg). */
int admission_init(fdwd_app *app, char *msg, size_t len);
uint64_t admission_host_budget(fdwd_app *app);

/* Host memory a job holds while it runs: its estimate plus the runner's overhead. */
uint64_t admission_job_host_bytes(fdwd_app *app, uint64_t estimate);

/* A new job's memory against this server: FDW_OK, or FDW_ERR_SPEC on "grid" with a
 * message naming what it needs and what there is. */
fdw_status admission_check(fdwd_app *app, const fdw_spec *spec, fdw_error *err);

/* What a new job is stored with, or why it is refused (admission_submit). */
typedef struct admission_new {
    uint64_t host_bytes;       /* fdw_spec_host_bytes on this server's backend */
    uint64_t device_bytes;     /* fdw_spec_device_bytes_max */
    double wall_time;          /* its wall_time, else max-wall-time; 0: none */
    char code[32], field[64], message[600];
} admission_new;

/* The checks of a parsed new job beyond the spec: its wall_time against max-wall-time
 * (400 on wall_time), who's quota (sharing_admit: 400 or 429). Returns 0 (a fills the
 * record's figures) or the HTTP status with a's code, field and message. */
int admission_submit(fdwd_app *app, const struct identity *who, const fdw_spec *spec,
                     admission_new *a);

/* The scheduler's reservations (called under its lock): whether bytes more fit now, and
 * taking and giving back a running job's share. */
int admission_fits(fdwd_app *app, uint64_t bytes);
void admission_reserve(fdwd_app *app, uint64_t bytes);
void admission_release(fdwd_app *app, uint64_t bytes);
uint64_t admission_reserved(fdwd_app *app);

#endif
