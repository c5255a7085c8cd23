/* runlines.c — a runner's protocol lines into callbacks and its outcome (see runlines.h).
 * The decoder (runner_proto.c) trusts nothing; a line that is no message is logged (the
 * first five) and dropped, and a line over 1 MiB is dropped whole. */
#include "sched/runlines.h"
#include "core/log.h"
#include "runner/runner_proto.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_LINE (1u << 20)

int runlines_init(supervise *s, int64_t job_id, const fdw_callbacks *cb, runner_outcome *out)
{
    memset(s, 0, sizeof *s);
    s->job_id = job_id;
    s->cb = cb;
    s->out = out;
    s->cap = 4096; /* grown as long lines come, up to MAX_LINE (a survey follows many) */
    s->buf = malloc(s->cap + 1);
    return s->buf ? 0 : -1;
}

void runlines_free(supervise *s)
{
    free(s->buf);
    s->buf = NULL;
}

/* The end of this attempt's part of runner.log into tail. */
void runlines_tail(const char *path, off_t start, char *tail, size_t cap)
{
    tail[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    off_t end = lseek(fd, 0, SEEK_END);
    off_t from = end - (off_t)(cap - 1) > start ? end - (off_t)(cap - 1) : start;
    ssize_t n = from < end ? pread(fd, tail, (size_t)(end - from), from) : 0;
    close(fd);
    if (n < 0)
        n = 0;
    tail[n] = '\0';
    for (ssize_t i = 0; i < n; i++) /* one line for a reason text */
        if (tail[i] == '\n' || tail[i] == '\r' || (unsigned char)tail[i] < 0x20)
            tail[i] = ' ';
    while (n > 0 && tail[n - 1] == ' ')
        tail[--n] = '\0';
}


static void handle_line(supervise *s, const char *line, size_t len)
{
    proto_msg m;
    char why[200] = "";
    const fdw_callbacks *cb = s->cb;
    switch (proto_decode(line, len, &m, why, sizeof why)) {
    case PROTO_HELLO: break;
    case PROTO_PROGRESS: {
        s->out->last_step = m.progress.step;
        uint64_t total = 0;
        for (int d = 0; d < m.progress.ndevices; d++)
            total += m.progress.devices[d].mem_bytes;
        if (total > s->out->peak_device_bytes)
            s->out->peak_device_bytes = total;
        if (cb->progress)
            cb->progress(cb->user, &m.progress);
        break;
    }
    case PROTO_SNAPSHOT:
        if (cb->snapshot)
            cb->snapshot(cb->user, &m.snapshot);
        break;
    case PROTO_LOG:
        if (cb->log)
            cb->log(cb->user, m.level, m.message);
        break;
    case PROTO_CHECKPOINT:
        if (m.checkpoint.step > s->out->last_step)
            s->out->last_step = m.checkpoint.step;
        if (cb->checkpoint)
            cb->checkpoint(cb->user, &m.checkpoint);
        break;
    case PROTO_RESULT:
        s->out->have_result = 1;
        s->out->st = m.status;
        s->out->err = m.error;
        s->out->res = m.result;
        if (m.peak_rss > s->out->peak_rss)
            s->out->peak_rss = m.peak_rss;
        break;
    case PROTO_BAD:
        if (s->bad_lines++ < 5)
            log_warn("job %lld: the runner wrote a line that is no message (%s): %.120s",
                     (long long)s->job_id, why, line);
        break;
    }
    proto_msg_free(&m);
}

/* Twice the room for a partial line, up to MAX_LINE. 1, or 0 when out of memory. */
static int grow(supervise *s)
{
    const size_t cap = s->cap * 2 < MAX_LINE ? s->cap * 2 : MAX_LINE;
    char *b = realloc(s->buf, cap + 1);
    if (!b)
        return 0;
    s->buf = b;
    s->cap = cap;
    return 1;
}

/* Take what arrived on the pipe: whole lines to handle_line, the rest kept. */
void runlines_take(supervise *s, const char *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (data[i] == '\n') {
            if (!s->overlong)
                handle_line(s, s->buf, s->len);
            s->len = 0;
            s->overlong = 0;
        } else if (s->len < MAX_LINE && (s->len < s->cap || grow(s))) {
            s->buf[s->len++] = data[i];
        } else if (!s->overlong) {
            s->overlong = 1;
            s->bad_lines++;
            log_warn("job %lld: the runner wrote a line longer than 1 MiB; dropped",
                     (long long)s->job_id);
        }
    }
}

