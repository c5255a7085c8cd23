/* imaging_segy_inspect.c — fdw_data_inspect (fdwave.h): one read of an observed-data file
 * by the rules the imaging kinds read it with, for the daemon's uploads. A SEG-Y file is
 * opened and its every trace header checked by the readers' own functions
 * (fdw_img_segy_open, fdw_img_segy_header_check), so an upload is refused for exactly what
 * a job would refuse before the grid is known; its FFIDs are listed. A raw-f32 file is a
 * whole number of float32 values. */
#include "kinds/imaging/imaging_segy_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int cmp_ll(const void *a, const void *b)
{
    const long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* The readers' errors name data.path and start "data.path: "; an inspection names field. */
static fdw_status renamed(fdw_error *err, const char *field)
{
    static const char prefix[] = "data.path: ";
    if (strcmp(err->field, "data.path") == 0)
        snprintf(err->field, sizeof err->field, "%s", field);
    if (strncmp(err->message, prefix, sizeof prefix - 1) == 0)
        memmove(err->message, err->message + sizeof prefix - 1,
                strlen(err->message) - (sizeof prefix - 1) + 1);
    return err->code ? err->code : FDW_ERR_SPEC;
}

/* Every trace header checked, every FFID into *ffids (sorted, distinct: *n of them). */
static int scan_headers(spec_ctx *c, const img_segy *g, fdw_segy_in *in, long long **ffids,
                        int *n)
{
    if (in->ntraces > sp_max_traces(c))
        return sp_fail(c, "data.path", "data.path: %.256s holds %d traces; a survey may record "
                       "at most %lld", g->path, in->ntraces, sp_max_traces(c));
    long long *f = malloc((size_t)in->ntraces * sizeof *f);
    if (!f)
        return sp_fail(c, "data.path", "out of memory for the FFIDs of %.256s", g->path);
    for (int t = 0; t < in->ntraces; t++) {
        int32_t ffid;
        if (segy_traceheader(in->fp, t, in->hdr, in->trace0, in->trsize) != SEGY_OK) {
            free(f);
            return sp_fail(c, "data.path", "data.path: cannot read the header of trace %d of "
                           "%.256s", t + 1, g->path);
        }
        if (fdw_img_segy_header_check(c, g, in, t)) {
            free(f);
            return -1;
        }
        segy_get_field(in->hdr, SEGY_TR_FIELD_RECORD, &ffid);
        f[t] = ffid;
    }
    qsort(f, (size_t)in->ntraces, sizeof *f, cmp_ll);
    int k = 0;
    for (int t = 0; t < in->ntraces; t++)
        if (t == 0 || f[t] != f[k - 1])
            f[k++] = f[t];
    *ffids = f;
    *n = k;
    return 0;
}

static fdw_status inspect_segy(const char *path, const char *field, fdw_data_info *info,
                               fdw_error *err)
{
    spec_ctx c = {.err = err};
    img_segy g = {0};
    fdw_segy_in in;
    snprintf(g.path, sizeof g.path, "%s", path);
    if (fdw_img_segy_open(&c, &g, &in))
        return renamed(err, field);
    const int rc = scan_headers(&c, &g, &in, &info->ffids, &info->nshots);
    info->traces = in.ntraces;
    fdw_segy_in_close(&in);
    if (rc)
        return renamed(err, field);
    info->bytes = (uint64_t)g.size;
    info->samples = g.samples;
    info->sample_interval = g.interval_us * 1e-6;
    return FDW_OK;
}

fdw_status fdw_data_inspect(const char *path, const char *format, const char *field,
                            fdw_data_info *info, fdw_error *err)
{
    memset(info, 0, sizeof *info);
    memset(err, 0, sizeof *err);
    if (!format || (strcmp(format, "segy") != 0 && strcmp(format, "raw-f32") != 0))
        return fdw_fail(err, FDW_ERR_SPEC, field, "data format \"%s\" is none of raw-f32, segy",
                        format ? format : "");
    snprintf(info->format, sizeof info->format, "%s", format);
    if (strcmp(format, "segy") == 0)
        return inspect_segy(path, field, info, err);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return fdw_fail(err, FDW_ERR_IO, field, "cannot read %.256s", path);
    if (st.st_size == 0 || st.st_size % 4 != 0)
        return fdw_fail(err, FDW_ERR_SPEC, field, "%.256s holds %lld bytes: raw-f32 data are "
                        "float32 values, a whole and non-zero number of 4-byte values",
                        path, (long long)st.st_size);
    info->bytes = (uint64_t)st.st_size;
    return FDW_OK;
}
