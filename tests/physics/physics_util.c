/* physics_util.c — running specs and reading their gathers for the physics tests. */
#include "physics_util.h"

#include "spec/spec.h"

#include <check.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

unsigned char *phys_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf)
        *len = (size_t)n;
    return buf;
}

void phys_run_spec(const char *json, const fdw_callbacks *cb, int threads, phys_run *out)
{
    memset(out, 0, sizeof *out);
    fdw_spec *spec = NULL;
    fdw_error err;
    fdw_status st = fdw_spec_parse(json, strlen(json), NULL, &spec, &err);
    ck_assert_msg(st == FDW_OK, "spec rejected: %s: %s", err.field, err.message);
    snprintf(out->dir, sizeof out->dir, "/tmp/fdw-physics-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(out->dir));
    fdw_run_opts opts = {.out_dir = out->dir, .backend = FDW_BACKEND_CPU, .threads = threads};
    st = fdw_run(spec, &opts, cb, &out->result, &err);
    ck_assert_msg(st == FDW_OK, "run failed: %s: %s", err.field, err.message);
    out->nrec = spec->nreceivers;
    out->ns = spec->nt / spec->receiver_interval + 1;
    out->dt = spec->dt * spec->receiver_interval;
    if (out->nrec > 0) {
        char path[320];
        snprintf(path, sizeof path, "%s/gather.f32", out->dir);
        size_t len = 0;
        out->traces = (float *)phys_read_file(path, &len);
        ck_assert_ptr_nonnull(out->traces);
        ck_assert_uint_eq(len, (size_t)out->nrec * (size_t)out->ns * sizeof(float));
    }
    fdw_spec_free(spec);
}

double phys_rel_l2(const float *a, const double *b, long n)
{
    double num = 0.0, den = 0.0;
    for (long i = 0; i < n; i++) {
        const double d = a[i] - b[i];
        num += d * d;
        den += b[i] * b[i];
    }
    return den > 0.0 ? sqrt(num / den) : INFINITY;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void phys_run_free(phys_run *r)
{
    if (r->dir[0])
        nftw(r->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(r->traces);
    memset(r, 0, sizeof *r);
}
