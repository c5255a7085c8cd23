/* segy_gather.c — receiver gathers as SEG-Y rev 1 (through libsegyio): EBCDIC textual
 * header, binary header (sample interval in whole microseconds, exactly the traces'
 * sampling or no file; samples per trace; format 5 IEEE float; revision 1), one trace
 * per receiver: the shot number as FFID, energy source point and shot point, the trace
 * number within the record, the receiver's position (group x/y, bytes 81/85; its depth
 * as a negative group elevation, 41), the shot's (73/77, depth at 49), the midpoint as
 * CDP x/y (181/185), the signed offset (37), a receiver plane's inline/crossline
 * (189/193); coordinates and depths scaled by the scalars at bytes 71 and 69 (-100:
 * centimetres). Big-endian; readable by segyio tools. Written atomically. */
#include "output/outputs.h"
#include "output/segy_common.h"
#include "output/segy_writer.h"
#include "core/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <segyio/segy.h>

/* The gather's sampling as the binary header will state it: dt in whole microseconds
 * (exactly, 1..65535) into *us, 1..FDW_SEGY_MAX_SAMPLES samples; FDW_ERR_UNSUPPORTED
 * (the raw gather holds the samples) otherwise. */
static fdw_status check_sampling(double dt, int ns, double *us, fdw_error *err)
{
    if (!(dt > 0) || !isfinite(dt))
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "gather sample interval %g s", dt);
    *us = nearbyint(dt * 1e6);
    if (*us < 1)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, NULL,
                        "gather sample interval %g s is below the 1 microsecond SEG-Y can "
                        "record; the raw float32 gather holds the samples",
                        dt);
    if (*us > 65535)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, NULL,
                        "gather sample interval %g s exceeds the 65535 microseconds SEG-Y can "
                        "record; the raw float32 gather holds the samples",
                        dt);
    /* The header must state the true sampling: never a rounded one. */
    if (fabs(dt * 1e6 - *us) > 1e-6)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, NULL,
                        "gather sample interval %.9g s is not a whole number of microseconds, "
                        "so a SEG-Y header cannot state it (give time.sample_interval); the "
                        "raw float32 gather holds the samples",
                        dt);
    if (ns < 1 || ns > FDW_SEGY_MAX_SAMPLES)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, NULL,
                        "a SEG-Y trace holds 1 to %d samples; the gather has %d (use a larger "
                        "receivers.interval, or the raw float32 gather)",
                        FDW_SEGY_MAX_SAMPLES, ns);
    return FDW_OK;
}

/* What every trace header of one gather shares. */
typedef struct gather_layout {
    const fdw_receiver *recs;
    int nrec, ns, shotno, has_shot, scalar;
    int32_t us;
    double mult;               /* metres to the scalar's units */
    double spos[3];            /* the shot (0 without one) */
    double dir[2];             /* the spread's direction, for the offset's sign */
} gather_layout;

/* One scalar for every coordinate in the file, and the spread's direction: first to last
 * receiver, horizontally; +x when they coincide. */
static void set_layout(gather_layout *g, const fdw_gather_shot *shot)
{
    g->has_shot = shot != NULL;
    g->shotno = shot ? shot->number : 1;
    g->spos[0] = shot ? shot->x : 0, g->spos[1] = shot ? shot->y : 0;
    g->spos[2] = shot ? shot->z : 0;
    double maxabs = 0;
    for (int r = 0; r < g->nrec; r++)
        for (int a = 0; a < 3; a++)
            maxabs = fmax(maxabs, fabs(g->recs[r].pos[a]));
    for (int a = 0; a < 3; a++)
        maxabs = fmax(maxabs, fabs(g->spos[a]));
    g->scalar = fdw_segy_coord_scalar(maxabs, &g->mult);
    g->dir[0] = 1.0, g->dir[1] = 0.0;
    if (g->nrec > 1) {
        const double ex = g->recs[g->nrec - 1].pos[0] - g->recs[0].pos[0];
        const double ey = g->recs[g->nrec - 1].pos[1] - g->recs[0].pos[1];
        if (ex != 0.0 || ey != 0.0)
            g->dir[0] = ex, g->dir[1] = ey;
    }
}

