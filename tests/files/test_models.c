/* test_models.c — velocity model files: raw float32, SEG-Y (IEEE written by the engine,
 * IBM and crossline-sorted and headerless written by hand here) and RSF (native, xdr,
 * embedded "stdin" data) round trips with exact equality, and every rejection the spec
 * user can meet: wrong geometry, wrong spacing, truncated files, bad samples (with the
 * index in the message), unsupported encodings. Also the analytic models. */
#include "test_util.h"

#include <math.h>
#include <stdint.h>

#include "core/error.h"
#include "model/model_io.h"

/* ---- helpers ------------------------------------------------------------------------ */

static fdw_status load(fdw_spec *s, float *out, fdw_error *e)
{
    fdw_error_clear(e);
    return fdw_model_load(s, out, e);
}

static fdw_status scan(int nx, int ny, int nz, double d, fdw_file_format fmt, const char *path,
                       double *vmin, double *vmax, fdw_error *e)
{
    fdw_spec s = file_spec(nx, ny, nz, d, fmt, path);
    fdw_error_clear(e);
    return fdw_model_scan(&s.velocity, nx, ny, nz, d, d, d, vmin, vmax, e);
}

#define ck_assert_contains(hay, needle)                                                    \
    ck_assert_msg(strstr((hay), (needle)) != NULL, "expected \"%s\" in \"%s\"", (needle), \
                  (hay))

static void assert_same(const float *a, const float *b, size_t n)
{
    for (size_t q = 0; q < n; q++)
        ck_assert_msg(memcmp(&a[q], &b[q], 4) == 0, "sample %zu: %.9g != %.9g", q,
                      (double)a[q], (double)b[q]);
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void put_be16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}

static uint32_t ieee_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

/* IBM System/360 single precision: sign, 7-bit base-16 exponent biased by 64, 24-bit
 * fraction 0.F. Exact for the values used here (few significant bits). */
static uint32_t ibm_bits(float x)
{
    if (x == 0)
        return 0;
    uint32_t sign = x < 0 ? 0x80000000u : 0;
    double f = fabs((double)x);
    int e = 64;
    while (f >= 1.0) {
        f /= 16.0;
        e++;
    }
    while (f < 1.0 / 16.0) {
        f *= 16.0;
        e--;
    }
    uint32_t mant = (uint32_t)(f * 16777216.0);
    ck_assert_msg(fabs(f * 16777216.0 - mant) == 0, "%g is not exact in IBM float", (double)x);
    return sign | ((uint32_t)e << 24) | mant;
}

enum { ORDER_INLINE, ORDER_CROSSLINE, ORDER_NONE };

/* A SEG-Y model written byte by byte: format 1 or 5, traces sorted by inline (crossline
 * fastest, x), by crossline, or without line numbers; inline numbers 100, 102, ...,
 * crossline numbers 10, 11, .... */
static void write_hand_segy(const char *path, const float *v, int nx, int ny, int nz,
                            int format, int order, int interval)
{
    size_t trb = 240 + 4 * (size_t)nz, ntr = (size_t)nx * ny;
    size_t len = 3600 + ntr * trb;
    unsigned char *b = calloc(1, len);
    ck_assert_ptr_nonnull(b);
    memset(b, 0x40, 3200); /* EBCDIC blanks */
    put_be16(b + 3216, (unsigned)interval);
    put_be16(b + 3220, (unsigned)nz);
    put_be16(b + 3224, (unsigned)format);
    for (size_t t = 0; t < ntr; t++) {
        int i, j;
        if (order == ORDER_CROSSLINE) {
            j = (int)(t % (size_t)ny);
            i = (int)(t / (size_t)ny);
        } else {
            i = (int)(t % (size_t)nx);
            j = (int)(t / (size_t)nx);
        }
        unsigned char *h = b + 3600 + t * trb;
        put_be32(h + 0, (uint32_t)t + 1);
        if (order != ORDER_NONE) {
            put_be32(h + 188, (uint32_t)(100 + 2 * j));
            put_be32(h + 192, (uint32_t)(10 + i));
        }
        put_be16(h + 114, (unsigned)nz);
        put_be16(h + 116, (unsigned)interval);
        for (int k = 0; k < nz; k++) {
            float x = v[i + (size_t)nx * (j + (size_t)ny * k)];
            put_be32(h + 240 + 4 * k, format == 1 ? ibm_bits(x) : ieee_bits(x));
        }
    }
    spit(path, b, len);
    free(b);
}

