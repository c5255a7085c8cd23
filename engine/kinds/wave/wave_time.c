/* wave_time.c — the "time" section of a wave kind's spec: number of steps, the time step,
 * given or "auto" (a safety fraction of the stability limit), and the receivers' sample
 * interval, which dt divides exactly so the SEG-Y header states the true sampling. A dt
 * above the limit is rejected with a message giving the largest stable dt. The members
 * alone (wave_parse_time_members) serve kinds whose dt another rule bounds (ete). */
#include "kinds/wave/wave_spec.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "core/fd_coeffs.h"

/* x truncated (not rounded) to 4 significant digits, so a user who copies the printed
 * "largest stable dt" gets a dt that is indeed stable. */
double wave_trunc4(double x)
{
    if (!(x > 0))
        return x;
    double scale = pow(10.0, floor(log10(x)) - 3);
    double t = floor(x / scale) * scale;
    return t > x ? x : t;
}

int wave_parse_time_members(spec_ctx *c, const json_t *root, double default_safety,
                            double *dt_given)
{
    static const char *const keys[] = {"nt",     "dt",     "safety", "dt_auto",
                                       "dt_max", "sample_interval", NULL};
    fdw_spec *s = c->spec;
    json_t *t;
    if (sp_object(c, root, "", "time", 1, &t) || sp_keys(c, t, "time", keys))
        return -1;
    long long nt;
    if (sp_int(c, t, "time", "nt", 1, 1, SP_MAX_NT, &nt))
        return -1;
    s->nt = (long)nt;

    /* dt: a number of seconds or "auto" (the default). "dt_auto": true, written by the
     * normalised form, also selects auto; "dt_max" is informative and recomputed. */
    json_t *dt = json_object_get(t, "dt");
    int is_auto = 1;
    double dtval = 0;
    if (dt && json_is_string(dt)) {
        if (strcmp(json_string_value(dt), "auto") != 0)
            return sp_fail(c, "time.dt",
                           "time.dt must be a number of seconds or \"auto\", not \"%.32s\"",
                           json_string_value(dt));
    } else if (dt) {
        if (!json_is_number(dt))
            return sp_fail(c, "time.dt",
                           "time.dt must be a number of seconds or \"auto\", not %s",
                           sp_type_name(dt));
        if (sp_value_num(c, dt, "time.dt", &dtval))
            return -1;
        if (!(dtval > 0))
            return sp_fail(c, "time.dt", "time.dt must be greater than 0, not %g", dtval);
        is_auto = 0;
    }
    int flag = 0;
    double ignored;
    if (sp_bool(c, t, "time", "dt_auto", 0, &flag) ||
        sp_num(c, t, "time", "dt_max", 0, &ignored))
        return -1;
    if (flag)
        is_auto = 1;
    s->dt_safety = default_safety;
    if (json_object_get(t, "safety")) {
        if (!is_auto)
            return sp_fail(c, "time.safety",
                           "time.safety only applies when time.dt is \"auto\"");
        if (sp_num(c, t, "time", "safety", 1, &s->dt_safety))
            return -1;
        if (!(s->dt_safety > 0 && s->dt_safety <= 1))
            return sp_fail(c, "time.safety",
                           "time.safety is %g but must be greater than 0 and at most 1",
                           s->dt_safety);
    }
    s->dt_auto = is_auto;
    *dt_given = is_auto ? 0.0 : dtval;
    s->sample_interval = 0.0;
    if (json_object_get(t, "sample_interval")) {
        double si;
        if (sp_pos(c, t, "time", "sample_interval", 1, &si))
            return -1;
        const double us = nearbyint(si * 1e6);
        if (!(us >= 1 && us <= 65535) || fabs(si * 1e6 - us) > 1e-6)
            return sp_fail(c, "time.sample_interval",
                           "time.sample_interval is %.9g s but must be a whole number of "
                           "microseconds from 1 to 65535 (what a SEG-Y header records)",
                           si);
        s->sample_interval = us * 1e-6;
    }
    return 0;
}

/* receivers.interval as written (validated later by wave_receivers.c; 1 when absent or
 * not a valid count), for the default sample interval below. */
static long given_receiver_interval(const json_t *root);

double wave_whole_us_dt(const json_t *root, double dt)
{
    const long ri = given_receiver_interval(root);
    const double us = floor(dt * (double)ri * 1e6 * (1.0 + 1e-12));
    return us >= 1 && us <= 65535 ? us * 1e-6 / (double)ri : dt;
}

static long given_receiver_interval(const json_t *root)
{
    const json_t *ri = json_object_get(json_object_get(root, "receivers"), "interval");
    return json_is_integer(ri) && json_integer_value(ri) >= 1 && json_integer_value(ri) <= SP_MAX_NT
               ? (long)json_integer_value(ri)
               : 1;
}

