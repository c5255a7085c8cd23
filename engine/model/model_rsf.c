/* model_rsf.c — Madagascar RSF velocity models: a text header of key=value pairs (later
 * assignments win, as in Madagascar) naming the binary with in="...", and the binary of
 * float32 samples, n1 (x) fastest, then n2 (y), then n3 (z). data_format "native_float"
 * (host order) or "xdr_float" (big-endian), esize=4. in="stdin" means the samples follow
 * the header in the same file after the bytes 0x0c 0x0c 0x04. A relative in= path is
 * taken relative to the header's directory. */
#include "model/model_io.h"
#include "model/model_formats.h"
#include "output/atomic_file.h"
#include "core/error.h"
#include "model/rsf/rsf_header.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Read the header file up to EOF or the 0x0c 0x0c 0x04 marker (rsf_header.h). */
static fdw_status read_header_text(const char *path, const char *field, rsf_header *h,
                                   fdw_error *err)
{
    switch (rsf_header_read(path, h)) {
    case RSF_OK: return FDW_OK;
    case RSF_OPEN:
        return fdw_fail(err, FDW_ERR_SPEC, field, "cannot open RSF header %s: %s", path,
                        strerror(errno));
    case RSF_TOO_LONG:
        return fdw_fail(err, FDW_ERR_SPEC, field,
                        "RSF header %s is longer than %u bytes: not a header", path,
                        RSF_MAX_HEADER);
    case RSF_NOMEM: return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cannot allocate the RSF header");
    case RSF_READ:
        return fdw_fail(err, FDW_ERR_IO, field, "cannot read %s: %s", path, strerror(errno));
    }
    return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "RSF header %s: unknown status", path);
}

/* Integer key; *out = dflt when absent. Fails on a malformed or out-of-range value. */
static fdw_status rsf_get_long(const rsf_header *h, const char *key, long dflt, long *out,
                               const char *path, const char *field, fdw_error *err)
{
    char v[64];
    if (!rsf_header_get(h->text, key, v, sizeof v)) {
        *out = dflt;
        return FDW_OK;
    }
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < 1)
        return fdw_fail(err, FDW_ERR_SPEC, field,
                        "RSF header %s: %s=%s is not a positive integer", path, key, v);
    *out = x;
    return FDW_OK;
}


/* A header may only name a binary inside its own directory tree: the spec's path checks
 * (allowed directories for the daemon) then cover the binary too, so an uploaded or
 * user-written header cannot make the engine read an arbitrary file. The binary must
 * exist for the check; a missing one is reported by the open that follows. */
static int rsf_binary_beside_header(const char *header, const char *binary)
{
    char hreal[PATH_MAX], breal[PATH_MAX];
    if (!realpath(header, hreal))
        return 0;
    if (!realpath(binary, breal))
        return 1; /* does not exist: the open reports it */
    char *slash = strrchr(hreal, '/');
    size_t dirlen = slash ? (size_t)(slash - hreal) : 0;
    return strncmp(hreal, breal, dirlen) == 0 && breal[dirlen] == '/';
}

/* The file of an RSF header's samples: in= relative to the header's directory (which it
 * may not leave), or the header file itself for in="stdin" (*offset: where the samples
 * start). */
static fdw_status rsf_data_path(const rsf_header *h, const char *path, const char *field,
                                char *datapath, size_t cap, long *offset, fdw_error *err)
{
    char in[FDW_PATH_MAX];
    *offset = 0;
    if (!rsf_header_get(h->text, "in", in, sizeof in) || !in[0])
        return fdw_fail(err, FDW_ERR_SPEC, field, "RSF header %s has no in= (the binary file)",
                        path);
    if (strcmp(in, "stdin") == 0) {
        if (h->data_start < 0)
            return fdw_fail(err, FDW_ERR_SPEC, field,
                            "RSF header %s says in=\"stdin\" but holds no data after the "
                            "header",
                            path);
        snprintf(datapath, cap, "%s", path);
        *offset = h->data_start;
        return FDW_OK;
    }
    if (rsf_header_binary(path, in, datapath, cap) != 0)
        return fdw_fail(err, FDW_ERR_SPEC, field, "RSF header %s: in= is too long", path);
    if (!rsf_binary_beside_header(path, datapath))
        return fdw_fail(err, FDW_ERR_SPEC, field,
                        "RSF binary %s (in= of %s) must lie in the header's directory or below "
                        "it",
                        in, path);
    return FDW_OK;
}

fdw_status fdw_model_rsf_data(const char *header, const char *field, char *out, size_t cap,
                              int *inside, fdw_error *err)
{
    rsf_header h;
    fdw_status st = read_header_text(header, field, &h, err);
    if (st != FDW_OK)
        return st;
    long offset = 0;
    st = rsf_data_path(&h, header, field, out, cap, &offset, err);
    *inside = offset != 0;
    free(h.text);
    return st;
}