/* ---- raw ---------------------------------------------------------------------------- */

START_TEST(raw_roundtrip)
{
    const int nx = 9, ny = 7, nz = 5;
    float *v = ramp_model(nx, ny, nz), *w = calloc((size_t)nx * ny * nz, 4);
    fdw_error e;
    ck_assert_int_eq(fdw_model_write_raw(scratch("m.bin"), v, nx, ny, nz, &e), FDW_OK);
    size_t len;
    free(slurp(scratch("m.bin"), &len));
    ck_assert_uint_eq(len, (size_t)nx * ny * nz * 4);
    double lo, hi;
    ck_assert_int_eq(scan(nx, ny, nz, 10, FDW_FMT_RAW_F32, scratch("m.bin"), &lo, &hi, &e),
                     FDW_OK);
    ck_assert_double_eq(lo, 1500.25);
    ck_assert_double_eq(hi, 1500.25 + 8 + 600 + 40000);
    fdw_spec s = file_spec(nx, ny, nz, 10, FDW_FMT_RAW_F32, scratch("m.bin"));
    ck_assert_int_eq(load(&s, w, &e), FDW_OK);
    assert_same(v, w, (size_t)nx * ny * nz);
    ck_assert_int_eq(count_temporaries(), 0);
    free(v);
    free(w);
}
END_TEST

START_TEST(raw_truncated_and_long)
{
    const int nx = 4, ny = 4, nz = 4;
    float *v = ramp_model(nx, ny, nz);
    spit(scratch("short.bin"), v, 4 * 63);
    spit(scratch("long.bin"), v, 4 * 64);
    FILE *f = fopen(scratch("long.bin"), "ab");
    fputc(0, f);
    fclose(f);
    fdw_error e;
    ck_assert_int_eq(scan(nx, ny, nz, 10, FDW_FMT_RAW_F32, scratch("short.bin"), NULL, NULL, &e),
                     FDW_ERR_SPEC);
    ck_assert_str_eq(e.field, "velocity.path");
    ck_assert_contains(e.message, "252 bytes");
    ck_assert_contains(e.message, "256 bytes");
    ck_assert_contains(e.message, "truncated");
    ck_assert_int_eq(scan(nx, ny, nz, 10, FDW_FMT_RAW_F32, scratch("long.bin"), NULL, NULL, &e),
                     FDW_ERR_SPEC);
    ck_assert_str_eq(e.field, "velocity.path");
    ck_assert_contains(e.message, "257 bytes");
    ck_assert_int_eq(scan(nx, ny, nz, 10, FDW_FMT_RAW_F32, scratch("absent.bin"), NULL, NULL, &e),
                     FDW_ERR_SPEC);
    ck_assert_str_eq(e.field, "velocity.path");
    ck_assert_contains(e.message, "No such file");
    free(v);
}
END_TEST

