/* run_outputs.c — the final outputs the kinds share (run_state.h): receiver gathers of the
 * wave kinds (assembled from every rank in a distributed run) and the final field of the
 * field kinds. */
#include "run/run_state.h"
#include "run/distrib.h"
#include "run/positioning.h"
#include "core/error.h"

#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Distributed run: the receiver rows (trace-major, zero for rows other ranks record) of
 * every rank assembled on rank 0, each row from the rank that recorded it. Collective. */
static fdw_status gather_traces(fdw_run_state *r, float *traces, fdw_status st, fdw_error *err)
{
    const int nrec = r->prob.nreceivers, n = r->comm->size;
    const size_t ns = (size_t)r->prob.nrec_slots, tb = ns * sizeof(float);
    size_t bytes[FDW_MAX_DEVICES] = {0}, total = 0;
    int *slab_of = malloc((size_t)nrec * sizeof(int));
    if (slab_of) {
        fdw_receiver_slabs(&r->prob, &r->plan, slab_of);
        for (int q = 0; q < nrec; q++)
            if (slab_of[q] >= 0 && slab_of[q] < n)
                bytes[slab_of[q]] += tb;
        for (int q = 0; q < n; q++)
            total += bytes[q];
    }
    const size_t mine = bytes[r->comm->rank];
    char *packed = malloc(mine ? mine : 1);
    char *all = r->root ? malloc(total ? total : 1) : NULL;
    if (st == FDW_OK && (!slab_of || !packed || (r->root && !all)))
        st = fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for the gather");
    /* every rank learns whether all can take part before the gather */
    st = fdw_comm_agree(r->comm, st, err);
    if (st != FDW_OK) {
        free(slab_of);
        free(packed);
        free(all);
        return st;
    }
    size_t at = 0;
    for (int q = 0; q < nrec; q++)
        if (slab_of[q] == r->comm->rank) {
            memcpy(packed + at, traces + (size_t)q * ns, tb);
            at += tb;
        }
    if (r->comm->gather(r->comm, packed, all, bytes) != 0)
        st = fdw_fail(err, FDW_ERR_INTERNAL, NULL, "rank %d: gathering the receiver traces "
                      "on rank 0 failed", r->comm->rank);
    if (st == FDW_OK && r->root) {
        /* rank q's part holds its receivers in receiver order, parts in rank order */
        at = 0;
        for (int q = 0; q < n; q++)
            for (int v = 0; v < nrec; v++)
                if (slab_of[v] == q) {
                    memcpy(traces + (size_t)v * ns, all + at, tb);
                    at += tb;
                }
    }
    free(slab_of);
    free(packed);
    free(all);
    return st;
}

/* A gather file into the manifest: [receiver][sample] with its sample interval and the
 * printf-style description. */
