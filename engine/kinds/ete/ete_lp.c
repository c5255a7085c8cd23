/* ete_lp.c — the dense LP solver of ete_lp.h. The primal
 *     min c.z   subject to   A z <= b   (z free, n variables, m rows)
 * has the dual
 *     min b.y   subject to   A^T y = -c,  y >= 0,
 * a standard-form problem of n rows and m columns. A revised simplex on the dual keeps an
 * n x n basis B (columns of A^T), refactorised by LU with partial pivoting every iteration;
 * its simplex multipliers pi (B^T pi = b_B) satisfy A pi <= b at the dual optimum and
 * c.pi equals the primal optimum, so pi is the primal solution. Phase 1 starts from n
 * artificial columns (signed unit vectors); Dantzig's rule picks the entering column, and
 * after a run of degenerate pivots Bland's rule takes over so the method cannot cycle.
 * Each row is scaled by its largest coefficient, which changes no solution. */
#include "kinds/ete/ete_lp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOL_PIVOT 1e-9    /* smallest pivot, relative to the column's largest entry */
#define TOL_FEAS 1e-10    /* how far below zero a basic value may go */
#define TOL_COST 1e-11    /* a reduced cost below -TOL_COST improves */
#define TOL_SINGULAR 1e-13
#define DEGENERATE_RUN 60 /* degenerate pivots in a row before Bland's rule */
/* A step below this counts as degenerate: runs of tiny but non-zero steps cycle as well
 * (seen on the ETE fit's LPs: the iteration limit reached without Bland's rule) */
#define TOL_STEP 1e-9

struct ete_lp {
    int n, m, cap;
    double *a;                 /* m x n, row-major, each row scaled to max |a_ij| = 1 */
    double *b;
    int basis[ETE_LP_MAXN];    /* last optimal basis (real columns), when warm */
    int warm;
};

ete_lp *ete_lp_new(int n)
{
    if (n < 1 || n > ETE_LP_MAXN)
        return NULL;
    ete_lp *lp = calloc(1, sizeof *lp);
    if (lp)
        lp->n = n;
    return lp;
}

void ete_lp_free(ete_lp *lp)
{
    if (!lp)
        return;
    free(lp->a);
    free(lp->b);
    free(lp);
}

int ete_lp_rows(const ete_lp *lp) { return lp->m; }

int ete_lp_add_row(ete_lp *lp, const double *a, double b)
{
    if (lp->m == lp->cap) {
        int cap = lp->cap ? 2 * lp->cap : 256;
        double *na = realloc(lp->a, (size_t)cap * (size_t)lp->n * sizeof *na);
        if (!na)
            return -1;
        lp->a = na;
        double *nb = realloc(lp->b, (size_t)cap * sizeof *nb);
        if (!nb)
            return -1;
        lp->b = nb;
        lp->cap = cap;
    }
    double s = 0.0;
    for (int i = 0; i < lp->n; i++)
        s = fmax(s, fabs(a[i]));
    if (s == 0.0)
        s = 1.0;
    for (int i = 0; i < lp->n; i++)
        lp->a[(size_t)lp->m * lp->n + i] = a[i] / s;
    lp->b[lp->m] = b / s;
    lp->m++;
    return 0;
}

/* ---- dense LU of an n x n row-major matrix, P M = L U ---- */

static int lu_factor(double *M, int n, int *piv)
{
    double scale = 0.0;
    for (int i = 0; i < n * n; i++)
        scale = fmax(scale, fabs(M[i]));
    if (scale == 0.0)
        return -1;
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(M[i * n + k]) > fabs(M[p * n + k]))
                p = i;
        if (fabs(M[p * n + k]) < TOL_SINGULAR * scale)
            return -1;
        piv[k] = p;
        if (p != k)
            for (int j = 0; j < n; j++) {
                double t = M[k * n + j];
                M[k * n + j] = M[p * n + j];
                M[p * n + j] = t;
            }
        for (int i = k + 1; i < n; i++) {
            double f = M[i * n + k] / M[k * n + k];
            M[i * n + k] = f;
            for (int j = k + 1; j < n; j++)
                M[i * n + j] -= f * M[k * n + j];
        }
    }
    return 0;
}