/* A bad sample at (i,j,k) = (3,2,1) is named with its index and value. */
static const float bad_values[] = {NAN, -5.0f, 0.0f, INFINITY};
START_TEST(raw_bad_sample)
{
    const int nx = 6, ny = 5, nz = 4;
    float *v = ramp_model(nx, ny, nz);
    v[3 + nx * (2 + ny * 1)] = bad_values[_i];
    v[5 + nx * (4 + ny * 3)] = -1; /* a later bad sample must not be the one reported */
    fdw_error e;
    ck_assert_int_eq(fdw_model_write_raw(scratch("bad.bin"), v, nx, ny, nz, &e), FDW_OK);
    ck_assert_int_eq(scan(nx, ny, nz, 10, FDW_FMT_RAW_F32, scratch("bad.bin"), NULL, NULL, &e),
                     FDW_ERR_SPEC);
    ck_assert_str_eq(e.field, "velocity.path");
    ck_assert_contains(e.message, "(3, 2, 1)");
    const char *shown[] = {"nan", "-5", " 0;", "inf"};
    ck_assert_contains(e.message, shown[_i]);
    /* Loading checks too. */
    float *w = calloc((size_t)nx * ny * nz, 4);
    fdw_spec s = file_spec(nx, ny, nz, 10, FDW_FMT_RAW_F32, scratch("bad.bin"));
    ck_assert_int_eq(load(&s, w, &e), FDW_ERR_SPEC);
    ck_assert_contains(e.message, "(3, 2, 1)");
    free(v);
    free(w);
}
END_TEST

/* Models larger than one read chunk (2^20 samples): values land in the right place
 * and a bad sample in the second chunk gets its own index. */
START_TEST(raw_multi_chunk)
{
    const int nx = 128, ny = 100, nz = 100;
    size_t n = (size_t)nx * ny * nz;
    float *v = ramp_model(nx, ny, nz), *w = calloc(n, 4);
    fdw_error e;
    ck_assert_int_eq(fdw_model_write_raw(scratch("big.bin"), v, nx, ny, nz, &e), FDW_OK);
    fdw_spec s = file_spec(nx, ny, nz, 10, FDW_FMT_RAW_F32, scratch("big.bin"));
    ck_assert_int_eq(load(&s, w, &e), FDW_OK);
    ck_assert_int_eq(memcmp(v, w, n * 4), 0);
    v[5 + (size_t)nx * (20 + (size_t)ny * 90)] = NAN;
    ck_assert_int_eq(fdw_model_write_raw(scratch("big.bin"), v, nx, ny, nz, &e), FDW_OK);
    ck_assert_int_eq(load(&s, w, &e), FDW_ERR_SPEC);
    ck_assert_contains(e.message, "(5, 20, 90)");
    free(v);
    free(w);
}
END_TEST

/* A model referred to by uploaded name points errors at velocity.name. */
START_TEST(named_model_field)
{
    float v[27];
    for (int q = 0; q < 27; q++)
        v[q] = 2000;
    fdw_error e;
    ck_assert_int_eq(fdw_model_write_raw(scratch("up.bin"), v, 3, 3, 3, &e), FDW_OK);
    fdw_spec s = file_spec(4, 3, 3, 10, FDW_FMT_RAW_F32, scratch("up.bin"));
    snprintf(s.velocity.name, sizeof s.velocity.name, "marmousi");
    ck_assert_int_eq(fdw_model_scan(&s.velocity, 4, 3, 3, 10, 10, 10, NULL, NULL, &e),
                     FDW_ERR_SPEC);
    ck_assert_str_eq(e.field, "velocity.name");
}
END_TEST

/* ---- SEG-Y -------------------------------------------------------------------------- */

START_TEST(segy_roundtrip)
{
    const int nx = 7, ny = 5, nz = 6;
    float *v = ramp_model(nx, ny, nz), *w = calloc((size_t)nx * ny * nz, 4);
    fdw_error e;
    ck_assert_int_eq(fdw_model_write_segy(scratch("m.segy"), v, nx, ny, nz, 12.5, 12.5, 12.5, &e),
                     FDW_OK);
    size_t len;
    free(slurp(scratch("m.segy"), &len));
    ck_assert_uint_eq(len, 3600 + (size_t)nx * ny * (240 + 4 * nz));
    double lo, hi;
    ck_assert_int_eq(scan(nx, ny, nz, 12.5, FDW_FMT_SEGY, scratch("m.segy"), &lo, &hi, &e),
                     FDW_OK);
    ck_assert_double_eq(lo, 1500.25);
    ck_assert_double_eq(hi, 1500.25 + 6 + 400 + 50000);
    fdw_spec s = file_spec(nx, ny, nz, 12.5, FDW_FMT_SEGY, scratch("m.segy"));
    ck_assert_int_eq(load(&s, w, &e), FDW_OK);
    assert_same(v, w, (size_t)nx * ny * nz);
    ck_assert_int_eq(count_temporaries(), 0);
    free(v);
    free(w);
}
END_TEST

