/* scheduler.c — the scheduling loop and worker threads (see scheduler.h). One thread
 * decides; each started job gets its own thread (at most g_app.workers at once) that
 * runs worker_run and then marks its slot done. The loop wakes on sched_kick() and at
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
#include "auth/sharing.h"
#include "store/waiting.h"
#include "sched/worker.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define AGING_MS 60000

typedef struct slot {
    int active;                /* a thread was started and not yet joined */
    int done;                  /* the thread finished; join it and free its devices */
    int dev_index[APP_MAX_DEVICES];
    pthread_t thread;
    worker_job job;
} slot;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static slot *g_slots;
static int g_nslots;
static int64_t g_busy[APP_MAX_DEVICES]; /* job on device index i, 0 = free */
static int g_stop, g_kicked, g_running;
static pthread_t g_thread;
/* What the last pass found, valid while the loop waits (g_waiting): a job submitted with
 * a rank (sharing_rank) <= g_block_rank cannot start before something else changes (a
 * finished job, a cancel, a kick), so sched_submitted need not wake the loop for it.
 * RANK_NONE: the pass was not blocked (queue empty), every submission wakes it. */
static int g_waiting;
#define RANK_NONE (-1e300)
#define RANK_ALL (1e300)
static double g_block_rank = RANK_NONE;
static double g_submitted = RANK_NONE; /* the highest rank submitted during a pass */
static waiting_book g_book;     /* why queued jobs wait; the scheduler thread's own */

static void *job_thread(void *arg)
{
    slot *s = arg;
    /* A CPU-backend simulation lowers its own priority (worker.c, --cpu-job-sched); GPU
     * host threads mostly wait for the device and keep normal priority. */
    worker_run(&s->job);
    db_release_thread();
    pthread_mutex_lock(&g_lock);
    s->done = 1;
    g_kicked = 1; /* devices freed: a pass now, even if one is running (it would miss it) */
    pthread_cond_signal(&g_cond);
    pthread_mutex_unlock(&g_lock);
    return NULL;
}

/* Join finished threads and free their devices. Called with g_lock held. */
static void reap(void)
{
    for (int i = 0; i < g_nslots; i++) {
        slot *s = &g_slots[i];
        if (s->active && s->done) {
            pthread_join(s->thread, NULL);
            for (int d = 0; d < s->job.ndevices; d++)
                g_busy[s->dev_index[d]] = 0;
            admission_release(admission_job_host_bytes(s->job.host_bytes));
            s->active = 0;
            s->done = 0;
        }
    }
}

/* Pick devices for a job needing g (or exactly the wanted ids). Returns 0 and fills
 * idx with device indices, or -1 if they are not free now. g_lock held. */
static int pick_devices(int g, const int *wanted, int nwanted, int *idx)
{
    if (nwanted > 0) {
        for (int k = 0; k < nwanted; k++) {
            int found = -1;
            for (int i = 0; i < g_app.ndevices; i++)
                if (g_app.devices[i].id == wanted[k])
                    found = i;
            if (found < 0 || g_busy[found])
                return -1;
            idx[k] = found;
        }
        return 0;
    }
    int n = 0;
    for (int i = 0; i < g_app.ndevices && n < g; i++)
        if (!g_busy[i])
            idx[n++] = i;
    return n == g ? 0 : -1;
}

/* Ask the running job of lowest priority, preempt-gap levels or more below the head, to
 * make room: it writes a checkpoint and goes back to the queue (worker.c). One at a time:
 * none while another is being preempted. g_lock held. */
