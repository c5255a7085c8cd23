/* watch.h — no silent blow-up: the time loop's watch over the field. Every
 * FDW_WATCH_EVERY steps, and after the last, the backend reads the largest |value| of the
 * current field (fdw_backend.field_peak: one reduction pass, a quarter of a step's bytes),
 * and the run fails, naming the step and the kind's likely cause, when
 *   - the field is not finite (a NaN or an infinity anywhere), or
 *   - a wave kind's field peak exceeds FDW_WATCH_GROWTH times its largest at any earlier
 *     check since the sources' injected amplitude last doubled: a stable wave field is
 *     largest near its sources while they inject (focusing, reflections and a free
 *     surface change that by small factors), an unstable scheme passes it within some
 *     hundred steps of growth (ln 100 / ln g steps at g a step, from a field that held
 *     the mode at rounding level).
 * So a run that succeeds has written finite outputs of a field that stayed bounded. */
#ifndef FDW_WATCH_H
#define FDW_WATCH_H

#include "run/backend.h"

#include <stdint.h>

#define FDW_WATCH_EVERY 64     /* steps between two checks */
#define FDW_WATCH_GROWTH 100.0 /* a wave kind's peak over its earlier largest: a failure */

struct fdw_run_state;

typedef struct fdw_watch {
    long checked;              /* the last step checked (-1: none) */
    long scanned;              /* wavelet samples [0, scanned) of every source seen */
    double src_peak;           /* their largest |sample| so far */
    double base_src;           /* the source peak when the reference was set (-1: never) */
    double ref;                /* the field's largest peak at the checks since then */
    long ref_step;
    double peak;               /* the field's peak at the last check */
} fdw_watch;

/* A fresh watch (before the loop; a resumed run starts it at its first step). */
void fdw_watch_init(fdw_watch *w, long first_step);

/* Whether step `done` is one to check (every FDW_WATCH_EVERY steps and the last). */
int fdw_watch_due(const fdw_watch *w, long done, long nt);

/* Check the field after step done (no work in flight is needed: it waits). Collective in
 * a distributed run. FDW_ERR_UNSTABLE with the kind's field and a message naming the step
 * when the field is not finite or grows without bound. */
fdw_status fdw_watch_check(struct fdw_run_state *r, fdw_watch *w, long done, fdw_error *err);

#endif