START_TEST(segy_ibm_hand_written)
{
    const int nx = 5, ny = 4, nz = 3;
    float *v = ramp_model(nx, ny, nz), *w = calloc((size_t)nx * ny * nz, 4);
    v[7] = 0.15625f; /* a fraction: exercises the base-16 exponent below 64 */
    write_hand_segy(scratch("ibm.segy"), v, nx, ny, nz, 1, ORDER_INLINE, 10000);
    fdw_error e;
    fdw_spec s = file_spec(nx, ny, nz, 10, FDW_FMT_SEGY, scratch("ibm.segy"));
    ck_assert_int_eq(load(&s, w, &e), FDW_OK);
    assert_same(v, w, (size_t)nx * ny * nz);
    free(v);
    free(w);
}
END_TEST

START_TEST(segy_crossline_sorted)
{
    const int nx = 6, ny = 4, nz = 3;
    float *v = ramp_model(nx, ny, nz), *w = calloc((size_t)nx * ny * nz, 4);
    write_hand_segy(scratch("xl.segy"), v, nx, ny, nz, 5, ORDER_CROSSLINE, 10000);
    fdw_error e;
    fdw_spec s = file_spec(nx, ny, nz, 10, FDW_FMT_SEGY, scratch("xl.segy"));
    ck_assert_int_eq(load(&s, w, &e), FDW_OK);
    assert_same(v, w, (size_t)nx * ny * nz);
    free(v);
    free(w);
}
END_TEST

START_TEST(segy_headerless)
{
    const int nx = 6, ny = 4, nz = 3;
    float *v = ramp_model(nx, ny, nz), *w = calloc((size_t)nx * ny * nz, 4);
    write_hand_segy(scratch("nolines.segy"), v, nx, ny, nz, 5, ORDER_NONE, 0);
    fdw_error e;
    fdw_spec s = file_spec(nx, ny, nz, 10, FDW_FMT_SEGY, scratch("nolines.segy"));
    ck_assert_int_eq(load(&s, w, &e), FDW_OK);
    assert_same(v, w, (size_t)nx * ny * nz);
    /* Without line numbers only the trace count can be checked. */
    ck_assert_int_eq(scan(4, 6, 3, 10, FDW_FMT_SEGY, scratch("nolines.segy"), NULL, NULL, &e),
                     FDW_OK);
    ck_assert_int_eq(scan(5, 5, 3, 10, FDW_FMT_SEGY, scratch("nolines.segy"), NULL, NULL, &e),
                     FDW_ERR_SPEC);
    ck_assert_contains(e.message, "24 traces without inline/crossline numbers");
    ck_assert_contains(e.message, "nx*ny = 25");
    free(v);
    free(w);
}
END_TEST

START_TEST(segy_wrong_geometry)
{
    const int nx = 50, ny = 40, nz = 6;
    float *v = ramp_model(nx, ny, nz);
    fdw_error e;
    ck_assert_int_eq(fdw_model_write_segy(scratch("g.segy"), v, nx, ny, nz, 10, 10, 10, &e),
                     FDW_OK);
    /* The grid swaps x and y. */
    ck_assert_int_eq(scan(40, 50, 6, 10, FDW_FMT_SEGY, scratch("g.segy"), NULL, NULL, &e),
                     FDW_ERR_SPEC);
    ck_assert_str_eq(e.field, "velocity.path");
    ck_assert_contains(e.message, "has 40 inlines x 50 crosslines x 6 samples; the grid needs "
                                  "ny=50 x nx=40 x nz=6");
    /* Wrong depth. */
    ck_assert_int_eq(scan(50, 40, 7, 10, FDW_FMT_SEGY, scratch("g.segy"), NULL, NULL, &e),
                     FDW_ERR_SPEC);
    ck_assert_contains(e.message, "x 6 samples; the grid needs ny=40 x nx=50 x nz=7");
    /* Wrong dz: sample interval 10000 means dz = 10 m. */
    ck_assert_int_eq(scan(50, 40, 6, 12, FDW_FMT_SEGY, scratch("g.segy"), NULL, NULL, &e),
                     FDW_ERR_SPEC);
    ck_assert_contains(e.message, "sample interval 10000");
    ck_assert_contains(e.message, "dz = 12 m");
    ck_assert_int_eq(scan(50, 40, 6, 10, FDW_FMT_SEGY, scratch("g.segy"), NULL, NULL, &e),
                     FDW_OK);
    free(v);
}
END_TEST

