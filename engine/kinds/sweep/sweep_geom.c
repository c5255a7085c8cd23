/* sweep_geom.c — the constants of the sweep's local update (sweep_point.h) for one sweep
 * direction: the patch of the upwind plane seen from the updated point, and per vertex,
 * segment and triangle the closed-form pieces of min over the simplex of T(y) + N(x - y),
 * computed once in float64 (docs/sweep.md derives them). */
#include "kinds/sweep/sweep_geom.h"

#include <float.h>

/* Lower bounds used to skip a simplex are shrunk by this much, so rounding never lets the
 * bound exceed a candidate the simplex could give. */
#define SW_BOUND_MARGIN (1.0 - 1e-6)

typedef struct metric_m {
    double alpha;              /* F^2 - |b|^2 */
    double b[3];
} metric_m;

static double dot(const double *x, const double *y)
{
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
}

/* x^T M y with M = alpha I + b b^T. */
static double mdot(const metric_m *m, const double *x, const double *y)
{
    return m->alpha * dot(x, y) + dot(m->b, x) * dot(m->b, y);
}

static metric_m metric_of(const sweep_metric *sm)
{
    metric_m m;
    if (sm->field) {
        m.alpha = 1.0;
        m.b[0] = m.b[1] = m.b[2] = 0.0;
    } else {
        m.b[0] = sm->b[0];
        m.b[1] = sm->b[1];
        m.b[2] = sm->b[2];
        m.alpha = sm->F * sm->F - dot(m.b, m.b);
    }
    return m;
}

static double norm_m(const metric_m *m, const double *d)
{
    return (sqrt(mdot(m, d, d)) - dot(m->b, d)) / m->alpha;
}

double sweep_length(const double v[3])
{
    const double big = fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2])));
    if (!(big > 0.0) || !isfinite(big))
        return big;
    const double u[3] = {v[0] / big, v[1] / big, v[2] / big};
    return big * sqrt(dot(u, u));
}

double sweep_norm(const sweep_metric *sm, const double d[3])
{
    const metric_m m = metric_of(sm);
    return norm_m(&m, d);
}

/* Segment y0 -> y1 seen from x = 0: its row of constants. */
static void segment_row(const metric_m *m, const double *y0, const double *y1, double *row)
{
    double d0[3], e[3], d1[3];
    for (int a = 0; a < 3; a++) {
        d0[a] = -y0[a];
        e[a] = y1[a] - y0[a];
        d1[a] = -y1[a];
    }
    const double A = mdot(m, e, e), B = mdot(m, e, d0), C = mdot(m, d0, d0);
    const double s = B / A;
    double D = C - B * s;
    if (D < 0.0)
        D = 0.0;
    row[SW_S_C0] = -dot(m->b, d0) / m->alpha;
    row[SW_S_BE] = dot(m->b, e) / m->alpha;
    row[SW_S_IA] = m->alpha / sqrt(A);
    row[SW_S_S] = s;
    row[SW_S_SM1] = s - 1.0;
    row[SW_S_K1] = sqrt(D / A);
    row[SW_S_M2] = sqrt(D) / m->alpha;
    /* least N(x - y) on the segment: the update's formula with equal end values */
    double nmin = fmin(norm_m(m, d0), norm_m(m, d1));
    const double gm = row[SW_S_BE] * row[SW_S_IA], q = 1.0 - gm * gm;
    if (q > 0.0) {
        const double r = sqrt(q), gk = gm * row[SW_S_K1];
        if (gk < s * r && gk > (s - 1.0) * r)
            nmin = fmin(nmin, row[SW_S_C0] + row[SW_S_BE] * s + row[SW_S_M2] * r);
    }
    row[SW_S_NMIN] = nmin * SW_BOUND_MARGIN;
}

