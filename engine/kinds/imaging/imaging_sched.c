/* imaging_sched.c — the order of an imaging shot's work (imaging.h), which both engines
 * follow: the segment length, the run loop's step count, and what each step does. rtm and
 * gradient: the forward pass (checkpoints at the start of segments 1 .. K-2, with a CPML
 * its memory variables at the start of segments 1 .. K-1, the last segment's fields into
 * the store), then from the last segment down the adjoint through
 * each segment, every segment but the last first stepped forward again into the store from
 * its checkpoint (segment 0 from the zero initial state). */
#include "kinds/imaging/imaging.h"

#include <math.h>
#include <string.h>

int fdw_img_segment(long nt)
{
    const long L = lround(sqrt(2.0 * (double)nt));
    return (int)(L < 1 ? 1 : L > nt ? nt : L);
}

long fdw_img_engine_steps(img_mode mode, long nt, int seg)
{
    if (mode == IMG_BORN)
        return nt;
    const long K = (nt + seg - 1) / seg;
    /* forward nt; each segment but the last recomputed (L - 1 steps); adjoint nt */
    return nt + (K - 1) * (seg - 1) + nt;
}

void img_sched_init(img_sched *s, long nt, int L)
{
    memset(s, 0, sizeof *s);
    s->nt = nt;
    s->L = L;
    s->K = (nt + L - 1) / L;
    s->phase = IMG_FORWARD;
}

/* Steps of segment k. */
static long seg_len(const img_sched *s, long k)
{
    return k == s->K - 1 ? s->nt - (s->K - 1) * s->L : s->L;
}

img_unit img_sched_unit(const img_sched *s)
{
    img_unit u = {.phase = s->phase, .seg = s->seg, .pos = s->pos, .checkpoint = -1,
                  .memory = -1, .store = -1, .restore = s->entered};
    switch (s->phase) {
    case IMG_FORWARD: {
        const long k = s->pos / s->L;
        u.it = s->pos;
        if (s->pos % s->L == 0 && k >= 1 && k <= s->K - 2)
            u.checkpoint = k - 1;
        if (s->pos % s->L == 0 && k >= 1)
            u.memory = k - 1;
        if (k == s->K - 1)
            u.store = s->pos - k * s->L;
        u.last = s->pos == s->nt - 1;
        break;
    }
    case IMG_RECOMPUTE:
        u.it = s->seg * s->L + s->pos;
        u.store = s->pos + 1;
        break;
    case IMG_ADJOINT:
        u.it = s->seg * s->L + seg_len(s, s->seg) - 1 - s->pos; /* n: u[n] with z[n+1] */
        u.store = u.it - s->seg * s->L;
        break;
    case IMG_DONE:
        break;
    }
    return u;
}

void img_sched_advance(img_sched *s)
{
    s->entered = 0;
    switch (s->phase) {
    case IMG_FORWARD:
        if (++s->pos < s->nt)
            return;
        s->seg = s->K - 1; /* its fields are in the store already */
        s->phase = IMG_ADJOINT;
        s->pos = 0;
        return;
    case IMG_RECOMPUTE:
        if (++s->pos < s->L - 1)
            return;
        s->phase = IMG_ADJOINT;
        s->pos = 0;
        return;
    case IMG_ADJOINT:
        if (++s->pos < seg_len(s, s->seg))
            return;
        s->pos = 0;
        if (s->seg == 0) {
            s->phase = IMG_DONE;
            return;
        }
        s->seg--;
        s->entered = 1;
        s->phase = s->L > 1 ? IMG_RECOMPUTE : IMG_ADJOINT;
        return;
    case IMG_DONE:
        return;
    }
}