START_TEST(segy_damaged)
{
    const int nx = 5, ny = 4, nz = 3;
    float *v = ramp_model(nx, ny, nz);
    fdw_error e;
    ck_assert_int_eq(fdw_model_write_segy(scratch("ok.segy"), v, nx, ny, nz, 10, 10, 10, &e),
                     FDW_OK);
    size_t len;
    unsigned char *b = slurp(scratch("ok.segy"), &len);

    /* Truncated inside the last trace. */
    spit(scratch("trunc.segy"), b, len - 5);
    ck_assert_int_eq(scan(nx, ny, nz, 10, FDW_FMT_SEGY, scratch("trunc.segy"), NULL, NULL, &e),
                     FDW_ERR_SPEC);
    ck_assert_contains(e.message, "not a whole number of traces");
    /* Only part of the headers. */
    spit(scratch("tiny.segy"), b, 1000);
    ck_assert_int_eq(scan(nx, ny, nz, 10, FDW_FMT_SEGY, scratch("tiny.segy"), NULL, NULL, &e),
                     FDW_ERR_SPEC);
    ck_assert_contains(e.message, "not a SEG-Y file");
    /* 2-byte integer samples are not supported. */
    unsigned char *c = malloc(len);
    memcpy(c, b, len);
    put_be16(c + 3224, 3);
    spit(scratch("int16.segy"), c, len);
    ck_assert_int_eq(scan(nx, ny, nz, 10, FDW_FMT_SEGY, scratch("int16.segy"), NULL, NULL, &e),
                     FDW_ERR_SPEC);
    ck_assert_contains(e.message, "sample format code 3");
    /* A little-endian file (format code 5 byte-swapped) is named as such. */
    put_be16(c + 3224, 0x0500);
    spit(scratch("lsb.segy"), c, len);
    ck_assert_int_eq(scan(nx, ny, nz, 10, FDW_FMT_SEGY, scratch("lsb.segy"), NULL, NULL, &e),
                     FDW_ERR_SPEC);
    ck_assert_contains(e.message, "looks little-endian");
    /* Trace 8 (second inline, third crossline) claims another crossline. */
    memcpy(c, b, len);
    put_be32(c + 3600 + 7 * (240 + 12) + 192, 99);
    spit(scratch("irregular.segy"), c, len);
    ck_assert_int_eq(
        scan(nx, ny, nz, 10, FDW_FMT_SEGY, scratch("irregular.segy"), NULL, NULL, &e),
        FDW_ERR_SPEC);
    ck_assert_contains(e.message, "trace 8 has (inline, crossline) = (2, 99)");
    /* A NaN sample at (i, j, k) = (2, 1, 2): trace 1*5+2 = 7, sample 2. */
    memcpy(c, b, len);
    put_be32(c + 3600 + 7 * (240 + 12) + 240 + 8, 0x7fc00000u);
    spit(scratch("nan.segy"), c, len);
    ck_assert_int_eq(scan(nx, ny, nz, 10, FDW_FMT_SEGY, scratch("nan.segy"), NULL, NULL, &e),
                     FDW_ERR_SPEC);
    ck_assert_str_eq(e.field, "velocity.path");
    ck_assert_contains(e.message, "(2, 1, 2)");
    ck_assert_contains(e.message, "nan");
    free(c);
    free(b);
    free(v);
}
END_TEST

/* ---- RSF ---------------------------------------------------------------------------- */

