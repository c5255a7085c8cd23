/* command.c — the runner-command template: split into words, placeholders filled
 * (see command.h). */
#include "runner/command.h"

#include <stdio.h>
#include <string.h>

/* Longest value of one placeholder. */
#define VALUE_MAX (4096 + 64)

/* Fill the placeholders of one word into out. */
static int fill_word(const char *w, size_t wl, const runner_words *job, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < wl;) {
        char val[VALUE_MAX];
        const char *rep = NULL;
        size_t skip = 0;
        if (w[i] == '{') {
            static const char *const names[] = {"{runner}", "{run}", "{job}", "{ndevices}",
                                                "{devices}"};
            for (int k = 0; k < 5 && !rep; k++) {
                size_t nl = strlen(names[k]);
                if (wl - i >= nl && strncmp(w + i, names[k], nl) == 0) {
                    skip = nl;
                    rep = val;
                    switch (k) {
                    case 0: snprintf(val, sizeof val, "%s", job->runner); break;
                    case 1: snprintf(val, sizeof val, "%s", job->run_file); break;
                    case 2: snprintf(val, sizeof val, "%lld", (long long)job->job_id); break;
                    case 3: snprintf(val, sizeof val, "%d", job->ndevices); break;
                    default: {
                        size_t v = 0;
                        val[0] = '\0';
                        for (int d = 0; job->device_ids && d < job->ndevices &&
                                        v < sizeof val - 16; d++)
                            v += (size_t)snprintf(val + v, sizeof val - v, d ? ",%d" : "%d",
                                                  job->device_ids[d]);
                    }
                    }
                }
            }
            if (!rep)
                return -1;
        }
        const char *src = rep ? rep : w + i;
        size_t n = rep ? strlen(rep) : 1;
        if (o + n >= cap)
            return -1;
        memcpy(out + o, src, n);
        o += n;
        i += rep ? skip : 1;
    }
    out[o] = '\0';
    return 0;
}

int runner_command_argv(const char *tmpl, const runner_words *job, char **argv, char *buf,
                        size_t cap, char *why, size_t wlen)
{
    int n = 0, has_run = 0;
    size_t used = 0;
    for (const char *p = tmpl; *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        const char *e = p;
        while (*e && *e != ' ' && *e != '\t')
            e++;
        if (n >= RUNNER_MAX_WORDS - 1) {
            snprintf(why, wlen, "runner-command has more than %d words", RUNNER_MAX_WORDS - 1);
            return -1;
        }
        has_run |= memmem(p, (size_t)(e - p), "{run}", 5) != NULL;
        if (fill_word(p, (size_t)(e - p), job, buf + used, cap - used)) {
            snprintf(why, wlen, "runner-command: the word \"%.*s\" has an unknown placeholder "
                     "(known: {runner} {run} {job} {ndevices} {devices}) or is too long",
                     (int)(e - p > 100 ? 100 : e - p), p);
            return -1;
        }
        argv[n++] = buf + used;
        used += strlen(buf + used) + 1;
        p = e;
    }
    argv[n] = NULL;
    if (n == 0 || !has_run) {
        snprintf(why, wlen, "runner-command must name the run file with {run} (e.g. "
                 "\"{runner} {run}\")");
        return -1;
    }
    return n;
}

int runner_check_command(const char *tmpl, char *why, size_t len)
{
    static const runner_words standin = {"fdwave-runner", "R", 0, 1, NULL};
    char *argv[RUNNER_MAX_WORDS], buf[8192];
    return runner_command_argv(tmpl, &standin, argv, buf, sizeof buf, why, len) < 0 ? -1 : 0;
}

