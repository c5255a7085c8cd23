/* commands.h — the fdwave CLI's subcommands. main.c parses the command line into an
 * fdc_args and calls one of these; each returns an exit code from exit_codes.h. */
#ifndef FDC_COMMANDS_H
#define FDC_COMMANDS_H

#include <stdio.h>
#include "client.h"

#define FDC_MAX_POS 8

typedef struct fdc_args {
    int npos;
    const char *pos[FDC_MAX_POS]; /* positional arguments after the command name */
    int wait;                     /* submit --wait */
    const char *priority;         /* submit --priority N */
    const char *idempotency_key;  /* submit --idempotency-key K */
    int upload_models;            /* submit --upload-models (local_models.h) */
    const char *state;            /* list --state S */
    const char *name;             /* list --name TEXT */
    const char *limit;            /* list --limit N */
    const char *before;           /* list --before ID */
    const char *out_dir;          /* fetch -o DIR */
    int all;                      /* fetch --all */
    const char *since;            /* watch --since ID */
    int replace;                  /* models upload --replace (an existing name of yours) */
} fdc_args;

int fdc_cmd_submit(const fdc_client *c, const fdc_args *a);
int fdc_cmd_list(const fdc_client *c, const fdc_args *a);
int fdc_cmd_status(const fdc_client *c, const fdc_args *a);
int fdc_cmd_cancel(const fdc_client *c, const fdc_args *a);
int fdc_cmd_watch(const fdc_client *c, const fdc_args *a);
int fdc_cmd_outputs(const fdc_client *c, const fdc_args *a);
int fdc_cmd_fetch(const fdc_client *c, const fdc_args *a);
int fdc_cmd_models(const fdc_client *c, const fdc_args *a);
int fdc_cmd_devices(const fdc_client *c, const fdc_args *a);
int fdc_cmd_health(const fdc_client *c, const fdc_args *a);
int fdc_cmd_usage(const fdc_client *c, const fdc_args *a);
int fdc_cmd_rm(const fdc_client *c, const fdc_args *a);
int fdc_cmd_data(const fdc_client *c, const fdc_args *a);

/* Follows job id's event stream to its "end" event, reconnecting with Last-Event-ID when
 * the connection drops. Events go to out: a redrawn progress bar when bar is set, one
 * line per event otherwise, or one JSON object per line when json is set. since: replay
 * only events after this id (NULL: all). Returns the exit code for the job's final state. */
int fdc_watch_job(const fdc_client *c, long id, FILE *out, int bar, int json, const char *since);

/* `models upload`: PUT file as model name (replace: ?replace=true, the server's explicit
 * replace of a name the user owns; without it an existing name answers 409), then say
 * what the server recorded: on stdout (the JSON with --json), or with to_stderr as a line
 * on stderr and nothing with --json (submit --upload-models). Returns an exit code. */
int fdc_upload_model(const fdc_client *c, const char *file, const char *name, int replace,
                     int to_stderr);

/* PUT the open file f (size bytes; closed here) to base + name (URL-escaped; replace:
 * ?replace=true) and parse the answer: FDC_EXIT_OK with *answer the server's JSON object
 * (the caller frees it), or an exit code with the error reported and *answer NULL. */
int fdc_put_file(const fdc_client *c, FILE *f, long long size, const char *base,
                 const char *name, int replace, json_t **answer);

/* Parses a job id argument (positive integer). Prints a usage error and returns 0 if bad. */
long fdc_parse_job_id(const char *s);
/* Exit code for a job's terminal state name (succeeded/failed/cancelled). */
int fdc_exit_for_state(const char *state);

#endif