static void preempt_for(const sharing_job *head)
{
    const int gap = g_app.cfg.preempt_gap;
    if (gap <= 0)
        return;
    const int head_prio = head->priority + quota_of(head->owner)->priority;
    slot *victim = NULL;
    int victim_prio = 0;
    for (int i = 0; i < g_nslots; i++) {
        slot *s = &g_slots[i];
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

/* Whether the head may start now as far as memory and disk go; notes why not. g_lock
 * held. */
static int resources_allow(const sharing_job *head, uint64_t host)
{
    disk_status ds;
    const double gib = 1u << 30;
    if (!admission_fits(host)) {
        waiting_note(&g_book, head->id, WAIT_MEMORY, "waits for host memory: it needs %.3g "
                     "GiB; %.3g GiB of %.3g GiB is held by running jobs", (double)host / gib,
                     (double)admission_reserved() / gib, (double)admission_host_budget() / gib);
        return 0;
    }
    if (diskguard_status(&ds) == 0 && ds.low) {
        waiting_note(&g_book, head->id, WAIT_DISK, "waits for disk space: the data "
                     "directory's disk has %.3g GiB free, below min-free-disk (%.3g GiB)",
                     (double)ds.free_bytes / gib, (double)g_app.cfg.min_free_disk / gib);
        return 0;
    }
    return 1;
}

/* Notes why the head's devices (g of them, or the wanted ids) are not free. g_lock held. */
static void note_devices(const sharing_job *head, int g, const int *wanted, int nwanted)
{
    char jobs[120] = "";
    size_t len = 0;
    int nfree = 0;
    for (int i = 0; i < g_app.ndevices; i++) {
        int asked = nwanted == 0;
        for (int k = 0; k < nwanted; k++)
            asked |= g_app.devices[i].id == wanted[k];
        if (!g_busy[i])
            nfree += asked;
        else if (asked && len + 24 < sizeof jobs)
            len += (size_t)snprintf(jobs + len, sizeof jobs - len, "%s%d: job %lld",
                                    len ? ", " : "", g_app.devices[i].id, (long long)g_busy[i]);
    }
    if (nwanted > 0)
        waiting_note(&g_book, head->id, WAIT_DEVICES, "waits for devices: it names %d of "
                     "them, %d free; busy: %s", nwanted, nfree, jobs);
    else
        waiting_note(&g_book, head->id, WAIT_DEVICES, "waits for devices: it needs %d, %d of "
                     "%d free; busy: %s", g, nfree, g_app.ndevices, jobs);
}

/* Start the head of the queue if it can start. Returns 1 if a job started (try again),
 * 0 if nothing can start now, with g_block_rank set (see there). Called with g_lock
 * held; drops it around database work. */
static int try_start(void)
{
    int free_slot = -1;
    for (int i = 0; i < g_nslots; i++)
        if (!g_slots[i].active) {
            free_slot = i;
            break;
        }
    sharing_job head;
    g_block_rank = RANK_NONE;
    pthread_mutex_unlock(&g_lock);
    int r = sharing_head(AGING_MS, &head, &g_book);
    pthread_mutex_lock(&g_lock);
    if (r != 1 || g_stop)
        return 0;
    if (free_slot < 0) { /* every slot busy: only a preemption can make room */
        waiting_note(&g_book, head.id, WAIT_WORKER, "waits for a worker: %d job%s run%s, "
                     "the most at once (workers=%d)", g_nslots, g_nslots == 1 ? "" : "s",
                     g_nslots == 1 ? "s" : "", g_nslots);
        g_block_rank = RANK_ALL;
        preempt_for(&head);
        return 0;
    }
    const int64_t id = head.id;
    const int nwanted = head.nwanted;
    const int *wanted = head.wanted;
    int g = nwanted > 0 ? nwanted : head.devices_requested;
    int missing = -1;
    for (int k = 0; k < nwanted; k++) {
        int found = 0;
        for (int i = 0; i < g_app.ndevices; i++)
            found |= g_app.devices[i].id == wanted[k];
        if (!found)
            missing = wanted[k];
    }
    if (g < 1 || g > g_app.ndevices || missing >= 0) {
        /* Accepted by an earlier daemon with more devices: it can never run here, and as
         * the head of the queue it would hold up every job behind it. */
        char reason[160];
        if (missing >= 0)
            snprintf(reason, sizeof reason, "device %d no longer exists on this server",
                     missing);
        else
            snprintf(reason, sizeof reason, "needs %d devices; this server now has %d", g,
                     g_app.ndevices);
        pthread_mutex_unlock(&g_lock);
        jobs_fail_queued(id, reason);
        pthread_mutex_lock(&g_lock);
        return 1;
    }
    int idx[APP_MAX_DEVICES];
    if (pick_devices(g, wanted, nwanted, idx)) {
        /* Head-of-line: nobody behind it may take the devices. A new job ranks at its
         * bare priority and loses ties to this older head. */
        note_devices(&head, g, wanted, nwanted);
        g_block_rank = head.rank;
        preempt_for(&head);
        return 0;
    }
    const uint64_t host = admission_job_host_bytes(head.host_bytes);
    if (!resources_allow(&head, host)) {
        g_block_rank = head.rank;
        return 0;
    }
    int ids[APP_MAX_DEVICES];
    for (int k = 0; k < g; k++) {
        ids[k] = g_app.devices[idx[k]].id;
        g_busy[idx[k]] = id; /* reserve before dropping the lock */
    }
    admission_reserve(host);
    /* The slot exists before the claim commits, so a cancel that arrives as soon as the
     * job shows "running" finds it (sched_cancel) and the run stops at its first step. */
    slot *s = &g_slots[free_slot];
    memset(&s->job, 0, sizeof s->job);
    s->job.job_id = id;
    s->job.ndevices = g;
    s->job.total_devices = g_app.ndevices;
    s->job.priority = head.priority + quota_of(head.owner)->priority;
    s->job.host_bytes = head.host_bytes;
    memcpy(s->job.device_ids, ids, sizeof(int) * (size_t)g);
    memcpy(s->dev_index, idx, sizeof(int) * (size_t)g);
    s->active = 1;
    s->done = 0;
    pthread_mutex_unlock(&g_lock);
    int claimed = jobs_claim(id, ids, g);
    pthread_mutex_lock(&g_lock);
    if (claimed != 0) {
        for (int k = 0; k < g; k++)
            g_busy[idx[k]] = 0;
        admission_release(host);
        s->active = 0;
        return 1; /* cancelled meanwhile: look again */
    }
    if (pthread_create(&s->thread, NULL, job_thread, s) != 0) {
        log_error("job %lld: cannot start a worker thread", (long long)id);
        s->active = 0;
        for (int k = 0; k < g; k++)
            g_busy[idx[k]] = 0;
        admission_release(host);
        pthread_mutex_unlock(&g_lock);
        jobs_finish(id, "failed", "internal: cannot start a worker thread", 0, NULL);
        pthread_mutex_lock(&g_lock);
    }
    return 1;
}

static void *sched_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&g_lock);
    while (!g_stop) {
        reap();
        waiting_begin(&g_book);
        g_submitted = RANK_NONE;
        while (!g_stop && try_start())
            reap();
        if (g_stop)
            break;
        pthread_mutex_unlock(&g_lock);
        waiting_record(&g_book);
        pthread_mutex_lock(&g_lock);
        if (g_stop)
            break;
        /* Jobs submitted during the pass need another only if they may outrank what
         * blocked it (a steady stream of submissions would otherwise keep it busy). */
        if (!g_kicked && g_submitted <= g_block_rank) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += 1;
            g_waiting = 1;
            pthread_cond_timedwait(&g_cond, &g_lock, &ts);
            g_waiting = 0;
        }
        g_kicked = 0;
    }
    /* Shutdown: ask every running job to re-queue itself, then wait for them. */
    for (int i = 0; i < g_nslots; i++)
        if (g_slots[i].active) {
            int expected = WORKER_RUN;
            atomic_compare_exchange_strong(&g_slots[i].job.stop, &expected, WORKER_REQUEUE);
        }
    for (;;) {
        reap();
        int left = 0;
        for (int i = 0; i < g_nslots; i++)
            left += g_slots[i].active;
        if (!left)
            break;
        pthread_cond_wait(&g_cond, &g_lock);
    }
    pthread_mutex_unlock(&g_lock);
    db_release_thread();
    return NULL;
}