static fdw_status rsf_get_double(const rsf_header *h, const char *key, int *present,
                                 double *out, const char *path, const char *field,
                                 fdw_error *err)
{
    char v[64];
    *present = rsf_header_get(h->text, key, v, sizeof v);
    if (!*present)
        return FDW_OK;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end || !isfinite(x))
        return fdw_fail(err, FDW_ERR_SPEC, field, "RSF header %s: %s=%s is not a number", path,
                        key, v);
    *out = x;
    return FDW_OK;
}

/* The geometry: n1 n2 n3 (x, y, z; n1 required, any n4..n9 must be 1) and d1 d2 d3 (0
 * where absent) into info. */
static fdw_status rsf_geometry(const rsf_header *h, const char *path, const char *field,
                               fdw_model_info *info, fdw_error *err)
{
    long n[10];
    for (int a = 1; a <= 9; a++) {
        char key[8];
        snprintf(key, sizeof key, "n%d", a);
        const fdw_status st = rsf_get_long(h, key, 1, &n[a], path, field, err);
        if (st != FDW_OK)
            return st;
    }
    char n1text[32];
    if (!rsf_header_get(h->text, "n1", n1text, sizeof n1text))
        return fdw_fail(err, FDW_ERR_SPEC, field, "RSF header %s has no n1: not an RSF header",
                        path);
    for (int a = 4; a <= 9; a++)
        if (n[a] != 1)
            return fdw_fail(err, FDW_ERR_SPEC, field,
                            "RSF %s has n%d=%ld: a velocity model has 3 axes", path, a, n[a]);
    for (int a = 1; a <= 3; a++)
        if (n[a] < 1 || n[a] > INT_MAX)
            return fdw_fail(err, FDW_ERR_SPEC, field, "RSF %s has n%d=%ld: not an axis length",
                            path, a, n[a]);
    info->nx = (int)n[1];
    info->ny = (int)n[2];
    info->nz = (int)n[3];
    info->nvalues = (uint64_t)n[1] * (uint64_t)n[2] * (uint64_t)n[3];
    double *dd[3] = {&info->dx, &info->dy, &info->dz};
    for (int a = 0; a < 3; a++) {
        char key[8];
        int present;
        snprintf(key, sizeof key, "d%d", a + 1);
        const fdw_status st = rsf_get_double(h, key, &present, dd[a], path, field, err);
        if (st != FDW_OK)
            return st;
        if (!present)
            *dd[a] = 0.0;
    }
    return FDW_OK;
}

/* The samples' encoding: float32 (esize=4), native or big-endian (*swap on this host). */
static fdw_status rsf_encoding(const rsf_header *h, const char *path, const char *field,
                               int *swap, fdw_error *err)
{
    char fmt[64] = "native_float";
    rsf_header_get(h->text, "data_format", fmt, sizeof fmt);
    if (strcmp(fmt, "native_float") == 0)
        *swap = 0;
    else if (strcmp(fmt, "xdr_float") == 0)
        *swap = fdw_host_is_little_endian();
    else
        return fdw_fail(err, FDW_ERR_SPEC, field,
                        "RSF %s has data_format=\"%s\"; supported are \"native_float\" and "
                        "\"xdr_float\"",
                        path, fmt);
    long esize = 0;
    const fdw_status st = rsf_get_long(h, "esize", 4, &esize, path, field, err);
    if (st == FDW_OK && esize != 4)
        return fdw_fail(err, FDW_ERR_SPEC, field, "RSF %s has esize=%ld; float samples need 4",
                        path, esize);
    return st;
}

/* The binary opened at its first sample (*f): in= relative to the header's directory (the
 * very file the spec checked, where it did), or "stdin" inside the header; a regular file
 * of exactly nsamp float32 samples. */
static fdw_status rsf_open_binary(const rsf_header *h, const char *path,
                                  const fdw_model_sink *s, uint64_t nsamp, char *datapath,
                                  size_t cap, FILE **f, fdw_error *err)
{
    const char *field = s->field;
    long offset = 0;
    fdw_status st = rsf_data_path(h, path, field, datapath, cap, &offset, err);
    if (st != FDW_OK)
        return st;
    if (offset == 0 && s->data_path && s->data_path[0]) {
        char real[PATH_MAX];
        if (!realpath(datapath, real) || strcmp(real, s->data_path) != 0)
            return fdw_fail(err, FDW_ERR_SPEC, field,
                            "RSF header %s no longer names the binary that was checked when "
                            "the job was accepted",
                            path);
    }
    if (!(*f = fopen(datapath, "rb")))
        return fdw_fail(err, FDW_ERR_SPEC, field, "cannot open RSF binary %s (in= of %s): %s",
                        datapath, path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(*f), &sb) != 0 || !S_ISREG(sb.st_mode))
        return fdw_fail(err, FDW_ERR_SPEC, field, "RSF binary %s is not a regular file",
                        datapath);
    const uint64_t have = (uint64_t)sb.st_size - (uint64_t)offset;
    if (have != nsamp * 4u)
        return fdw_fail(err, FDW_ERR_SPEC, field,
                        "RSF binary %s holds %llu bytes of samples; n1*n2*n3*4 = %llu%s",
                        datapath, (unsigned long long)have, (unsigned long long)(nsamp * 4u),
                        have < nsamp * 4u ? ": the file is truncated" : "");
    if (offset && fseek(*f, offset, SEEK_SET) != 0)
        return fdw_fail(err, FDW_ERR_IO, field, "cannot seek in %s", datapath);
    return FDW_OK;
}