/* x := M^-1 x */
static void lu_solve(const double *LU, const int *piv, int n, double *x)
{
    for (int k = 0; k < n; k++) {
        double t = x[k];
        x[k] = x[piv[k]];
        x[piv[k]] = t;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            x[i] -= LU[i * n + j] * x[j];
    for (int i = n - 1; i >= 0; i--) {
        for (int j = i + 1; j < n; j++)
            x[i] -= LU[i * n + j] * x[j];
        x[i] /= LU[i * n + i];
    }
}

/* x := M^-T x */
static void lu_solve_t(const double *LU, const int *piv, int n, double *x)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++)
            x[i] -= LU[j * n + i] * x[j];
        x[i] /= LU[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--)
        for (int j = i + 1; j < n; j++)
            x[i] -= LU[j * n + i] * x[j];
    for (int k = n - 1; k >= 0; k--) {
        double t = x[k];
        x[k] = x[piv[k]];
        x[piv[k]] = t;
    }
}

/* ---- the simplex on the dual ---- */

typedef struct simplex {
    const ete_lp *lp;
    double rhs[ETE_LP_MAXN];   /* -c */
    double sgn[ETE_LP_MAXN];   /* artificial k's column is sgn[k] e_k */
    int basis[ETE_LP_MAXN];
    char *basic;               /* m + n flags */
    double LU[ETE_LP_MAXN * ETE_LP_MAXN];
    int piv[ETE_LP_MAXN];
    double x[ETE_LP_MAXN];     /* basic values */
    double pi[ETE_LP_MAXN];    /* multipliers */
} simplex;

static void column(const simplex *s, int j, double *out)
{
    const int n = s->lp->n, m = s->lp->m;
    if (j < m) {
        memcpy(out, s->lp->a + (size_t)j * n, (size_t)n * sizeof *out);
    } else {
        memset(out, 0, (size_t)n * sizeof *out);
        out[j - m] = s->sgn[j - m];
    }
}

/* Factor the basis and compute x = B^-1 rhs and pi = B^-T cost_B; -1 when singular. */
static int refactor(simplex *s, int phase)
{
    const int n = s->lp->n, m = s->lp->m;
    double col[ETE_LP_MAXN];
    for (int k = 0; k < n; k++) {
        column(s, s->basis[k], col);
        for (int i = 0; i < n; i++)
            s->LU[i * n + k] = col[i];
    }
    if (lu_factor(s->LU, n, s->piv) != 0)
        return -1;
    memcpy(s->x, s->rhs, (size_t)n * sizeof *s->x);
    lu_solve(s->LU, s->piv, n, s->x);
    for (int k = 0; k < n; k++) {
        int j = s->basis[k];
        s->pi[k] = phase == 1 ? (j >= m ? 1.0 : 0.0) : (j < m ? s->lp->b[j] : 0.0);
    }
    lu_solve_t(s->LU, s->piv, n, s->pi);
    return 0;
}

/* Iterate one phase to its optimum. Returns ETE_LP_OPTIMAL, ETE_LP_UNBOUNDED (the dual
 * objective has no lower bound: in phase 2 the primal is infeasible) or ETE_LP_STALLED. */
static ete_lp_status run_phase(simplex *s, int phase)
{
    const ete_lp *lp = s->lp;
    const int n = lp->n, m = lp->m;
    const long limit = 20L * (m + n) + 1000;
    int degenerate = 0;
    double w[ETE_LP_MAXN];
    for (long it = 0; it < limit; it++) {
        if (refactor(s, phase) != 0)
            return ETE_LP_STALLED;
        const int bland = degenerate > DEGENERATE_RUN;
        int q = -1;
        double best = -TOL_COST;
        for (int j = 0; j < m; j++) {
            if (s->basic[j])
                continue;
            const double *a = lp->a + (size_t)j * n;
            double d = phase == 1 ? 0.0 : lp->b[j];
            for (int i = 0; i < n; i++)
                d -= a[i] * s->pi[i];
            if (d < best) {
                q = j;
                best = d;
                if (bland)
                    break;
            }
        }
        if (q < 0)
            return ETE_LP_OPTIMAL;
        column(s, q, w);
        lu_solve(s->LU, s->piv, n, w);
        /* Harris's two-pass ratio test: the largest step any row allows within the
         * feasibility tolerance, then among the rows blocking before it the largest pivot
         * (under Bland's rule the smallest column index), so a tiny pivot never enters. */
        double wmax = 0.0;
        for (int i = 0; i < n; i++)
            wmax = fmax(wmax, fabs(w[i]));
        const double tolp = TOL_PIVOT * fmax(1.0, wmax);
        double bound = INFINITY;
        for (int i = 0; i < n; i++)
            if (w[i] > tolp)
                bound = fmin(bound, (fmax(s->x[i], 0.0) + TOL_FEAS) / w[i]);
        int r = -1;
        double theta = 0.0;
        for (int i = 0; i < n; i++) {
            if (w[i] <= tolp)
                continue;
            const double t = fmax(s->x[i], 0.0) / w[i];
            if (t > bound)
                continue;
            if (r < 0 || (bland ? s->basis[i] < s->basis[r] : w[i] > w[r])) {
                r = i;
                theta = t;
            }
        }
        if (r < 0)
            return ETE_LP_UNBOUNDED;
        degenerate = theta < TOL_STEP ? degenerate + 1 : 0;
        s->basic[s->basis[r]] = 0;
        s->basis[r] = q;
        s->basic[q] = 1;
    }
    return ETE_LP_STALLED;
}

