/* ete_lp.h — the linear programs of the ETE operator fit (ete_fit.c), solved by GLPK:
 * minimise c.z over z in R^n (n <= ETE_LP_MAXN, every variable free) subject to m rows
 * a_i.z <= b_i, m in the thousands. Rows may be added after a solve; the next solve starts
 * from the last optimal basis. Safe in several threads at once, a problem per thread. */
#ifndef FDW_ETE_LP_H
#define FDW_ETE_LP_H

#define ETE_LP_MAXN 24

typedef enum {
    ETE_LP_OPTIMAL = 0,
    ETE_LP_INFEASIBLE,   /* no z satisfies every row */
    ETE_LP_UNBOUNDED,    /* c.z has no lower bound on the feasible set */
    ETE_LP_NOMEM,        /* out of memory (the problem is gone: only ete_lp_free remains) */
    ETE_LP_STALLED       /* the iteration limit or a singular basis: numerical trouble */
} ete_lp_status;

typedef struct ete_lp ete_lp;

/* A problem of n variables (1..ETE_LP_MAXN) and no rows; NULL when out of memory. */
ete_lp *ete_lp_new(int n);
void ete_lp_free(ete_lp *lp);
/* Add the row a.z <= b (a: n numbers). 0, or -1 when out of memory. A row of zeros is
 * kept (it is feasible or not by its b alone). */
int ete_lp_add_row(ete_lp *lp, const double *a, double b);
/* Minimise c.z; on ETE_LP_OPTIMAL z (n numbers) holds a minimiser. */
ete_lp_status ete_lp_solve(ete_lp *lp, const double *c, double *z);

#endif