START_TEST(rsf_roundtrip)
{
    const int nx = 8, ny = 6, nz = 5;
    float *v = ramp_model(nx, ny, nz), *w = calloc((size_t)nx * ny * nz, 4);
    fdw_error e;
    const double o[3] = {100, 200, 0};
    ck_assert_int_eq(
        fdw_model_write_rsf(scratch("m.rsf"), v, nx, ny, nz, 7.5, 7.5, 7.5, o, &e), FDW_OK);
    size_t len;
    free(slurp(scratch("m.rsf@"), &len));
    ck_assert_uint_eq(len, (size_t)nx * ny * nz * 4);
    unsigned char *hdr = slurp(scratch("m.rsf"), &len);
    ck_assert_contains((char *)hdr, "n1=8");
    ck_assert_contains((char *)hdr, "in=\"m.rsf@\"");
    free(hdr);
    double lo, hi;
    ck_assert_int_eq(scan(nx, ny, nz, 7.5, FDW_FMT_RSF, scratch("m.rsf"), &lo, &hi, &e), FDW_OK);
    ck_assert_double_eq(lo, 1500.25);
    fdw_spec s = file_spec(nx, ny, nz, 7.5, FDW_FMT_RSF, scratch("m.rsf"));
    ck_assert_int_eq(load(&s, w, &e), FDW_OK);
    assert_same(v, w, (size_t)nx * ny * nz);
    ck_assert_int_eq(count_temporaries(), 0);
    free(v);
    free(w);
}
END_TEST

/* xdr (big-endian) samples in a sub-directory named relative to the header; later
 * assignments override earlier ones, as Madagascar appends history. */
START_TEST(rsf_xdr_relative)
{
    const int nx = 4, ny = 3, nz = 3;
    float *v = ramp_model(nx, ny, nz), *w = calloc((size_t)nx * ny * nz, 4);
    size_t n = (size_t)nx * ny * nz;
    unsigned char *be = malloc(n * 4);
    for (size_t q = 0; q < n; q++)
        put_be32(be + 4 * q, ieee_bits(v[q]));
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/data", scratch_dir);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    spit(scratch("data/vel.bin"), be, n * 4);
    const char *text = "sfspike n1=9 n2=9 n3=9 d1=1 d2=1 d3=1 in=\"/nowhere\"\n"
                       "sfput:\tn1=4 n2=3 n3=3 d1=10 d2=10 d3=10.000001\n"
                       "\to1=0 label1=\"x\" data_format=\"xdr_float\" esize=4 in=\"data/vel.bin\"\n";
    spit(scratch("xdr.rsf"), text, strlen(text));
    fdw_error e;
    fdw_spec s = file_spec(nx, ny, nz, 10, FDW_FMT_RSF, scratch("xdr.rsf"));
    ck_assert_int_eq(load(&s, w, &e), FDW_OK);
    assert_same(v, w, n);
    free(be);
    free(v);
    free(w);
}
END_TEST

START_TEST(rsf_stdin_embedded)
{
    const int nx = 3, ny = 3, nz = 4;
    float *v = ramp_model(nx, ny, nz), *w = calloc((size_t)nx * ny * nz, 4);
    size_t n = (size_t)nx * ny * nz;
    const char *text = "n1=3 n2=3 n3=4 d1=5 d2=5 d3=5 data_format=native_float in=stdin\n\014\014\004";
    size_t tl = strlen(text);
    unsigned char *b = malloc(tl + n * 4);
    memcpy(b, text, tl);
    memcpy(b + tl, v, n * 4);
    spit(scratch("inline.rsf"), b, tl + n * 4);
    fdw_error e;
    fdw_spec s = file_spec(nx, ny, nz, 5, FDW_FMT_RSF, scratch("inline.rsf"));
    ck_assert_int_eq(load(&s, w, &e), FDW_OK);
    assert_same(v, w, n);
    free(b);
    free(v);
    free(w);
}
END_TEST

