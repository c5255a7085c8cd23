/* scheduler.c — the scheduling loop and worker threads (see scheduler.h). One thread
 * decides; each started job gets its own thread (at most app->workers at once) that
 * runs worker_run, which gives the job's devices back as soon as its end is recorded
 * (worker_job.ended), and then marks its slot done. The loop wakes on sched_kick() and at
 * least once a second (aging and the fair share change the order over time). The head
 * of the queue comes from sharing.h (rank, quotas); it starts when its devices are free,
 * its host memory fits what the running jobs leave (admission.h) and the disk is not
 * below min-free-disk; a head kept waiting for devices by a job preempt-gap priority
 * levels below it has that job suspended (checkpoint, re-queue) to make room. What keeps
 * a job waiting is noted in the pass's waiting book and recorded after it (waiting.h). */
#include "sched/scheduler.h"
#include "auth/admission.h"
#include "core/app.h"
#include "core/db.h"
#include "core/diskguard.h"
#include "store/jobs.h"
#include "core/log.h"
#include "core/quota.h"
#include "core/service.h"
#include "auth/sharing.h"
#include "store/waiting.h"
#include "sched/slurm_run.h"
#include "sched/worker.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AGING_MS 60000

typedef struct slot {
    struct scheduler *sc;
    int active;                /* a thread was started and not yet joined */
    int done;                  /* the thread finished; join it */
    int freed;                 /* its devices and host memory given back (give_back) */
    int dev_index[APP_MAX_DEVICES];
    pthread_t thread;
    worker_job job;
} slot;

#define RANK_NONE (-1e300)
#define RANK_ALL (1e300)

/* The scheduling loop's state (app->sched). */
struct scheduler {
    fdwd_app *app;
    fdwd_service svc;          /* the loop; svc.lock guards all below, svc.wake: a pass */
    slot *slots;
    int nslots;
    int64_t busy[APP_MAX_DEVICES]; /* job on device index i, 0 = free */
    int kicked;
    /* What the last pass found, valid while the loop waits (waiting): a job submitted
     * with a rank (sharing_rank) <= block_rank cannot start before something else changes
     * (a finished job, a cancel, a kick), so sched_submitted need not wake the loop for
     * it. RANK_NONE: the pass was not blocked (queue empty), every submission wakes it. */
    int waiting;
    double block_rank;
    double submitted;          /* the highest rank submitted during a pass */
    waiting_book book;         /* why queued jobs wait; the scheduler thread's own */
};

static void *job_thread(void *arg)
{
    slot *s = arg;
    struct scheduler *sc = s->sc;
    fdwd_app *app = sc->app;
    /* A CPU-backend simulation lowers its own priority (worker.c, --cpu-job-sched); GPU
     * host threads mostly wait for the device and keep normal priority. */
    worker_run(app, &s->job);
    db_release_thread(app->db);
    pthread_mutex_lock(&sc->svc.lock);
    s->done = 1;
    sc->kicked = 1; /* devices freed: a pass now, even if one is running (it would miss it) */
    service_wake(&sc->svc);
    pthread_mutex_unlock(&sc->svc.lock);
    return NULL;
}

/* A slot's devices and host memory reservation back to the pool, once. sc->lock held. */
static void give_back(struct scheduler *sc, slot *s)
{
    if (s->freed)
        return;
    for (int d = 0; d < s->job.ndevices; d++)
        sc->busy[s->dev_index[d]] = 0;
    admission_release(sc->app, admission_job_host_bytes(sc->app, s->job.host_bytes));
    s->freed = 1;
}

/* worker_job.ended: the job's end is recorded; its devices go back now and a pass runs. */
static void job_ended(worker_job *w)
{
    slot *s = (slot *)(void *)((char *)w - offsetof(slot, job));
    struct scheduler *sc = s->sc;
    pthread_mutex_lock(&sc->svc.lock);
    give_back(sc, s);
    sc->kicked = 1;
    service_wake(&sc->svc);
    pthread_mutex_unlock(&sc->svc.lock);
}

