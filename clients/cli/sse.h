/* sse.h — an incremental parser for text/event-stream (Server-Sent Events) as the
 * WHATWG spec defines it: "id:", "event:", "data:" lines, ":" comments, blank-line
 * dispatch, any of CRLF/LF/CR line ends. Bytes can arrive in pieces of any size. */
#ifndef FDC_SSE_H
#define FDC_SSE_H

#include <stddef.h>

/* Called once per complete event; type is "message" when the event had no "event:"
 * line; id is the last id seen on the stream ("" if none). Return non-zero to stop. */
typedef int (*fdc_sse_cb)(void *user, const char *id, const char *type, const char *data);

typedef struct fdc_sse {
    fdc_sse_cb cb;
    void *user;
    char *line;          /* current, unterminated line */
    size_t line_len, line_cap;
    char *data;          /* data lines of the event being built, joined by '\n' */
    size_t data_len, data_cap;
    int have_data;
    char type[64];
    char last_id[64];    /* what Last-Event-ID should say on a reconnect */
    int after_cr;        /* previous byte was '\r' (so a following '\n' is part of it) */
    int stopped;
    int oom;
} fdc_sse;

void fdc_sse_init(fdc_sse *p, fdc_sse_cb cb, void *user);
/* Feeds n bytes. Returns 0, or non-zero once the callback asked to stop (or memory ran
 * out); later calls then do nothing. */
int fdc_sse_feed(fdc_sse *p, const char *d, size_t n);
/* Forgets a half-received event (after a dropped connection), keeping last_id. */
void fdc_sse_reset(fdc_sse *p);
void fdc_sse_free(fdc_sse *p);

#endif
