/* test_comm_agree.c — fdw_comm_agree (engine/comm.c), the rule that keeps the ranks of a
 * distributed run in step: ranks are threads here, joined by a small in-process
 * communicator (allreduce and broadcast through a shared board and a barrier), so the
 * cases MPI cannot stage on demand are checked: an error on one rank other than 0, two
 * failing ranks, a cancellation on one rank, and success. */
#include "fdwave/comm.h"

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

enum { NRANKS = 3 };

/* The shared board of the in-process communicator. */
typedef struct board {
    pthread_barrier_t bar;
    int values[NRANKS];
    char data[2048];
} board;

typedef struct rank_state {
    fdw_comm comm;
    board *b;
    fdw_status in;             /* status this rank brings */
    fdw_error err;             /* its error in, the agreed error out */
    fdw_status out;
} rank_state;

static int t_allreduce_max(const fdw_comm *c, int *value)
{
    board *b = c->user;
    b->values[c->rank] = *value;
    pthread_barrier_wait(&b->bar);
    int m = b->values[0];
    for (int q = 1; q < c->size; q++)
        if (b->values[q] > m)
            m = b->values[q];
    pthread_barrier_wait(&b->bar);
    *value = m;
    return 0;
}

static int t_broadcast(const fdw_comm *c, void *data, size_t bytes, int root)
{
    board *b = c->user;
    if (bytes > sizeof b->data)
        return -1;
    if (c->rank == root)
        memcpy(b->data, data, bytes);
    pthread_barrier_wait(&b->bar);
    if (c->rank != root)
        memcpy(data, b->data, bytes);
    pthread_barrier_wait(&b->bar);
    return 0;
}

static void *rank_main(void *arg)
{
    rank_state *s = arg;
    s->out = fdw_comm_agree(&s->comm, s->in, &s->err);
    return NULL;
}

/* Run the agreement with statuses in[] (errors get the message "failure on rank q"). */
static void agree(const fdw_status in[NRANKS], rank_state st[NRANKS])
{
    board b;
    memset(&b, 0, sizeof b);
    pthread_barrier_init(&b.bar, NULL, NRANKS);
    pthread_t th[NRANKS];
    for (int q = 0; q < NRANKS; q++) {
        memset(&st[q], 0, sizeof st[q]);
        st[q].comm.rank = q;
        st[q].comm.size = NRANKS;
        st[q].comm.user = &b;
        st[q].comm.allreduce_max = t_allreduce_max;
        st[q].comm.broadcast = t_broadcast;
        st[q].in = in[q];
        if (in[q] != FDW_OK) {
            st[q].err.code = in[q];
            snprintf(st[q].err.message, sizeof st[q].err.message, "failure on rank %d", q);
            if (in[q] == FDW_ERR_SPEC)
                snprintf(st[q].err.field, sizeof st[q].err.field, "grid.nx");
        }
        ck_assert_int_eq(pthread_create(&th[q], NULL, rank_main, &st[q]), 0);
    }
    for (int q = 0; q < NRANKS; q++)
        pthread_join(th[q], NULL);
    pthread_barrier_destroy(&b.bar);
}

START_TEST(all_ok)
{
    const fdw_status in[NRANKS] = {FDW_OK, FDW_OK, FDW_OK};
    rank_state st[NRANKS];
    agree(in, st);
    for (int q = 0; q < NRANKS; q++)
        ck_assert_int_eq(st[q].out, FDW_OK);
}
END_TEST

START_TEST(error_on_rank_2_reaches_all)
{
    const fdw_status in[NRANKS] = {FDW_OK, FDW_OK, FDW_ERR_SPEC};
    rank_state st[NRANKS];
    agree(in, st);
    for (int q = 0; q < NRANKS; q++) {
        ck_assert_int_eq(st[q].out, FDW_ERR_SPEC);
        ck_assert_int_eq(st[q].err.code, FDW_ERR_SPEC);
        ck_assert_str_eq(st[q].err.field, "grid.nx");
    }
    /* rank 0 prints it, saying where it happened */
    ck_assert_str_eq(st[0].err.message, "rank 2: failure on rank 2");
    ck_assert_str_eq(st[2].err.message, "failure on rank 2");
}
END_TEST

START_TEST(lowest_failing_rank_wins_over_cancel)
{
    const fdw_status in[NRANKS] = {FDW_ERR_CANCELLED, FDW_ERR_IO, FDW_ERR_NOMEM};
    rank_state st[NRANKS];
    agree(in, st);
    for (int q = 0; q < NRANKS; q++) {
        ck_assert_int_eq(st[q].out, FDW_ERR_IO);
        ck_assert_ptr_nonnull(strstr(st[q].err.message, "failure on rank 1"));
    }
}
END_TEST

START_TEST(cancel_on_one_rank_cancels_all)
{
    const fdw_status in[NRANKS] = {FDW_OK, FDW_ERR_CANCELLED, FDW_OK};
    rank_state st[NRANKS];
    agree(in, st);
    for (int q = 0; q < NRANKS; q++)
        ck_assert_int_eq(st[q].out, FDW_ERR_CANCELLED);
}
END_TEST

START_TEST(single_process_passes_through)
{
    fdw_error err;
    memset(&err, 0, sizeof err);
    ck_assert_int_eq(fdw_comm_agree(NULL, FDW_ERR_IO, &err), FDW_ERR_IO);
    ck_assert_int_eq(fdw_comm_agree(NULL, FDW_OK, &err), FDW_OK);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("comm_agree");
    TCase *tc = tcase_create("agree");
    tcase_add_test(tc, all_ok);
    tcase_add_test(tc, error_on_rank_2_reaches_all);
    tcase_add_test(tc, lowest_failing_rank_wins_over_cancel);
    tcase_add_test(tc, cancel_on_one_rank_cancels_all);
    tcase_add_test(tc, single_process_passes_through);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
