/* ete_spec.c — the ETE kind's spec: the wave sections the kinds share (velocity, time,
 * boundary, sources, receivers) with the kind's own time-step rule, and its "ete" section
 * (bins, band, accuracy target). dt is not bound by the finite-difference Courant limit:
 * a dt is accepted when a stable consistent operator can be fitted at the model's largest
 * velocity (ete_fit.h), and "auto" picks the largest dt up to which every dt's fits at a
 * few velocities of the model's range (its ends and three between, geometrically) meet the
 * accuracy target: a worst phase-velocity error of ETE_PHASE_ERROR_DEFAULT over the band, or
 * ete.max_phase_error. An absolute target and the run of dts from small up make dt auto
 * monotone in the resolution (a finer grid or a narrower band never gets a smaller Courant
 * number: each fit's error falls as the band narrows); a target relative to another scheme
 * (FD-8 at dt / 5, this kind's rule until 2026-12) is not. The band defaults to |k| <= 2 pi fmax / v with fmax = 2.5
 * times the largest Ricker f0 (the house's shortest-wavelength rule, kinds/wave/wave_spec.c).
 * Then the operator as assembled on the model itself is checked (ete_stability.h): where
 * velocity bins meet it can be unstable although every bin's fit is not, so dt auto comes
 * down to the largest dt found stable there, and a given dt that is not is refused naming
 * it. */
#include "kinds/ete/ete_spec.h"
#include "kinds/ete/ete.h"
#include "kinds/ete/ete_stability.h"
#include "model/model_io.h"
#include "kinds/wave/wave_spec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846
/* The band's edge may turn by at most this much phase per step (2.2 steps per period). */
#define PHI_LIMIT (0.9 * PI)
/* dt auto: the ladder of Courant numbers (along the finest axis at vmax) it climbs, from
 * AUTO_R0 by factors of AUTO_GROW up to the fit limit, then bisection steps (to 0.04 % of
 * dt). The ladder depends on the grid and vmax only, not on the band. Below AUTO_R0 (0.44
 * of order-8 FD's own limit on a cube) ETE cannot pay for its dearer step. */
#define AUTO_R0 0.2
#define AUTO_GROW 1.25
#define AUTO_BISECT 9
#define CHECK_VELOCITIES 5
/* The assembled operator's check: dt tried at these fractions of the first one until one
 * is stable, then bisections between the two last tried. */
#define STABLE_SHRINK 0.9
#define STABLE_TRIES 6
#define STABLE_BISECT 2
/* The smallest Courant number vmin dt / h_max fitted: at 1e-3 the fit's phase error is 3e-6
 * (a 24^3 cube, 2000 m/s, h 10 m, fmax 30 Hz), at 1e-4 it is 5%, at 1e-5 100% (the symbol
 * 1 - O(r^2) leaves double's resolution), and a float32 step then changes p by less than
 * its rounding. */
#define ETE_R_MIN 1e-3

/* The band of velocity v at time step dt: the phase limit of ete_band. */
static double fdw_ete_phimax(const fdw_spec *spec, double v, double dt)
{
    const fdw_ete_spec *k = spec->kspec;
    if (k->fmax > 0)
        return 2.0 * PI * k->fmax * dt;
    const double hmax = fmax(spec->dx, fmax(spec->dy, spec->dz));
    return v * dt * 2.0 * PI / (k->ppw * hmax);
}

void fdw_ete_band(const fdw_spec *spec, double v, double dt, ete_band *b)
{
    b->r[0] = v * dt / spec->dx;
    b->r[1] = v * dt / spec->dy;
    b->r[2] = v * dt / spec->dz;
    b->phimax = fdw_ete_phimax(spec, v, dt);
    b->stability_only = 0;
    b->minimax = 0;
}

