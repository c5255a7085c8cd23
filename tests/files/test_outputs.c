/* test_outputs.c — output files: raw float32 arrays, PNG images (decoded with libpng:
 * signature, size, colours of a known pattern), SEG-Y receiver gathers (read back with
 * libsegyio, the segyio command line tools and python3-segyio when present) and
 * manifest.json (structure, sizes, replacement, extra keys). */
#include "test_util.h"

#include <jansson.h>
#include <math.h>
#include <png.h>
#include <segyio/segy.h>

#include "core/error.h"
#include "output/outputs.h"

#define ck_assert_contains(hay, needle)                                                    \
    ck_assert_msg(strstr((hay), (needle)) != NULL, "expected \"%s\" in \"%s\"", (needle), \
                  (hay))

/* ---- raw ---------------------------------------------------------------------------- */

START_TEST(raw_output)
{
    float d[1000];
    for (int q = 0; q < 1000; q++)
        d[q] = (float)q * 0.5f - 100.0f;
    fdw_error e;
    ck_assert_int_eq(fdw_write_raw_f32(scratch("a.f32"), d, 1000, &e), FDW_OK);
    size_t len;
    unsigned char *b = slurp(scratch("a.f32"), &len);
    ck_assert_uint_eq(len, 4000);
    ck_assert_int_eq(memcmp(b, d, 4000), 0); /* little-endian host */
    free(b);
    ck_assert_int_eq(count_temporaries(), 0);
    ck_assert_int_eq(fdw_write_raw_f32(scratch("no/such/dir/a.f32"), d, 10, &e), FDW_ERR_IO);
    ck_assert_contains(e.message, "no/such/dir/a.f32");
}
END_TEST

/* ---- PNG ---------------------------------------------------------------------------- */

/* Decode path as 8-bit RGB; returns pixels (caller frees), fills w and h. */
static unsigned char *decode_png(const char *path, int *w, int *h)
{
    size_t len;
    unsigned char *b = slurp(path, &len);
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    ck_assert_uint_ge(len, 8);
    ck_assert_int_eq(memcmp(b, sig, 8), 0);
    free(b);
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    ck_assert_msg(png_image_begin_read_from_file(&img, path), "%s", img.message);
    ck_assert_int_eq(img.format & PNG_FORMAT_FLAG_ALPHA, 0); /* written without alpha */
    img.format = PNG_FORMAT_RGB;
    unsigned char *px = malloc(PNG_IMAGE_SIZE(img));
    ck_assert_msg(png_image_finish_read(&img, NULL, px, 0, NULL), "%s", img.message);
    *w = (int)img.width;
    *h = (int)img.height;
    return px;
}

static void assert_rgb(const unsigned char *px, int q, int r, int g, int b)
{
    ck_assert_msg(px[3 * q] == r && px[3 * q + 1] == g && px[3 * q + 2] == b,
                  "pixel %d is (%d, %d, %d), expected (%d, %d, %d)", q, px[3 * q],
                  px[3 * q + 1], px[3 * q + 2], r, g, b);
}

START_TEST(png_colours)
{
    /* 4 x 2, row 0 on top: clip 1. */
    const float d[8] = {-2, -1, 0, 1, 0.5f, -0.5f, 2, NAN};
    fdw_error e;
    ck_assert_int_eq(fdw_write_png(scratch("p.png"), d, 4, 2, 1.0f, &e), FDW_OK);
    int w, h;
    unsigned char *px = decode_png(scratch("p.png"), &w, &h);
    ck_assert_int_eq(w, 4);
    ck_assert_int_eq(h, 2);
    assert_rgb(px, 0, 0, 0, 255);     /* below -clip: blue */
    assert_rgb(px, 1, 0, 0, 255);     /* -clip: blue */
    assert_rgb(px, 2, 255, 255, 255); /* zero: white */
    assert_rgb(px, 3, 255, 0, 0);     /* +clip: red */
    assert_rgb(px, 4, 255, 128, 128); /* half way to red */
    assert_rgb(px, 5, 128, 128, 255); /* half way to blue */
    assert_rgb(px, 6, 255, 0, 0);     /* above clip: red */
    assert_rgb(px, 7, 0, 0, 0);       /* NaN: black */
    free(px);
    ck_assert_int_eq(count_temporaries(), 0);
}
END_TEST