START_TEST(rsf_rejections)
{
    const int nx = 4, ny = 3, nz = 3;
    float *v = ramp_model(nx, ny, nz);
    fdw_error e;
    const double o[3] = {0, 0, 0};
    ck_assert_int_eq(fdw_model_write_rsf(scratch("m.rsf"), v, nx, ny, nz, 10, 10, 10, o, &e),
                     FDW_OK);
    /* d1 differs from dx. */
    ck_assert_int_eq(scan(nx, ny, nz, 10.5, FDW_FMT_RSF, scratch("m.rsf"), NULL, NULL, &e),
                     FDW_ERR_SPEC);
    ck_assert_str_eq(e.field, "velocity.path");
    ck_assert_contains(e.message, "d1=10");
    ck_assert_contains(e.message, "dx=10.5");
    /* n's differ from the grid. */
    ck_assert_int_eq(scan(3, 4, 3, 10, FDW_FMT_RSF, scratch("m.rsf"), NULL, NULL, &e),
                     FDW_ERR_SPEC);
    ck_assert_contains(e.message, "n1=4 n2=3 n3=3; the grid needs n1=nx=3 n2=ny=4 n3=nz=3");

    const char *cases[][2] = {
        {"n1=4 n2=3 n3=3 d1=10 d2=10 in=\"m.rsf@\"", "no d3"},
        {"n1=4 n2=3 n3=3 d1=10 d2=10 d3=10 in=\"m.rsf@\" data_format=\"native_int\"",
         "data_format=\"native_int\""},
        {"n1=4 n2=3 n3=3 d1=10 d2=10 d3=10 in=\"m.rsf@\" esize=8", "esize=8"},
        {"n1=4 n2=3 n3=3 d1=10 d2=10 d3=10", "no in="},
        {"n1=4 n2=3 n3=3 n4=2 d1=10 d2=10 d3=10 in=\"m.rsf@\"", "n4=2"},
        {"n1=four n2=3 n3=3 d1=10 d2=10 d3=10 in=\"m.rsf@\"", "n1=four"},
        {"n1=4 n2=3 n3=3 d1=10 d2=10 d3=10 in=\"missing@\"", "cannot open RSF binary"},
        {"hello world", "no n1"},
        /* A binary outside the header's directory would dodge the daemon's allowed dirs. */
        {"n1=4 n2=3 n3=3 d1=10 d2=10 d3=10 in=\"/etc/passwd\"", "must lie in the header's"},
    };
    for (size_t q = 0; q < sizeof cases / sizeof *cases; q++) {
        spit(scratch("bad.rsf"), cases[q][0], strlen(cases[q][0]));
        ck_assert_int_eq(scan(nx, ny, nz, 10, FDW_FMT_RSF, scratch("bad.rsf"), NULL, NULL, &e),
                         FDW_ERR_SPEC);
        ck_assert_str_eq(e.field, "velocity.path");
        ck_assert_contains(e.message, cases[q][1]);
    }
    /* Truncated binary. */
    spit(scratch("m.rsf@"), v, 4 * 35);
    ck_assert_int_eq(scan(nx, ny, nz, 10, FDW_FMT_RSF, scratch("m.rsf"), NULL, NULL, &e),
                     FDW_ERR_SPEC);
    ck_assert_contains(e.message, "truncated");
    free(v);
}
END_TEST

/* ---- analytic models ---------------------------------------------------------------- */