/* Triangle (y0, y1, y2) seen from x = 0: its row of constants. */
static void triangle_row(const metric_m *m, const double *y0, const double *y1,
                         const double *y2, double *row)
{
    double d0[3], e1[3], e2[3];
    for (int a = 0; a < 3; a++) {
        d0[a] = -y0[a];
        e1[a] = y1[a] - y0[a];
        e2[a] = y2[a] - y0[a];
    }
    const double a11 = mdot(m, e1, e1), a12 = mdot(m, e1, e2), a22 = mdot(m, e2, e2);
    const double b1 = mdot(m, e1, d0), b2 = mdot(m, e2, d0), C = mdot(m, d0, d0);
    const double det = a11 * a22 - a12 * a12;
    const double i11 = a22 / det, i12 = -a12 / det, i22 = a11 / det;
    const double z1 = i11 * b1 + i12 * b2, z2 = i12 * b1 + i22 * b2;
    double D = C - (b1 * z1 + b2 * z2);
    if (D < 0.0)
        D = 0.0;
    const double al2 = m->alpha * m->alpha;
    row[SW_T_C0] = -dot(m->b, d0) / m->alpha;
    row[SW_T_BE1] = dot(m->b, e1) / m->alpha;
    row[SW_T_BE2] = dot(m->b, e2) / m->alpha;
    row[SW_T_W11] = al2 * i11;
    row[SW_T_W12] = al2 * i12;
    row[SW_T_W22] = al2 * i22;
    row[SW_T_Z1] = z1;
    row[SW_T_Z2] = z2;
    row[SW_T_ZS] = z1 + z2 - 1.0;
    row[SW_T_M] = sqrt(D) / m->alpha;
    /* least N(x - y) on the triangle: inside (equal vertex values), else on its edges */
    double e01[SW_SEG_N], e12[SW_SEG_N], e02[SW_SEG_N];
    segment_row(m, y0, y1, e01);
    segment_row(m, y1, y2, e12);
    segment_row(m, y0, y2, e02);
    double nmin = fmin(e01[SW_S_NMIN], fmin(e12[SW_S_NMIN], e02[SW_S_NMIN])) / SW_BOUND_MARGIN;
    const double p1 = row[SW_T_BE1], p2 = row[SW_T_BE2];
    const double w1 = row[SW_T_W11] * p1 + row[SW_T_W12] * p2;
    const double w2 = row[SW_T_W12] * p1 + row[SW_T_W22] * p2;
    const double q = 1.0 - (p1 * w1 + p2 * w2);
    if (q > 0.0) {
        const double r = sqrt(q), mm = row[SW_T_M];
        if (z1 * r >= w1 * mm && z2 * r >= w2 * mm && (z1 + z2 - 1.0) * r <= (w1 + w2) * mm)
            nmin = fmin(nmin, row[SW_T_C0] + p1 * z1 + p2 * z2 + mm * r);
    }
    row[SW_T_NMIN] = nmin * SW_BOUND_MARGIN;
}

void sweep_geometry(const double h[3], int axis, int sign, const sweep_metric *sm,
                    sw_geo_d *g)
{
    const metric_m m = metric_of(sm);
    int au, av;
    sweep_plane_axes(axis, &au, &av);
    /* patch vertex (p, q) relative to the updated point x = 0 */
    double y[9][3];
    for (int q = -1; q <= 1; q++)
        for (int p = -1; p <= 1; p++) {
            double *v = y[3 * (q + 1) + (p + 1)];
            v[0] = v[1] = v[2] = 0.0;
            v[axis] = -sign * h[axis];
            v[au] = p * h[au];
            v[av] = q * h[av];
        }
    for (int k = 0; k < 9; k++) {
        const double d[3] = {-y[k][0], -y[k][1], -y[k][2]};
        g->vn[k] = norm_m(&m, d);
    }
#define SW_GEO_TRI(k, i1, i2) triangle_row(&m, y[4], y[i1], y[i2], g->tri[k]);
    SW_TRIANGLES(SW_GEO_TRI)
#undef SW_GEO_TRI
#define SW_GEO_SEG(k, i0, i1) segment_row(&m, y[i0], y[i1], g->seg[k]);
    SW_SEGMENTS(SW_GEO_SEG)
#undef SW_GEO_SEG
}

