/* test_imaging_segy.c — rtm's and gradient's observed traces from SEG-Y (engine/kinds/
 * imaging/imaging_segy.c, docs/spec.md "kinds born, rtm, gradient"), on the CPU, with
 * shot files this test writes through segyio:
 *   - one shot (coordinates in centimetres, elevations in decimetres, more samples than
 *     the run records): rtm's image is the same bit for bit as that of the same traces
 *     given as raw float32 with the decoded receivers in the spec;
 *   - three shots interleaved trace by trace (millimetres, elevations above a datum of
 *     50 m, the source below its surface elevation): the gradient of data.ffid's shot is
 *     the raw one's bit for bit, and so is the misfit;
 *   - the normalised spec: a trusted re-parse uses what it recorded (a header changed in
 *     place, size and mtime kept, goes unread), a changed file is refused there and by
 *     the run; dt "auto" divides the file's interval;
 *   - each refusal names its field, the file, the trace and the header field. */
#include "fdwave/fdwave.h"

#include <check.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <segyio/segy.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NREC 12
#define NS 70        /* samples a trace holds */
#define SLOTS 61     /* the run records nt / 2 + 1 of them */
#define DT_US 3000   /* the files' sample interval: 2 steps of dt 1.5 ms */

static char g_dir[64];

/* The geometry of one trace as raw header values (before the scalars). */
typedef struct trace_def {
    int32_t ffid, sx, sy, selev, sdepth, gx, gy, gelev, escal, cscal;
} trace_def;

/* A header field to overwrite after the defaults: trace (0-based), or -1 for the binary
 * header. */
typedef struct patch {
    int trace, field;
    int32_t value;
} patch;

/* The samples of receiver r (the same in every file, and in the raw one). */
static float sample(int r, int i)
{
    unsigned x = (unsigned)(r * 7919 + i * 104729 + 17);
    x ^= x >> 13, x *= 0x5bd1e995u, x ^= x >> 15;
    return (float)((x % 20001u) / 10000.0 - 1.0);
}

static void write_segy(const char *path, const trace_def *tr, const int *rec, int ntr,
                       const patch *pt, int npt)
{
    segy_file *fp = segy_open(path, "w+b");
    ck_assert_ptr_nonnull(fp);
    char text[3201], bin[SEGY_BINARY_HEADER_SIZE], hdr[SEGY_TRACE_HEADER_SIZE];
    memset(text, ' ', 3200);
    text[3200] = '\0';
    memset(bin, 0, sizeof bin);
    segy_set_bfield(bin, SEGY_BIN_INTERVAL, DT_US);
    segy_set_bfield(bin, SEGY_BIN_SAMPLES, NS);
    segy_set_bfield(bin, SEGY_BIN_FORMAT, SEGY_IEEE_FLOAT_4_BYTE);
    segy_set_bfield(bin, SEGY_BIN_MEASUREMENT_SYSTEM, 1);
    segy_set_bfield(bin, SEGY_BIN_SEGY_REVISION, 0x0100);
    for (int q = 0; q < npt; q++)
        if (pt[q].trace < 0)
            segy_set_bfield(bin, pt[q].field, pt[q].value);
    const int trsize = segy_trsize(SEGY_IEEE_FLOAT_4_BYTE, NS);
    ck_assert_int_eq(segy_write_textheader(fp, 0, text), SEGY_OK);
    ck_assert_int_eq(segy_write_binheader(fp, bin), SEGY_OK);
    for (int t = 0; t < ntr; t++) {
        const trace_def *d = &tr[t];
        memset(hdr, 0, sizeof hdr);
        const int32_t f[][2] = {
            {SEGY_TR_SEQ_FILE, t + 1},         {SEGY_TR_FIELD_RECORD, d->ffid},
            {SEGY_TR_SOURCE_X, d->sx},         {SEGY_TR_SOURCE_Y, d->sy},
            {SEGY_TR_SOURCE_SURF_ELEV, d->selev}, {SEGY_TR_SOURCE_DEPTH, d->sdepth},
            {SEGY_TR_GROUP_X, d->gx},          {SEGY_TR_GROUP_Y, d->gy},
            {SEGY_TR_RECV_GROUP_ELEV, d->gelev}, {SEGY_TR_ELEV_SCALAR, d->escal},
            {SEGY_TR_SOURCE_GROUP_SCALAR, d->cscal}, {SEGY_TR_COORD_UNITS, 1},
            {SEGY_TR_SAMPLE_COUNT, NS},        {SEGY_TR_SAMPLE_INTER, DT_US},
            {SEGY_TR_TRACE_ID, 1}};
        for (size_t q = 0; q < sizeof f / sizeof f[0]; q++)
            segy_set_field(hdr, f[q][0], f[q][1]);
        for (int q = 0; q < npt; q++)
            if (pt[q].trace == t)
                segy_set_field(hdr, pt[q].field, pt[q].value);
        float buf[NS];
        for (int i = 0; i < NS; i++)
            buf[i] = sample(rec[t], i);
        segy_from_native(SEGY_IEEE_FLOAT_4_BYTE, NS, buf);
        ck_assert_int_eq(segy_write_traceheader(fp, t, hdr, 3600, trsize), SEGY_OK);
        ck_assert_int_eq(segy_writetrace(fp, t, buf, 3600, trsize), SEGY_OK);
    }
    ck_assert_int_eq(segy_close(fp), SEGY_OK);
}