/* The "ete" section. */
static int parse_section(spec_ctx *c, const json_t *root, fdw_ete_spec *k)
{
    static const char *const keys[] = {"nv", "fmax", "ppw", "max_phase_error", "phase_error",
                                       "stability", NULL};
    json_t *o;
    if (sp_object(c, root, "", "ete", 0, &o) || (o && sp_keys(c, o, "ete", keys)))
        return -1;
    long long nv = 0;
    double ignored;
    if (o && (sp_int(c, o, "ete", "nv", 0, 1, ETE_MAX_BINS, &nv) ||
              sp_pos(c, o, "ete", "fmax", 0, &k->fmax) ||
              sp_pos(c, o, "ete", "ppw", 0, &k->ppw) ||
              sp_pos(c, o, "ete", "max_phase_error", 0, &k->max_phase_error) ||
              sp_num(c, o, "ete", "phase_error", 0, &ignored)))
        return -1;
    k->nv = (int)nv;
    if (k->fmax > 0 && k->ppw > 0)
        return sp_fail(c, "ete.ppw", "give ete.fmax (Hz) or ete.ppw (points per wavelength) "
                       "for the fitted band, not both");
    if (k->ppw > 0 && k->ppw < 2.0)
        return sp_fail(c, "ete.ppw", "ete.ppw is %g but a wave needs at least 2 points per "
                       "wavelength", k->ppw);
    if (k->max_phase_error >= 0.5)
        return sp_fail(c, "ete.max_phase_error", "ete.max_phase_error is %g but must be below "
                       "0.5 (a relative phase-velocity error)", k->max_phase_error);
    /* the band at vmin stops at the coarsest axis's Nyquist wavenumber (ppw >= 2) */
    const fdw_spec *s = c->spec;
    const double nyquist = s->vmin / (2.0 * fmax(s->dx, fmax(s->dy, s->dz)));
    if (k->fmax > nyquist)
        return sp_fail(c, "ete.fmax", "ete.fmax is %g Hz but the grid holds at most %.4g Hz "
                       "(vmin / (2 h) with vmin %g m/s, h %g m: 2 points per wavelength)",
                       k->fmax, wave_trunc4(nyquist), s->vmin,
                       fmax(s->dx, fmax(s->dy, s->dz)));
    if (!(k->fmax > 0) && !(k->ppw > 0)) {
        if (!(c->f0max > 0))
            return sp_fail(c, "ete.fmax", "ete.fmax (Hz) or ete.ppw is required: no source "
                           "has a Ricker wavelet whose f0 would set the fitted band");
        k->fmax = fmin(2.5 * c->f0max, nyquist);
    }
    return 0;
}

/* dt auto's target: ete.max_phase_error, else the default. */
static double ete_target(const fdw_ete_spec *k)
{
    return k->max_phase_error > 0 ? k->max_phase_error : ETE_PHASE_ERROR_DEFAULT;
}

/* The velocities dt is checked at: the model's range, geometrically spaced. */
static int check_velocities(const fdw_spec *s, double *v)
{
    if (!(s->vmax > s->vmin)) {
        v[0] = s->vmax;
        return 1;
    }
    for (int i = 0; i < CHECK_VELOCITIES; i++)
        v[i] = s->vmin * pow(s->vmax / s->vmin, (double)i / (CHECK_VELOCITIES - 1));
    return CHECK_VELOCITIES;
}

/* Fit at every check velocity for dt: *err the worst phase error, *excess the largest
 * error minus its target. 0; 1 when some velocity has no stable fit; -1 on a failure
 * (the error is set). */
static int fits_at(spec_ctx *c, const fdw_ete_spec *k, double dt, double *err, double *excess)
{
    const fdw_spec *s = c->spec;
    double v[CHECK_VELOCITIES];
    const int n = check_velocities(s, v);
    *err = 0.0;
    *excess = -INFINITY;
    for (int i = 0; i < n; i++) {
        ete_band b;
        fdw_ete_band(s, v[i], dt, &b);
        ete_op op;
        ete_fit_status st = ete_fit(&b, &op);
        if (st == ETE_FIT_UNSTABLE)
            return 1;
        if (st != ETE_FIT_OK)
            return sp_fail(c, "time.dt", "the ETE operator fit failed at v = %g m/s, dt = %g s "
                           "(%s)", v[i], dt, st == ETE_FIT_NOMEM ? "out of memory"
                                                                 : "the LP solver stalled");
        const double target = ete_target(k);
        *err = fmax(*err, op.phase_err);
        *excess = fmax(*excess, op.phase_err - target);
    }
    return 0;
}