void sweep_geometry_float(const sw_geo_d *g, sw_geo_f *out)
{
    for (int k = 0; k < 9; k++)
        out->vn[k] = (float)g->vn[k];
    for (int k = 0; k < 16; k++)
        for (int c = 0; c < SW_SEG_N; c++)
            out->seg[k][c] = (float)g->seg[k][c];
    for (int k = 0; k < 8; k++)
        for (int c = 0; c < SW_TRI_N; c++)
            out->tri[k][c] = (float)g->tri[k][c];
}

/* Every constant of g finite, and its vertex distances positive normal numbers. */
#define SW_GEO_SANE(G, MINPOS)                                                             \
    do {                                                                                   \
        for (int k_ = 0; k_ < 9; k_++)                                                     \
            if (!isfinite((G)->vn[k_]) || !((G)->vn[k_] >= (MINPOS)))                      \
                return 0;                                                                  \
        for (int k_ = 0; k_ < 16; k_++)                                                    \
            for (int c_ = 0; c_ < SW_SEG_N; c_++)                                          \
                if (!isfinite((G)->seg[k_][c_]))                                           \
                    return 0;                                                              \
        for (int k_ = 0; k_ < 8; k_++)                                                     \
            for (int c_ = 0; c_ < SW_TRI_N; c_++)                                          \
                if (!isfinite((G)->tri[k_][c_]))                                           \
                    return 0;                                                              \
    } while (0)

/* The update of x from a patch at time 0 is the travel time from the upwind plane to x:
 * at least lo (the plane's distance over the largest speed) and at most the nearest
 * vertex's; outside those bounds the arithmetic has lost the metric. */
static int direction_usable(const sw_geo_d *g, double lo, double s, int f32)
{
    SW_GEO_SANE(g, DBL_MIN);
    double vmin = g->vn[0];
    for (int k = 1; k < 9; k++)
        vmin = fmin(vmin, g->vn[k]);
    const double zero_d[9] = {0};
    const double rd = sw_update_d(g, zero_d, INFINITY, s * s, s);
    if (!isfinite(s * s) || !(s * s >= DBL_MIN) || !isfinite(rd) ||
        !(rd >= lo * s * (1.0 - 1e-9)) || !(rd <= vmin * s * (1.0 + 1e-9)))
        return 0;
    if (!f32)
        return 1;
    sw_geo_f gf;
    sweep_geometry_float(g, &gf);
    SW_GEO_SANE(&gf, FLT_MIN);
    const float sf = (float)s, zero_f[9] = {0};
    const float rf = sw_update_f(&gf, zero_f, INFINITY, sf * sf, sf);
    return isfinite(sf * sf) && sf * sf >= FLT_MIN && isfinite(rf) &&
           rf >= (float)(lo * s) * (1.0f - 1e-4f) && rf <= (float)(vmin * s) * (1.0f + 1e-4f);
}
#undef SW_GEO_SANE

int sweep_geometry_usable(const double h[3], const long n[3], const sweep_metric *sm,
                          double smin, double smax, int f32, double *span)
{
    const metric_m m = metric_of(sm);
    if (!isfinite(m.alpha) || !(m.alpha >= DBL_MIN))
        return 0;
    /* N(d) >= |d| / (F + |b|) (field form: F = 1, b = 0) */
    const double speed = sm->field ? 1.0 : sm->F + sqrt(dot(m.b, m.b));
    double most = 0.0;
    for (int axis = 0; axis < 3; axis++) {
        double reach = 0.0;
        for (int sign = -1; sign <= 1; sign += 2) {
            sw_geo_d g;
            sweep_geometry(h, axis, sign, sm, &g);
            const double lo = h[axis] / speed;
            if (!direction_usable(&g, lo, smin, f32) || !direction_usable(&g, lo, smax, f32))
                return 0;
            reach = fmax(reach, g.vn[4]);
        }
        /* N is a norm: a path along the axes bounds the travel time across the grid */
        most += (double)(n[axis] > 1 ? n[axis] - 1 : 0) * reach * smax;
    }
    *span = most;
    return isfinite(most) && (!f32 || most <= FLT_MAX / 4);
}