START_TEST(png_auto_clip_and_zero)
{
    const float d[3] = {0, 2, -4};
    fdw_error e;
    ck_assert_int_eq(fdw_write_png(scratch("a.png"), d, 3, 1, 0.0f, &e), FDW_OK);
    int w, h;
    unsigned char *px = decode_png(scratch("a.png"), &w, &h);
    ck_assert_int_eq(w, 3);
    ck_assert_int_eq(h, 1);
    assert_rgb(px, 0, 255, 255, 255);
    assert_rgb(px, 1, 255, 128, 128); /* 2 of max |4| */
    assert_rgb(px, 2, 0, 0, 255);
    free(px);
    const float z[6] = {0, 0, 0, 0, 0, 0};
    ck_assert_int_eq(fdw_write_png(scratch("z.png"), z, 2, 3, -1.0f, &e), FDW_OK);
    px = decode_png(scratch("z.png"), &w, &h);
    ck_assert_int_eq(w, 2);
    ck_assert_int_eq(h, 3);
    for (int q = 0; q < 6; q++)
        assert_rgb(px, q, 128, 128, 128);
    free(px);
    ck_assert_int_eq(fdw_write_png(scratch("none/x.png"), z, 2, 3, 1, &e), FDW_ERR_IO);
}
END_TEST

/* ---- SEG-Y gather ------------------------------------------------------------------- */

/* Three receivers, 50 samples at 2 ms; sample s of trace r is (r+1)*0.5*s - 3. */
static void write_test_gather(const char *path)
{
    float tr[150];
    for (int r = 0; r < 3; r++)
        for (int s = 0; s < 50; s++)
            tr[r * 50 + s] = (r + 1) * 0.5f * s - 3.0f;
    fdw_receiver rec[3] = {{{100.25, 50, 30}, 0, 0}, {{200.5, 50, 31}, 0, 0},
                           {{300.75, 50, 32}, 0, 0}};
    fdw_gather_shot shot = {1, 10, 20, 5.5};
    fdw_error e;
    ck_assert_int_eq(fdw_write_segy_gather(path, tr, 3, 50, 0.002, rec, &shot, &e), FDW_OK);
}

static int32_t field(const char *hdr, int f)
{
    int32_t v = 0;
    ck_assert_int_eq(segy_get_field(hdr, f, &v), SEGY_OK);
    return v;
}

START_TEST(gather_libsegyio)
{
    write_test_gather(scratch("g.segy"));
    size_t len;
    free(slurp(scratch("g.segy"), &len));
    ck_assert_uint_eq(len, 3600 + 3 * (240 + 200));
    segy_file *fp = segy_open(scratch("g.segy"), "rb");
    ck_assert_ptr_nonnull(fp);
    char bin[SEGY_BINARY_HEADER_SIZE], text[3201];
    ck_assert_int_eq(segy_binheader(fp, bin), SEGY_OK);
    ck_assert_int_eq(segy_samples(bin), 50);
    ck_assert_int_eq(segy_format(bin), SEGY_IEEE_FLOAT_4_BYTE);
    float dt = 0;
    ck_assert_int_eq(segy_sample_interval(fp, 0, &dt), SEGY_OK);
    ck_assert_float_eq(dt, 2000.0f);
    ck_assert_int_eq(segy_read_textheader(fp, text), SEGY_OK); /* EBCDIC decoded */
    ck_assert_contains(text, "C 1 FDWAVE RECEIVER GATHER");
    const int trsize = segy_trsize(SEGY_IEEE_FLOAT_4_BYTE, 50);
    int ntr = 0;
    ck_assert_int_eq(segy_traces(fp, &ntr, 3600, trsize), SEGY_OK);
    ck_assert_int_eq(ntr, 3);
    char hdr[SEGY_TRACE_HEADER_SIZE];
    float buf[50];
    for (int r = 0; r < 3; r++) {
        ck_assert_int_eq(segy_traceheader(fp, r, hdr, 3600, trsize), SEGY_OK);
        ck_assert_int_eq(field(hdr, SEGY_TR_SEQ_LINE), r + 1);
        ck_assert_int_eq(field(hdr, SEGY_TR_SOURCE_GROUP_SCALAR), -100);
        ck_assert_int_eq(field(hdr, SEGY_TR_ELEV_SCALAR), -100);
        ck_assert_int_eq(field(hdr, SEGY_TR_GROUP_X), 10025 + 10025 * r);
        ck_assert_int_eq(field(hdr, SEGY_TR_GROUP_Y), 5000);
        ck_assert_int_eq(field(hdr, SEGY_TR_RECV_GROUP_ELEV), -(3000 + 100 * r));
        ck_assert_int_eq(field(hdr, SEGY_TR_SOURCE_X), 1000);
        ck_assert_int_eq(field(hdr, SEGY_TR_SOURCE_Y), 2000);
        ck_assert_int_eq(field(hdr, SEGY_TR_SOURCE_DEPTH), 550);
        ck_assert_int_eq(field(hdr, SEGY_TR_SAMPLE_COUNT), 50);
        ck_assert_int_eq(field(hdr, SEGY_TR_SAMPLE_INTER), 2000);
        ck_assert_int_eq(segy_readtrace(fp, r, buf, 3600, trsize), SEGY_OK);
        segy_to_native(SEGY_IEEE_FLOAT_4_BYTE, 50, buf);
        for (int s = 0; s < 50; s++)
            ck_assert_float_eq(buf[s], (r + 1) * 0.5f * s - 3.0f);
    }
    segy_close(fp);
    ck_assert_int_eq(count_temporaries(), 0);
}
END_TEST