/* dt (given or auto) keeps the Courant number at vmin at least ETE_R_MIN. */
static int check_small_dt(spec_ctx *c, double dt)
{
    const fdw_spec *s = c->spec;
    const double hmax = fmax(s->dx, fmax(s->dy, s->dz));
    const double r = s->vmin * dt / hmax;
    if (r >= ETE_R_MIN)
        return 0;
    return sp_fail(c, s->dt_auto ? "velocity" : "time.dt",
                   "dt %g s gives a Courant number vmin dt / h = %g (vmin %g m/s, h %g m), below "
                   "the %g down to which an ETE operator keeps its accuracy (the fit's phase "
                   "error is 5%% at 1e-4); %s %.4g s", dt, r, s->vmin, hmax, ETE_R_MIN,
                   s->dt_auto ? "the model's velocities span too wide a range for one ETE dt: "
                                "its vmax sets dt, its vmin would need at least"
                              : "\"auto\" picks the largest dt that meets the accuracy target, "
                                "the acoustic kind takes small ones; ETE needs at least",
                   ETE_R_MIN * hmax / s->vmin);
}

/* The largest dt with a stable fit at vmax, and the phase limit of the band. */
static int fit_limit(spec_ctx *c, fdw_ete_spec *k, double *dt_phase)
{
    const fdw_spec *s = c->spec;
    const double w[3] = {1.0 / s->dx, 1.0 / s->dy, 1.0 / s->dz};
    const double pf = fdw_ete_phimax(s, s->vmax, 1.0) / s->vmax; /* phimax per unit v dt */
    const double smax = ete_stable_limit(w, pf); /* v dt at the limit */
    if (!(smax > 0))
        return sp_fail(c, "time.dt", "cannot find a stable ETE operator for spacing (%g, %g, "
                       "%g) m", s->dx, s->dy, s->dz);
    *dt_phase = PHI_LIMIT / fdw_ete_phimax(s, s->vmax, 1.0);
    k->dt_fit_max = fmin(smax / s->vmax, *dt_phase);
    return 0;
}

/* dt auto's search: dt becomes *lo when its fits meet the target, else *hi. 0, or -1 on a
 * failure. */
static int narrow(spec_ctx *c, const fdw_ete_spec *k, double dt, double *lo, double *hi)
{
    double err, excess;
    int rc = fits_at(c, k, dt, &err, &excess);
    if (rc < 0)
        return -1;
    if (rc == 0 && excess <= 0)
        *lo = dt;
    else
        *hi = dt;
    return 0;
}

/* dt auto found no dt meeting the target from the ladder's first rung (dt0) up: the band
 * is too fine for the grid. The error says how many points per wavelength the band has at
 * vmin and what the user can change. */
static int no_dt_meets(spec_ctx *c, const fdw_ete_spec *k, double dt0)
{
    const fdw_spec *s = c->spec;
    const double hmax = fmax(s->dx, fmax(s->dy, s->dz));
    const double ppw = 2.0 * PI * s->vmin * dt0 / (hmax * fdw_ete_phimax(s, s->vmin, dt0));
    if (k->max_phase_error > 0)
        return sp_fail(c, "ete.max_phase_error", "no time step from %.4g s (0.44 x the "
                       "order-8 FD limit) up meets ete.max_phase_error %g on this grid: the "
                       "band has %.3g points per wavelength at vmin %g m/s", dt0,
                       k->max_phase_error, ppw, s->vmin);
    return sp_fail(c, k->fmax > 0 ? "ete.fmax" : "ete.ppw",
                   "ETE cannot meet its accuracy target (a phase-velocity error of %g over the "
                   "band) on this grid at any time step worth its cost (from %.4g s, 0.44 x "
                   "the order-8 FD limit): its band has %.3g points per wavelength at vmin "
                   "%g m/s and needs about 4 (10 at a Ricker's f0). Refine the grid, narrow "
                   "the band (ete.fmax), allow more error (ete.max_phase_error) or use kind "
                   "\"acoustic\"", ETE_PHASE_ERROR_DEFAULT, dt0, ppw, s->vmin);
}

