/* model_segy.c — SEG-Y velocity models through Debian's libsegyio. Convention
 * (model_io.h): one trace per (i, j) column, inline number = y index, crossline number =
 * x index (bytes 189/193), nz samples per trace (depth), sample interval dz*1000 in the
 * headers. Readers infer the inline/crossline geometry from the trace headers (sorted by
 * inline with crossline fastest, or by crossline), accept files with no line numbers at
 * all as nx*ny traces in x-fastest order, check it against the grid, and convert IBM
 * (format 1) or IEEE (format 5) samples while streaming one trace at a time; the file is
 * opened as every SEG-Y reader opens it (segy_reader.h). */
#include "model/model_io.h"
#include "model/model_formats.h"
#include "output/segy_common.h"
#include "output/segy_reader.h"
#include "output/segy_writer.h"
#include "core/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <segyio/segy.h>

typedef enum { SORT_INLINE, SORT_CROSSLINE, SORT_NONE } trace_order;

static fdw_status read_header(fdw_segy_in *in, int t, int32_t *il, int32_t *xl, fdw_error *err)
{
    if (segy_traceheader(in->fp, t, in->hdr, in->trace0, in->trsize) != SEGY_OK)
        return fdw_fail(err, FDW_ERR_IO, in->field, "cannot read trace header %d of %s", t + 1,
                        in->path);
    segy_get_field(in->hdr, SEGY_TR_INLINE, il);
    segy_get_field(in->hdr, SEGY_TR_CROSSLINE, xl);
    return FDW_OK;
}

/* The sample interval the file records (binary header, else the first trace header), as
 * a depth step in metres under the dz*1000 convention; 0 when it records none. */
static fdw_status recorded_dz(fdw_segy_in *in, double *dz, fdw_error *err)
{
    int32_t dt = 0;
    segy_get_bfield(in->bin, SEGY_BIN_INTERVAL, &dt);
    dt &= 0xffff;
    if (dt == 0) {
        int32_t il, xl;
        fdw_status st = read_header(in, 0, &il, &xl, err);
        if (st != FDW_OK)
            return st;
        segy_get_field(in->hdr, SEGY_TR_SAMPLE_INTER, &dt);
        dt &= 0xffff;
    }
    *dz = dt / 1000.0;
    return FDW_OK;
}

/* The file's trace geometry: its order, the traces of a line (run), the lines, and as the
 * traces are read the first line's numbers along it and the current line's number. */
typedef struct geometry {
    trace_order order;
    int run, nil, nxl;
    int32_t il0, xl0;
    int32_t *first_line;       /* run numbers */
    int32_t line_no, prev_line_no;
} geometry;

/* The order from the first two traces' line numbers: sorted by inline with crossline
 * fastest, the reverse, or no numbers at all. */
static fdw_status infer_order(fdw_segy_in *in, geometry *g, const char *field, fdw_error *err)
{
    int32_t il1 = 0, xl1 = 0;
    fdw_status st = read_header(in, 0, &g->il0, &g->xl0, err);
    if (st == FDW_OK && in->ntraces > 1)
        st = read_header(in, 1, &il1, &xl1, err);
    if (st != FDW_OK)
        return st;
    const int32_t il0 = g->il0, xl0 = g->xl0;
    if (in->ntraces == 1)
        g->order = SORT_INLINE;
    else if (il0 == 0 && xl0 == 0 && il1 == 0 && xl1 == 0)
        g->order = SORT_NONE;
    else if (il1 == il0 && xl1 != xl0)
        g->order = SORT_INLINE;
    else if (xl1 == xl0 && il1 != il0)
        g->order = SORT_CROSSLINE;
    else
        return fdw_fail(err, FDW_ERR_SPEC, field,
                        "cannot infer the inline/crossline geometry of SEG-Y %s: traces 1 and "
                        "2 have (inline, crossline) = (%d, %d) and (%d, %d); a model needs "
                        "traces sorted by inline then crossline (or the reverse), numbers at "
                        "bytes 189 and 193",
                        in->path, (int)il0, (int)xl0, (int)il1, (int)xl1);
    return FDW_OK;
}

/* run = the traces of the first line (crosslines per inline for inline sorting), which
 * must divide the file's; the grid's nx (crosslines) and ny (inlines) into info. */