/* The textual header's lines, then both headers written; 0, or 1 when a write failed. */
static int write_headers(segy_file *fp, const gather_layout *g, double dt)
{
    char l[10][128];
    snprintf(l[0], sizeof l[0], "FDWAVE RECEIVER GATHER, LIBFDWAVE %s", FDW_VERSION);
    snprintf(l[1], sizeof l[1], "SHOT %d: %d TRACES (ONE PER RECEIVER) X %d SAMPLES, DT = %.9g S",
             g->shotno, g->nrec, g->ns, dt);
    snprintf(l[2], sizeof l[2], "FFID (9) = ENERGY SOURCE POINT (17) = SHOT POINT (197) = SHOT");
    snprintf(l[3], sizeof l[3], "SOURCE X/Y 73/77, DEPTH 49; GROUP X/Y 81/85, CDP X/Y 181/185");
    snprintf(l[4], sizeof l[4], "RECEIVER DEPTH = -GROUP ELEVATION (41); SCALARS (69/71) %d",
             g->scalar);
    snprintf(l[5], sizeof l[5], "OFFSET (37): WHOLE METRES, NEGATIVE WHERE THE RECEIVER LIES");
    snprintf(l[6], sizeof l[6], "BEHIND THE SOURCE ALONG THE SPREAD (FIRST TO LAST RECEIVER)");
    snprintf(l[7], sizeof l[7], "INLINE/CROSSLINE 189/193 FOR RECEIVER PLANES (0 OTHERWISE)");
    snprintf(l[8], sizeof l[8], "COORDINATES IN METRES; AMPLITUDE: PRESSURE (ARBITRARY UNITS)");
    snprintf(l[9], sizeof l[9], "FORMAT 5: IEEE FLOAT, BIG-ENDIAN");
    const char *lp[10] = {l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7], l[8], l[9]};
    char bin[SEGY_BINARY_HEADER_SIZE];
    fdw_segy_binary_header(bin, g->nrec, g->us, g->ns, 1); /* 1: as recorded */
    segy_set_bfield(bin, SEGY_BIN_INTERVAL_ORIG, g->us);
    segy_set_bfield(bin, SEGY_BIN_SAMPLES_ORIG, g->ns);
    segy_set_bfield(bin, SEGY_BIN_ENSEMBLE_FOLD, g->nrec < 65535 ? g->nrec : 0);
    return fdw_segy_write_headers(fp, lp, 10, bin);
}

