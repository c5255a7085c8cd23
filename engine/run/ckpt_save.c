/* ckpt_save.c — taking a run's checkpoints while the time loop goes on (checkpoint.h). At a
 * checkpoint step the loop copies the backend's state into its host image (backend.h
 * capture) and the loop's own state, and hands both to the checkpoint writer's thread
 * (ckpt_writer.h), which writes this process's file: temporary name, checksum, fsync,
 * rename (ckpt_io.h). The loop learns without blocking that the write has ended (in a
 * distributed run through the reduction it makes every step anyway) and then publishes
 * it: the processes agree that every file is complete, rank 0 replaces "current", the
 * checkpoint callback is called, and each process's older files are removed by the
 * writer's thread (their unlink can take seconds). At most one write is in flight; the image is allocated once per run, on the writer's thread ahead of the first
 * checkpoint where it can be (see maybe_prepare). */
#include "core/error.h"
#include "core/limits.h"
#include "run/checkpoint.h"
#include "run/ckpt_format.h"
#include "run/ckpt_image.h"
#include "run/ckpt_io.h"
#include "run/ckpt_writer.h"
#include "run/run_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef fdw_run_state run;

/* What the writer's thread was last given (JOB_NONE once collected). */
enum { JOB_NONE, JOB_PREPARE, JOB_WRITE, JOB_REMOVE };

struct fdw_ckpt_save {
    fdw_ckpt_writer *writer;
    const fdw_backend *be;     /* prepare's target */
    void *ctx;
    const run *r;              /* the removal's directory and rank */
    long keep;                 /* the removal's checkpoint to keep */
    int job;
    /* the write in flight: read by the writer's thread from submit until it ends */
    long step;
    char path[FDW_PATH_MAX + 64];
    fdw_ckpt_header header;
    fdw_ckpt_loop loop;
    fdw_ckpt_image img;
    double t0;                 /* when its capture began */
    double pause_s;            /* how long the loop stopped for it (the capture, the wait
                                  for the previous write, its own publication) */
    double t_end;              /* writer: when its file was complete (or failed) */
    /* the loop's pace around a write (step_rates): the last publication (or the loop's
     * start), and the write's submission */
    double t_mark, t_pre, t_sub; /* t_pre: when the loop reached the checkpoint (t_sub: left it) */
    long step_mark, step_sub;
};

static const fdw_checkpoint_opts *opts_of(const run *r)
{
    return r->opts ? r->opts->checkpoint : NULL;
}

/* The writer's jobs. */
static fdw_status prepare_job(void *arg, fdw_error *err)
{
    struct fdw_ckpt_save *s = arg;
    return s->be->prepare ? s->be->prepare(s->ctx, err) : FDW_OK;
}

static fdw_status write_job(void *arg, fdw_error *err)
{
    struct fdw_ckpt_save *s = arg;
    fdw_ckpt_io *io = NULL;
    fdw_status st = fdw_ckpt_create(&io, s->path, err);
    if (st == FDW_OK) {
        st = fdw_ckpt_put(io, &s->header, sizeof s->header, err);
        if (st == FDW_OK)
            st = fdw_ckpt_loop_put(&s->loop, io, err);
        if (st == FDW_OK)
            st = fdw_ckpt_image_put(&s->img, io, err);
        if (st == FDW_OK)
            st = fdw_ckpt_finish(io, err); /* closes io; removes the temporary on failure */
        else
            fdw_ckpt_abandon(io);
    }
    s->t_end = fdw_now();
    return st;
}

/* The files of older checkpoints removed (after a publication): a large file's unlink
 * takes seconds where its pages are cached, so it runs beside the loop. */
static fdw_status remove_job(void *arg, fdw_error *err)
{
    (void)err;
    const struct fdw_ckpt_save *s = arg;
    fdw_ckpt_remove_files(s->r, s->keep);
    return FDW_OK;
}

/* Collect a removal that has ended, or (wait) the one in flight. */
static void finish_remove(struct fdw_ckpt_save *s, int wait)
{
    if (!s || s->job != JOB_REMOVE || (!wait && fdw_ckpt_writer_busy(s->writer)))
        return;
    fdw_error e;
    fdw_ckpt_writer_wait(s->writer, &e);
    s->job = JOB_NONE;
}

/* The writer's thread, started at first use. */
static fdw_status open_save(run *r, fdw_error *err)
{
    if (r->ckpt.save)
        return FDW_OK;
    struct fdw_ckpt_save *s = calloc(1, sizeof *s);
    if (!s)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for checkpoints");
    s->be = r->be;
    s->ctx = r->ctx;
    s->r = r;
    s->step = -1;
    s->t_mark = r->meter.t_start; /* the loop's start, at the step it started from */
    s->step_mark = r->ckpt.resumed;
    const fdw_status st = fdw_ckpt_writer_start(&s->writer, err);
    if (st != FDW_OK) {
        free(s);
        return st;
    }
    r->ckpt.save = s;
    return FDW_OK;
}