/* Shot 12 at (250.5, 60.5, 7.75) m, five receivers from x = 400 down to 0 m (so the
 * spread runs towards -x) at y = 50, depth 12.5, inline 3, crosslines 1..5; 40 samples at
 * 1.5 ms; sample s of trace r is r - s / 8. Every value is exact in centimetres. */
static void write_shot_gather(const char *path)
{
    float tr[5 * 40];
    fdw_receiver rec[5];
    for (int r = 0; r < 5; r++) {
        rec[r] = (fdw_receiver){{400.0 - 100.0 * r, 50, 12.5}, 3, r + 1};
        for (int s = 0; s < 40; s++)
            tr[r * 40 + s] = (float)r - s / 8.0f;
    }
    fdw_gather_shot shot = {12, 250.5, 60.5, 7.75};
    fdw_error e;
    ck_assert_int_eq(fdw_write_segy_gather(path, tr, 5, 40, 0.0015, rec, &shot, &e), FDW_OK);
}

/* Every header field of the shot gather read back with libsegyio. Offsets: receivers at
 * x 400 and 300 lie behind the source along the spread's direction (first to last
 * receiver, -x), so negative; whole metres of the horizontal distance. */
START_TEST(gather_headers_every_field)
{
    write_shot_gather(scratch("shot.segy"));
    segy_file *fp = segy_open(scratch("shot.segy"), "rb");
    ck_assert_ptr_nonnull(fp);
    char bin[SEGY_BINARY_HEADER_SIZE], text[3201];
    ck_assert_int_eq(segy_binheader(fp, bin), SEGY_OK);
    int32_t v = 0;
    ck_assert_int_eq(segy_get_bfield(bin, SEGY_BIN_INTERVAL, &v), SEGY_OK);
    ck_assert_int_eq(v, 1500);
    ck_assert_int_eq(segy_get_bfield(bin, SEGY_BIN_SAMPLES, &v), SEGY_OK);
    ck_assert_int_eq(v, 40);
    ck_assert_int_eq(segy_get_bfield(bin, SEGY_BIN_FORMAT, &v), SEGY_OK);
    ck_assert_int_eq(v, 5);
    ck_assert_int_eq(segy_get_bfield(bin, SEGY_BIN_SEGY_REVISION, &v), SEGY_OK);
    ck_assert_int_eq(v, 0x0100);
    ck_assert_int_eq(segy_get_bfield(bin, SEGY_BIN_TRACE_FLAG, &v), SEGY_OK);
    ck_assert_int_eq(v, 1);
    ck_assert_int_eq(segy_get_bfield(bin, SEGY_BIN_TRACES, &v), SEGY_OK);
    ck_assert_int_eq(v, 5);
    ck_assert_int_eq(segy_get_bfield(bin, SEGY_BIN_MEASUREMENT_SYSTEM, &v), SEGY_OK);
    ck_assert_int_eq(v, 1);
    ck_assert_int_eq(segy_read_textheader(fp, text), SEGY_OK);
    ck_assert_contains(text, "SHOT 12: 5 TRACES");
    const int trsize = segy_trsize(SEGY_IEEE_FLOAT_4_BYTE, 40);
    static const int offset[5] = {-150, -51, 52, 151, 251};
    char hdr[SEGY_TRACE_HEADER_SIZE];
    float buf[40];
    for (int r = 0; r < 5; r++) {
        ck_assert_int_eq(segy_traceheader(fp, r, hdr, 3600, trsize), SEGY_OK);
        ck_assert_int_eq(field(hdr, SEGY_TR_SEQ_LINE), r + 1);
        ck_assert_int_eq(field(hdr, SEGY_TR_SEQ_FILE), r + 1);
        ck_assert_int_eq(field(hdr, SEGY_TR_FIELD_RECORD), 12);
        ck_assert_int_eq(field(hdr, SEGY_TR_NUMBER_ORIG_FIELD), r + 1);
        ck_assert_int_eq(field(hdr, SEGY_TR_ENERGY_SOURCE_POINT), 12);
        ck_assert_int_eq(field(hdr, SEGY_TR_NUM_IN_ENSEMBLE), r + 1);
        ck_assert_int_eq(field(hdr, SEGY_TR_SHOT_POINT), 12);
        ck_assert_int_eq(field(hdr, SEGY_TR_SHOT_POINT_SCALAR), 1);
        ck_assert_int_eq(field(hdr, SEGY_TR_TRACE_ID), 1);
        ck_assert_int_eq(field(hdr, SEGY_TR_OFFSET), offset[r]);
        ck_assert_int_eq(field(hdr, SEGY_TR_ELEV_SCALAR), -100);
        ck_assert_int_eq(field(hdr, SEGY_TR_SOURCE_GROUP_SCALAR), -100);
        ck_assert_int_eq(field(hdr, SEGY_TR_RECV_GROUP_ELEV), -1250);
        ck_assert_int_eq(field(hdr, SEGY_TR_SOURCE_DEPTH), 775);
        ck_assert_int_eq(field(hdr, SEGY_TR_SOURCE_X), 25050);
        ck_assert_int_eq(field(hdr, SEGY_TR_SOURCE_Y), 6050);
        ck_assert_int_eq(field(hdr, SEGY_TR_GROUP_X), 40000 - 10000 * r);
        ck_assert_int_eq(field(hdr, SEGY_TR_GROUP_Y), 5000);
        ck_assert_int_eq(field(hdr, SEGY_TR_COORD_UNITS), 1);
        ck_assert_int_eq(field(hdr, SEGY_TR_CDP_X), 32525 - 5000 * r);
        ck_assert_int_eq(field(hdr, SEGY_TR_CDP_Y), 5525);
        ck_assert_int_eq(field(hdr, SEGY_TR_INLINE), 3);
        ck_assert_int_eq(field(hdr, SEGY_TR_CROSSLINE), r + 1);
        ck_assert_int_eq(field(hdr, SEGY_TR_SAMPLE_COUNT), 40);
        ck_assert_int_eq(field(hdr, SEGY_TR_SAMPLE_INTER), 1500);
        ck_assert_int_eq(segy_readtrace(fp, r, buf, 3600, trsize), SEGY_OK);
        segy_to_native(SEGY_IEEE_FLOAT_4_BYTE, 40, buf);
        for (int s = 0; s < 40; s++)
            ck_assert_float_eq(buf[s], (float)r - s / 8.0f);
    }
    segy_close(fp);
}
END_TEST