/* Receiver r's trace header (the file comment says which field is where). */
static void trace_header(char *hdr, const gather_layout *g, int r)
{
    const double *p = g->recs[r].pos, *sp = g->spos, mult = g->mult;
    memset(hdr, 0, SEGY_TRACE_HEADER_SIZE);
    segy_set_field(hdr, SEGY_TR_SEQ_LINE, r + 1);
    segy_set_field(hdr, SEGY_TR_SEQ_FILE, r + 1);
    segy_set_field(hdr, SEGY_TR_FIELD_RECORD, g->shotno);
    segy_set_field(hdr, SEGY_TR_NUMBER_ORIG_FIELD, r + 1);
    segy_set_field(hdr, SEGY_TR_ENERGY_SOURCE_POINT, g->shotno);
    segy_set_field(hdr, SEGY_TR_SHOT_POINT, g->shotno);
    segy_set_field(hdr, SEGY_TR_SHOT_POINT_SCALAR, 1);
    segy_set_field(hdr, SEGY_TR_NUM_IN_ENSEMBLE, r + 1);
    segy_set_field(hdr, SEGY_TR_TRACE_ID, 1);
    segy_set_field(hdr, SEGY_TR_SUMMED_TRACES, 1);
    segy_set_field(hdr, SEGY_TR_STACKED_TRACES, 1);
    segy_set_field(hdr, SEGY_TR_DATA_USE, 1);
    segy_set_field(hdr, SEGY_TR_INLINE, g->recs[r].iline);
    segy_set_field(hdr, SEGY_TR_CROSSLINE, g->recs[r].xline);
    segy_set_field(hdr, SEGY_TR_ELEV_SCALAR, g->scalar);
    segy_set_field(hdr, SEGY_TR_SOURCE_GROUP_SCALAR, g->scalar);
    segy_set_field(hdr, SEGY_TR_GROUP_X, fdw_segy_coord(p[0], mult));
    segy_set_field(hdr, SEGY_TR_GROUP_Y, fdw_segy_coord(p[1], mult));
    segy_set_field(hdr, SEGY_TR_RECV_GROUP_ELEV, fdw_segy_coord(-p[2], mult));
    if (g->has_shot) {
        const double ox = p[0] - sp[0], oy = p[1] - sp[1];
        const double sign = ox * g->dir[0] + oy * g->dir[1] < 0 ? -1.0 : 1.0;
        segy_set_field(hdr, SEGY_TR_SOURCE_X, fdw_segy_coord(sp[0], mult));
        segy_set_field(hdr, SEGY_TR_SOURCE_Y, fdw_segy_coord(sp[1], mult));
        segy_set_field(hdr, SEGY_TR_SOURCE_DEPTH, fdw_segy_coord(sp[2], mult));
        /* Offset (bytes 37) is unscaled whole metres by the standard, signed. */
        segy_set_field(hdr, SEGY_TR_OFFSET, fdw_segy_coord(sign * sqrt(ox * ox + oy * oy), 1.0));
        segy_set_field(hdr, SEGY_TR_CDP_X, fdw_segy_coord(0.5 * (p[0] + sp[0]), mult));
        segy_set_field(hdr, SEGY_TR_CDP_Y, fdw_segy_coord(0.5 * (p[1] + sp[1]), mult));
    } else {
        segy_set_field(hdr, SEGY_TR_CDP_X, fdw_segy_coord(p[0], mult));
        segy_set_field(hdr, SEGY_TR_CDP_Y, fdw_segy_coord(p[1], mult));
    }
    segy_set_field(hdr, SEGY_TR_COORD_UNITS, 1);
    segy_set_field(hdr, SEGY_TR_SAMPLE_COUNT, g->ns);
    segy_set_field(hdr, SEGY_TR_SAMPLE_INTER, g->us);
}

fdw_status fdw_write_segy_gather(const char *path, const float *traces, int nrec, int ns,
                                 double dt, const fdw_receiver *recs,
                                 const fdw_gather_shot *shot, fdw_error *err)
{
    if (!path || nrec < 0 || ns < 0 || (nrec > 0 && (!traces || !recs)))
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "fdw_write_segy_gather: bad arguments");
    double us = 0;
    fdw_status st = check_sampling(dt, ns, &us, err);
    if (st != FDW_OK)
        return st;
    gather_layout g = {.recs = recs, .nrec = nrec, .ns = ns, .us = (int32_t)us};
    set_layout(&g, shot);
    fdw_atomic_file af;
    segy_file *fp;
    float *buf;
    if ((st = fdw_segy_writer_open(&af, path, ns, &fp, &buf, err)) != FDW_OK)
        return st;
    int bad = write_headers(fp, &g, dt);
    char hdr[SEGY_TRACE_HEADER_SIZE];
    for (int r = 0; r < nrec && !bad; r++) {
        trace_header(hdr, &g, r);
        memcpy(buf, traces + (size_t)r * (size_t)ns, (size_t)ns * sizeof *buf);
        bad = fdw_segy_write_trace(fp, r, hdr, buf, ns);
    }
    return fdw_segy_writer_close(&af, path, fp, buf, bad, err);
}