static fdw_status line_length(fdw_segy_in *in, geometry *g, fdw_model_info *info,
                              const char *field, fdw_error *err)
{
    g->run = in->ntraces;
    if (g->order == SORT_NONE)
        return FDW_OK;
    for (int t = 1; t < in->ntraces; t++) {
        int32_t il, xl;
        const fdw_status st = read_header(in, t, &il, &xl, err);
        if (st != FDW_OK)
            return st;
        if ((g->order == SORT_INLINE && il != g->il0) ||
            (g->order == SORT_CROSSLINE && xl != g->xl0)) {
            g->run = t;
            break;
        }
    }
    if (in->ntraces % g->run != 0)
        return fdw_fail(err, FDW_ERR_SPEC, field,
                        "SEG-Y %s has %d traces, not a whole number of lines of %d traces: "
                        "the geometry is irregular",
                        in->path, in->ntraces, g->run);
    info->nx = g->order == SORT_INLINE ? g->run : in->ntraces / g->run;
    info->ny = g->order == SORT_INLINE ? in->ntraces / g->run : g->run;
    return FDW_OK;
}

/* Trace t's grid column (i, j), its line numbers checked against the regular geometry of
 * the first traces. */
static fdw_status trace_column(fdw_segy_in *in, geometry *g, int t, int nx, int *i, int *j,
                               const char *field, fdw_error *err)
{
    const int pos = t % g->run, line = t / g->run;
    if (g->order == SORT_NONE) {
        *i = t % nx;
        *j = t / nx;
        return FDW_OK;
    }
    *i = g->order == SORT_CROSSLINE ? line : pos;
    *j = g->order == SORT_CROSSLINE ? pos : line;
    int32_t il, xl;
    const fdw_status st = read_header(in, t, &il, &xl, err);
    if (st != FDW_OK)
        return st;
    const int32_t along = g->order == SORT_INLINE ? xl : il;  /* varies within a line */
    const int32_t across = g->order == SORT_INLINE ? il : xl; /* constant within a line */
    if (line == 0)
        g->first_line[pos] = along;
    if (pos == 0) {
        g->prev_line_no = g->line_no;
        g->line_no = across;
    }
    if (along != g->first_line[pos] || across != g->line_no ||
        (line > 0 && pos == 0 && across == g->prev_line_no))
        return fdw_fail(err, FDW_ERR_SPEC, field,
                        "SEG-Y %s: trace %d has (inline, crossline) = (%d, %d), which breaks "
                        "the regular %d x %d geometry of the first traces",
                        in->path, t + 1, (int)il, (int)xl, g->nil, g->nxl);
    return FDW_OK;
}

fdw_status fdw_segy_read(const char *path, fdw_model_sink *s, const fdw_model_grid_h *h,
                         fdw_model_info *info, fdw_error *err)
{
    fdw_segy_in in;
    fdw_status st = fdw_segy_in_open(&in, path, s->field, "model", err);
    float *buf = NULL;
    geometry g = {0};
    memset(info, 0, sizeof *info);
    snprintf(info->format, sizeof info->format, "segy");
    if (st == FDW_OK)
        st = recorded_dz(&in, &info->dz, err);
    if (st == FDW_OK)
        st = infer_order(&in, &g, s->field, err);
    if (st == FDW_OK)
        st = line_length(&in, &g, info, s->field, err);
    if (st != FDW_OK)
        goto done;
    info->nz = in.ns;
    info->nvalues = (uint64_t)in.ntraces * (uint64_t)in.ns;
    if ((st = fdw_model_fit(info, s, h, err)) != FDW_OK)
        goto done;
    g.nxl = s->nx;
    g.nil = s->ny;
    buf = malloc((size_t)in.ns * sizeof *buf);
    g.first_line = malloc((size_t)g.run * sizeof *g.first_line);
    if (!buf || !g.first_line) {
        st = fdw_fail(err, FDW_ERR_NOMEM, NULL, "cannot allocate SEG-Y trace buffers");
        goto done;
    }
    const uint64_t nxy = (uint64_t)s->nx * (uint64_t)s->ny;
    for (int t = 0; t < in.ntraces && st == FDW_OK; t++) {
        int i, j;
        if ((st = trace_column(&in, &g, t, s->nx, &i, &j, s->field, err)) != FDW_OK)
            break;
        if (segy_readtrace(in.fp, t, buf, in.trace0, in.trsize) != SEGY_OK) {
            st = fdw_fail(err, FDW_ERR_IO, s->field, "cannot read trace %d of %s", t + 1, path);
            break;
        }
        segy_to_native(in.format, in.ns, buf);
        st = fdw_sink_put(s, buf, (size_t)in.ns, (uint64_t)i + (uint64_t)s->nx * j, nxy, err);
    }
done:
    free(buf);
    free(g.first_line);
    fdw_segy_in_close(&in);
    return st;
}