/* One shot at (155, 155, 100) m; receivers at x = 90 + 11.25 r, y = 155.5, z = 100 m:
 * coordinates in centimetres (scalar -100), elevations in decimetres (-10). */
static void one_shot(trace_def *tr, int *rec)
{
    for (int r = 0; r < NREC; r++) {
        tr[r] = (trace_def){.ffid = 1, .sx = 15500, .sy = 15500, .selev = 0, .sdepth = 1000,
                            .gx = 9000 + 1125 * r, .gy = 15550, .gelev = -1000, .escal = -10,
                            .cscal = -100};
        rec[r] = r;
    }
}

static void write_one(const char *name, const patch *pt, int npt, char *path)
{
    trace_def tr[NREC];
    int rec[NREC];
    one_shot(tr, rec);
    sprintf(path, "%s/%s", g_dir, name);
    write_segy(path, tr, rec, NREC, pt, npt);
}

/* The same receivers as the raw spec states them, and the traces as raw float32. */
static const char *raw_receivers(void)
{
    static char s[1024];
    int n = snprintf(s, sizeof s, "\"receivers\": {\"points\": [");
    for (int r = 0; r < NREC; r++)
        n += snprintf(s + n, sizeof s - (size_t)n, "%s[%.17g, 155.5, 100]", r ? ", " : "",
                      90.0 + 11.25 * r);
    snprintf(s + n, sizeof s - (size_t)n, "]}");
    return s;
}

static void write_raw(const char *path)
{
    float v[NREC * SLOTS];
    for (int r = 0; r < NREC; r++)
        for (int i = 0; i < SLOTS; i++)
            v[r * SLOTS + i] = sample(r, i);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(v, sizeof *v, NREC * SLOTS, f), NREC * SLOTS);
    ck_assert_int_eq(fclose(f), 0);
}

#define COMMON "\"grid\": {\"nx\": 32, \"ny\": 32, \"nz\": 32, \"dx\": 10, \"dy\": 10, " \
               "\"dz\": 10}, \"velocity\": {\"type\": \"gaussian\", \"background\": 2000, " \
               "\"center\": [160, 150, 200], \"sigma\": 60, \"dv\": 300}, \"boundary\": " \
               "{\"type\": \"sponge\", \"width\": 8}, \"sources\": [{\"position\": [155, " \
               "155, 100], \"wavelet\": {\"type\": \"ricker\", \"f0\": 15}}]"
#define TIME "\"time\": {\"nt\": 120, \"dt\": 0.0015}"
#define TIME_RAW "\"time\": {\"nt\": 120, \"dt\": 0.0015, \"sample_interval\": 0.003}"

static fdw_status parse(const char *json, const fdw_parse_opts *o, fdw_spec **spec,
                        fdw_error *err)
{
    return fdw_spec_parse(json, strlen(json), o, spec, err);
}

/* Parse and run on the CPU into g_dir/out. */
static void run_json(const char *out, const char *json)
{
    char dir[160];
    snprintf(dir, sizeof dir, "%s/%s", g_dir, out);
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_msg(parse(json, NULL, &spec, &err) == FDW_OK, "%s: %s: %s", out, err.field,
                  err.message);
    fdw_run_opts o = {.out_dir = dir, .backend = FDW_BACKEND_CPU};
    fdw_result res;
    ck_assert_msg(fdw_run(spec, &o, NULL, &res, &err) == FDW_OK, "%s: %s", out, err.message);
    fdw_spec_free(spec);
}

