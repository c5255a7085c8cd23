/* wavelet.h — source time functions: the Ricker wavelet and wavelets read from files,
 * sampled on the time grid of a run. Used by problem set-up and by the physics tests
 * (which compare recorded traces with the analytic solution built from the same f(t)). */
#ifndef FDW_WAVELET_H
#define FDW_WAVELET_H

#include "spec/spec.h"

/* Ricker wavelet f(t) = A (1 - 2 pi^2 f0^2 (t-t0)^2) exp(-pi^2 f0^2 (t-t0)^2). */
double fdw_ricker(double t, double f0, double delay, double amplitude);

/* The source's time function at time t (seconds). Ricker: analytic; file: the sample at
 * round(t/dt) (samples are one per dt, zero after the last one). */
double fdw_source_value(const fdw_source *src, double t, double dt);

/* Sample the source's time function at t = it*dt for it = 0..nt-1, multiplied by scale,
 * into out[nt] (float). */
void fdw_wavelet_sample(const fdw_source *src, long nt, double dt, double scale, float *out);

#endif