/* Join finished threads and free their devices. Called with sc->lock held. */
static void reap(struct scheduler *sc)
{
    for (int i = 0; i < sc->nslots; i++) {
        slot *s = &sc->slots[i];
        if (s->active && s->done) {
            pthread_join(s->thread, NULL);
            give_back(sc, s);
            s->active = 0;
            s->done = 0;
        }
    }
}

/* Pick devices for a job needing g (or exactly the wanted ids). Returns 0 and fills
 * idx with device indices, or -1 if they are not free now. sc->lock held. */
static int pick_devices(struct scheduler *sc, int g, const int *wanted, int nwanted, int *idx)
{
    fdwd_app *app = sc->app;
    if (nwanted > 0) {
        for (int k = 0; k < nwanted; k++) {
            int found = -1;
            for (int i = 0; i < app->ndevices; i++)
                if (app->devices[i].id == wanted[k])
                    found = i;
            if (found < 0 || sc->busy[found])
                return -1;
            idx[k] = found;
        }
        return 0;
    }
    int n = 0;
    for (int i = 0; i < app->ndevices && n < g; i++)
        if (!sc->busy[i])
            idx[n++] = i;
    return n == g ? 0 : -1;
}

/* Ask the running job of lowest priority, preempt-gap levels or more below the head, to
 * make room: it writes a checkpoint and goes back to the queue (worker.c). One at a time:
 * none while another is being preempted. sc->lock held. */
static void preempt_for(struct scheduler *sc, const sharing_job *head)
{
    fdwd_app *app = sc->app;
    const int gap = app->cfg.preempt_gap;
    if (gap <= 0)
        return;
    const int head_prio = head->priority + quota_of(&app->quotas, head->owner)->priority;
    slot *victim = NULL;
    int victim_prio = 0;
    for (int i = 0; i < sc->nslots; i++) {
        slot *s = &sc->slots[i];
        if (!s->active || s->done)
            continue;
        const int stop = atomic_load(&s->job.stop);
        if (stop == WORKER_PREEMPT)
            return; /* one under way */
        if (stop != WORKER_RUN)
            continue;
        if (s->job.priority <= head_prio - gap && (!victim || s->job.priority < victim_prio)) {
            victim = s;
            victim_prio = s->job.priority;
        }
    }
    if (!victim)
        return;
    victim->job.preempted_by = head->id;
    int expected = WORKER_RUN;
    if (atomic_compare_exchange_strong(&victim->job.stop, &expected, WORKER_PREEMPT))
        log_info("job %lld (priority %d) is preempted for job %lld (priority %d)",
                 (long long)victim->job.job_id, victim_prio, (long long)head->id, head_prio);
}

/* Whether the head may start now as far as memory and disk go; notes why not. sc->lock
 * held. */
static int resources_allow(struct scheduler *sc, const sharing_job *head, uint64_t host)
{
    fdwd_app *app = sc->app;
    disk_status ds;
    const double gib = 1u << 30;
    if (!admission_fits(app, host)) {
        waiting_note(&sc->book, head->id, WAIT_MEMORY, "waits for host memory: it needs %.3g "
                     "GiB; %.3g GiB of %.3g GiB is held by running jobs", (double)host / gib,
                     (double)admission_reserved(app) / gib,
                     (double)admission_host_budget(app) / gib);
        return 0;
    }
    if (diskguard_status(app, &ds) == 0 && ds.low) {
        waiting_note(&sc->book, head->id, WAIT_DISK, "waits for disk space: the data "
                     "directory's disk has %.3g GiB free, below min-free-disk (%.3g GiB)",
                     (double)ds.free_bytes / gib, (double)app->cfg.min_free_disk / gib);
        return 0;
    }
    return 1;
}

