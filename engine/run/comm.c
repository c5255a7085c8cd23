/* comm.c — what the engine builds on the abstract communicator of comm.h: agreeing on one
 * status across the processes of a distributed run, so that an error or a cancellation on
 * any rank ends every rank at the same point instead of leaving the others waiting in a
 * ghost exchange. */
#include "fdwave/comm.h"

#include "core/error.h"

#include <stdio.h>
#include <string.h>

fdw_status fdw_comm_agree(const fdw_comm *c, fdw_status st, fdw_error *err)
{
    if (!c || c->size <= 1)
        return st;
    fdw_error local;
    if (!err) {
        fdw_error_clear(&local);
        err = &local;
    }
    /* One integer decides: a failure of rank q counts size + (size - q), a cancellation
     * size - q, success 0; the maximum names the lowest failing (else cancelling) rank. */
    const int n = c->size;
    int v = st == FDW_OK ? 0 : st == FDW_ERR_CANCELLED ? n - c->rank : 2 * n - c->rank;
    if (c->allreduce_max(c, &v) != 0)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "rank %d: the processes of the run could not agree on a status "
                        "(communication failed)", c->rank);
    if (v == 0)
        return FDW_OK;
    const int root = v > n ? 2 * n - v : n - v;
    fdw_error shared;
    if (c->rank == root)
        shared = *err;
    else
        memset(&shared, 0, sizeof shared);
    if (c->broadcast(c, &shared, sizeof shared, root) != 0)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "rank %d: rank %d failed and its error could not be received",
                        c->rank, root);
    if (c->rank != root && shared.code != FDW_ERR_CANCELLED && root != 0) {
        /* Say where it happened; rank 0 prints the error for the whole run. */
        char msg[sizeof shared.message];
        snprintf(msg, sizeof msg, "rank %d: %.740s", root, shared.message);
        memcpy(shared.message, msg, sizeof msg);
    }
    *err = shared;
    if (err->code == FDW_OK) /* the failing rank returned a status without an error text */
        return fdw_fail(err, v > n ? FDW_ERR_INTERNAL : FDW_ERR_CANCELLED, NULL,
                        "rank %d stopped the run", root);
    return err->code;
}
