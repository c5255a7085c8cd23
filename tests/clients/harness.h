/* harness.h — what the CLI tests need around the code under test: a real fdwaved started
 * as a child process on an ephemeral loopback port with a temporary data directory, and
 * a way to run the `fdwave` CLI and capture its exit code, stdout and stderr. */
#ifndef FDT_HARNESS_H
#define FDT_HARNESS_H

#include <stddef.h>
#include <sys/types.h>

typedef struct fdt_daemon {
    pid_t pid;
    int port;
    char url[64];
    char data_dir[512];
    char log_path[600];
} fdt_daemon;

/* Creates a fresh temporary directory (mkdtemp) and returns it in out. */
int fdt_tmpdir(char *out, size_t cap);
/* Starts daemon_path with --listen 127.0.0.1:PORT (port 0 = ephemeral) --data DATA
 * --devices cpu:2 --backend cpu; waits until it logs "listening on http://...". */
int fdt_daemon_start(fdt_daemon *d, const char *daemon_path, const char *data_dir, int port);
/* SIGTERM and wait (SIGKILL after 10 s). */
void fdt_daemon_stop(fdt_daemon *d);

typedef struct fdt_run {
    int code;    /* exit status, or 128+signal */
    char *out;   /* stdout, NUL-terminated */
    char *err;   /* stderr */
} fdt_run;

/* Runs argv[0] with argv (NULL-terminated); stdin from /dev/null. env_extra: NULL or a
 * NULL-terminated list of "K=V" added to a clean environment without FDWAVE_*.
 * timeout_s: killed after that long (code 137). */
int fdt_exec(fdt_run *r, char *const argv[], char *const env_extra[], int timeout_s);
void fdt_run_free(fdt_run *r);

/* Runs argv on a pseudo-terminal (stdout and stderr are the terminal) and returns its
 * exit code with everything it wrote in r->out (r->err empty). */
int fdt_exec_pty(fdt_run *r, char *const argv[], int timeout_s);

/* The same in two halves, for a CLI that runs while the test does something else. */
typedef struct fdt_proc {
    pid_t pid;
    char dir[512];
} fdt_proc;
int fdt_spawn(fdt_proc *p, char *const argv[], char *const env_extra[]);
int fdt_wait(fdt_proc *p, fdt_run *r, int timeout_s);

/* Reads a whole file (NUL-terminated); NULL on error. */
char *fdt_read_file(const char *path, size_t *len);
int fdt_write_file(const char *path, const void *data, size_t len);

#endif
