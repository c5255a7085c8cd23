/* slurm_submit.c — the batch script and sbatch of one Slurm job of an fdwave job (see
 * slurm_submit.h). */
#include "sched/slurm_submit.h"
#include "sched/runner.h"
#include "sched/slurm_cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* s in single quotes for /bin/sh (a ' becomes '\''). 0, or -1 when it does not fit. */
static int sh_quote(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    out[n++] = '\'';
    for (; *s; s++) {
        const char *piece = *s == '\'' ? "'\\''" : NULL;
        const size_t plen = piece ? 4 : 1;
        if (n + plen + 2 > cap)
            return -1;
        if (piece)
            memcpy(out + n, piece, plen);
        else
            out[n] = *s;
        n += plen;
    }
    out[n++] = '\'';
    out[n] = '\0';
    return 0;
}

/* b's script: the runner on its run file, exec'd so that Slurm's signals reach it; an
 * array task's run file named with its task id ("%a" in run_file). */
static int write_script(fdwd_app *app, const slurm_batch *b, char *why, size_t len)
{
    char program[CFG_PATH + 32], qprog[2 * CFG_PATH], head[2 * CFG_PATH], tail[2 * CFG_PATH];
    char prefix[CFG_PATH + 64];
    runner_program(app, program, sizeof program);
    const char *task = strstr(b->run_file, "%a");
    snprintf(prefix, sizeof prefix, "%.*s", task ? (int)(task - b->run_file) : (int)CFG_PATH,
             b->run_file);
    if (sh_quote(program, qprog, sizeof qprog) || sh_quote(prefix, head, sizeof head) ||
        sh_quote(task ? task + 2 : "", tail, sizeof tail)) {
        snprintf(why, len, "the runner's or the run file's path is too long for a script");
        return -1;
    }
    FILE *f = fopen(b->script, "w");
    if (!f || fprintf(f, "#!/bin/sh\n# fdwave job %lld, written by fdwaved (job-backend = "
                         "slurm): its runner on its run file\nexec %s %s%s%s\n",
                      (long long)b->job_id, qprog, head, task ? "\"$SLURM_ARRAY_TASK_ID\"" : "",
                      tail) < 0 || fclose(f) != 0) {
        snprintf(why, len, "cannot write %.300s: %s", b->script, strerror(errno));
        return -1;
    }
    return 0;
}

/* sbatch's command line, built a word at a time. */
typedef struct words {
    char *argv[64];
    char buf[64][CFG_PATH + 64];
    int n;
} words;

/* Append one word, printf-style (past 62 words the rest are left out). */
static void add(words *wd, const char *fmt, ...)
{
    if (wd->n >= 62)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(wd->buf[wd->n], sizeof wd->buf[wd->n], fmt, ap);
    va_end(ap);
    wd->argv[wd->n] = wd->buf[wd->n];
    wd->argv[++wd->n] = NULL;
}

int slurm_submit(fdwd_app *app, const slurm_batch *b, int64_t *slurm_id, char *why,
                 size_t len)
{
    if (write_script(app, b, why, len))
        return -1;
    words *w = calloc(1, sizeof *w); /* too large for a job thread's stack */
    char extra[sizeof app->cfg.slurm_args];
    if (!w) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    add(w, "sbatch");
    add(w, "--parsable");
    add(w, "--job-name=%s", b->name);
    add(w, "--chdir=%s", b->job_dir);
    add(w, "--output=%s", b->output);
    add(w, "--error=%s", b->error);
    add(w, "--open-mode=append");
    add(w, "--no-requeue"); /* the daemon's attempt rules, not Slurm's */
    if (b->array)
        add(w, "--array=%s", b->array);
    add(w, "--ntasks=1");
    add(w, "--cpus-per-task=%lld", (long long)app->cfg.slurm_cpus_per_device * b->ndevices);
    if (b->gpus)
        add(w, "--gpus=%lld", (long long)b->ndevices);
    if (b->memory_limit)
        add(w, "--mem=%lldM", (long long)((b->memory_limit + (1u << 20) - 1) >> 20));
    if (b->time_limit_s > 0)
        add(w, "--time=%lld", (long long)ceil(b->time_limit_s / 60.0));
    if (app->cfg.slurm_partition[0])
        add(w, "--partition=%s", app->cfg.slurm_partition);
    snprintf(extra, sizeof extra, "%s", app->cfg.slurm_args);
    char *save = NULL;
    for (char *t = strtok_r(extra, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        add(w, "%s", t);
    add(w, "%s", b->script);
    if (w->n >= 62) {
        snprintf(why, len, "slurm-args: too many words for sbatch's command line");
        free(w);
        return -1;
    }
    char out[2048];
    const int rc = slurm_cmd(w->argv, 60, out, sizeof out);
    free(w);
    long long id = 0;
    if (rc != 0 || sscanf(out, "%lld", &id) != 1 || id <= 0) {
        snprintf(why, len, "sbatch refused the job (exit %d): %.500s", rc, out);
        return -1;
    }
    *slurm_id = id;
    return 0;
}