START_TEST(analytic_models)
{
    fdw_spec s;
    memset(&s, 0, sizeof s);
    s.nx = 5;
    s.ny = 4;
    s.nz = 10;
    s.dx = s.dy = s.dz = 10;
    s.origin[2] = 5; /* depth of plane k: 5 + 10 k */
    float *w = calloc(200, 4);
    fdw_error e;

    s.velocity.type = FDW_VEL_CONSTANT;
    s.velocity.v0 = 1750;
    ck_assert_int_eq(fdw_model_load(&s, w, &e), FDW_OK);
    for (int q = 0; q < 200; q++)
        ck_assert_float_eq(w[q], 1750.0f);

    fdw_layer layers[3] = {{0, 1500}, {25, 2000}, {65, 3000}};
    s.velocity.type = FDW_VEL_LAYERED;
    s.velocity.nlayers = 3;
    s.velocity.layers = layers;
    ck_assert_int_eq(fdw_model_load(&s, w, &e), FDW_OK);
    /* z = 5, 15 -> 1500; 25 .. 55 -> 2000 (top <= z); 65 .. 95 -> 3000 */
    const float want[10] = {1500, 1500, 2000, 2000, 2000, 2000, 3000, 3000, 3000, 3000};
    for (int k = 0; k < 10; k++)
        for (int q = 0; q < 20; q++)
            ck_assert_float_eq(w[k * 20 + q], want[k]);
    double lo, hi;
    ck_assert_int_eq(fdw_model_scan(&s.velocity, 5, 4, 10, 10, 10, 10, &lo, &hi, &e), FDW_OK);
    ck_assert_double_eq(lo, 1500);
    ck_assert_double_eq(hi, 3000);

    s.velocity.type = FDW_VEL_GAUSSIAN;
    s.velocity.v0 = 2000;
    s.velocity.dv = -500;
    s.velocity.sigma = 10;
    s.velocity.center[0] = 20;
    s.velocity.center[1] = 10;
    s.velocity.center[2] = 45;
    ck_assert_int_eq(fdw_model_load(&s, w, &e), FDW_OK);
    ck_assert_float_eq(w[2 + 5 * (1 + 4 * 4)], 1500.0f); /* the centre */
    /* one sigma away along x: 2000 - 500 exp(-1/2) */
    ck_assert_float_eq_tol(w[3 + 5 * (1 + 4 * 4)], (float)(2000 - 500 * exp(-0.5)), 1e-3f);
    ck_assert_float_eq_tol(w[0], (float)(2000 - 500 * exp(-(400 + 100 + 1600) / 200.0)), 1e-3f);

    /* A Gaussian that dips through zero is refused, naming the point. */
    s.velocity.dv = -2500;
    ck_assert_int_eq(fdw_model_load(&s, w, &e), FDW_ERR_SPEC);
    ck_assert_str_eq(e.field, "velocity");
    ck_assert_contains(e.message, "(2, 1, 4)");
    free(w);
}
END_TEST

/* The SEG-Y model committed under examples/ is readable with its spec's grid. */
START_TEST(example_segy_model)
{
    fdw_error e;
    double lo, hi;
    fdw_spec s = file_spec(48, 40, 40, 10, FDW_FMT_SEGY, FDW_EXAMPLES_DIR "/segy-model.segy");
    ck_assert_int_eq(
        fdw_model_scan(&s.velocity, 48, 40, 40, 10, 10, 10, &lo, &hi, &e), FDW_OK);
    ck_assert(lo >= 1400 && lo < 2000);
    ck_assert(hi > 2500 && hi <= 4000);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("files-models");
    TCase *tc = tcase_create("models");
    tcase_add_checked_fixture(tc, scratch_setup, scratch_teardown);
    tcase_set_timeout(tc, 50); /* generous: the test machine may be busy */
    tcase_add_test(tc, raw_roundtrip);
    tcase_add_test(tc, raw_truncated_and_long);
    tcase_add_loop_test(tc, raw_bad_sample, 0, 4);
    tcase_add_test(tc, raw_multi_chunk);
    tcase_add_test(tc, named_model_field);
    tcase_add_test(tc, segy_roundtrip);
    tcase_add_test(tc, segy_ibm_hand_written);
    tcase_add_test(tc, segy_crossline_sorted);
    tcase_add_test(tc, segy_headerless);
    tcase_add_test(tc, segy_wrong_geometry);
    tcase_add_test(tc, segy_damaged);
    tcase_add_test(tc, rsf_roundtrip);
    tcase_add_test(tc, rsf_xdr_relative);
    tcase_add_test(tc, rsf_stdin_embedded);
    tcase_add_test(tc, rsf_rejections);
    tcase_add_test(tc, analytic_models);
    tcase_add_test(tc, example_segy_model);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
