/* progress.h — the time loop's progress meter: decides when a report is due (rate limit),
 * and computes Mpoints/s over the interval since the last report, elapsed time and ETA. */
#ifndef FDW_PROGRESS_H
#define FDW_PROGRESS_H

#include "fdwave/fdwave.h"

typedef struct fdw_meter {
    double interval_s;     /* minimum time between reports */
    double t_start;        /* monotonic seconds at the start of the loop */
    double t_last;         /* time of the last report (or the start) */
    long step_last;        /* steps done at the last report */
    long nsteps;
    double points;         /* grid points updated per step */
} fdw_meter;

/* Monotonic clock in seconds. */
double fdw_now(void);

/* Start a meter for nsteps steps of points grid points; interval_s <= 0 means 0.5 s. */
void fdw_meter_start(fdw_meter *m, long nsteps, double points, double interval_s);

/* Whether a report is due at time now (cheap: call it every step). */
int fdw_meter_due(const fdw_meter *m, double now);

/* Fill p for `step` steps done at time now (the caller has waited for the backend, so the
 * steps are really complete) and make now the start of the next interval. p->devices is
 * left to the caller. */
void fdw_meter_report(fdw_meter *m, long step, double now, fdw_progress *p);

#endif