int sched_start(void)
{
    g_nslots = g_app.workers;
    g_slots = calloc((size_t)g_nslots, sizeof *g_slots);
    if (!g_slots)
        return -1;
    g_stop = 0;
    if (pthread_create(&g_thread, NULL, sched_main, NULL) != 0)
        return -1;
    g_running = 1;
    return 0;
}

void sched_kick(void)
{
    pthread_mutex_lock(&g_lock);
    g_kicked = 1;
    pthread_cond_signal(&g_cond);
    pthread_mutex_unlock(&g_lock);
}

void sched_submitted(double top_rank)
{
    pthread_mutex_lock(&g_lock);
    if (!g_waiting) { /* a pass is under way: judged against what it finds (sched_main) */
        if (top_rank > g_submitted)
            g_submitted = top_rank;
    } else if (top_rank > g_block_rank) {
        g_kicked = 1;
        pthread_cond_signal(&g_cond);
    }
    pthread_mutex_unlock(&g_lock);
}

int sched_cancel(int64_t job_id)
{
    int found = 0;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < g_nslots; i++)
        if (g_slots[i].active && !g_slots[i].done && g_slots[i].job.job_id == job_id) {
            /* A cancel wins over a suspension under way (shutdown, preemption): the job
             * ends cancelled instead of going back to the queue. */
            int s = atomic_load(&g_slots[i].job.stop);
            while ((s == WORKER_RUN || s == WORKER_REQUEUE || s == WORKER_PREEMPT) &&
                   !atomic_compare_exchange_weak(&g_slots[i].job.stop, &s, WORKER_CANCEL))
                ;
            found = 1;
        }
    pthread_mutex_unlock(&g_lock);
    return found;
}

void sched_stop(void)
{
    if (!g_running)
        return;
    pthread_mutex_lock(&g_lock);
    g_stop = 1;
    pthread_cond_signal(&g_cond);
    pthread_mutex_unlock(&g_lock);
    pthread_join(g_thread, NULL);
    g_running = 0;
    free(g_slots);
    g_slots = NULL;
    g_nslots = 0;
}

int64_t sched_device_job(int i)
{
    pthread_mutex_lock(&g_lock);
    int64_t j = i >= 0 && i < APP_MAX_DEVICES ? g_busy[i] : 0;
    pthread_mutex_unlock(&g_lock);
    return j;
}

double sched_mpts(int *running)
{
    double sum = 0;
    int n = 0;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < g_nslots; i++)
        if (g_slots[i].active && !g_slots[i].done) {
            sum += g_slots[i].job.mpts;
            n++;
        }
    pthread_mutex_unlock(&g_lock);
    if (running)
        *running = n;
    return sum;
}
