/* fd_coeffs.c — central finite-difference weights by Fornberg's algorithm (1988), in
 * double precision, and the stability limit of the 2nd-order-in-time acoustic update. */
#include "core/fd_coeffs.h"

#include <math.h>
#include <string.h>

#include "spec/spec.h"

#define NODES_MAX (FDW_MAX_ORDER + 1)

/* Fornberg's recursion: weights w[i] of the `deriv`-th derivative at 0 on the nodes
 * x[0..n-1], exact for polynomials of degree < n. c[i][k] holds the weight of node i for
 * derivative k using the first nodes seen so far. */
static void fornberg(int deriv, const double *x, int n, double *w)
{
    double c[NODES_MAX][3];
    memset(c, 0, sizeof c);
    double c1 = 1.0, c4 = x[0];
    c[0][0] = 1.0;
    for (int i = 1; i < n; i++) {
        int mn = i < deriv ? i : deriv;
        double c2 = 1.0, c5 = c4;
        c4 = x[i];
        for (int j = 0; j < i; j++) {
            double c3 = x[i] - x[j];
            c2 *= c3;
            if (j == i - 1) {
                for (int k = mn; k >= 1; k--)
                    c[i][k] = c1 * (k * c[i - 1][k - 1] - c5 * c[i - 1][k]) / c2;
                c[i][0] = -c1 * c5 * c[i - 1][0] / c2;
            }
            for (int k = mn; k >= 1; k--)
                c[j][k] = (c4 * c[j][k] - k * c[j][k - 1]) / c3;
            c[j][0] = c4 * c[j][0] / c3;
        }
        c1 = c2;
    }
    for (int i = 0; i < n; i++)
        w[i] = c[i][deriv];
}

/* Weights of derivative `deriv` (1 or 2) on the symmetric nodes -r..r, folded into one
 * weight per distance: out[m] pairs node +m with node -m (same sign for the even second
 * derivative, opposite for the odd first derivative, so out[m] is the +m weight). The
 * nodes are ordered 0, 1, -1, 2, -2, ... which keeps the recursion well conditioned;
 * the two mirrored weights are averaged to cancel rounding asymmetry. */
static int central(int order, int deriv, double *out)
{
    if (order < 2 || order > FDW_MAX_ORDER || order % 2 != 0 || !out)
        return -1;
    int r = order / 2, n = 2 * r + 1;
    double x[NODES_MAX], w[NODES_MAX];
    x[0] = 0.0;
    for (int m = 1; m <= r; m++) {
        x[2 * m - 1] = m;
        x[2 * m] = -m;
    }
    fornberg(deriv, x, n, w);
    out[0] = deriv == 2 ? w[0] : 0.0;
    for (int m = 1; m <= r; m++) {
        double plus = w[2 * m - 1], minus = w[2 * m];
        out[m] = deriv == 2 ? 0.5 * (plus + minus) : 0.5 * (plus - minus);
    }
    return 0;
}

int fdw_fd2_coeffs(int order, double *c)
{
    return central(order, 2, c);
}

int fdw_fd1_coeffs(int order, double *c)
{
    return central(order, 1, c);
}

double fdw_symbol(const double *c, int r, int odd, double theta)
{
    double v = 0.0;
    for (int m = 1; m <= r; m++)
        v += 2.0 * c[m] * (odd ? sin(m * theta) : cos(m * theta));
    return v;
}

void fdw_symbol_range(const double *c, int r, int odd, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int q = 0; q <= 4096; q++) {
        const double v = fdw_symbol(c, r, odd, M_PI * q / 4096.0);
        *lo = fmin(*lo, v);
        *hi = fmax(*hi, v);
    }
}

double fdw_fd2_lambda(int order)
{
    double c[FDW_MAX_RADIUS + 1];
    if (fdw_fd2_coeffs(order, c) != 0)
        return NAN;
    double lam = fabs(c[0]);
    for (int m = 1; m <= order / 2; m++)
        lam += 2.0 * fabs(c[m]);
    return lam;
}

double fdw_dt_max(int order, double dx, double dy, double dz, double vmax)
{
    double lam = fdw_fd2_lambda(order);
    if (!(lam > 0) || !(dx > 0) || !(dy > 0) || !(dz > 0) || !(vmax > 0))
        return NAN;
    double s = lam * (1.0 / (dx * dx) + 1.0 / (dy * dy) + 1.0 / (dz * dz));
    return 2.0 / (vmax * sqrt(s));
}
