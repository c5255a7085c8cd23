/* imaging_sched.c — the order of an imaging shot's work (imaging.h), which both engines
 * follow: the segment length, the run loop's step count, and what each step does. rtm and
 * gradient, boundary scheme: the forward pass saving u's band each step, then one backward
 * pass of z and u together. Checkpointed scheme: the forward pass (checkpoints at the start of segments 1 .. K-2, with a CPML
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

long fdw_img_engine_steps(img_mode mode, long nt, int seg, img_recon recon)
{
    if (mode == IMG_BORN)
        return nt;
    if (recon == IMG_RECON_BOUNDARY) /* forward nt; backward nt (z and u together) */
        return 2 * nt;
    const long K = (nt + seg - 1) / seg;
    /* forward nt; each segment but the last recomputed (L - 1 steps); adjoint nt */
    return nt + (K - 1) * (seg - 1) + nt;
}

void img_sched_init(img_sched *s, long nt, int L, img_recon recon)
{
    memset(s, 0, sizeof *s);
    s->nt = nt;
    s->recon = recon;
    s->L = recon == IMG_RECON_BOUNDARY ? 1 : L;
    s->K = recon == IMG_RECON_BOUNDARY ? 1 : (nt + L - 1) / L;
    s->phase = IMG_FORWARD;
}

/* The boundary scheme's units: the forward pass saves the bands of u[1] .. u[nt-2] (slot
 * n - 1 holds u[n]'s); the backward pass, n = nt-1 down to 0, steps z, and below nt - 1
 * also u back to u[n] (u[0]'s band is zero: nothing to put back). */
static img_unit boundary_unit(const img_sched *s)
{
    img_unit u = {.phase = s->phase, .pos = s->pos, .checkpoint = -1, .memory = -1,
                  .store = -1};
    if (s->phase == IMG_FORWARD) {
        u.it = s->pos;
        u.store = s->pos <= s->nt - 3 ? s->pos : -1;
        u.last = s->pos == s->nt - 1;
    } else if (s->phase == IMG_ADJOINT) {
        u.it = s->nt - 1 - s->pos;
        u.back = u.it < s->nt - 1;
        u.store = u.it >= 1 && u.it <= s->nt - 2 ? u.it - 1 : -1;
    }
    return u;
}

/* Steps of segment k. */
static long seg_len(const img_sched *s, long k)
{
    return k == s->K - 1 ? s->nt - (s->K - 1) * s->L : s->L;
}

img_unit img_sched_unit(const img_sched *s)
{
    if (s->recon == IMG_RECON_BOUNDARY)
        return boundary_unit(s);
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
        s->seg = s->K - 1; /* its fields are in the store already (boundary: K = 1) */
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