fdw_status fdw_model_write_segy(const char *path, const float *v, int nx, int ny, int nz,
                                double dx, double dy, double dz, fdw_error *err)
{
    if (!path || !v || nx <= 0 || ny <= 0 || nz <= 0)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "fdw_model_write_segy: bad arguments");
    if (nz > FDW_SEGY_MAX_SAMPLES)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, NULL,
                        "SEG-Y traces hold at most %d samples; the model has nz=%d",
                        FDW_SEGY_MAX_SAMPLES, nz);
    if ((long)nx * ny > 2147483647L)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, NULL, "too many traces for SEG-Y");
    double interval = nearbyint(dz * 1000.0);
    int32_t dt_field = interval >= 1 && interval <= 65535 ? (int32_t)interval : 0;

    fdw_atomic_file af;
    segy_file *fp;
    float *buf;
    fdw_status st = fdw_segy_writer_open(&af, path, nz, &fp, &buf, err);
    if (st != FDW_OK)
        return st;

    char lines[6][128];
    snprintf(lines[0], sizeof lines[0], "FDWAVE VELOCITY MODEL (M/S), LIBFDWAVE %s", FDW_VERSION);
    snprintf(lines[1], sizeof lines[1], "GRID NX=%d NY=%d NZ=%d DX=%g DY=%g DZ=%g METRES", nx, ny,
             nz, dx, dy, dz);
    snprintf(lines[2], sizeof lines[2], "ONE TRACE PER COLUMN: INLINE=J+1 (BYTE 189), "
                                        "CROSSLINE=I+1 (BYTE 193)");
    snprintf(lines[3], sizeof lines[3], "SAMPLES ARE DEPTH; SAMPLE INTERVAL = DZ*1000");
    snprintf(lines[4], sizeof lines[4], "CDP X/Y (BYTES 181/185) = I*DX, J*DY, SCALED BY BYTE 71");
    snprintf(lines[5], sizeof lines[5], "FORMAT 5: IEEE FLOAT, BIG-ENDIAN");
    const char *lp[6] = {lines[0], lines[1], lines[2], lines[3], lines[4], lines[5]};
    char bin[SEGY_BINARY_HEADER_SIZE];
    fdw_segy_binary_header(bin, nx, dt_field, nz, 4); /* 4: horizontally stacked */
    double mult;
    double maxabs = fmax(fabs((nx - 1) * dx), fabs((ny - 1) * dy));
    int scalar = fdw_segy_coord_scalar(maxabs, &mult);
    int bad = fdw_segy_write_headers(fp, lp, 6, bin);
    const size_t nxy = (size_t)nx * (size_t)ny;
    char hdr[SEGY_TRACE_HEADER_SIZE];
    for (int j = 0; j < ny && !bad; j++) {
        for (int i = 0; i < nx && !bad; i++) {
            int t = i + nx * j;
            memset(hdr, 0, sizeof hdr);
            segy_set_field(hdr, SEGY_TR_SEQ_LINE, t + 1);
            segy_set_field(hdr, SEGY_TR_SEQ_FILE, t + 1);
            segy_set_field(hdr, SEGY_TR_ENSEMBLE, t + 1);
            segy_set_field(hdr, SEGY_TR_TRACE_ID, 1);
            segy_set_field(hdr, SEGY_TR_SOURCE_GROUP_SCALAR, scalar);
            segy_set_field(hdr, SEGY_TR_COORD_UNITS, 1);
            segy_set_field(hdr, SEGY_TR_SAMPLE_COUNT, nz);
            segy_set_field(hdr, SEGY_TR_SAMPLE_INTER, dt_field);
            segy_set_field(hdr, SEGY_TR_CDP_X, fdw_segy_coord(i * dx, mult));
            segy_set_field(hdr, SEGY_TR_CDP_Y, fdw_segy_coord(j * dy, mult));
            segy_set_field(hdr, SEGY_TR_INLINE, j + 1);
            segy_set_field(hdr, SEGY_TR_CROSSLINE, i + 1);
            for (int k = 0; k < nz; k++)
                buf[k] = v[(size_t)i + (size_t)nx * j + nxy * (size_t)k];
            bad = fdw_segy_write_trace(fp, t, hdr, buf, nz);
        }
    }
    return fdw_segy_writer_close(&af, path, fp, buf, bad, err);
}