/* How fast the loop stepped while the write just published went on, against before it
 * (from the previous publication, or the loop's start, to the checkpoint; neither counts
 * a pause): a write that slows the steps shows here, where the pause does not. An info
 * line; the marks move on. */
static void step_rates(run *r, struct fdw_ckpt_save *s, long step)
{
    const double now = fdw_now(), before = s->t_pre - s->t_mark, during = now - s->t_sub;
    const long nb = s->step_sub - s->step_mark, nd = r->steps_done - s->step_sub;
    if (nb > 0 && nd > 0 && before > 0.0 && during > 0.0)
        fdw_run_log(r, FDW_LOG_INFO, "checkpoint of step %ld: the loop ran %ld steps at %.3f "
                    "ms a step while it was written (%.3f ms a step before it)", step, nd,
                    1e3 * during / (double)nd, 1e3 * before / (double)nb);
    s->t_mark = now;
    s->step_mark = r->steps_done;
}

/* Prefix err's message with which checkpoint could not be written. */
static fdw_status not_written(long step, fdw_status st, fdw_error *err)
{
    char msg[sizeof err->message];
    snprintf(msg, sizeof msg, "%s", err->message);
    return fdw_fail(err, st, NULL, "checkpoint of step %ld not written: %s", step, msg);
}

/* The write in flight has ended on this process with status st (collected): agree with
 * the other processes; when every file is complete, rank 0 makes the checkpoint current
 * and each has its older files removed by the writer's thread (remove_job); otherwise
 * each removes its file (the previous checkpoint stays current) and the failure is
 * returned. Collective. */
static fdw_status publish(run *r, fdw_status st, fdw_error *err)
{
    struct fdw_ckpt_save *s = r->ckpt.save;
    const double t0 = fdw_now();
    const long step = s->step;
    s->job = JOB_NONE;
    s->step = -1;
    fdw_ckpt_loop_free(&s->loop);
    if (st != FDW_OK)
        not_written(step, st, err);
    st = fdw_comm_agree(r->comm, st, err);
    if (st == FDW_OK && r->root) {
        char cur[FDW_PATH_MAX + 16], text[96];
        fdw_ckpt_current_path(r, cur, sizeof cur);
        snprintf(text, sizeof text, "fdwave checkpoint\nstep %ld\nranks %d\n", step,
                 fdw_ckpt_ranks(r));
        st = fdw_ckpt_write_text(cur, text, err);
    }
    st = fdw_comm_agree(r->comm, st, err); /* "current" names the new set everywhere */
    if (st != FDW_OK) {
        unlink(s->path);
        return st;
    }
    r->ckpt.written = step;
    s->pause_s += fdw_now() - t0; /* the loop's part of the work too */
    fdw_ckpt_report(r, 0, step, s->t_end - s->t0, s->pause_s);
    step_rates(r, s, step);
    s->keep = step;
    s->job = JOB_REMOVE;
    fdw_ckpt_writer_submit(s->writer, remove_job, s);
    return FDW_OK;
}

/* Wait for the write in flight and publish it (collective); a debug line first when the
 * loop has to wait, naming what waits. */
static fdw_status finish_write(run *r, const char *who, fdw_error *err)
{
    struct fdw_ckpt_save *s = r->ckpt.save;
    const double t0 = fdw_now();
    const int busy = fdw_ckpt_writer_busy(s->writer);
    if (busy)
        fdw_run_log(r, FDW_LOG_DEBUG, "checkpoint: %s waits for the write of step %ld", who,
                    s->step);
    const fdw_status st = fdw_ckpt_writer_wait(s->writer, err);
    if (busy)
        fdw_run_log(r, FDW_LOG_DEBUG, "checkpoint: waited %.3f s for the write of step %ld",
                    fdw_now() - t0, s->step);
    return publish(r, st, err);
}

/* Collect a preparation of the image (its failure: that of the checkpoint to come). */
static fdw_status finish_prepare(struct fdw_ckpt_save *s, fdw_error *err)
{
    s->job = JOB_NONE;
    return fdw_ckpt_writer_wait(s->writer, err);
}

/* Allocate the backend's image on the writer's thread ahead of the first checkpoint, once
 * half the steps or seconds to it have passed: the loop then finds it ready, and a run
 * that ends sooner (most short jobs under the daemon's 10-minute interval) never holds
 * it. */
static fdw_status maybe_prepare(run *r, long done, fdw_error *err)
{
    const fdw_checkpoint_opts *o = opts_of(r);
    if (r->ckpt.prepared || !r->be->prepare)
        return FDW_OK;
    const int half = (o->every_steps > 0 && 2 * (done % o->every_steps) >= o->every_steps) ||
                     (o->interval_s > 0 && fdw_now() - r->ckpt.t_last >= o->interval_s / 2);
    if (!half)
        return FDW_OK;
    const fdw_status st = open_save(r, err);
    if (st != FDW_OK)
        return st;
    r->ckpt.prepared = 1;
    r->ckpt.save->job = JOB_PREPARE;
    fdw_ckpt_writer_submit(r->ckpt.save->writer, prepare_job, r->ckpt.save);
    return FDW_OK;
}