/* The bytes of g_dir/out/name. */
static char *slurp(const char *out, const char *name, long *len)
{
    char path[200];
    snprintf(path, sizeof path, "%s/%s/%s", g_dir, out, name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s", path);
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    rewind(f);
    char *b = malloc((size_t)*len + 1);
    ck_assert_uint_eq(fread(b, 1, (size_t)*len, f), (size_t)*len);
    fclose(f);
    b[*len] = '\0';
    return b;
}

static void same_file(const char *a, const char *b, const char *name)
{
    long na, nb;
    char *x = slurp(a, name, &na), *y = slurp(b, name, &nb);
    ck_assert_int_gt(na, 0);
    ck_assert_msg(na == nb && memcmp(x, y, (size_t)na) == 0, "%s of %s and %s differ", name, a,
                  b);
    free(x), free(y);
}

static double misfit(const char *out)
{
    long n;
    char *m = slurp(out, "manifest.json", &n);
    json_t *j = json_loads(m, 0, NULL);
    ck_assert_ptr_nonnull(j);
    const double v = json_number_value(json_object_get(json_object_get(j, "result"), "misfit"));
    json_decref(j);
    free(m);
    return v;
}

/* Run kind on the SEG-Y file (its "data" members after path: extra) into out_segy and on
 * the raw traces at the decoded receivers into out_raw; result (image.f32 or
 * gradient.f32) must be the same bytes. */
static void segy_against_raw(const char *kind, const char *segy, const char *extra,
                             const char *out_segy, const char *out_raw, const char *result)
{
    char raw[160], j[4096];
    snprintf(raw, sizeof raw, "%s/%s.f32", g_dir, out_raw);
    write_raw(raw);
    snprintf(j, sizeof j, "{\"kind\": \"%s\", " COMMON ", " TIME ", \"data\": {\"format\": "
             "\"segy\", \"path\": \"%s\"%s}}", kind, segy, extra);
    run_json(out_segy, j);
    snprintf(j, sizeof j, "{\"kind\": \"%s\", " COMMON ", " TIME_RAW ", %s, \"data\": "
             "{\"path\": \"%s\"}}", kind, raw_receivers(), raw);
    run_json(out_raw, j);
    same_file(out_segy, out_raw, result);
}

START_TEST(test_one_shot_rtm)
{
    char segy[160];
    write_one("one.segy", NULL, 0, segy);
    segy_against_raw("rtm", segy, "", "rtm_segy", "rtm_raw", "image.f32");
    printf("rtm of a one-shot SEG-Y file: image.f32 the same bit for bit as the raw traces'\n");
}
END_TEST

/* Three shots (FFIDs 7, 8, 9 at x = 125, 155, 185 m), trace by trace in receiver order;
 * millimetres; elevations in metres above a datum at 50 m: the receivers at elevation
 * -50 m, the source 100 m below a surface at 50 m. */
static void write_three(const char *path, const patch *pt, int npt)
{
    trace_def tr[3 * NREC];
    int rec[3 * NREC];
    for (int r = 0; r < NREC; r++)
        for (int s = 0; s < 3; s++) {
            const int t = 3 * r + s;
            tr[t] = (trace_def){.ffid = 7 + s, .sx = 125000 + 30000 * s, .sy = 155000,
                                .selev = 50, .sdepth = 100, .gx = 90000 + 11250 * r,
                                .gy = 155500, .gelev = -50, .escal = 1, .cscal = -1000};
            rec[t] = s == 1 ? r : r + 50; /* another shot's traces differ */
        }
    write_segy(path, tr, rec, 3 * NREC, pt, npt);
}

START_TEST(test_multi_shot_gradient)
{
    char segy[160];
    snprintf(segy, sizeof segy, "%s/three.segy", g_dir);
    write_three(segy, NULL, 0);
    segy_against_raw("gradient", segy, ", \"ffid\": 8, \"datum\": 50", "grad_segy",
                     "grad_raw", "gradient.f32");
    const double a = misfit("grad_segy"), b = misfit("grad_raw");
    ck_assert_double_gt(a, 0.0);
    ck_assert_msg(a == b, "misfit %.17g against %.17g", a, b);
    printf("gradient of FFID 8 of a three-shot SEG-Y file: gradient.f32 and the misfit "
           "(%.9e) the same bit for bit as the raw traces'\n", a);
}
END_TEST

/* The members of COMMON but the source. */
#define MODEL "\"grid\": {\"nx\": 32, \"ny\": 32, \"nz\": 32, \"dx\": 10, \"dy\": 10, " \
              "\"dz\": 10}, \"velocity\": {\"type\": \"gaussian\", \"background\": 2000, " \
              "\"center\": [160, 150, 200], \"sigma\": 60, \"dv\": 300}, \"boundary\": " \
              "{\"type\": \"sponge\", \"width\": 8}"
#define RICKER "{\"type\": \"ricker\", \"f0\": 15}"

/* The bytes of g_dir/out/name as floats (n of them). */
static float *floats(const char *out, const char *name, size_t n)
{
    long len;
    char *b = slurp(out, name, &len);
    ck_assert_int_eq(len, (long)(n * sizeof(float)));
    return (float *)b;
}

/* A survey of the three-shot file (FFIDs 7, 8, 9, their traces interleaved): every FFID a
 * shot in FFID order, each the single-shot job of data.ffid; the image and illumination
 * the float sums of those jobs' in shot order, bit for bit. */
START_TEST(test_survey_of_a_file)
{
    char segy[160], j[4096];
    snprintf(segy, sizeof segy, "%s/survey.segy", g_dir);
    write_three(segy, NULL, 0);
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", " MODEL ", " TIME ", \"survey\": {\"wavelet\": "
             RICKER "}, \"data\": {\"format\": \"segy\", \"path\": \"%s\", \"datum\": 50}, "
             "\"imaging\": {\"illumination\": true}}", segy);
    run_json("sv_rtm", j);
    const size_t n = 32 * 32 * 32;
    float *img = calloc(n, sizeof *img), *ill = calloc(n, sizeof *ill);
    for (int s = 0; s < 3; s++) {
        char one[4096], out[32];
        snprintf(out, sizeof out, "sv_one_%d", s);
        snprintf(one, sizeof one, "{\"kind\": \"rtm\", " MODEL ", " TIME ", \"sources\": "
                 "[{\"position\": [%d, 155, 100], \"wavelet\": " RICKER "}], \"data\": "
                 "{\"format\": \"segy\", \"path\": \"%s\", \"ffid\": %d, \"datum\": 50}, "
                 "\"imaging\": {\"illumination\": true}}", 125 + 30 * s, segy, 7 + s);
        run_json(out, one);
        float *a = floats(out, "image.f32", n), *b = floats(out, "illumination.f32", n);
        for (size_t p = 0; p < n; p++)
            img[p] += a[p], ill[p] += b[p];
        free(a), free(b);
    }
    float *got = floats("sv_rtm", "image.f32", n), *gill = floats("sv_rtm", "illumination.f32", n);
    ck_assert_msg(memcmp(got, img, n * sizeof *img) == 0, "the survey's image is not the shots' "
                  "sum");
    ck_assert_msg(memcmp(gill, ill, n * sizeof *ill) == 0, "the survey's illumination is not "
                  "the shots' sum");
    free(got), free(gill), free(img), free(ill);
    /* the manifest: three shots numbered by their FFIDs */
    long len;
    char *m = slurp("sv_rtm", "manifest.json", &len);
    json_t *mj = json_loads(m, 0, NULL);
    ck_assert_ptr_nonnull(mj);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(mj, "result"),
                                                        "nshots")), 3);
    free(m);
    json_decref(mj);
    /* the normalised spec keeps the user's form; a trusted re-parse reads the same shots,
     * and refuses the file once it changed */
    fdw_spec *spec = NULL, *again = NULL;
    fdw_error err;
    ck_assert_msg(parse(j, NULL, &spec, &err) == FDW_OK, "%s: %s", err.field, err.message);
    ck_assert_int_eq(fdw_spec_shots(spec), 3);
    char *norm = fdw_spec_to_json(spec);
    json_t *nj = json_loads(norm, 0, NULL);
    ck_assert_ptr_null(json_object_get(json_object_get(nj, "survey"), "shots"));
    ck_assert_ptr_null(json_object_get(nj, "receivers"));
    json_decref(nj);
    fdw_parse_opts trusted = {.normalised = 1};
    ck_assert_msg(parse(norm, &trusted, &again, &err) == FDW_OK, "%s: %s", err.field,
                  err.message);
    char *norm2 = fdw_spec_to_json(again);
    ck_assert_str_eq(norm, norm2);
    ck_assert_int_eq(fdw_spec_shots(again), 3);
    fdw_spec_free(again);
    free(norm2);
    FILE *f = fopen(segy, "ab");
    ck_assert_int_eq(fputc(0, f), 0);
    fclose(f);
    ck_assert_int_eq(parse(norm, &trusted, &again, &err), FDW_ERR_SPEC);
    ck_assert_str_eq(err.field, "data.path");
    ck_assert_msg(strstr(err.message, "changed after the spec was checked"), "%s", err.message);
    fdw_spec_free(spec);
    free(norm);
    printf("rtm survey of a three-shot SEG-Y file: image and illumination the sums of the "
           "single-shot jobs (data.ffid) bit for bit\n");
}
END_TEST

