/* waiting.c — why queued jobs wait (see waiting.h): the notes of a pass against what is
 * recorded, and jobs_set_waiting for each difference. */
#include "store/waiting.h"
#include "store/jobs.h"
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>

void waiting_begin(waiting_book *b)
{
    b->npass = 0;
}

/* The note of job id in notes[0..n), or NULL. */
static wait_note *find(wait_note *notes, int n, int64_t id)
{
    for (int i = 0; i < n; i++)
        if (notes[i].id == id)
            return &notes[i];
    return NULL;
}

void waiting_note(waiting_book *b, int64_t id, wait_cause cause, const char *fmt, ...)
{
    wait_note *n = find(b->pass, b->npass, id);
    if (!n) {
        if (b->npass == WAITING_MAX)
            return; /* the rest wait unexplained until a later pass: their place shows */
        n = &b->pass[b->npass++];
    }
    n->id = id;
    n->cause = cause;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->why, sizeof n->why, fmt, ap);
    va_end(ap);
}

void waiting_record(fdwd_app *app, waiting_book *b)
{
    /* Jobs no longer noted: started, cancelled, or back behind others. A job that is not
     * queued any more is left alone by jobs_set_waiting. */
    for (int i = 0; i < b->nheld; i++)
        if (!find(b->pass, b->npass, b->held[i].id))
            jobs_set_waiting(app, b->held[i].id, NULL);
    for (int i = 0; i < b->npass; i++) {
        wait_note *n = &b->pass[i];
        const wait_note *was = find(b->held, b->nheld, n->id);
        if (was && was->cause == n->cause) {
            *n = *was; /* the same wait: its figures as first said stand */
            continue;
        }
        const int r = jobs_set_waiting(app, n->id, n->why);
        if (r == 1)
            log_info("job %lld %s", (long long)n->id, n->why);
        else if (r < 0)
            n->cause = 0; /* not recorded: the next pass tries again */
    }
    for (int i = 0; i < b->npass; i++)
        b->held[i] = b->pass[i];
    b->nheld = b->npass;
}