/* Output of a shell command (first 64 KiB). */
static char *run_capture(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    char *out = calloc(1, 65536);
    size_t n = fread(out, 1, 65535, p);
    out[n] = '\0';
    ck_assert_int_eq(pclose(p), 0);
    return out;
}

START_TEST(gather_segyio_tools)
{
    if (access(FDW_SEGYIO_CATB, X_OK) != 0) {
        fprintf(stderr, "gather_segyio_tools: %s not installed, skipped\n", FDW_SEGYIO_CATB);
        return;
    }
    write_test_gather(scratch("g.segy"));
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "'%s' '%s'", FDW_SEGYIO_CATB, scratch("g.segy"));
    char *out = run_capture(cmd);
    ck_assert_contains(out, "hdt\t2000\n");
    ck_assert_contains(out, "hns\t50\n");
    ck_assert_contains(out, "format\t5\n");
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' -t 2 '%s'", FDW_SEGYIO_CATR, scratch("g.segy"));
    out = run_capture(cmd);
    ck_assert_contains(out, "gx\t20050\n");
    ck_assert_contains(out, "gy\t5000\n");
    ck_assert_contains(out, "scalco\t-100\n");
    ck_assert_contains(out, "gelev\t-3100\n");
    ck_assert_contains(out, "ns\t50\n");
    ck_assert_contains(out, "dt\t2000\n");
    free(out);
}
END_TEST