fdw_status fdw_checkpoint_poll(run *r, long done, int *due, fdw_error *err)
{
    *due = 0;
    const fdw_checkpoint_opts *o = opts_of(r);
    const int can_suspend = r->cb && r->cb->suspend;
    if ((!r->ckpt.enabled && !can_suspend) || done >= r->prob.nsteps)
        return FDW_OK;
    int flag = 0;
    if (r->ckpt.enabled &&
        ((o->every_steps > 0 && done % o->every_steps == 0) ||
         (o->interval_s > 0 && fdw_now() - r->ckpt.t_last >= o->interval_s)))
        flag = 1;
    if (r->root && can_suspend && r->cb->suspend(r->cb->user))
        flag = 2;
    /* the flag and whether this process still writes, in one reduction: the largest flag
     * wins, and where none is due the low bit says whether any process still writes */
    struct fdw_ckpt_save *s = r->ckpt.save;
    finish_remove(s, 0);
    const int writing = s && s->job == JOB_WRITE;
    int v = 2 * flag + (writing && fdw_ckpt_writer_busy(s->writer));
    if (r->comm && r->comm->allreduce_max(r->comm, &v) != 0)
        v = 1; /* a failed reduction: nothing now; it shows at the next agreement */
    *due = v / 2;
    if (*due > 0)
        return FDW_OK; /* the write in flight is published by the next one */
    if (writing && !(v & 1))
        return publish(r, fdw_ckpt_writer_wait(s->writer, err), err);
    return r->ckpt.enabled ? maybe_prepare(r, done, err) : FDW_OK;
}

fdw_status fdw_checkpoint_write(run *r, fdw_error *err)
{
    const long step = r->steps_done;
    if (!r->ckpt.enabled || step == r->ckpt.written)
        return FDW_OK; /* nothing new since the last one */
    const double t_in = fdw_now();
    fdw_status st = open_save(r, err);
    struct fdw_ckpt_save *s = r->ckpt.save;
    /* at most one write in flight: the previous one ends and is published first (every
     * process has one, or none) */
    if (st == FDW_OK && s->job == JOB_WRITE)
        st = finish_write(r, "the next checkpoint", err);
    else if (st == FDW_OK && s->job == JOB_PREPARE)
        st = finish_prepare(s, err);
    if (st == FDW_OK)
        finish_remove(s, 1); /* (the publication just made may have started one) */
    const double t0 = fdw_now();
    if (st == FDW_OK) {
        s->step = step;
        fdw_ckpt_file_path(r, step, fdw_ckpt_rank(r), s->path, sizeof s->path);
        fdw_ckpt_header_fill(r, step, &s->header);
        st = fdw_ckpt_loop_capture(r, &s->loop, err);
        if (st == FDW_OK)
            st = r->be->capture(r->ctx, &s->img, err);
        if (st != FDW_OK)
            not_written(step, st, err);
    }
    r->ckpt.prepared = 1;
    st = fdw_comm_agree(r->comm, st, err); /* every image holds the state, or none is written */
    if (st != FDW_OK) {
        if (s)
            fdw_ckpt_loop_free(&s->loop);
        return st;
    }
    r->ckpt.t_last = fdw_now();
    s->t0 = t0;
    s->pause_s = r->ckpt.t_last - t_in;
    s->t_pre = t_in;
    s->t_sub = r->ckpt.t_last;
    s->step_sub = step;
    s->job = JOB_WRITE;
    fdw_ckpt_writer_submit(s->writer, write_job, s);
    return FDW_OK;
}

fdw_status fdw_checkpoint_settle(run *r, fdw_status st, fdw_error *err)
{
    struct fdw_ckpt_save *s = r->ckpt.save;
    finish_remove(s, 1);
    if (!s || s->job == JOB_NONE)
        return st;
    fdw_error e;
    fdw_error_clear(&e);
    if (s->job == JOB_PREPARE) { /* an image no checkpoint will use now */
        finish_prepare(s, &e);
        return st;
    }
    if (st == FDW_OK)
        return finish_write(r, "the run's end", err);
    if (finish_write(r, st == FDW_ERR_CANCELLED ? "the run's stop" : "the failed run", &e) !=
        FDW_OK)
        fdw_run_log(r, FDW_LOG_WARN, "%s", e.message);
    return st;
}

void fdw_checkpoint_release(run *r)
{
    struct fdw_ckpt_save *s = r->ckpt.save;
    if (!s)
        return;
    fdw_ckpt_writer_free(s->writer); /* the job it has ends first */
    fdw_ckpt_loop_free(&s->loop);
    fdw_ckpt_image_free(&s->img);
    free(s);
    r->ckpt.save = NULL;
}
