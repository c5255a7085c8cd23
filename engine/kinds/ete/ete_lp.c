/* ete_lp.c — ete_lp.h on GLPK (Debian's libglpk). GLPK solves the dual of
 *     min c.z   subject to   A z <= b   (z free, n variables, m rows),
 * which is
 *     min b.y   subject to   A^T y = -c,  y >= 0
 * (n rows, a column per row of A, each scaled by its largest coefficient, which changes no
 * solution): its basis is n x n however many rows the fit adds, and the multipliers of its
 * n rows at the optimum are z (they keep A z <= b, and c.z equals the optimum). A row added
 * is a column at zero, so the last optimal basis stays feasible and the next solve (GLPK's
 * primal simplex) starts from it.
 *
 * GLPK keeps its state per thread (ete_fit runs in OpenMP threads); a thread's environment
 * is freed when its last problem goes. GLPK ends the process on an error (out of memory):
 * every call into it goes through guarded(), whose error hook jumps back instead, frees the
 * thread's environment as GLPK then requires, and makes the call fail. */
#include "kinds/ete/ete_lp.h"

#include <glpk.h>
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>

/* The reduced-cost tolerance of the dual is how far z may break a (scaled) row: GLPK's
 * default 1e-7 leaves the fit's constraint generation adding rows it never satisfies. */
#define TOL_DJ 1e-10

struct ete_lp {
    glp_prob *p;
    int n;
    unsigned gen;              /* the thread's environment it lives in */
};

/* Per thread: live problems, the environment's generation (a new one after a GLPK error,
 * which frees every problem of the thread) and where an error returns to. */
static _Thread_local int t_live;
static _Thread_local unsigned t_gen;
static _Thread_local jmp_buf t_jump;

static void on_glpk_error(void *info)
{
    (void)info;
    longjmp(t_jump, 1);
}

/* fn(arg) with GLPK's errors caught: 0, or -1 after an error (every problem of this thread
 * is gone then). */
static int guarded(void (*fn)(void *), void *arg)
{
    if (setjmp(t_jump)) {
        glp_free_env();
        t_gen++;
        t_live = 0;
        return -1;
    }
    glp_error_hook(on_glpk_error, NULL);
    fn(arg);
    glp_error_hook(NULL, NULL);
    return 0;
}

static int alive(const ete_lp *lp) { return lp->p && lp->gen == t_gen; }

static void create(void *arg)
{
    ete_lp *lp = arg;
    lp->p = glp_create_prob();
    glp_set_obj_dir(lp->p, GLP_MIN);
    glp_add_rows(lp->p, lp->n);
}

ete_lp *ete_lp_new(int n)
{
    if (n < 1 || n > ETE_LP_MAXN)
        return NULL;
    ete_lp *lp = calloc(1, sizeof *lp);
    if (!lp)
        return NULL;
    lp->n = n;
    lp->gen = t_gen;
    if (guarded(create, lp) != 0) {
        free(lp);
        return NULL;
    }
    t_live++;
    return lp;
}

void ete_lp_free(ete_lp *lp)
{
    if (!lp)
        return;
    if (alive(lp)) {
        glp_delete_prob(lp->p);
        if (--t_live == 0)
            glp_free_env();
    }
    free(lp);
}

typedef struct column {
    glp_prob *p;
    int len, ind[ETE_LP_MAXN + 1];
    double val[ETE_LP_MAXN + 1], cost;
} column;

static void add_column(void *arg)
{
    column *c = arg;
    const int j = glp_add_cols(c->p, 1);
    glp_set_col_bnds(c->p, j, GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(c->p, j, c->cost);
    glp_set_mat_col(c->p, j, c->len, c->ind, c->val);
}

int ete_lp_add_row(ete_lp *lp, const double *a, double b)
{
    if (!alive(lp))
        return -1;
    double s = 0.0;
    for (int i = 0; i < lp->n; i++)
        s = fmax(s, fabs(a[i]));
    if (s == 0.0)
        s = 1.0;
    column c = {.p = lp->p, .cost = b / s};
    for (int i = 0; i < lp->n; i++)
        if (a[i] != 0.0) {
            c.len++;
            c.ind[c.len] = i + 1;
            c.val[c.len] = a[i] / s;
        }
    return guarded(add_column, &c);
}

typedef struct solve {
    ete_lp *lp;
    const double *c;
    double *z;
    ete_lp_status st;
} solve;

static void run_simplex(void *arg)
{
    solve *s = arg;
    glp_prob *p = s->lp->p;
    const int n = s->lp->n;
    for (int i = 0; i < n; i++)
        glp_set_row_bnds(p, i + 1, GLP_FX, -s->c[i], -s->c[i]);
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.tol_dj = TOL_DJ;
    parm.it_lim = 20 * (glp_get_num_cols(p) + n) + 1000; /* beyond: stalled */
    int rc = glp_simplex(p, &parm);
    if (rc == GLP_EBADB || rc == GLP_ESING || rc == GLP_ECOND) {
        glp_std_basis(p); /* a basis gone bad: again from the slack basis */
        rc = glp_simplex(p, &parm);
    }
    s->st = ETE_LP_STALLED;
    if (rc != 0)
        return;
    switch (glp_get_status(p)) {
    case GLP_OPT:
        for (int i = 0; i < n; i++)
            s->z[i] = glp_get_row_dual(p, i + 1);
        s->st = ETE_LP_OPTIMAL;
        break;
    case GLP_NOFEAS: s->st = ETE_LP_UNBOUNDED; break;  /* no y: c.z has no lower bound */
    case GLP_UNBND: s->st = ETE_LP_INFEASIBLE; break;  /* b.y unbounded: no z keeps the rows */
    default: break;
    }
}

ete_lp_status ete_lp_solve(ete_lp *lp, const double *c, double *z)
{
    if (!alive(lp))
        return ETE_LP_NOMEM;
    solve s = {lp, c, z, ETE_LP_STALLED};
    return guarded(run_simplex, &s) == 0 ? s.st : ETE_LP_NOMEM;
}
