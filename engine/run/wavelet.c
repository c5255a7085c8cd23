/* wavelet.c — Ricker and file wavelets sampled on a run's time grid. */
#include "run/wavelet.h"

#include <math.h>

double fdw_ricker(double t, double f0, double delay, double amplitude)
{
    const double a = M_PI * M_PI * f0 * f0 * (t - delay) * (t - delay);
    /* exp(-a) is 0 in float64 past a = 746; an infinite a (a delay of 1e300) would give
     * (1 - 2a) exp(-a) = -inf * 0 = NaN */
    if (!(a <= 1000.0))
        return 0.0;
    return amplitude * (1.0 - 2.0 * a) * exp(-a);
}

double fdw_source_value(const fdw_source *src, double t, double dt)
{
    if (src->wavelet == FDW_WAVELET_RICKER)
        return fdw_ricker(t, src->f0, src->delay, src->amplitude);
    /* File wavelet: one sample per dt starting at t = 0; silent outside the samples. */
    if (!src->samples || dt <= 0.0)
        return 0.0;
    const double pos = floor(t / dt + 0.5);
    if (pos < 0.0 || pos >= (double)src->nsamples)
        return 0.0;
    return src->samples[(long)pos];
}

void fdw_wavelet_sample(const fdw_source *src, long nt, double dt, double scale, float *out)
{
    for (long it = 0; it < nt; it++) {
        double v;
        if (src->wavelet == FDW_WAVELET_FILE)
            v = (src->samples && it < src->nsamples) ? src->samples[it] : 0.0;
        else
            v = fdw_ricker((double)it * dt, src->f0, src->delay, src->amplitude);
        out[it] = (float)(scale * v);
    }
}
