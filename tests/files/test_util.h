/* test_util.h — helpers shared by the tests in tests/files: a scratch directory per test,
 * whole-file reads, and a minimal fdw_spec built by hand for model loading. */
#ifndef FDW_TEST_FILES_UTIL_H
#define FDW_TEST_FILES_UTIL_H

#define _XOPEN_SOURCE 700
#include <check.h>
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec/spec.h"

static char scratch_dir[512];

static inline int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Fixture: a fresh directory under $TMPDIR (or /tmp) for each test. */
static inline void scratch_setup(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(scratch_dir, sizeof scratch_dir, "%s/fdw-files-XXXXXX", t && t[0] ? t : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(scratch_dir));
}

static inline void scratch_teardown(void)
{
    nftw(scratch_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* scratch_dir/name in a static rotating buffer (up to 4 live at once). */
static inline const char *scratch(const char *name)
{
    static char bufs[4][1024];
    static int next;
    char *b = bufs[next++ & 3];
    snprintf(b, sizeof bufs[0], "%s/%s", scratch_dir, name);
    return b;
}

/* Whole file into memory; *len gets the size. Fails the test when unreadable. */
static inline unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    p[n] = 0;
    *len = (size_t)n;
    return p;
}

static inline void spit(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

/* Number of entries in scratch_dir whose name contains ".tmp" (left-over temporaries). */
static inline int count_temporaries(void)
{
    DIR *d = opendir(scratch_dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".tmp"))
            n++;
    closedir(d);
    return n;
}

/* A spec with just the fields fdw_model_load reads. */
static inline fdw_spec file_spec(int nx, int ny, int nz, double d, fdw_file_format fmt,
                          const char *path)
{
    fdw_spec s;
    memset(&s, 0, sizeof s);
    s.nx = nx;
    s.ny = ny;
    s.nz = nz;
    s.dx = s.dy = s.dz = d;
    s.velocity.type = FDW_VEL_FILE;
    s.velocity.format = fmt;
    snprintf(s.velocity.path, sizeof s.velocity.path, "%s", path);
    return s;
}

/* A positive model whose every sample differs: v = 1500 + i + 100 j + 10000 k + 0.25. */
static inline float *ramp_model(int nx, int ny, int nz)
{
    float *v = malloc((size_t)nx * ny * nz * sizeof *v);
    ck_assert_ptr_nonnull(v);
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++)
                v[i + (size_t)nx * (j + (size_t)ny * k)] = 1500.25f + i + 100.0f * j + 10000.0f * k;
    return v;
}

#endif
