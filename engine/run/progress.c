/* progress.c — rate-limited progress reports with recent Mpoints/s and ETA. */
#include "run/progress.h"

#include <time.h>

double fdw_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void fdw_meter_start(fdw_meter *m, long nsteps, double points, double interval_s)
{
    m->interval_s = interval_s > 0.0 ? interval_s : 0.5;
    m->t_start = fdw_now();
    m->t_last = m->t_start;
    m->step_last = 0;
    m->nsteps = nsteps;
    m->points = points;
}

int fdw_meter_due(const fdw_meter *m, double now)
{
    return now - m->t_last >= m->interval_s;
}

void fdw_meter_report(fdw_meter *m, long step, double now, fdw_progress *p)
{
    const double span = now - m->t_last;
    const long dsteps = step - m->step_last;
    const double elapsed = now - m->t_start;
    p->step = step;
    p->nsteps = m->nsteps;
    p->percent = m->nsteps > 0 ? 100.0 * (double)step / (double)m->nsteps : 100.0;
    /* Rate over the recent interval; fall back to the whole run for an empty interval. */
    double rate_steps = 0.0;
    if (dsteps > 0 && span > 0.0)
        rate_steps = dsteps / span;
    else if (step > 0 && elapsed > 0.0)
        rate_steps = step / elapsed;
    p->mpts = rate_steps * m->points / 1e6;
    p->elapsed_s = elapsed;
    p->eta_s = rate_steps > 0.0 ? (double)(m->nsteps - step) / rate_steps : 0.0;
    if (p->eta_s < 0.0)
        p->eta_s = 0.0;
    m->t_last = now;
    m->step_last = step;
}