/* Notes why the head's devices (g of them, or the wanted ids) are not free. sc->lock held. */
static void note_devices(struct scheduler *sc, const sharing_job *head, int g, const int *wanted,
                         int nwanted)
{
    fdwd_app *app = sc->app;
    char jobs[120] = "";
    size_t len = 0;
    int nfree = 0;
    for (int i = 0; i < app->ndevices; i++) {
        int asked = nwanted == 0;
        for (int k = 0; k < nwanted; k++)
            asked |= app->devices[i].id == wanted[k];
        if (!sc->busy[i])
            nfree += asked;
        else if (asked && len + 24 < sizeof jobs)
            len += (size_t)snprintf(jobs + len, sizeof jobs - len, "%s%d: job %lld",
                                    len ? ", " : "", app->devices[i].id, (long long)sc->busy[i]);
    }
    if (nwanted > 0)
        waiting_note(&sc->book, head->id, WAIT_DEVICES, "waits for devices: it names %d of "
                     "them, %d free; busy: %s", nwanted, nfree, jobs);
    else
        waiting_note(&sc->book, head->id, WAIT_DEVICES, "waits for devices: it needs %d, %d of "
                     "%d free; busy: %s", g, nfree, app->ndevices, jobs);
}

/* Step of try_start: a head that can never run here (accepted by an earlier daemon with
 * more devices, or naming one that is gone) fails rather than hold up every job behind
 * it. Returns 1 when it was failed. sc->lock held; dropped around the database work. */
static int fail_unrunnable(struct scheduler *sc, const sharing_job *head, int g)
{
    fdwd_app *app = sc->app;
    int missing = -1;
    for (int k = 0; k < head->nwanted; k++) {
        int found = 0;
        for (int i = 0; i < app->ndevices; i++)
            found |= app->devices[i].id == head->wanted[k];
        if (!found)
            missing = head->wanted[k];
    }
    if (g >= 1 && g <= app->ndevices && missing < 0)
        return 0;
    char reason[160];
    if (missing >= 0)
        snprintf(reason, sizeof reason, "device %d no longer exists on this server", missing);
    else
        snprintf(reason, sizeof reason, "needs %d devices; this server now has %d", g,
                 app->ndevices);
    pthread_mutex_unlock(&sc->svc.lock);
    jobs_fail_queued(app, head->id, reason);
    pthread_mutex_lock(&sc->svc.lock);
    return 1;
}

/* Step of try_start: start head on the g devices idx in slot free_slot, holding host
 * bytes: reserve them, claim the job, start its thread (undone if either fails). The slot
 * exists before the claim commits, so a cancel that arrives as soon as the job shows
 * "running" finds it (sched_cancel) and the run stops at its first step. sc->lock held;
 * dropped around the database work. */
static void launch(struct scheduler *sc, int free_slot, const sharing_job *head, int g,
                   const int *idx, uint64_t host)
{
    fdwd_app *app = sc->app;
    const int64_t id = head->id;
    int ids[APP_MAX_DEVICES];
    for (int k = 0; k < g; k++) {
        ids[k] = app->devices[idx[k]].id;
        sc->busy[idx[k]] = id; /* reserve before dropping the lock */
    }
    admission_reserve(app, host);
    slot *s = &sc->slots[free_slot];
    memset(&s->job, 0, sizeof s->job);
    s->job.job_id = id;
    s->job.ndevices = g;
    s->job.total_devices = app->ndevices;
    s->job.priority = head->priority + quota_of(&app->quotas, head->owner)->priority;
    s->job.host_bytes = head->host_bytes;
    memcpy(s->job.device_ids, ids, sizeof(int) * (size_t)g);
    memcpy(s->dev_index, idx, sizeof(int) * (size_t)g);
    s->job.ended = job_ended;
    s->active = 1;
    s->done = 0;
    s->freed = 0;
    pthread_mutex_unlock(&sc->svc.lock);
    int claimed = jobs_claim(app, id, ids, g);
    pthread_mutex_lock(&sc->svc.lock);
    if (claimed != 0) {
        for (int k = 0; k < g; k++)
            sc->busy[idx[k]] = 0;
        admission_release(app, host);
        s->active = 0;
        return; /* cancelled meanwhile: look again */
    }
    if (thread_start(&s->thread, "job", job_thread, s) != 0) {
        s->active = 0;
        for (int k = 0; k < g; k++)
            sc->busy[idx[k]] = 0;
        admission_release(app, host);
        pthread_mutex_unlock(&sc->svc.lock);
        jobs_finish(app, id, "failed", "internal: cannot start a worker thread", 0, NULL);
        pthread_mutex_lock(&sc->svc.lock);
    }
}