/* Rewrite one 4-byte big-endian header field of a file in place, keeping its mtime. */
static void poke(const char *path, long offset, int32_t value)
{
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    const unsigned char b[4] = {(unsigned char)(value >> 24), (unsigned char)(value >> 16),
                                (unsigned char)(value >> 8), (unsigned char)value};
    ck_assert_int_eq(fseek(f, offset, SEEK_SET), 0);
    ck_assert_uint_eq(fwrite(b, 1, 4, f), 4);
    ck_assert_int_eq(fclose(f), 0);
    const struct timespec t[2] = {st.st_atim, st.st_mtim};
    ck_assert_int_eq(utimensat(AT_FDCWD, path, t, 0), 0);
}

START_TEST(test_normalised)
{
    char segy[160], j[4096];
    write_one("norm.segy", NULL, 0, segy);
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", " COMMON ", \"time\": {\"nt\": 120}, \"data\": "
             "{\"format\": \"segy\", \"path\": \"%s\"}}", segy);
    fdw_spec *spec = NULL, *again = NULL;
    fdw_error err;
    ck_assert_msg(parse(j, NULL, &spec, &err) == FDW_OK, "%s: %s", err.field, err.message);
    /* dt "auto" divides the file's 3 ms into whole steps */
    const double dt = fdw_spec_dt(spec), n = 0.003 / dt;
    ck_assert_double_lt(fabs(n - nearbyint(n)), 1e-9);
    char *norm = fdw_spec_to_json(spec);
    json_t *nj = json_loads(norm, 0, NULL), *d = json_object_get(nj, "data");
    ck_assert_ptr_null(json_object_get(nj, "receivers"));
    ck_assert_int_eq(json_array_size(json_object_get(d, "receivers")), NREC);
    ck_assert_int_eq(json_integer_value(json_object_get(d, "ffid")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(d, "samples")), NS);
    char *runs = json_dumps(json_object_get(d, "traces"), JSON_COMPACT);
    ck_assert_str_eq(runs, "[[1,12]]");
    free(runs);
    json_decref(nj);
    /* the record stands for the headers in a trusted re-parse: trace 1's GroupX moved off
     * the grid in place (size and mtime kept) goes unread there, and the job is the same */
    poke(segy, 3600 + 80, 900000);
    fdw_parse_opts trusted = {.normalised = 1};
    ck_assert_msg(parse(norm, &trusted, &again, &err) == FDW_OK, "%s: %s", err.field,
                  err.message);
    char *norm2 = fdw_spec_to_json(again);
    ck_assert_str_eq(norm, norm2);
    fdw_spec_free(again);
    free(norm2);
    /* a user's parse of the same text reads the headers */
    ck_assert_int_eq(parse(norm, NULL, &again, &err), FDW_ERR_SPEC);
    ck_assert_str_eq(err.field, "data.path");
    ck_assert_msg(strstr(err.message, "trace 1 of") && strstr(err.message, "GroupX"), "%s",
                  err.message);
    /* a changed file: the run of the spec parsed before, and a trusted re-parse */
    FILE *f = fopen(segy, "ab");
    ck_assert_int_eq(fputc(0, f), 0);
    fclose(f);
    char dir[160];
    snprintf(dir, sizeof dir, "%s/changed", g_dir);
    fdw_run_opts o = {.out_dir = dir, .backend = FDW_BACKEND_CPU};
    fdw_result res;
    ck_assert_int_ne(fdw_run(spec, &o, NULL, &res, &err), FDW_OK);
    ck_assert_msg(strstr(err.message, "changed after the spec was checked"), "%s", err.message);
    ck_assert_int_eq(parse(norm, &trusted, &again, &err), FDW_ERR_SPEC);
    ck_assert_str_eq(err.field, "data.path");
    ck_assert_msg(strstr(err.message, "changed after the spec was checked"), "%s", err.message);
    fdw_spec_free(spec);
    free(norm);
    printf("normalised SEG-Y data: the record stands for the headers; a changed file refused\n");
}
END_TEST

