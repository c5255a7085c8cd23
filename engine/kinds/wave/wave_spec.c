/* wave_spec.c — what the wave kinds (acoustic, and every kind that steps a wavefield in
 * time with sources and receivers) share in their spec: the sections velocity, time,
 * boundary, sources and receivers in their order of dependence, the warnings that need
 * them all, and the device memory their recordings and ghost planes take. */
#include "kinds/wave/wave_spec.h"
#include "output/segy_common.h"
#include "run/positioning.h"

#include <float.h>
#include <math.h>

/* (48^3, 2000 m/s, f0 12 Hz, 0.16 s against dt 0.5 ms: dt 10 us 0.23%, 2 us 76% and twice
 * the peak.) */
int wave_check_dt_resolution(spec_ctx *c)
{
    const fdw_spec *s = c->spec;
    if (!(c->f0min > 0))
        return 0;
    const double w = 2.0 * M_PI * c->f0min * s->dt, least = 4.0 * FLT_EPSILON;
    if (w * w >= least)
        return 0;
    if (!s->dt_auto)
        return sp_fail(c, "time.dt",
                       "dt %g s is too small for the wavelet of f0 %g Hz (%s): the wave changes "
                       "by (2 pi f0 dt)^2 = %.3g of itself per step, below the single-precision "
                       "field's resolution (%.2g), which would lose it; dt must be at least "
                       "%.3g s for this f0", s->dt, c->f0min, c->f0min_field, w * w, least,
                       sqrt(least) / (2.0 * M_PI * c->f0min));
    return sp_fail(c, c->f0min_field,
                   "%s is %g Hz, too low for this job's dt of %g s: the wave changes by "
                   "(2 pi f0 dt)^2 = %.3g of itself per step, below the single-precision "
                   "field's resolution (%.2g), which would lose it; at this dt f0 must be at "
                   "least %.3g Hz", c->f0min_field, c->f0min, s->dt, w * w, least,
                   sqrt(least) / (2.0 * M_PI * s->dt));
}

int wave_parse(spec_ctx *c, const json_t *root)
{
    /* a survey's shots stand in for the sources (spec_survey.c) */
    const int survey = json_object_get(root, "survey") != NULL;
    return wave_parse_velocity(c, root) || wave_parse_time(c, root) ||
           wave_parse_boundary(c, root) ||
           (survey ? sp_parse_survey(c, root) : wave_parse_sources(c, root)) ||
           wave_finish_boundary(c) || wave_parse_receivers(c, root) ||
           (survey && sp_finish_survey(c, root)) || wave_check_sources_below_surface(c, root) ||
           wave_check_dt_resolution(c)
               ? -1
               : 0;
}

/* Dispersion, sources and receivers inside the absorbing layer, gathers SEG-Y cannot hold. */
void wave_warnings(spec_ctx *c)
{
    fdw_spec *s = c->spec;
    double hmax = fmax(s->dx, fmax(s->dy, s->dz));
    if (c->f0max > 0) {
        double wavelength = s->vmin / (2.5 * c->f0max);
        double ppw = wavelength / hmax;
        if (ppw < SP_MIN_PPW)
            sp_warn(c,
                    "only %.2f grid points per shortest wavelength (vmin %g m/s, f0 %g Hz, "
                    "h %g m): expect numerical dispersion; f0 <= %.3g Hz gives %g points",
                    ppw, s->vmin, c->f0max, hmax, s->vmin / (2.5 * SP_MIN_PPW * hmax),
                    SP_MIN_PPW);
    }
    for (int i = 0; i < s->nsources; i++)
        if (sp_in_sponge(s, s->sources[i].pos))
            sp_warn(c, "source %d at (%g, %g, %g) m lies inside the absorbing layer", i,
                    s->sources[i].pos[0], s->sources[i].pos[1], s->sources[i].pos[2]);
    int inside = 0, first = -1;
    for (int i = 0; i < s->nreceivers; i++)
        if (sp_in_sponge(s, s->receivers[i].pos)) {
            if (first < 0)
                first = i;
            inside++;
        }
    if (inside)
        sp_warn(c,
                "%d of %d receivers lie inside the absorbing layer (the first is receiver %d "
                "at (%g, %g, %g) m); their recordings are damped",
                inside, s->nreceivers, first, s->receivers[first].pos[0],
                s->receivers[first].pos[1], s->receivers[first].pos[2]);
    int shot;
    double at[3];
    const int on_surface = wave_receivers_on_surface(s, &shot, at);
    if (on_surface)
        sp_warn(c,
                "%d receiver%s on the free surface, where the pressure is held at zero, and "
                "record%s nothing (the first at (%g, %g, %g) m%s); one grid spacing down (z = "
                "%g m) a receiver records the wave with its surface ghost",
                on_surface, on_surface == 1 ? " lies" : "s lie", on_surface == 1 ? "s" : "",
                at[0], at[1], at[2], shot >= 0 ? ", of a shot" : "",
                s->origin[2] + s->dz);
    if (s->nreceivers > 0) {
        /* Said now rather than discovered at the end of a long run: SEG-Y rev 1 cannot hold
         * this gather, so the run writes gather.f32 only. */
        long ns = s->nt / s->receiver_interval + 1;
        const double sdt = s->sample_interval > 0 ? s->sample_interval
                                                  : s->dt * s->receiver_interval;
        double us = nearbyint(sdt * 1e6);
        if (ns > FDW_SEGY_MAX_SAMPLES)
            sp_warn(c,
                    "the gather has %ld samples per trace but SEG-Y holds at most %d: only "
                    "gather.f32 will be written (raise receivers.interval to %ld for SEG-Y)",
                    ns, FDW_SEGY_MAX_SAMPLES, s->nt / (FDW_SEGY_MAX_SAMPLES - 1) + 1);
        else if (us < 1 || us > 65535)
            sp_warn(c,
                    "the gather's sample interval %g s is outside the 1 to 65535 microseconds "
                    "SEG-Y can record: only gather.f32 will be written",
                    sdt);
        else if (fabs(sdt * 1e6 - us) > 1e-6)
            sp_warn(c,
                    "the gather's sample interval dt x receivers.interval = %.9g s is not a "
                    "whole number of microseconds, which a SEG-Y header needs: only gather.f32 "
                    "will be written (give time.sample_interval, or a dt that makes it whole)",
                    sdt);
    }
}

uint64_t wave_device_bytes(const fdw_spec *spec, unsigned bytes_per_point,
                           unsigned exchanged_fields)
{
    const uint64_t pts = fdw_spec_points(spec);
    const uint64_t plane = (uint64_t)spec->nx * (uint64_t)spec->ny;
    const uint64_t radius = (uint64_t)spec->radius;
    const uint64_t bounds = spec->ndevices > 1 ? (uint64_t)(spec->ndevices - 1) : 0;
    const uint64_t slots = (uint64_t)(spec->nt / spec->receiver_interval) + 1;
    return bytes_per_point * pts + bounds * 2 * radius * plane * 4 * exchanged_fields +
           fdw_receiver_rows(spec) * slots * 4;
}