/* The time step as the receivers' sampling demands (docs/spec.md, "time"): with
 * time.sample_interval S, dt = S / n with n the smallest whole number keeping dt within
 * limit (auto), or the given dt when it divides S (else an error), and the receivers
 * record every n steps; without it and with dt auto, dt is lowered so that the gather's
 * interval dt x receivers.interval is a whole number of microseconds (exact in a SEG-Y
 * header). An explicit dt without S is kept as it is. */
static int resolve_sampling(spec_ctx *c, const json_t *root, double limit, double dtval)
{
    fdw_spec *s = c->spec;
    const double S = s->sample_interval;
    /* S as the user gave it, or as a kind's data file gave it (spec_ctx.si_what) */
    const char *sfield = c->si_field[0] ? c->si_field : "time.sample_interval";
    const char *sname = c->si_what[0] ? c->si_what : "time.sample_interval";
    if (S > 0) {
        long long n;
        if (s->dt_auto) {
            n = (long long)ceil(S / limit * (1.0 - 1e-12));
            if (n < 1)
                n = 1;
        } else {
            n = llround(S / dtval);
            if (n < 1 || fabs((double)n * dtval - S) > 1e-9 * S)
                return sp_fail(c, "time.dt",
                               "time.dt %.9g s does not divide %s %.9g s (%.6g steps): use a "
                               "dt of S / n, e.g. %.9g s, or \"auto\"",
                               dtval, sname, S, S / dtval, S / ceil(S / dtval));
        }
        if (n > SP_MAX_NT || n > s->nt)
            return sp_fail(c, sfield, "%s %.9g s is %lld time steps but the run has only %ld",
                           sname, S, n, s->nt);
        s->dt = S / (double)n;
        s->receiver_interval = (int)n;
        return 0;
    }
    s->dt = s->dt_auto ? limit : dtval;
    if (s->dt_auto)
        s->dt = wave_whole_us_dt(root, s->dt);
    return 0;
}

/* dt as derived (safety x dt_max) or typed: the quantities the run computes from it in
 * single precision must not vanish, or the job would "succeed" with a zero field. */
int wave_check_dt(spec_ctx *c, const char *dtfield)
{
    const fdw_spec *s = c->spec;
    const double hmax = fmax(s->dx, fmax(s->dy, s->dz));
    const double courant2 = (s->vmax * s->dt / hmax) * (s->vmax * s->dt / hmax);
    const double src = s->dt * s->dt / (s->dx * s->dy * s->dz);
    if (!isnormal(s->dt) || !isfinite(s->dt * (double)s->nt))
        return sp_fail(c, dtfield,
                       "%s makes dt %g s (dt_max %g s): dt must be a positive normal number",
                       dtfield, s->dt, s->dt_max);
    if (!(courant2 >= FLT_MIN) || !(src >= FLT_MIN))
        return sp_fail(c, dtfield,
                       "%s makes dt %g s, so small against dt_max %g s that the update "
                       "((vmax dt / h)^2 = %g) or the source term (dt^2 / (dx dy dz) = %g) "
                       "vanishes in single precision",
                       dtfield, s->dt, s->dt_max, courant2, src);
    return 0;
}

int wave_parse_time(spec_ctx *c, const json_t *root)
{
    fdw_spec *s = c->spec;
    double dtval = 0.0;
    if (wave_parse_time_members(c, root, SP_DEFAULT_SAFETY, &dtval))
        return -1;
    const int is_auto = s->dt_auto;
    s->dt_max = fdw_dt_max(s->order, s->dx, s->dy, s->dz, s->vmax);
    if (!(s->dt_max > 0) || !isfinite(s->dt_max))
        return sp_fail(c, "time.dt", "cannot compute a stable dt for this grid and velocity");
    if (!is_auto && dtval > s->dt_max)
        return sp_fail(c, "time.dt",
                       "dt %g s is unstable for order %d with vmax %g m/s and spacing "
                       "(%g, %g, %g) m: largest stable dt is %.4g s",
                       dtval, s->order, s->vmax, s->dx, s->dy, s->dz, wave_trunc4(s->dt_max));
    if (resolve_sampling(c, root, s->dt_safety * s->dt_max, dtval))
        return -1;
    if (wave_check_dt(c, is_auto && json_object_get(json_object_get(root, "time"), "safety")
                           ? "time.safety"
                           : "time.dt"))
        return -1;
    json_t *norm = json_pack("{sIsf sbsf}", "nt", (json_int_t)s->nt, "dt", s->dt, "dt_auto",
                             s->dt_auto, "dt_max", s->dt_max);
    if (s->dt_auto)
        json_object_set_new(norm, "safety", json_real(s->dt_safety));
    if (s->sample_interval > 0)
        json_object_set_new(norm, "sample_interval", json_real(s->sample_interval));
    json_object_set_new(c->norm, "time", norm);
    return 0;
}