/* After phase 1: replace every artificial still in the basis (at level 0) by a real
 * column with a non-zero entry in its row of B^-1 A. -1 when a row has none. */
static int drive_out_artificials(simplex *s)
{
    const ete_lp *lp = s->lp;
    const int n = lp->n, m = lp->m;
    for (int k = 0; k < n; k++) {
        if (s->basis[k] < m)
            continue;
        if (refactor(s, 1) != 0)
            return -1;
        double rho[ETE_LP_MAXN] = {0};
        rho[k] = 1.0;
        lu_solve_t(s->LU, s->piv, n, rho); /* row k of B^-1 */
        int best = -1;
        double bv = 1e-9;
        for (int j = 0; j < m; j++) {
            if (s->basic[j])
                continue;
            double v = 0.0;
            for (int i = 0; i < n; i++)
                v += rho[i] * lp->a[(size_t)j * n + i];
            if (fabs(v) > bv) {
                bv = fabs(v);
                best = j;
            }
        }
        if (best < 0)
            return -1;
        s->basic[s->basis[k]] = 0;
        s->basis[k] = best;
        s->basic[best] = 1;
    }
    return 0;
}

ete_lp_status ete_lp_solve(ete_lp *lp, const double *c, double *z)
{
    const int n = lp->n, m = lp->m;
    simplex s;
    memset(&s, 0, sizeof s);
    s.lp = lp;
    s.basic = calloc((size_t)(m + n), 1);
    if (!s.basic)
        return ETE_LP_NOMEM;
    for (int i = 0; i < n; i++) {
        s.rhs[i] = -c[i];
        s.sgn[i] = s.rhs[i] < 0 ? -1.0 : 1.0;
    }
    ete_lp_status st = ETE_LP_STALLED;
    /* Warm start: the last optimal basis stays dual feasible when its x is still >= 0 (rows
     * added since are new dual columns at zero). */
    int warm = 0;
    if (lp->warm) {
        memcpy(s.basis, lp->basis, sizeof s.basis);
        for (int k = 0; k < n; k++)
            s.basic[s.basis[k]] = 1;
        warm = refactor(&s, 2) == 0;
        for (int k = 0; warm && k < n; k++)
            warm = s.x[k] >= -1e-9;
        if (!warm)
            memset(s.basic, 0, (size_t)(m + n));
    }
    if (!warm) {
        for (int k = 0; k < n; k++) {
            s.basis[k] = m + k;
            s.basic[m + k] = 1;
        }
        st = run_phase(&s, 1);
        if (st == ETE_LP_UNBOUNDED)
            st = ETE_LP_STALLED; /* phase 1 is bounded below by 0 */
        if (st != ETE_LP_OPTIMAL)
            goto out;
        double infeas = 0.0, cn = 0.0;
        for (int k = 0; k < n; k++) {
            if (s.basis[k] >= m)
                infeas += fmax(s.x[k], 0.0);
            cn += fabs(c[k]);
        }
        if (infeas > 1e-9 * (1.0 + cn)) {
            st = ETE_LP_UNBOUNDED; /* the dual is infeasible: the primal is unbounded */
            goto out;
        }
        if (drive_out_artificials(&s) != 0) {
            st = ETE_LP_STALLED;
            goto out;
        }
    }
    st = run_phase(&s, 2);
    if (st == ETE_LP_UNBOUNDED) {
        st = ETE_LP_INFEASIBLE;
        goto out;
    }
    if (st != ETE_LP_OPTIMAL)
        goto out;
    /* pi is the primal solution; check it keeps every (scaled) row. */
    double worst = 0.0;
    for (int j = 0; j < m; j++) {
        double v = -lp->b[j];
        for (int i = 0; i < n; i++)
            v += lp->a[(size_t)j * n + i] * s.pi[i];
        worst = fmax(worst, v);
    }
    if (worst > 1e-7) {
        st = ETE_LP_STALLED;
        goto out;
    }
    memcpy(z, s.pi, (size_t)n * sizeof *z);
    memcpy(lp->basis, s.basis, sizeof lp->basis);
    lp->warm = 1;
out:
    if (st != ETE_LP_OPTIMAL)
        lp->warm = 0;
    free(s.basic);
    return st;
}