static int resolve_dt(spec_ctx *c, const json_t *root, fdw_ete_spec *k, double dt_given)
{
    fdw_spec *s = c->spec;
    double dt_phase = 0.0, err = 0.0, excess = 0.0;
    if (fit_limit(c, k, &dt_phase))
        return -1;
    if (!s->dt_auto) {
        if (dt_given > k->dt_fit_max) {
            if (k->dt_fit_max == dt_phase)
                return sp_fail(c, "time.dt", "dt %g s cannot be fitted: the band's edge (%s) "
                               "would turn by more than 0.9 pi per step; the largest dt that "
                               "can be fitted is %.4g s", dt_given,
                               k->fmax > 0 ? "ete.fmax" : "ete.ppw at vmax",
                               wave_trunc4(k->dt_fit_max));
            return sp_fail(c, "time.dt", "dt %g s cannot be fitted by a stable ETE operator "
                           "with vmax %g m/s and spacing (%g, %g, %g) m: the largest dt that "
                           "can be fitted is %.4g s", dt_given, s->vmax, s->dx, s->dy, s->dz,
                           wave_trunc4(k->dt_fit_max));
        }
        s->dt = dt_given;
        if (check_small_dt(c, s->dt))
            return -1;
        int rc = fits_at(c, k, s->dt, &err, &excess);
        if (rc > 0)
            return sp_fail(c, "time.dt", "dt %g s cannot be fitted by a stable ETE operator "
                           "at every velocity of the model; the largest dt that can be fitted "
                           "is %.4g s", dt_given, wave_trunc4(k->dt_fit_max));
        if (rc < 0)
            return -1;
        k->phase_error = err;
        k->excess = excess;
        return 0;
    }
    /* auto: up the ladder to the first dt that misses, then bisect */
    const double hmin = fmin(s->dx, fmin(s->dy, s->dz));
    double lo = 0.0, hi = 0.0;
    for (double d = AUTO_R0 * hmin / s->vmax; hi == 0.0; d *= AUTO_GROW) {
        if (narrow(c, k, fmin(d, k->dt_fit_max), &lo, &hi))
            return -1;
        if (d >= k->dt_fit_max)
            break;
    }
    if (lo == 0.0)
        return no_dt_meets(c, k, AUTO_R0 * hmin / s->vmax);
    for (int j = 0; j < AUTO_BISECT && hi > lo; j++)
        if (narrow(c, k, 0.5 * (lo + hi), &lo, &hi))
            return -1;
    /* lowered to a gather interval of whole microseconds (a SEG-Y header holds it exactly) */
    s->dt = wave_whole_us_dt(root, s->dt_safety * lo);
    if (check_small_dt(c, s->dt) || fits_at(c, k, s->dt, &err, &excess) != 0)
        return -1;
    k->phase_error = err;
    return 0;
}

/* The table at dt and its assembled operator's check (ete_stability.h), the dt's steps
 * and seconds added to k's. d is filled (the caller frees its arrays); *stable the verdict.
 * 0, or -1 with the error set. */
static int check_at(spec_ctx *c, const float *v, double dt, fdw_ete_data *d, ete_spectrum *sp,
                    int *stable)
{
    fdw_spec at = *c->spec;
    fdw_ete_spec *k = c->spec->kspec;
    at.dt = dt;
    const size_t n = (size_t)at.nx * at.ny * at.nz;
    memset(d, 0, sizeof *d);
    memset(sp, 0, sizeof *sp);
    fdw_status st = fdw_ete_build_table(&at, v, n, d, c->err);
    const ete_grid g = {at.nx, at.ny, at.nz, at.boundary.free_surface};
    if (st == FDW_OK)
        st = fdw_ete_spectrum(&g, d, 0, 1e-7, sp, c->err);
    if (st != FDW_OK)
        return -1;
    k->check_steps += sp->iterations;
    k->check_s += sp->seconds;
    k->check_layered = sp->method == ETE_SPECTRUM_LAYERED;
    *stable = fdw_ete_spectrum_stable(sp);
    return 0;
}

static void free_data(fdw_ete_data *d)
{
    if (!d)
        return;
    free(d->table);
    free((void *)d->idx);
    free(d->bin_v);
    free(d->bin_err);
    free(d->bin_max);
}

/* dt as the search tries it: what dt auto would run (whole microseconds of the gather's
 * interval), or a given dt truncated to 4 digits as a refusal names it. */
static double candidate(spec_ctx *c, const json_t *root, double dt)
{
    return c->spec->dt_auto ? wave_whole_us_dt(root, dt) : wave_trunc4(dt);
}

/* The largest stable dt below s->dt (found unstable, spectrum *bad): tried at fractions
 * of it, then bisected. On success *best holds its table and spectrum *good. 1 when none
 * is stable down to the last fraction; -1 on an error. */