static void list_gather(fdw_run_state *r, const char *name, const char *format,
                        const long dims[2], double sdt, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static void list_gather(fdw_run_state *r, const char *name, const char *format,
                        const long dims[2], double sdt, const char *fmt, ...)
{
    char desc[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(desc, sizeof desc, fmt, ap);
    va_end(ap);
    fdw_manifest_add(r->manifest, name, "gather", format, desc, 2, dims,
                     "wavefield amplitude (arbitrary)", -1, -1.0);
    fdw_manifest_set_number(r->manifest, name, "sample_interval", sdt);
}

fdw_status fdw_run_write_gathers(fdw_run_state *r, char *extra, size_t len, fdw_error *err)
{
    (void)extra;
    (void)len;
    const fdw_spec *spec = r->spec;
    const int nrows = r->prob.nreceivers, nrec = fdw_problem_receivers(&r->prob);
    const long ns = r->prob.nrec_slots;
    if (nrec <= 0 || nrows <= 0 || ns <= 0 || !r->be->fetch_receivers)
        return FDW_OK;
    const size_t total = (size_t)nrec * (size_t)ns, rtotal = (size_t)nrows * (size_t)ns;
    float *rows = malloc(rtotal * sizeof(float));
    float *traces = malloc(total * sizeof(float));
    const long chunk = 64;
    float *slots = malloc((size_t)chunk * (size_t)nrows * sizeof(float));
    fdw_status st = FDW_OK;
    if (!rows || !traces || !slots)
        st = fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for the gather (%.1f MiB)",
                      (double)(total + rtotal) * 4.0 / (1024.0 * 1024.0));
    /* Slot-major rows from the backend, transposed in chunks into trace-major. */
    for (long s0 = 0; s0 < ns && st == FDW_OK; s0 += chunk) {
        const long cnt = ns - s0 < chunk ? ns - s0 : chunk;
        st = r->be->fetch_receivers(r->ctx, s0, cnt, slots, err);
        for (long s = 0; s < cnt && st == FDW_OK; s++)
            for (int rc = 0; rc < nrows; rc++)
                rows[(size_t)rc * ns + s0 + s] = slots[(size_t)s * nrows + rc];
    }
    if (r->comm) /* collective: called by every rank, whatever its status */
        st = gather_traces(r, rows, st, err);
    if (st != FDW_OK || !r->root)
        goto out;
    /* each receiver the sum of its rows (positioning.h), the same on any slab count */
    fdw_receivers_combine(&r->prob, rows, ns, traces);
    const double sdt = spec->sample_interval > 0 ? spec->sample_interval
                                                 : spec->dt * r->prob.rec_interval;
    char path[FDW_PATH_MAX + 32];
    const long dims[2] = {ns, nrec};
    snprintf(path, sizeof path, "%s/gather.f32", r->opts->out_dir);
    st = fdw_write_raw_f32(path, traces, total, err);
    if (st != FDW_OK)
        goto out;
    list_gather(r, "gather.f32", "raw-f32", dims, sdt,
                "receiver gather, float32 little-endian [receiver][sample], %d x %ld, sample "
                "interval %g s (sample 0 is t = 0)", nrec, ns, sdt);
    snprintf(path, sizeof path, "%s/gather.segy", r->opts->out_dir);
    /* a survey's shot (run/survey.c) carries its number; a single-shot run is shot 1 */
    fdw_gather_shot shot = {spec->shot_number > 0 ? spec->shot_number : 1, 0, 0, 0};
    if (spec->nsources > 0) {
        shot.x = spec->sources[0].pos[0];
        shot.y = spec->sources[0].pos[1];
        shot.z = spec->sources[0].pos[2];
    }
    st = fdw_write_segy_gather(path, traces, nrec, (int)(ns < INT_MAX ? ns : INT_MAX), sdt,
                               spec->receivers, spec->nsources > 0 ? &shot : NULL, err);
    if (st == FDW_ERR_UNSUPPORTED) {
        /* SEG-Y cannot hold this gather (sample count or interval); the raw one has it. */
        fdw_run_log(r, FDW_LOG_WARN, "no gather.segy: %s; gather.f32 holds the traces",
                err->message);
        fdw_error_clear(err);
        st = FDW_OK;
        goto out;
    }
    if (st != FDW_OK)
        goto out;
    list_gather(r, "gather.segy", "segy", dims, sdt,
                "receiver gather, %d traces of %ld samples every %g s (sample 0 is t = 0); "
                "SEG-Y rev1, IEEE float", nrec, ns, sdt);
out:
    free(rows);
    free(traces);
    free(slots);
    return st;
}

/* 64-bit FNV-1a of the field's bytes: equal hashes mean bit-identical fields. */
static uint64_t fnv1a64(const float *v, size_t n)
{
    const unsigned char *b = (const unsigned char *)v;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n * sizeof(float); i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

fdw_status fdw_run_write_field(fdw_run_state *r, char *extra, size_t len, fdw_error *err)
{
    const fdw_spec *spec = r->spec;
    const size_t n = (size_t)spec->nx * spec->ny * spec->nz;
    fdw_status st = fdw_run_fetch_volume(r, err);
    if (st != FDW_OK || !r->root)
        return st;
    double sum = 0.0, sq = 0.0;
    for (size_t i = 0; i < n; i++) {
        sum += r->volume[i];
        sq += (double)r->volume[i] * r->volume[i];
    }
    char path[FDW_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/field.f32", r->opts->out_dir);
    st = fdw_write_raw_f32(path, r->volume, n, err);
    if (st != FDW_OK)
        return st;
    const long dims[3] = {spec->nx, spec->ny, spec->nz};
    char desc[160];
    snprintf(desc, sizeof desc, "final field after %ld iterations, float32 little-endian, x "
             "fastest", r->steps_done);
    fdw_manifest_add(r->manifest, "field.f32", "field", "raw-f32", desc, 3, dims,
                     "field value (dimensionless)", r->steps_done, -1.0);
    snprintf(extra, len, ", \"checksum\": %.17g, \"l2_norm\": %.17g, \"fnv1a64\": \"%016llx\"",
             sum, sqrt(sq), (unsigned long long)fnv1a64(r->volume, n));
    return FDW_OK;
}