/* The refusal of json names field, and its message holds every needle. */
static void refused(const char *json, const char *field, ...)
{
    fdw_spec *spec = NULL;
    fdw_error err;
    ck_assert_msg(parse(json, NULL, &spec, &err) != FDW_OK, "accepted: %s", json);
    ck_assert_msg(strcmp(err.field, field) == 0, "field %s, not %s: %s", err.field, field,
                  err.message);
    va_list ap;
    va_start(ap, field);
    for (const char *n; (n = va_arg(ap, const char *));)
        ck_assert_msg(strstr(err.message, n), "no \"%s\" in: %s", n, err.message);
    va_end(ap);
    printf("refused on %s: %s\n", err.field, err.message);
}

/* A one-shot file with one patch, and the rtm spec that reads it. */
static const char *bad_file(const char *name, int trace, int field, int32_t value,
                            const char *time)
{
    static char j[4096];
    char path[160];
    const patch p = {trace, field, value};
    write_one(name, &p, 1, path);
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", " COMMON ", %s, \"data\": {\"format\": "
             "\"segy\", \"path\": \"%s\"}}", time ? time : TIME, path);
    return j;
}

/* The three shots of write_three, one file each (shot s: shot<s>.segy; pt patches shot 1's
 * file). */
static void write_shot_files(const char *stem, const patch *pt, int npt, char paths[3][160])
{
    for (int s = 0; s < 3; s++) {
        trace_def tr[NREC];
        int rec[NREC];
        for (int r = 0; r < NREC; r++) {
            tr[r] = (trace_def){.ffid = 7 + s, .sx = 125000 + 30000 * s, .sy = 155000,
                                .selev = 50, .sdepth = 100, .gx = 90000 + 11250 * r,
                                .gy = 155500, .gelev = -50, .escal = 1, .cscal = -1000};
            rec[r] = s == 1 ? r : r + 50;
        }
        snprintf(paths[s], 160, "%s/%s%d.segy", g_dir, stem, s);
        write_segy(paths[s], tr, rec, NREC, s == 1 ? pt : NULL, s == 1 ? npt : 0);
    }
}