static int search_stable(spec_ctx *c, const json_t *root, const float *v, double *dt_out,
                         fdw_ete_data *best, ete_spectrum *good)
{
    const double dt0 = c->spec->dt;
    double hi = dt0, lo = 0.0, f = 1.0;
    fdw_ete_data d;
    ete_spectrum sp;
    int stable;
    for (int t = 0; t < STABLE_TRIES && lo == 0.0; t++) {
        f *= STABLE_SHRINK;
        const double dt = candidate(c, root, dt0 * f);
        if (!(dt < hi))
            continue;
        if (check_at(c, v, dt, &d, &sp, &stable)) {
            free_data(&d);
            return -1;
        }
        if (stable) {
            lo = dt;
            *best = d, *good = sp;
        } else {
            hi = dt;
            free_data(&d);
        }
    }
    if (lo == 0.0)
        return 1;
    for (int t = 0; t < STABLE_BISECT; t++) {
        const double dt = candidate(c, root, 0.5 * (lo + hi));
        if (!(dt > lo && dt < hi))
            break;
        if (check_at(c, v, dt, &d, &sp, &stable)) {
            free_data(&d);
            return -1;
        }
        if (stable) {
            free_data(best);
            lo = dt;
            *best = d, *good = sp;
        } else {
            hi = dt;
            free_data(&d);
        }
    }
    *dt_out = lo;
    return 0;
}

/* Why the operator at dt is unstable, for the messages: the eigenvalue outside the range
 * and how fast its mode grows. */
static void unstable_why(const ete_spectrum *sp, char *out, size_t len)
{
    const double l = sp->lmin < ETE_LAMBDA_LO ? sp->lmin : sp->lmax;
    snprintf(out, len, "the ETE operator assembled on this model has an eigenvalue %s %.6g, "
             "outside [-4, 0] (a mode growing at least %.4g times a step, where velocity bins "
             "meet: each bin's fit alone is stable)", l < 0 ? "at or below" : "at or above", l,
             fdw_ete_growth(l));
}

/* The check on the model at s->dt (ete_stability.h): kept when stable; dt auto comes down
 * to the largest stable dt found; a given dt that is unstable is refused naming it. */
static int check_model(spec_ctx *c, const json_t *root, fdw_ete_spec *k)
{
    fdw_spec *s = c->spec;
    const size_t n = (size_t)s->nx * s->ny * s->nz;
    float *v = malloc(n * sizeof *v);
    if (!v)
        return sp_fail(c, "velocity", "out of host memory for the velocity model (%.1f MiB) "
                       "to check the ETE operator on", (double)n * 4.0 / 1048576.0);
    if (fdw_model_load(s, v, c->err) != FDW_OK) {
        free(v);
        return -1;
    }
    k->data = calloc(1, sizeof *k->data);
    ete_spectrum sp, good;
    int stable = 0, rc = k->data ? check_at(c, v, s->dt, k->data, &sp, &stable) : -1;
    if (!k->data)
        sp_fail(c, "", "out of memory parsing the spec");
    if (rc == 0 && !stable) {
        char why[256];
        unstable_why(&sp, why, sizeof why);
        fdw_ete_data best;
        double dt = 0.0;
        rc = search_stable(c, root, v, &dt, &best, &good);
        if (rc > 0) {
            rc = sp_fail(c, s->dt_auto ? "velocity" : "time.dt", "dt %g s: %s, and no dt "
                         "down to %.3g s is stable on it", s->dt, why,
                         s->dt * pow(STABLE_SHRINK, STABLE_TRIES));
        } else if (rc == 0 && !s->dt_auto) {
            free_data(&best);
            rc = sp_fail(c, "time.dt", "dt %g s is unstable: %s; the largest stable dt found "
                         "is %.4g s (or \"auto\")", s->dt, why, dt);
        } else if (rc == 0) {
            free_data(k->data);
            *k->data = best;
            sp = good;
            k->dt_unstable = s->dt;
            s->dt = dt;
            double err = 0.0, excess = 0.0;
            if (fits_at(c, k, dt, &err, &excess) != 0)
                rc = -1;
            k->phase_error = err;
            k->excess = excess;
        }
    }
    free(v);
    if (rc != 0)
        return -1;
    k->checked = 1;
    k->lambda_min = sp.lmin;
    k->lambda_max = sp.lmax;
    return 0;
}

