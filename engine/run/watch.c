/* watch.c — the time loop's watch over the field (watch.h): the backend's peak of the
 * current field, combined over the ranks of a distributed run, against the two rules. */
#include "run/watch.h"
#include "core/error.h"
#include "kinds/kind.h"
#include "run/run_state.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define INF_BITS 0x7f800000u   /* float32 +infinity: every NaN's magnitude bits are above */

void fdw_watch_init(fdw_watch *w, long first_step)
{
    memset(w, 0, sizeof *w);
    w->checked = first_step;
    w->base_src = -1.0;
}

int fdw_watch_due(const fdw_watch *w, long done, long nt)
{
    return done > w->checked &&
           (done == nt || done / FDW_WATCH_EVERY > w->checked / FDW_WATCH_EVERY);
}

/* The largest |sample| the sources have injected up to step done (the wavelets are
 * sampled per step, already scaled as the backends add them). */
static double source_peak(const fdw_problem *p, fdw_watch *w, long done)
{
    const long upto = done < p->nt ? done : p->nt;
    if (p->wavelets && p->nsrc_taps > 0 && upto > w->scanned) {
        const int nsrc = p->src_taps[p->nsrc_taps - 1].owner + 1;
        for (int q = 0; q < nsrc; q++)
            for (long it = w->scanned; it < upto; it++) {
                const double a = fabs((double)p->wavelets[(size_t)q * (size_t)p->nt + it]);
                if (a > w->src_peak)
                    w->src_peak = a;
            }
        w->scanned = upto;
    }
    return w->src_peak;
}

fdw_status fdw_watch_check(fdw_run_state *r, fdw_watch *w, long done, fdw_error *err)
{
    if (!r->be->field_peak)
        return FDW_OK;
    uint32_t bits = 0;
    fdw_status st = fdw_backend_wait(r->be, r->ctx, err);
    if (st == FDW_OK)
        st = r->be->field_peak(r->ctx, &bits, err);
    if (r->comm) { /* every rank's peak: the bits order like the magnitudes */
        int b = st == FDW_OK ? (int)(bits & 0x7fffffffu) : 0;
        st = fdw_comm_agree(r->comm, st, err);
        if (st == FDW_OK && r->comm->allreduce_max(r->comm, &b) != 0)
            st = fdw_fail(err, FDW_ERR_INTERNAL, NULL, "the ranks could not combine the "
                          "field's peak at step %ld (communication failed)", done);
        bits = (uint32_t)b;
    }
    if (st != FDW_OK)
        return st;
    const fdw_kind_ops *k = r->spec->kind;
    const long prev = w->checked;
    w->checked = done;
    if (bits >= INF_BITS) {
        char since[64] = "";
        if (w->peak > 0.0)
            snprintf(since, sizeof since, " (finite at the check after step %ld)", prev);
        return fdw_fail(err, FDW_ERR_UNSTABLE, k->out.unstable_field,
                        "the field is not finite (NaN or infinity) after step %ld of %ld%s: "
                        "the run is unstable; %s", done, r->prob.nsteps, since, k->out.unstable_hint);
    }
    float peakf;
    memcpy(&peakf, &bits, sizeof peakf);
    const double peak = peakf;
    w->peak = peak;
    if (!k->wave || r->prob.nsteps != r->prob.nt) /* (steps of one field with those sources) */
        return FDW_OK;
    const double src = source_peak(&r->prob, w, done);
    if (w->base_src < 0.0 || src > 2.0 * w->base_src) { /* the sources grew: a new start */
        w->base_src = src;
        w->ref = peak;
        w->ref_step = done;
        return FDW_OK;
    }
    if (w->ref > 0.0 && peak > FDW_WATCH_GROWTH * w->ref)
        return fdw_fail(err, FDW_ERR_UNSTABLE, k->out.unstable_field,
                        "the field grows without bound: its largest |value| is %.3g after "
                        "step %ld, %.3g times the largest it had reached (after step %ld) while "
                        "the sources' amplitude has not doubled since: the run is unstable; %s",
                        peak, done, peak / w->ref, w->ref_step, k->out.unstable_hint);
    if (peak > w->ref) {
        w->ref = peak;
        w->ref_step = done;
    }
    return FDW_OK;
}