static void shots_spec(char *j, size_t cap, char paths[3][160])
{
    snprintf(j, cap, "{\"kind\": \"rtm\", " MODEL ", " TIME ", \"survey\": {\"wavelet\": "
             RICKER ", \"shots\": [{\"data\": {\"format\": \"segy\", \"path\": \"%s\", "
             "\"datum\": 50}}, {\"data\": {\"path\": \"%s\", \"datum\": 50}}, {\"data\": "
             "{\"path\": \"%s\", \"datum\": 50, \"ffid\": 9}}]}, \"imaging\": "
             "{\"illumination\": true}}", paths[0], paths[1], paths[2]);
}

/* A survey whose listed shots each name their own file: the image and illumination of the
 * survey of the three-shot file bit for bit (that one is the sum of the single-shot jobs:
 * test_survey_of_a_file); the normalised spec re-parses to itself; errors name the shot. */
START_TEST(test_survey_of_shot_files)
{
    char three[160], j[4096], paths[3][160];
    snprintf(three, sizeof three, "%s/survey-b.segy", g_dir);
    write_three(three, NULL, 0);
    write_shot_files("shot", NULL, 0, paths);
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", " MODEL ", " TIME ", \"survey\": {\"wavelet\": "
             RICKER "}, \"data\": {\"format\": \"segy\", \"path\": \"%s\", \"datum\": 50}, "
             "\"imaging\": {\"illumination\": true}}", three);
    run_json("sv_file", j);
    shots_spec(j, sizeof j, paths);
    run_json("sv_shots", j);
    const size_t n = 32 * 32 * 32;
    static const char *const outs[] = {"image.f32", "illumination.f32"};
    for (int q = 0; q < 2; q++) {
        float *a = floats("sv_file", outs[q], n), *b = floats("sv_shots", outs[q], n);
        ck_assert_msg(memcmp(a, b, n * sizeof *a) == 0, "%s of the shots' files is not the "
                      "multi-shot file's", outs[q]);
        free(a), free(b);
    }
    fdw_spec *spec = NULL, *again = NULL;
    fdw_error err;
    ck_assert_msg(parse(j, NULL, &spec, &err) == FDW_OK, "%s: %s", err.field, err.message);
    ck_assert_int_eq(fdw_spec_shots(spec), 3);
    char *norm = fdw_spec_to_json(spec);
    fdw_parse_opts trusted = {.normalised = 1};
    ck_assert_msg(parse(norm, &trusted, &again, &err) == FDW_OK, "%s: %s", err.field,
                  err.message);
    char *norm2 = fdw_spec_to_json(again);
    ck_assert_str_eq(norm, norm2);
    fdw_spec_free(again), fdw_spec_free(spec);
    free(norm2), free(norm);
    /* shot 1's file: trace 4 of another length, then another sample interval */
    const patch ns = {3, SEGY_TR_SAMPLE_COUNT, NS - 1};
    write_shot_files("bad", &ns, 1, paths);
    shots_spec(j, sizeof j, paths);
    refused(j, "survey.shots[1].data.path", "bad1.segy", "trace 4", "TRACE_SAMPLE_COUNT", NULL);
    patch dt[NREC + 1] = {{-1, SEGY_BIN_INTERVAL, DT_US / 2}};
    for (int r = 0; r < NREC; r++) /* the traces' own intervals left to the binary header's */
        dt[r + 1] = (patch){r, SEGY_TR_SAMPLE_INTER, 0};
    write_shot_files("bad", dt, NREC + 1, paths);
    shots_spec(j, sizeof j, paths);
    refused(j, "survey.shots[1].data.path", "bad1.segy", "share their sampling", NULL);
    printf("rtm survey of three SEG-Y files, one per shot: image and illumination those of "
           "the survey of the three-shot file bit for bit\n");
}
END_TEST

/* fdw_data_inspect, the daemon's check of an upload: the readers' rules per trace, the
 * FFIDs listed. */
START_TEST(test_inspect)
{
    char sv[160];
    snprintf(sv, sizeof sv, "%s/inspect3.segy", g_dir);
    write_three(sv, NULL, 0);
    fdw_data_info info;
    fdw_error err;
    ck_assert_int_eq(fdw_data_inspect(sv, "segy", "body", &info, &err), FDW_OK);
    ck_assert_int_eq(info.nshots, 3);
    ck_assert_int_eq(info.ffids[0], 7);
    ck_assert_int_eq(info.ffids[2], 9);
    ck_assert_int_eq(info.samples, NS);
    ck_assert(fabs(info.sample_interval - DT_US * 1e-6) < 1e-12);
    free(info.ffids);
    char path[160];
    const patch p = {6, SEGY_TR_SAMPLE_INTER, DT_US / 2};
    write_one("inspect-dt.segy", &p, 1, path);
    ck_assert_int_eq(fdw_data_inspect(path, "segy", "body", &info, &err), FDW_ERR_SPEC);
    ck_assert_str_eq(err.field, "body");
    ck_assert_msg(strstr(err.message, "trace 7 of") && strstr(err.message, "TRACE_SAMPLE_INTERVAL"),
                  "%s", err.message);
    ck_assert_ptr_null(info.ffids);
    printf("inspect refused: %s\n", err.message);
}
END_TEST

