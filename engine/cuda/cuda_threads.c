/* cuda_threads.c — one host thread per GPU (seed 2015, "improvement 2"): with several
 * slabs in one process each GPU's work is issued by its own thread, and every thread
 * finishes issuing step it before any issues it + 1, so every event a stream waits on has
 * been recorded. One slab: the calling thread issues it. */
#include "cuda/cuda_impl.h"

static void *worker_main(void *vp)
{
    gpu_slab *g = vp;
    cuda_ctx *c = g->ctx;
    long seen = 0;
    cuda_note(g, fdwk_set_device(g->id), "cudaSetDevice");
    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (c->gen == seen && !c->quit)
            pthread_cond_wait(&c->go, &c->mu);
        if (c->quit)
            break;
        seen = c->gen;
        long it = c->cmd_it;
        pthread_mutex_unlock(&c->mu);
        cuda_issue_step(c, g->index, it);
        pthread_mutex_lock(&c->mu);
        if (++c->ndone == c->ndev)
            pthread_cond_signal(&c->done);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

int cuda_start_threads(cuda_ctx *c)
{
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->go, NULL);
    pthread_cond_init(&c->done, NULL);
    c->threads_started = 0;
    for (int d = 0; d < c->ndev; d++) {
        c->dev[d].ctx = c;
        c->dev[d].index = d;
        if (pthread_create(&c->dev[d].thread, NULL, worker_main, &c->dev[d]) != 0)
            return -1;
        c->threads_started++;
    }
    return 0;
}

void cuda_stop_threads(cuda_ctx *c)
{
    if (c->threads_started == 0)
        return;
    pthread_mutex_lock(&c->mu);
    c->quit = 1;
    pthread_cond_broadcast(&c->go);
    pthread_mutex_unlock(&c->mu);
    for (int d = 0; d < c->threads_started; d++)
        pthread_join(c->dev[d].thread, NULL);
    c->threads_started = 0;
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->go);
    pthread_cond_destroy(&c->done);
}

fdw_status cuda_step(void *vctx, long it, fdw_error *err)
{
    cuda_ctx *c = vctx;
    if (c->ndev == 1) {
        gpu_slab *g = &c->dev[0];
        cuda_note(g, fdwk_set_device(g->id), "cudaSetDevice");
        cuda_issue_step(c, 0, it);
    } else {
        pthread_mutex_lock(&c->mu);
        c->cmd_it = it;
        c->ndone = 0;
        c->gen++;
        pthread_cond_broadcast(&c->go);
        while (c->ndone < c->ndev)
            pthread_cond_wait(&c->done, &c->mu);
        pthread_mutex_unlock(&c->mu);
    }
    c->cur = 1 - c->cur;
    c->steps++;
    return cuda_collect_status(c, err);
}