/* nsamp samples from f into the sink, chunk by chunk (swapped where asked). */
static fdw_status rsf_stream(FILE *f, const char *datapath, uint64_t nsamp, int swap,
                             fdw_model_sink *s, fdw_error *err)
{
    const size_t cap = nsamp < FDW_MODEL_CHUNK ? (size_t)nsamp : FDW_MODEL_CHUNK;
    float *buf = malloc(cap * sizeof *buf);
    if (!buf)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cannot allocate a read buffer");
    fdw_status st = FDW_OK;
    for (uint64_t d = 0; d < nsamp && st == FDW_OK;) {
        const size_t m = nsamp - d < cap ? (size_t)(nsamp - d) : cap;
        if (fread(buf, sizeof *buf, m, f) != m) {
            st = fdw_fail(err, FDW_ERR_IO, s->field, "read error in %s", datapath);
            break;
        }
        if (swap)
            fdw_swap32(buf, m);
        st = fdw_sink_put(s, buf, m, d, 1, err);
        d += m;
    }
    free(buf);
    return st;
}

fdw_status fdw_rsf_read(const char *path, fdw_model_sink *s, const fdw_model_grid_h *hg,
                        fdw_model_info *info, fdw_error *err)
{
    memset(info, 0, sizeof *info);
    snprintf(info->format, sizeof info->format, "rsf");
    rsf_header h;
    fdw_status st = read_header_text(path, s->field, &h, err);
    if (st != FDW_OK)
        return st;
    FILE *f = NULL;
    char datapath[FDW_PATH_MAX + 16];
    int swap = 0;
    st = rsf_geometry(&h, path, s->field, info, err);
    if (st == FDW_OK)
        st = fdw_model_fit(info, s, hg, err);
    if (st == FDW_OK)
        st = rsf_encoding(&h, path, s->field, &swap, err);
    if (st == FDW_OK)
        st = rsf_open_binary(&h, path, s, info->nvalues, datapath, sizeof datapath, &f, err);
    if (st == FDW_OK)
        st = rsf_stream(f, datapath, info->nvalues, swap, s, err);
    if (f)
        fclose(f);
    free(h.text);
    return st;
}

fdw_status fdw_model_write_rsf(const char *path, const float *v, int nx, int ny, int nz,
                               double dx, double dy, double dz, const double origin[3],
                               fdw_error *err)
{
    if (!path || !v || nx <= 0 || ny <= 0 || nz <= 0)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "fdw_model_write_rsf: bad arguments");
    char bin[FDW_PATH_MAX + 2];
    if (snprintf(bin, sizeof bin, "%s@", path) >= (int)sizeof bin)
        return fdw_fail(err, FDW_ERR_IO, NULL, "RSF path too long");
    /* Samples in host order, declared native_float. */
    size_t n = (size_t)nx * (size_t)ny * (size_t)nz;
    fdw_atomic_file af;
    fdw_status st = fdw_atomic_open(&af, bin, err);
    if (st != FDW_OK)
        return st;
    if (fwrite(v, sizeof *v, n, af.fp) != n) {
        fdw_atomic_abort(&af);
        return fdw_fail(err, FDW_ERR_IO, NULL, "cannot write %s: %s", bin, strerror(errno));
    }
    if ((st = fdw_atomic_commit(&af, err)) != FDW_OK)
        return st;

    const double o[3] = {origin ? origin[0] : 0, origin ? origin[1] : 0,
                         origin ? origin[2] : 0};
    const char *base = strrchr(bin, '/');
    base = base ? base + 1 : bin;
    if ((st = fdw_atomic_open(&af, path, err)) != FDW_OK)
        return st;
    fprintf(af.fp,
            "fdwave velocity model (libfdwave %s)\n"
            "\tn1=%d d1=%.17g o1=%.17g label1=\"x\" unit1=\"m\"\n"
            "\tn2=%d d2=%.17g o2=%.17g label2=\"y\" unit2=\"m\"\n"
            "\tn3=%d d3=%.17g o3=%.17g label3=\"z\" unit3=\"m\"\n"
            "\tlabel=\"velocity\" unit=\"m/s\"\n"
            "\tdata_format=\"native_float\" esize=4\n"
            "\tin=\"%s\"\n",
            FDW_VERSION, nx, dx, o[0], ny, dy, o[1], nz, dz, o[2], base);
    return fdw_atomic_commit(&af, err);
}