START_TEST(test_refusals)
{
    char j[4096], path[160];
    /* a receiver outside the grid (x 0..310 m) */
    refused(bad_file("out.segy", 4, SEGY_TR_GROUP_X, 40000, NULL), "data.path", "out.segy",
            "trace 5 of", "GroupX", "outside the grid", NULL);
    /* a trace of another shot where the file should hold one */
    refused(bad_file("ffid.segy", 6, SEGY_TR_FIELD_RECORD, 2, NULL), "data.path", "ffid.segy",
            "trace 7 of", "FieldRecord", "data.ffid", NULL);
    /* the trace's and the binary header's sample intervals disagree */
    refused(bad_file("dt.segy", 2, SEGY_TR_SAMPLE_INTER, 2000, NULL), "data.path", "dt.segy",
            "trace 3 of", "TRACE_SAMPLE_INTERVAL", "3217", NULL);
    /* a trace of another length */
    refused(bad_file("ns.segy", 3, SEGY_TR_SAMPLE_COUNT, 69, NULL), "data.path", "ns.segy",
            "trace 4 of", "TRACE_SAMPLE_COUNT", NULL);
    /* an interval that is no whole number of steps of the given dt (2.5 ms of 1.5 ms) */
    patch frac[NREC + 1] = {{-1, SEGY_BIN_INTERVAL, 2500}};
    for (int t = 0; t < NREC; t++)
        frac[t + 1] = (patch){t, SEGY_TR_SAMPLE_INTER, 2500};
    write_one("frac.segy", frac, NREC + 1, path);
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", " COMMON ", " TIME ", \"data\": {\"format\": "
             "\"segy\", \"path\": \"%s\"}}", path);
    refused(j, "time.dt", "does not divide the sample interval of data.path", "frac.segy",
            "Interval (binary header bytes 3217-3218)", NULL);
    /* too few samples for nt: 70 samples of 2 steps cover 138 steps */
    refused(bad_file("short.segy", -1, SEGY_BIN_SAMPLES, NS, "\"time\": {\"nt\": 140, "
                     "\"dt\": 0.0015}"), "data.path", "short.segy", "hold 70 samples",
            "Samples", "time.nt at most 138", NULL);
    /* the header's source more than half a spacing from the spec's (x 155 m) */
    refused(bad_file("src.segy", 5, SEGY_TR_SOURCE_X, 16100, NULL), "data.path", "src.segy",
            "trace 6 of", "SourceX", "half a grid spacing", NULL);
    /* within half a spacing it is the same shot */
    fdw_spec *ok = NULL;
    fdw_error err;
    const char *near = bad_file("near.segy", 5, SEGY_TR_SOURCE_X, 15900, NULL);
    ck_assert_msg(parse(near, NULL, &ok, &err) == FDW_OK, "%s", err.message);
    fdw_spec_free(ok);
    /* a scalar SEG-Y rev 1 does not define */
    refused(bad_file("scal.segy", 1, SEGY_TR_SOURCE_GROUP_SCALAR, -7, NULL), "data.path",
            "scal.segy", "trace 2 of", "SourceGroupScalar", NULL);
    /* geographic coordinates */
    refused(bad_file("units.segy", 8, SEGY_TR_COORD_UNITS, 3, NULL), "data.path",
            "units.segy", "trace 9 of", "CoordinateUnits", NULL);
    /* feet */
    refused(bad_file("feet.segy", -1, SEGY_BIN_MEASUREMENT_SYSTEM, 2, NULL), "data.path",
            "feet.segy", "MeasurementSystem", NULL);
    /* a sample interval of the user's other than the file's */
    refused(bad_file("si.segy", -1, SEGY_BIN_INTERVAL, DT_US, "\"time\": {\"nt\": 120, \"dt\": "
                     "0.0015, \"sample_interval\": 0.004}"), "time.sample_interval", "si.segy",
            "3000 us", NULL);
    /* the spec's receivers besides the file's */
    snprintf(j, sizeof j, "{\"kind\": \"gradient\", " COMMON ", " TIME ", %s, \"data\": "
             "{\"format\": \"segy\", \"path\": \"%s\"}}", raw_receivers(), path);
    refused(j, "receivers", "trace headers", NULL);
    /* two sources */
    write_one("two.segy", NULL, 0, path);
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", \"grid\": {\"nx\": 32, \"ny\": 32, \"nz\": 32, "
             "\"dx\": 10, \"dy\": 10, \"dz\": 10}, \"velocity\": {\"type\": \"constant\", "
             "\"value\": 2000}, " TIME ", \"sources\": [{\"position\": [155, 155, 100], "
             "\"wavelet\": {\"type\": \"ricker\", \"f0\": 15}}, {\"position\": [165, 155, 100], "
             "\"wavelet\": {\"type\": \"ricker\", \"f0\": 15}}], \"data\": {\"format\": "
             "\"segy\", \"path\": \"%s\"}}", path);
    refused(j, "sources", "one source", NULL);
    /* a multi-shot file without data.ffid, and an FFID it does not hold */
    snprintf(path, sizeof path, "%s/three_bad.segy", g_dir);
    write_three(path, NULL, 0);
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", " COMMON ", " TIME ", \"data\": {\"format\": "
             "\"segy\", \"path\": \"%s\", \"datum\": 50}}", path);
    refused(j, "data.path", "three_bad.segy", "trace 2 of", "FieldRecord", "data.ffid", NULL);
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", " COMMON ", " TIME ", \"data\": {\"format\": "
             "\"segy\", \"path\": \"%s\", \"datum\": 50, \"ffid\": 11}}", path);
    refused(j, "data.ffid", "three_bad.segy", "FieldRecord", "7 to 9", NULL);
    /* SEG-Y members with raw data, and a format neither */
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", " COMMON ", " TIME ", %s, \"data\": {\"path\": "
             "\"%s\", \"ffid\": 8}}", raw_receivers(), path);
    refused(j, "data.ffid", "", NULL);
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", " COMMON ", " TIME ", %s, \"data\": "
             "{\"format\": \"su\", \"path\": \"%s\"}}", raw_receivers(), path);
    refused(j, "data.format", "segy", NULL);
    /* surveys of a file */
    char sv[160];
    snprintf(sv, sizeof sv, "%s/refuse3.segy", g_dir);
    write_three(sv, NULL, 0);
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", " MODEL ", " TIME ", \"survey\": {\"wavelet\": "
             RICKER "}, \"data\": {\"format\": \"segy\", \"path\": \"%s\", \"ffid\": 8, "
             "\"datum\": 50}}", sv);
    refused(j, "data.ffid", "every FFID", NULL);
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", " MODEL ", " TIME ", \"survey\": {\"wavelet\": "
             RICKER ", \"generate\": {\"first\": [100, 100, 100], \"step\": [10, 0, 0], "
             "\"count\": 2}}, \"data\": {\"format\": \"segy\", \"path\": \"%s\", \"datum\": 50}}",
             sv);
    refused(j, "survey.generate", "FFIDs of data.path", NULL);
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", " MODEL ", " TIME ", \"survey\": {}, \"data\": "
             "{\"format\": \"segy\", \"path\": \"%s\", \"datum\": 50}}", sv);
    refused(j, "survey.wavelet", "needs survey.wavelet", NULL);
    /* data uploaded to fdwaved: only a daemon resolves a name */
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", " COMMON ", " TIME ", \"data\": {\"name\": "
             "\"shot.segy\"}}");
    refused(j, "data.name", "PUT /v1/data/NAME", "give data.path instead", NULL);
    /* trace 14 (FFID 8's fifth) puts its source 45 m away from the shot's */
    const patch moved = {13, SEGY_TR_SOURCE_X, 200000};
    write_three(sv, &moved, 1);
    snprintf(j, sizeof j, "{\"kind\": \"rtm\", " MODEL ", " TIME ", \"survey\": {\"wavelet\": "
             RICKER "}, \"data\": {\"format\": \"segy\", \"path\": \"%s\", \"datum\": 50}}", sv);
    refused(j, "data.path", "trace 14 of", "FFID 8", "SourceX", "one source", NULL);
    const patch neg = {5, SEGY_TR_FIELD_RECORD, -3};
    write_three(sv, &neg, 1);
    refused(j, "data.path", "trace 6 of", "-3", NULL);
    /* more traces than the survey may record: refused before the headers are read */
    write_three(sv, NULL, 0);
    fdw_parse_opts few = {.max_traces = 10};
    fdw_spec *none = NULL;
    ck_assert_int_eq(parse(j, &few, &none, &err), FDW_ERR_SPEC);
    ck_assert_str_eq(err.field, "data.path");
    ck_assert_msg(strstr(err.message, "holds 36 traces") && strstr(err.message, "at most 10"),
                  "%s", err.message);
}
END_TEST

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    snprintf(g_dir, sizeof g_dir, "/tmp/fdw-imaging-segy-XXXXXX");
    if (!mkdtemp(g_dir))
        return 1;
    Suite *s = suite_create("imaging_segy");
    TCase *tc = tcase_create("cpu");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_inspect);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_one_shot_rtm);
    tcase_add_test(tc, test_multi_shot_gradient);
    tcase_add_test(tc, test_normalised);
    tcase_add_test(tc, test_survey_of_a_file);
    tcase_add_test(tc, test_survey_of_shot_files);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0)
        return 1;
    return failed ? 1 : 0;
}
