/* wave_spec.h — the spec section the wave kinds share (acoustic, ete, born, rtm,
 * gradient: a wavefield stepped in time with sources and receivers): velocity, time,
 * boundary, sources and receivers, each parsed from its member of the top object with its
 * normalised form added to c->norm; the warnings that need them all; the device memory
 * their recordings and ghost planes take. The sweep kind reads its velocity through
 * wave_parse_velocity too. Internal to the kinds' spec sections. */
#ifndef FDW_WAVE_SPEC_H
#define FDW_WAVE_SPEC_H

#include "spec/spec_parse.h"

/* velocity, time, boundary, sources (or a survey's shots) and receivers in their order of
 * dependence (wave_spec.c). */
int wave_parse(spec_ctx *c, const json_t *root);
/* Dispersion, sources and receivers inside the absorbing layer, gathers SEG-Y cannot hold
 * (wave_spec.c): the kinds' fdw_kind_section.warnings. */
void wave_warnings(spec_ctx *c);
/* A source (or a survey's shot) on a free surface, where it would radiate nothing:
 * refused naming its position's field (wave_surface.c). */
int wave_check_sources_below_surface(spec_ctx *c, const json_t *root);
/* How many receivers (of every shot of a survey) lie on a free surface, where they record
 * nothing; the first's shot number (-1: not a survey's own) and position (wave_surface.c). */
int wave_receivers_on_surface(const fdw_spec *s, int *first_shot, double first_pos[3]);
/* Device memory of bytes_per_point per point plus the ghost planes of exchanged_fields
 * arrays per slab boundary and the receiver recordings (wave_spec.c). */
uint64_t wave_device_bytes(const fdw_spec *spec, unsigned bytes_per_point,
                           unsigned exchanged_fields);

/* ---- the sections, for a kind that takes them in its own order (ete) ---- */

int wave_parse_velocity(spec_ctx *c, const json_t *root);  /* wave_velocity.c */
int wave_parse_time(spec_ctx *c, const json_t *root);      /* wave_time.c */
/* The derived dt (s->dt, with s->vmax, spacing and nt) range-checked: a positive normal
 * number whose update and source coefficients stay nonzero in single precision; errors
 * name dtfield ("time.safety" when dt came from it). Any kind that derives dt calls it. */
int wave_check_dt(spec_ctx *c, const char *dtfield);
/* After the sources: the leapfrog's change per step, (2 pi f0 dt)^2 of the slowest Ricker,
 * must be at least 4 float32 epsilons, or the single-precision field drops the wave's
 * curvature; the error names time.dt when given, else that wavelet's f0. */
int wave_check_dt_resolution(spec_ctx *c);
/* dt lowered (never raised) so that the gather's interval, dt x receivers.interval (as
 * given, else 1), is a whole number of microseconds, exact in a SEG-Y header; dt itself
 * when that interval is outside 1 .. 65535 us. For the kinds whose dt "auto" picks. */
double wave_whole_us_dt(const json_t *root, double dt);
/* The members of "time" without the finite-difference limit, for a kind that bounds dt by
 * its own rule: nt, "dt" (number or "auto"), "safety" (default default_safety, only with
 * auto), the normalised form's dt_auto/dt_max; sets s->nt, s->dt_auto, s->dt_safety and
 * *dt_given (0 when auto). Adds nothing to c->norm: the kind writes "time" once dt is known. */
int wave_parse_time_members(spec_ctx *c, const json_t *root, double default_safety,
                            double *dt_given);
/* x truncated (not rounded) to 4 significant digits, so a user who copies a printed limit
 * ("largest stable dt") gets a value that keeps it (wave_time.c). */
double wave_trunc4(double x);
int wave_parse_sources(spec_ctx *c, const json_t *root);   /* wave_sources.c */
/* The optional member "interpolation" of obj at path: "sinc" (the default) or "linear"
 * (run/positioning.h) into *out, its normalised form into norm (wave_sources.c). */
int wave_parse_interp(spec_ctx *c, const json_t *obj, const char *path, fdw_interp *out,
                      json_t *norm);
/* One source wavelet object at path (a Ricker pulse or a file of samples) into src (its
 * wavelet members; index names it in messages), its normalised form into norm (a survey's
 * shots too). */
int wave_parse_wavelet(spec_ctx *c, const json_t *w, const char *path, int index,
                       fdw_source *src, json_t *norm);
int wave_parse_receivers(spec_ctx *c, const json_t *root); /* wave_receivers.c */
int wave_parse_boundary(spec_ctx *c, const json_t *root);  /* wave_boundary.c */
/* After the sources: the CPML's default frequency (their largest Ricker f0), or an error
 * at boundary.frequency when it is missing and no source has one (wave_boundary.c). */
int wave_finish_boundary(spec_ctx *c);

#endif
