/* ckpt_writer.c — the checkpoint writer's thread (see ckpt_writer.h): a job slot under a
 * mutex, a condition variable for each direction, and an atomic flag the loop polls. */
#include "run/ckpt_writer.h"
#include "core/error.h"
#include "core/quiet_thread.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct fdw_ckpt_writer {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t go;         /* a job was submitted, or stop */
    pthread_cond_t ended;      /* the job ended */
    fdw_ckpt_job job;          /* under mu: the job to run; NULL once taken */
    void *arg;
    int stop;                  /* under mu */
    int submitted;             /* loop only: a job not yet collected */
    fdw_status st;             /* under mu: the ended job's status and error */
    fdw_error err;
    /* 1 from submit until the job ends. Only ever accessed by read-modify-write
     * operations (read as fetch_add 0), which race checkers such as helgrind model. */
    atomic_int busy;
};

static void *writer_main(void *p)
{
    fdw_ckpt_writer *w = p;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->stop && !w->job)
            pthread_cond_wait(&w->go, &w->mu);
        if (!w->job) /* stop, with nothing left to run */
            break;
        fdw_ckpt_job job = w->job;
        void *arg = w->arg;
        w->job = NULL;
        pthread_mutex_unlock(&w->mu);

        fdw_error err;
        fdw_error_clear(&err);
        const fdw_status st = job(arg, &err);

        pthread_mutex_lock(&w->mu);
        w->st = st;
        w->err = err;
        atomic_fetch_sub_explicit(&w->busy, 1, memory_order_release);
        pthread_cond_broadcast(&w->ended);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

fdw_status fdw_ckpt_writer_start(fdw_ckpt_writer **out, fdw_error *err)
{
    *out = NULL;
    fdw_ckpt_writer *w = calloc(1, sizeof *w);
    if (!w)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for the checkpoint writer");
    atomic_init(&w->busy, 0);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->go, NULL);
    pthread_cond_init(&w->ended, NULL);
    if (fdw_quiet_thread_start(&w->thread, writer_main, w) != 0) {
        pthread_cond_destroy(&w->ended);
        pthread_cond_destroy(&w->go);
        pthread_mutex_destroy(&w->mu);
        free(w);
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cannot start the checkpoint writer thread");
    }
    *out = w;
    return FDW_OK;
}

void fdw_ckpt_writer_submit(fdw_ckpt_writer *w, fdw_ckpt_job job, void *arg)
{
    pthread_mutex_lock(&w->mu);
    w->job = job;
    w->arg = arg;
    w->st = FDW_OK;
    w->submitted = 1;
    atomic_fetch_add_explicit(&w->busy, 1, memory_order_relaxed);
    pthread_cond_signal(&w->go);
    pthread_mutex_unlock(&w->mu);
}

int fdw_ckpt_writer_busy(fdw_ckpt_writer *w)
{
    return atomic_fetch_add_explicit(&w->busy, 0, memory_order_acquire) != 0;
}

fdw_status fdw_ckpt_writer_wait(fdw_ckpt_writer *w, fdw_error *err)
{
    if (!w->submitted)
        return FDW_OK;
    pthread_mutex_lock(&w->mu);
    while (atomic_fetch_add_explicit(&w->busy, 0, memory_order_relaxed) != 0)
        pthread_cond_wait(&w->ended, &w->mu);
    const fdw_status st = w->st;
    if (st != FDW_OK && err)
        *err = w->err;
    w->submitted = 0;
    pthread_mutex_unlock(&w->mu);
    return st;
}

void fdw_ckpt_writer_free(fdw_ckpt_writer *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->stop = 1; /* a job still queued runs first: a write is never left half-done */
    pthread_cond_signal(&w->go);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->ended);
    pthread_cond_destroy(&w->go);
    pthread_mutex_destroy(&w->mu);
    free(w);
}
