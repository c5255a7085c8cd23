/* positioning.c — source and receiver taps by windowed sinc or trilinear interpolation,
 * receiver rows and their sum (see positioning.h for the rules). Weights are computed
 * once on the host in double precision; the backends only apply them. */
#include "run/positioning.h"

#include "core/error.h"
#include "run/problem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Position along one axis in grid units, snapped to the node when within rounding error
 * (as fdw_problem_taps does, so both call the same positions on-grid), clamped into the
 * axis. */
static double grid_coord(double pos, double origin, double h, int n)
{
    double x = (pos - origin) / h;
    const double r = floor(x + 0.5);
    if (fabs(x - r) <= 1e-9 * (fabs(x) > 1.0 ? fabs(x) : 1.0))
        x = r;
    if (x < 0.0)
        x = 0.0;
    if (x > n - 1)
        x = n - 1;
    return x;
}

/* Modified Bessel function I0 by its power series (converges fast for the b used). */
static double bessel_i0(double x)
{
    double sum = 1.0, term = 1.0;
    const double q = 0.25 * x * x;
    for (int m = 1; m < 60; m++) {
        term *= q / ((double)m * (double)m);
        sum += term;
        if (term < 1e-17 * sum)
            break;
    }
    return sum;
}

/* Hicks' weight of a node at distance d (grid points) from the position. */
static double sinc_weight(double d)
{
    const double R = FDW_SINC_RADIUS;
    if (fabs(d) >= R)
        return 0.0;
    const double s = d == 0.0 ? 1.0 : sin(M_PI * d) / (M_PI * d);
    const double q = d / R;
    return s * bessel_i0(FDW_SINC_BETA * sqrt(1.0 - q * q)) / bessel_i0(FDW_SINC_BETA);
}

/* The weights along one axis: first node *i0 and w[0..count) for nodes *i0 .. *i0+count-1
 * (zeros possible). mirror: the axis starts at a free surface (image method). */
static int axis_weights(double x, int n, fdw_interp interp, int mirror, int *i0,
                        double w[2 * FDW_SINC_RADIUS])
{
    const double c = floor(x);
    if (x == c) { /* on a node: a delta, whatever the interpolation */
        *i0 = (int)c;
        w[0] = mirror && c == 0.0 ? 0.0 : 1.0; /* the surface node is held at zero */
        return 1;
    }
    if (interp == FDW_INTERP_LINEAR) {
        *i0 = (int)c;
        w[0] = mirror && c == 0.0 ? 0.0 : 1.0 - (x - c);
        w[1] = x - c;
        return 2;
    }
    const int R = FDW_SINC_RADIUS;
    const int first = (int)c - R + 1;
    int lo = first, hi = (int)c + R; /* nodes first .. c+R */
    double full[2 * FDW_SINC_RADIUS];
    for (int q = 0; q < 2 * R; q++)
        full[q] = sinc_weight((first + q) - x);
    if (mirror) {
        /* u(-m) = -u(m): a weight above the surface acts, negated, on its image below;
         * the surface node itself is held at zero. */
        for (int q = 0; q < 2 * R; q++) {
            const int node = first + q;
            if (node < 0) {
                const int img = -node - first;
                if (img >= 0 && img < 2 * R)
                    full[img] -= full[q];
                full[q] = 0.0;
            } else if (node == 0) {
                full[q] = 0.0;
            }
        }
    }
    if (lo < 0)
        lo = 0;
    if (hi > n - 1)
        hi = n - 1;
    int count = 0;
    for (int node = lo; node <= hi; node++)
        w[count++] = full[node - first];
    *i0 = lo;
    return count;
}

int fdw_position_taps(const fdw_spec *spec, const double pos[3], fdw_interp interp, int owner,
                      fdw_tap *taps)
{
    const int n[3] = {spec->nx, spec->ny, spec->nz};
    const double h[3] = {spec->dx, spec->dy, spec->dz};
    int i0[3], cnt[3];
    double w[3][2 * FDW_SINC_RADIUS];
    for (int a = 0; a < 3; a++) {
        const double x = grid_coord(pos[a], spec->origin[a], h[a], n[a]);
        /* the image method only where it is the mirror the backends apply: z, k = 0 */
        const int mirror = a == 2 && spec->boundary.free_surface;
        cnt[a] = axis_weights(x, n[a], interp, mirror, &i0[a], w[a]);
    }
    int count = 0;
    for (int dk = 0; dk < cnt[2]; dk++)
        for (int dj = 0; dj < cnt[1]; dj++)
            for (int di = 0; di < cnt[0]; di++) {
                const double wt = w[0][di] * w[1][dj] * w[2][dk];
                if ((float)wt == 0.0f)
                    continue;
                const uint64_t ii = (uint64_t)(i0[0] + di), jj = (uint64_t)(i0[1] + dj),
                               kk = (uint64_t)(i0[2] + dk);
                taps[count].index = ii + (uint64_t)n[0] * (jj + (uint64_t)n[1] * kk);
                taps[count].weight = (float)wt;
                taps[count].owner = owner;
                count++;
            }
    return count;
}

int fdw_position_on_free_surface(const fdw_spec *spec, const double pos[3])
{
    return spec->boundary.free_surface &&
           grid_coord(pos[2], spec->origin[2], spec->dz, spec->nz) == 0.0;
}