START_TEST(gather_python_segyio)
{
    if (!FDW_PYTHON_SEGYIO[0]) {
        fprintf(stderr, "gather_python_segyio: no python3 with segyio found, skipped\n");
        return;
    }
    write_test_gather(scratch("g.segy"));
    write_shot_gather(scratch("shot.segy"));
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s'", FDW_PYTHON_SEGYIO, FDW_CHECK_GATHER_PY,
             scratch("g.segy"), scratch("shot.segy"));
    char *out = run_capture(cmd);
    ck_assert_contains(out, "gather ok");
    free(out);
}
END_TEST

START_TEST(gather_limits)
{
    float tr[4] = {0};
    fdw_receiver rec[1] = {{{0, 0, 0}, 0, 0}};
    fdw_error e;
    ck_assert_int_eq(fdw_write_segy_gather(scratch("a.segy"), tr, 1, 4, 5e-7, rec, NULL, &e),
                     FDW_ERR_UNSUPPORTED);
    ck_assert_contains(e.message, "1 microsecond");
    ck_assert_int_eq(fdw_write_segy_gather(scratch("a.segy"), tr, 1, 4, 0.1, rec, NULL, &e),
                     FDW_ERR_UNSUPPORTED);
    ck_assert_contains(e.message, "65535 microseconds");
    /* a sampling SEG-Y cannot state exactly is refused, never rounded */
    ck_assert_int_eq(fdw_write_segy_gather(scratch("a.segy"), tr, 1, 4, 201.269e-6, rec, NULL,
                                           &e),
                     FDW_ERR_UNSUPPORTED);
    ck_assert_contains(e.message, "not a whole number of microseconds");
    /* Without a source the source fields stay zero. */
    ck_assert_int_eq(fdw_write_segy_gather(scratch("a.segy"), tr, 1, 4, 0.001, rec, NULL, &e),
                     FDW_OK);
    ck_assert_int_eq(count_temporaries(), 0);
}
END_TEST

/* ---- manifest ----------------------------------------------------------------------- */