/* Start the head of the queue if it can start. Returns 1 if a job started (try again),
 * 0 if nothing can start now, with sc->block_rank set (see there). Called with sc->lock
 * held; drops it around database work. */
static int try_start(struct scheduler *sc)
{
    fdwd_app *app = sc->app;
    int free_slot = -1;
    for (int i = 0; i < sc->nslots; i++)
        if (!sc->slots[i].active) {
            free_slot = i;
            break;
        }
    /* The head of the queue (sharing.h), read without the lock. */
    sharing_job head;
    sc->block_rank = RANK_NONE;
    pthread_mutex_unlock(&sc->svc.lock);
    int r = sharing_head(app, AGING_MS, &head, &sc->book);
    pthread_mutex_lock(&sc->svc.lock);
    if (r != 1 || sc->svc.stop)
        return 0;
    if (free_slot < 0) { /* every slot busy: only a preemption can make room */
        waiting_note(&sc->book, head.id, WAIT_WORKER, "waits for a worker: %d job%s run%s, "
                     "the most at once (workers=%d)", sc->nslots, sc->nslots == 1 ? "" : "s",
                     sc->nslots == 1 ? "s" : "", sc->nslots);
        sc->block_rank = RANK_ALL;
        preempt_for(sc, &head);
        return 0;
    }
    const int g = head.nwanted > 0 ? head.nwanted : head.devices_requested;
    if (fail_unrunnable(sc, &head, g))
        return 1;
    /* Its devices, then its memory and the disk; else it waits, and makes room. */
    int idx[APP_MAX_DEVICES];
    if (pick_devices(sc, g, head.wanted, head.nwanted, idx)) {
        /* Head-of-line: nobody behind it may take the devices. A new job ranks at its
         * bare priority and loses ties to this older head. */
        note_devices(sc, &head, g, head.wanted, head.nwanted);
        sc->block_rank = head.rank;
        preempt_for(sc, &head);
        return 0;
    }
    const uint64_t host = admission_job_host_bytes(app, head.host_bytes);
    if (!resources_allow(sc, &head, host)) {
        sc->block_rank = head.rank;
        return 0;
    }
    launch(sc, free_slot, &head, g, idx, host);
    return 1;
}

static void *sched_main(void *arg)
{
    struct scheduler *sc = arg;
    fdwd_app *app = sc->app;
    pthread_mutex_lock(&sc->svc.lock);
    while (!sc->svc.stop) {
        reap(sc);
        waiting_begin(&sc->book);
        sc->submitted = RANK_NONE;
        while (!sc->svc.stop && try_start(sc))
            reap(sc);
        if (sc->svc.stop)
            break;
        pthread_mutex_unlock(&sc->svc.lock);
        waiting_record(app, &sc->book);
        slurm_sweep(app); /* Slurm jobs of jobs that ended without them */
        pthread_mutex_lock(&sc->svc.lock);
        if (sc->svc.stop)
            break;
        /* Jobs submitted during the pass need another only if they may outrank what
         * blocked it (a steady stream of submissions would otherwise keep it busy). */
        if (!sc->kicked && sc->submitted <= sc->block_rank) {
            sc->waiting = 1;
            service_wait(&sc->svc, 1000);
            sc->waiting = 0;
        }
        sc->kicked = 0;
    }
    /* Shutdown: ask every running job to re-queue itself, then wait for them. */
    for (int i = 0; i < sc->nslots; i++)
        if (sc->slots[i].active) {
            int expected = WORKER_RUN;
            atomic_compare_exchange_strong(&sc->slots[i].job.stop, &expected, WORKER_REQUEUE);
        }
    for (;;) {
        reap(sc);
        int left = 0;
        for (int i = 0; i < sc->nslots; i++)
            left += sc->slots[i].active;
        if (!left)
            break;
        service_wait(&sc->svc, 0);
    }
    pthread_mutex_unlock(&sc->svc.lock);
    db_release_thread(app->db);
    return NULL;
}