int fdw_position_extent(const fdw_spec *spec, const double pos[3], fdw_interp interp,
                        int *planes)
{
    const int n[3] = {spec->nx, spec->ny, spec->nz};
    const double h[3] = {spec->dx, spec->dy, spec->dz};
    int count = 1;
    for (int a = 0; a < 3; a++) {
        int i0;
        double w[2 * FDW_SINC_RADIUS];
        const double x = grid_coord(pos[a], spec->origin[a], h[a], n[a]);
        const int cnt = axis_weights(x, n[a], interp, a == 2 && spec->boundary.free_surface,
                                     &i0, w);
        count *= cnt;
        if (a == 2) {
            int nz = 0;
            for (int q = 0; q < cnt; q++)
                nz += w[q] != 0.0;
            *planes = nz > 0 ? nz : 1;
        }
    }
    return count;
}

uint64_t fdw_receiver_rows(const fdw_spec *spec)
{
    if (spec->nreceivers <= 0)
        return 0;
    if (spec->nrec_rows >= spec->nreceivers)
        return (uint64_t)spec->nrec_rows;
    return (uint64_t)spec->nreceivers * 2u * FDW_SINC_RADIUS;
}

/* Append the taps of one position to a growing array. */
static int append_taps(fdw_tap **arr, size_t *len, size_t *cap, const fdw_tap *t, int n)
{
    if (*len + (size_t)n > *cap) {
        size_t want = *cap ? *cap : 64;
        while (want < *len + (size_t)n)
            want *= 2;
        fdw_tap *p = realloc(*arr, want * sizeof *p);
        if (!p)
            return -1;
        *arr = p;
        *cap = want;
    }
    memcpy(*arr + *len, t, (size_t)n * sizeof *t);
    *len += (size_t)n;
    return 0;
}

fdw_status fdw_position_build(const fdw_spec *spec, fdw_problem *prob, fdw_error *err)
{
    fdw_tap *buf = malloc(FDW_MAX_TAPS * sizeof *buf);
    fdw_tap *src = NULL, *rec = NULL;
    size_t nsrc = 0, csrc = 0, nrec = 0, crec = 0;
    int *rows = malloc(((size_t)spec->nreceivers + 1) * sizeof *rows);
    int fail = !buf || !rows;
    for (int s = 0; s < spec->nsources && !fail; s++) {
        const int n = fdw_position_taps(spec, spec->sources[s].pos, spec->sources[s].interp, s,
                                        buf);
        fail = append_taps(&src, &nsrc, &csrc, buf, n);
    }
    /* Receivers: taps come in plane order; a new row at each change of plane. */
    int nrows = 0;
    for (int r = 0; r < spec->nreceivers && !fail; r++) {
        const int n = fdw_position_taps(spec, spec->receivers[r].pos, spec->receiver_interp, 0,
                                        buf);
        const uint64_t nxy = (uint64_t)spec->nx * (uint64_t)spec->ny;
        rows[r] = nrows;
        for (int t = 0; t < n; t++) {
            if (t == 0 || buf[t].index / nxy != buf[t - 1].index / nxy)
                nrows++;
            buf[t].owner = nrows - 1;
        }
        fail = append_taps(&rec, &nrec, &crec, buf, n);
    }
    free(buf);
    if (fail || nsrc > (size_t)INT32_MAX || nrec > (size_t)INT32_MAX) {
        free(src);
        free(rec);
        free(rows);
        return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                        "out of host memory for the source and receiver taps");
    }
    rows[spec->nreceivers] = nrows;
    prob->src_taps = src;
    prob->nsrc_taps = (int)nsrc;
    prob->rec_taps = rec;
    prob->nrec_taps = (int)nrec;
    prob->nreceivers = nrows;
    prob->nrec_out = spec->nreceivers;
    prob->rec_rows = rows;
    return FDW_OK;
}

int fdw_problem_receivers(const fdw_problem *p)
{
    return p->rec_rows ? p->nrec_out : p->nreceivers;
}

int fdw_problem_sources(const fdw_problem *p)
{
    int n = 0;
    for (int t = 0; t < p->nsrc_taps; t++)
        n = p->src_taps[t].owner + 1 > n ? p->src_taps[t].owner + 1 : n;
    return n;
}

void fdw_receivers_combine(const fdw_problem *p, const float *rows, long ns, float *traces)
{
    const int nrec = fdw_problem_receivers(p);
    for (int r = 0; r < nrec; r++) {
        const int a = p->rec_rows ? p->rec_rows[r] : r, b = p->rec_rows ? p->rec_rows[r + 1] : r + 1;
        float *out = traces + (size_t)r * (size_t)ns;
        if (b <= a) { /* every weight vanished (a receiver on a free surface) */
            memset(out, 0, (size_t)ns * sizeof *out);
            continue;
        }
        memcpy(out, rows + (size_t)a * (size_t)ns, (size_t)ns * sizeof *out);
        for (int q = a + 1; q < b; q++) {
            const float *in = rows + (size_t)q * (size_t)ns;
            for (long s = 0; s < ns; s++)
                out[s] += in[s];
        }
    }
}
