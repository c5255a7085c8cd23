/* imaging_finish.c — from an engine's sums to the outputs' arrays (imaging.h): the image
 * in the spec's parameter (the engines sum lap u z in float32; born's transpose in velocity
 * is that sum over V times 2 v dt^2 = 2 sqrt(V) dt; the gradient in slowness squared
 * -v^3 / 2 times that), divided by the
 * illumination and filtered by minus the Laplacian where rtm asks. Both engines hand it
 * their sums in the grid's order, so the CPU and the GPU give the same bits from the same
 * sums. */
#include "kinds/imaging/imaging.h"

#include <math.h>
#include <stdlib.h>

/* -lap(f) with zero outside the grid, the scheme's coefficients, in float as the engines'
 * Laplacian: ((c0 f + x terms) + y terms) + z terms. */
static void neg_laplacian(const fdw_problem *p, const fdw_img_data *d, const float *f,
                          float *out)
{
    const int nx = p->nx, ny = p->ny, nz = p->nz, R = p->radius;
    const float c0 = (d->cx[0] + d->cy[0]) + d->cz[0];
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                const size_t o = ((size_t)k * ny + j) * nx + i;
                float lx = 0.0f, ly = 0.0f, lz = 0.0f;
                for (int m = 1; m <= R; m++) {
                    const float xa = i + m < nx ? f[o + m] : 0.0f, xb = i - m >= 0 ? f[o - m] : 0.0f;
                    const float ya = j + m < ny ? f[o + (size_t)m * nx] : 0.0f,
                                yb = j - m >= 0 ? f[o - (size_t)m * nx] : 0.0f;
                    const size_t pl = (size_t)nx * ny;
                    const float za = k + m < nz ? f[o + (size_t)m * pl] : 0.0f,
                                zb = k - m >= 0 ? f[o - (size_t)m * pl] : 0.0f;
                    lx += d->cx[m] * (xa + xb);
                    ly += d->cy[m] * (ya + yb);
                    lz += d->cz[m] * (za + zb);
                }
                out[o] = -(((c0 * f[o] + lx) + ly) + lz);
            }
}

int fdw_img_scales(const fdw_img_data *d)
{
    return d->condition == IMG_COND_ADJOINT || d->mode == IMG_GRADIENT;
}

int fdw_img_finish_sums(const fdw_problem *p, const float *img, const float *ill, int scaled,
                        img_result *res)
{
    const fdw_img_data *d = p->kdata;
    const size_t n = (size_t)p->nx * p->ny * p->nz;
    const int scale = !scaled && fdw_img_scales(d);
    double imax = 0.0;
#pragma omp parallel for reduction(max : imax) schedule(static)
    for (size_t g = 0; g < n; g++) {
        double x = img[g];
        if (scale) {
            const double vdt = sqrt((double)d->vdt2[g]); /* v dt */
            x = x / (double)d->vdt2[g] * (2.0 * vdt * d->dt);
            if (d->mode == IMG_GRADIENT && d->parameter == IMG_PARAM_SLOWNESS2) {
                const double v = vdt / d->dt;
                x *= -0.5 * v * v * v;
            }
        }
        const float a = ill ? ill[g] : 0.0f;
        res->image[g] = (float)x;
        res->illum[g] = a;
        imax = fmax(imax, a);
    }
    if (d->mode == IMG_RTM && d->illumination)
#pragma omp parallel for schedule(static)
        for (size_t g = 0; g < n; g++)
            res->image[g] = (float)((double)res->image[g] / ((double)res->illum[g] + 1e-3 * imax));
    if (d->mode == IMG_RTM && d->laplacian) {
        float *tmp = malloc(n * sizeof *tmp);
        if (!tmp)
            return -1;
        neg_laplacian(p, d, res->image, tmp);
        free(res->image); /* the engines' malloc: the filtered image takes its place */
        res->image = tmp;
    }
    return 0;
}