int fdw_ete_parse(spec_ctx *c, const json_t *root)
{
    fdw_spec *s = c->spec;
    fdw_ete_spec *k = sp_kspec(c, sizeof *k);
    if (!k)
        return -1;
    /* CPML is not defined for this kind: say so before the boundary's own checks. */
    json_t *bo = json_object_get(root, "boundary");
    json_t *bt = json_is_object(bo) ? json_object_get(bo, "type") : NULL;
    if (json_is_string(bt) && strcmp(json_string_value(bt), "cpml") == 0)
        return sp_fail(c, "boundary.type", "boundary.type \"cpml\" is not defined for kind "
                       "\"ete\" (its auxiliary fields assume the finite-difference update): use "
                       "\"sponge\" or \"none\"");
    double dt_given = 0.0;
    if (wave_parse_velocity(c, root) || wave_parse_time_members(c, root, 1.0, &dt_given))
        return -1;
    if (s->sample_interval > 0) /* ETE fits its table to its own dt (resolve_dt) */
        return sp_fail(c, "time.sample_interval",
                       "time.sample_interval is not supported by kind \"ete\", whose dt is "
                       "fitted to its accuracy target: use receivers.interval");
    /* a survey's shots stand in for the sources (spec_survey.c), as in wave_parse */
    const int survey = json_object_get(root, "survey") != NULL;
    if (wave_parse_boundary(c, root) ||
        (survey ? sp_parse_survey(c, root) : wave_parse_sources(c, root)) ||
        wave_finish_boundary(c) || wave_parse_receivers(c, root) ||
        (survey && sp_finish_survey(c, root)) || wave_check_sources_below_surface(c, root) ||
        parse_section(c, root, k) ||
        resolve_dt(c, root, k, dt_given) ||
        (!(c->opts && c->opts->defer_model_checks) && check_model(c, root, k)))
        return -1;
    s->dt_max = k->dt_fit_max;
    if (wave_check_dt(c, "time.dt") || wave_check_dt_resolution(c))
        return -1;
    json_t *t = json_pack("{sIsf sbsf}", "nt", (json_int_t)s->nt, "dt", s->dt, "dt_auto",
                          s->dt_auto, "dt_max", k->dt_fit_max);
    if (s->dt_auto)
        json_object_set_new(t, "safety", json_real(s->dt_safety));
    json_object_set_new(c->norm, "time", t);
    json_t *e = json_object();
    if (k->nv > 0)
        json_object_set_new(e, "nv", json_integer(k->nv));
    json_object_set_new(e, k->fmax > 0 ? "fmax" : "ppw", json_real(k->fmax > 0 ? k->fmax
                                                                               : k->ppw));
    if (k->max_phase_error > 0)
        json_object_set_new(e, "max_phase_error", json_real(k->max_phase_error));
    json_object_set_new(e, "phase_error", json_real(k->phase_error));
    if (k->checked) {
        json_t *st = json_pack("{sssfsfsisf}", "method", k->check_layered ? "layered"
                                                                          : "lanczos",
                               "lambda_min", k->lambda_min, "lambda_max", k->lambda_max,
                               "steps", k->check_steps, "seconds", k->check_s);
        if (k->dt_unstable > 0)
            json_object_set_new(st, "dt_unstable", json_real(k->dt_unstable));
        json_object_set_new(e, "stability", st);
    }
    json_object_set_new(c->norm, "ete", e);
    return 0;
}

void fdw_ete_warnings(spec_ctx *c)
{
    wave_warnings(c);
    const fdw_spec *s = c->spec;
    const fdw_ete_spec *k = s->kspec;
    if (k->dt_unstable > 0)
        sp_warn(c, "dt auto came down from %g s to %g s: the ETE operator assembled on this "
                "model is unstable at the larger (where velocity bins meet; eigenvalues %.6g "
                "to %.6g at %g s, in [-4, 0] as required)%s", k->dt_unstable, s->dt,
                k->lambda_min, k->lambda_max, s->dt,
                k->excess > 0 ? "; its phase error is above the accuracy target" : "");
    if (!s->dt_auto && k->excess > 0)
        sp_warn(c, "ETE's worst phase error at dt %g s is %.3g, above its accuracy target "
                "(%s): \"dt\": \"auto\" picks the largest dt that meets it",
                s->dt, k->phase_error, k->max_phase_error > 0 ? "ete.max_phase_error"
                                                              : "the default, 0.001");
}

void fdw_ete_free_spec(fdw_spec *spec)
{
    fdw_ete_spec *k = spec->kspec;
    if (k && k->data) {
        free_data(k->data);
        free(k->data);
    }
    free(spec->kspec);
    spec->kspec = NULL;
}
