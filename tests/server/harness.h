/* harness.h — drives a real fdwaved for the server tests: start it as a child process
 * on an ephemeral loopback port with a temporary --data directory, read the port from
 * its "listening on" log line, make HTTP requests with libcurl, stop or kill it. */
#ifndef FDWD_TEST_HARNESS_H
#define FDWD_TEST_HARNESS_H

#include <jansson.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct daemon_proc {
    pid_t pid;
    int port;
    char data[512];            /* --data directory */
    char log[600];             /* its stderr */
    char base[64];             /* http://127.0.0.1:PORT */
    /* Optional command the daemon runs under (NULL-terminated, e.g. strace and its
     * options, found on PATH); pid is then the wrapper's. */
    const char *const *wrapper;
} daemon_proc;

typedef struct http_resp {
    long status;
    char *body;                /* NUL-terminated */
    size_t len;
    char headers[8192];
} http_resp;

/* New empty temporary directory (mkdtemp) for --data. */
void harness_tmpdir(char *out, size_t cap);
/* Remove a directory tree. */
void harness_rmtree(const char *dir);
/* Start fdwaved --listen 127.0.0.1:0 --data d->data --devices cpu:4 plus extra args
 * (NULL-terminated), under d->wrapper when set. Returns 0 once it listens (10 s limit),
 * -1 otherwise. */
int harness_start(daemon_proc *d, const char *const *extra);
/* SIGTERM and wait; returns the exit status (or -1). */
int harness_stop(daemon_proc *d);
/* SIGKILL and wait. */
void harness_kill9(daemon_proc *d);
/* Run `fdwaved ARGS...` to completion, capturing stdout into out. Returns exit status. */
int harness_run_cli(const char *const *args, char *out, size_t cap);
/* `fdwaved token add NAME [--admin] --data d->data`: the new token into out (128 bytes);
 * aborts when that fails (a test without its users cannot run). */
void harness_add_token(const daemon_proc *d, const char *name, int admin, char *out);

/* Whole-request timeout of http(), milliseconds (default 60000). */
extern long http_timeout_ms;

/* One request. headers: NULL-terminated "Name: value" list or NULL. body may be NULL.
 * Returns 0 when a response arrived. */
int http(const daemon_proc *d, const char *method, const char *path, const char *const *headers,
         const char *body, size_t len, http_resp *r);
void http_free(http_resp *r);
/* Parse r->body as JSON (NULL if not JSON). */
json_t *http_json(const http_resp *r);
/* POST a spec; returns the job id (> 0) or -1; *status gets the HTTP status. */
long submit(const daemon_proc *d, const char *spec, const char *const *headers, long *status);
/* Poll GET /v1/jobs/ID until its state is terminal or timeout_s passes; returns the
 * state as a static string or "timeout". */
const char *wait_done(const daemon_proc *d, long id, double timeout_s, const char *token);
/* Read job id's event stream (GET /v1/jobs/ID/events, as token when not NULL) until its
 * text contains needle, the stream ends, or timeout_s passes (a failure, not a wait).
 * Returns the text read (caller frees) when needle came, else NULL. */
char *events_until(const daemon_proc *d, long id, const char *token, const char *needle,
                   double timeout_s);
/* Value of a response header (case-insensitive), copied into out; 0 if found. */
int header_value(const http_resp *r, const char *name, char *out, size_t cap);

/* A small acoustic spec (n^3 grid, nt steps, snapshots every snap steps, a receiver
 * line, devices), written into buf. */
void small_spec(char *buf, size_t cap, int n, int nt, int snap, int devices);

#endif