int sched_start(fdwd_app *app)
{
    struct scheduler *sc = calloc(1, sizeof *sc);
    if (!sc)
        return -1;
    sc->app = app;
    service_init(&sc->svc);
    sc->block_rank = RANK_NONE;
    sc->submitted = RANK_NONE;
    app->sched = sc;
    sc->nslots = app->workers;
    sc->slots = calloc((size_t)sc->nslots, sizeof *sc->slots);
    if (!sc->slots)
        return -1;
    for (int i = 0; i < sc->nslots; i++)
        sc->slots[i].sc = sc;
    return service_start(&sc->svc, "sched", 1, sched_main, sc);
}

/* app's scheduler, locked; NULL (nothing locked) when there is none: the HTTP fuzzer's
 * in-process daemon runs without one. */
static struct scheduler *lock_sched(fdwd_app *app)
{
    struct scheduler *sc = app->sched;
    if (sc)
        pthread_mutex_lock(&sc->svc.lock);
    return sc;
}

void sched_kick(fdwd_app *app)
{
    struct scheduler *sc = lock_sched(app);
    if (!sc)
        return;
    sc->kicked = 1;
    service_wake(&sc->svc);
    pthread_mutex_unlock(&sc->svc.lock);
}

void sched_submitted(fdwd_app *app, double top_rank)
{
    struct scheduler *sc = lock_sched(app);
    if (!sc)
        return;
    if (!sc->waiting) { /* a pass is under way: judged against what it finds (sched_main) */
        if (top_rank > sc->submitted)
            sc->submitted = top_rank;
    } else if (top_rank > sc->block_rank) {
        sc->kicked = 1;
        service_wake(&sc->svc);
    }
    pthread_mutex_unlock(&sc->svc.lock);
}

int sched_cancel(fdwd_app *app, int64_t job_id)
{
    struct scheduler *sc = lock_sched(app);
    if (!sc)
        return 0;
    int found = 0;
    for (int i = 0; i < sc->nslots; i++)
        if (sc->slots[i].active && !sc->slots[i].done && sc->slots[i].job.job_id == job_id) {
            /* A cancel wins over a suspension under way (shutdown, preemption): the job
             * ends cancelled instead of going back to the queue. */
            int s = atomic_load(&sc->slots[i].job.stop);
            while ((s == WORKER_RUN || s == WORKER_REQUEUE || s == WORKER_PREEMPT) &&
                   !atomic_compare_exchange_weak(&sc->slots[i].job.stop, &s, WORKER_CANCEL))
                ;
            found = 1;
        }
    pthread_mutex_unlock(&sc->svc.lock);
    return found;
}

void sched_stop(fdwd_app *app)
{
    struct scheduler *sc = app->sched;
    if (!sc || !sc->svc.running)
        return;
    service_stop(&sc->svc);
    free(sc->slots);
    sc->slots = NULL;
    sc->nslots = 0;
}

int64_t sched_device_job(fdwd_app *app, int i)
{
    struct scheduler *sc = lock_sched(app);
    if (!sc)
        return 0;
    int64_t j = i >= 0 && i < APP_MAX_DEVICES ? sc->busy[i] : 0;
    pthread_mutex_unlock(&sc->svc.lock);
    return j;
}

double sched_mpts(fdwd_app *app, int *running)
{
    double sum = 0;
    int n = 0;
    struct scheduler *sc = lock_sched(app);
    for (int i = 0; sc && i < sc->nslots; i++)
        if (sc->slots[i].active && !sc->slots[i].done) {
            sum += sc->slots[i].job.mpts;
            n++;
        }
    if (sc)
        pthread_mutex_unlock(&sc->svc.lock);
    if (running)
        *running = n;
    return sum;
}
