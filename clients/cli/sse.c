/* sse.c — incremental text/event-stream parser (see sse.h). */
#include "sse.h"

#include <stdlib.h>
#include <string.h>

void fdc_sse_init(fdc_sse *p, fdc_sse_cb cb, void *user)
{
    memset(p, 0, sizeof *p);
    p->cb = cb;
    p->user = user;
}

void fdc_sse_reset(fdc_sse *p)
{
    p->line_len = 0;
    p->data_len = 0;
    p->have_data = 0;
    p->type[0] = '\0';
    p->after_cr = 0;
}

void fdc_sse_free(fdc_sse *p)
{
    free(p->line);
    free(p->data);
    p->line = p->data = NULL;
}

static int grow(char **b, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    char *nb = realloc(*b, c);
    if (!nb)
        return -1;
    *b = nb;
    *cap = c;
    return 0;
}

static void copy_field(char *dst, size_t cap, const char *v)
{
    size_t n = strlen(v);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, v, n);
    dst[n] = '\0';
}

/* One complete line (NUL-terminated in p->line). */
static void process_line(fdc_sse *p)
{
    char *l = p->line;
    if (p->line_len == 0) { /* blank line: dispatch */
        if (p->have_data) {
            p->data[p->data_len] = '\0';
            if (p->cb(p->user, p->last_id, p->type[0] ? p->type : "message", p->data))
                p->stopped = 1;
        }
        p->data_len = 0;
        p->have_data = 0;
        p->type[0] = '\0';
        return;
    }
    if (l[0] == ':')
        return; /* comment, e.g. keep-alive */
    char *colon = strchr(l, ':');
    const char *value = "";
    if (colon) {
        *colon = '\0';
        value = colon + 1;
        if (*value == ' ')
            value++;
    }
    if (strcmp(l, "data") == 0) {
        size_t vn = strlen(value);
        if (grow(&p->data, &p->data_cap, p->data_len + vn + 2)) {
            p->oom = p->stopped = 1;
            return;
        }
        if (p->have_data)
            p->data[p->data_len++] = '\n';
        memcpy(p->data + p->data_len, value, vn);
        p->data_len += vn;
        p->have_data = 1;
    } else if (strcmp(l, "event") == 0) {
        copy_field(p->type, sizeof p->type, value);
    } else if (strcmp(l, "id") == 0) {
        copy_field(p->last_id, sizeof p->last_id, value);
    }
    /* "retry" and unknown fields are ignored, as the spec says. */
}

int fdc_sse_feed(fdc_sse *p, const char *d, size_t n)
{
    for (size_t i = 0; i < n && !p->stopped; i++) {
        char ch = d[i];
        if (ch == '\n' && p->after_cr) {
            p->after_cr = 0;
            continue;
        }
        p->after_cr = 0;
        if (ch == '\r' || ch == '\n') {
            if (grow(&p->line, &p->line_cap, p->line_len + 1)) {
                p->oom = p->stopped = 1;
                break;
            }
            p->line[p->line_len] = '\0';
            process_line(p);
            p->line_len = 0;
            p->after_cr = (ch == '\r');
            continue;
        }
        if (grow(&p->line, &p->line_cap, p->line_len + 2)) {
            p->oom = p->stopped = 1;
            break;
        }
        p->line[p->line_len++] = ch;
    }
    return p->stopped;
}