START_TEST(manifest_structure)
{
    fdw_spec *spec = NULL;
    fdw_error e;
    ck_assert_msg(fdw_spec_load(FDW_EXAMPLES_DIR "/homogeneous.json", NULL, &spec, &e) == FDW_OK,
                  "%s: %s", e.field, e.message);
    fdw_manifest *m = fdw_manifest_new(spec, scratch_dir);
    ck_assert_ptr_nonnull(m);
    float d[4] = {1, 2, 3, 4};
    ck_assert_int_eq(fdw_write_raw_f32(scratch("snap.f32"), d, 4, &e), FDW_OK);
    const long dims2[2] = {2, 2}, dims1[1] = {77};
    fdw_manifest_add(m, "snap.f32", "snapshot", "raw-f32", "first version", 2, dims2,
                     "Pa (arbitrary)", 100, 0.1);
    fdw_manifest_add(m, "gather.segy", "gather", "segy", "the gather", 1, dims1, "Pa", -1, -1);
    fdw_manifest_add(m, "snap.f32", "snapshot", "raw-f32", "second version", 2, dims2,
                     "Pa (arbitrary)", 100, 0.1);
    fdw_manifest_set_number(m, "snap.f32", "max_abs", 4.0);
    fdw_manifest_set_number(m, "gather.segy", "sample_interval", 0.002);
    fdw_manifest_set_number(m, "gather.segy", "bad", 1.0 / 0.0); /* not finite: left out */
    fdw_manifest_set_number(m, "missing.f32", "max_abs", 1.0);   /* no such entry */
    fdw_manifest_set_json(m, "result", "{\"steps\": 10, \"backend\": \"cpu\"}");
    fdw_manifest_set_json(m, "files", "[]");  /* reserved: ignored */
    fdw_manifest_set_json(m, "note", "not json {");
    ck_assert_int_eq(fdw_manifest_write(m, &e), FDW_OK);
    /* The gather appears after a first write: its size is filled at the next write. */
    spit(scratch("gather.segy"), "0123456789", 10);
    ck_assert_int_eq(fdw_manifest_write(m, &e), FDW_OK);
    fdw_manifest_free(m);
    fdw_spec_free(spec);
    ck_assert_int_eq(count_temporaries(), 0);

    json_error_t je;
    json_t *root = json_load_file(scratch("manifest.json"), 0, &je);
    ck_assert_msg(root != NULL, "manifest.json: %s", je.text);
    ck_assert_str_eq(json_string_value(json_object_get(root, "job")), "homogeneous point source");
    ck_assert_str_eq(json_string_value(json_object_get(root, "kind")), "acoustic");
    ck_assert_str_eq(json_string_value(json_object_get(root, "fdwave_version")), FDW_VERSION);
    json_t *sp = json_object_get(root, "spec");
    ck_assert(json_is_object(sp));
    ck_assert(json_is_object(json_object_get(sp, "grid")));
    json_t *files = json_object_get(root, "files");
    ck_assert(json_is_array(files));
    ck_assert_uint_eq(json_array_size(files), 2);
    json_t *f0 = json_array_get(files, 0), *f1 = json_array_get(files, 1);
    ck_assert_str_eq(json_string_value(json_object_get(f0, "name")), "snap.f32");
    ck_assert_str_eq(json_string_value(json_object_get(f0, "kind")), "snapshot");
    ck_assert_str_eq(json_string_value(json_object_get(f0, "format")), "raw-f32");
    ck_assert_str_eq(json_string_value(json_object_get(f0, "description")), "second version");
    ck_assert_str_eq(json_string_value(json_object_get(f0, "units")), "Pa (arbitrary)");
    ck_assert_int_eq(json_array_size(json_object_get(f0, "dims")), 2);
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(f0, "dims"), 0)), 2);
    ck_assert_int_eq(json_integer_value(json_object_get(f0, "step")), 100);
    ck_assert_double_eq_tol(json_real_value(json_object_get(f0, "time")), 0.1, 1e-15);
    ck_assert_int_eq(json_integer_value(json_object_get(f0, "bytes")), 16);
    ck_assert_double_eq(json_real_value(json_object_get(f0, "max_abs")), 4.0);
    ck_assert_str_eq(json_string_value(json_object_get(f1, "name")), "gather.segy");
    ck_assert_double_eq(json_real_value(json_object_get(f1, "sample_interval")), 0.002);
    ck_assert_ptr_null(json_object_get(f1, "bad"));
    ck_assert(json_is_null(json_object_get(f1, "step")));
    ck_assert(json_is_null(json_object_get(f1, "time")));
    ck_assert_int_eq(json_integer_value(json_object_get(f1, "bytes")), 10);
    json_t *res = json_object_get(root, "result");
    ck_assert_int_eq(json_integer_value(json_object_get(res, "steps")), 10);
    ck_assert_str_eq(json_string_value(json_object_get(root, "note")), "not json {");
    json_decref(root);
}
END_TEST

START_TEST(manifest_unwritable)
{
    fdw_manifest *m = fdw_manifest_new(NULL, scratch("missing-dir"));
    ck_assert_ptr_nonnull(m);
    fdw_error e;
    ck_assert_int_eq(fdw_manifest_write(m, &e), FDW_ERR_IO);
    ck_assert_contains(e.message, "missing-dir/manifest.json");
    fdw_manifest_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("files-outputs");
    TCase *tc = tcase_create("outputs");
    tcase_add_checked_fixture(tc, scratch_setup, scratch_teardown);
    tcase_set_timeout(tc, 50); /* generous: the test machine may be busy */
    tcase_add_test(tc, raw_output);
    tcase_add_test(tc, png_colours);
    tcase_add_test(tc, png_auto_clip_and_zero);
    tcase_add_test(tc, gather_libsegyio);
    tcase_add_test(tc, gather_headers_every_field);
    tcase_add_test(tc, gather_segyio_tools);
    tcase_add_test(tc, gather_python_segyio);
    tcase_add_test(tc, gather_limits);
    tcase_add_test(tc, manifest_structure);
    tcase_add_test(tc, manifest_unwritable);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
