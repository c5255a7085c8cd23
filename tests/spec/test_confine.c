/* test_confine.c — the engine's side of the data-access model and the work limits
 * (fdw_parse_opts): a confined spec gets one message for a refused, a missing and an
 * outside path; the access callback sees every file a spec names (model, wavelet, the
 * binary an RSF header names) and may stand in recorded facts for a read; the run reads
 * the RSF binary that was checked; the caps on sources, receivers, snapshot files and
 * recorded bytes refuse a spec on the field that crosses them before anything is
 * expanded; a derived dt that vanishes is refused on the field that made it. */
#include "fdwave/fdwave.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256], outside[256];

static void write_floats(const char *path, int n, float v)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < n; i++)
        fwrite(&v, 4, 1, f);
    fclose(f);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* What the access callback saw, and what it says. */
static int calls, refuse_use = -1;
static char seen[8][512];
static fdw_file_use seen_use[8];
static int give_facts;

static int access_cb(void *user, const char *real, fdw_file_use use, const char *format,
                     fdw_model_info *info)
{
    (void)user;
    if (calls < 8) {
        snprintf(seen[calls], sizeof seen[calls], "%s", real);
        seen_use[calls] = use;
    }
    calls++;
    if (strstr(real, "private"))
        return -1;
    if ((int)use == refuse_use)
        return -1;
    if (give_facts && use == FDW_FILE_MODEL && format && !strcmp(format, "raw-f32")) {
        snprintf(info->format, sizeof info->format, "raw-f32");
        info->nvalues = 8 * 8 * 8;
        info->vmin = 1234;
        info->vmax = 2345;
    }
    return 0;
}

static fdw_parse_opts confined(void)
{
    static const char *allowed[2];
    allowed[0] = dir;
    allowed[1] = NULL;
    fdw_parse_opts o = {0};
    o.base_dir = dir;
    o.allowed_dirs = allowed;
    o.file_access = access_cb;
    o.access_rule = "RULE";
    calls = 0;
    return o;
}

static char *spec_with(char *buf, size_t cap, const char *velocity, const char *wavelet,
                       const char *extra)
{
    snprintf(buf, cap,
             "{\"grid\":{\"nx\":8,\"ny\":8,\"nz\":8,\"dx\":10,\"dy\":10,\"dz\":10},\"order\":4,"
             "\"velocity\":%s,\"time\":{\"nt\":4},"
             "\"sources\":[{\"position\":[30,30,30],\"wavelet\":%s}]%s}",
             velocity, wavelet ? wavelet : "{\"type\":\"ricker\",\"f0\":10}", extra ? extra : "");
    return buf;
}

/* Parse text with o; expect a refusal on field; return the message. */
static void refused(const char *text, const fdw_parse_opts *o, const char *field, char *msg,
                    size_t cap)
{
    fdw_spec *s = NULL;
    fdw_error e;
    fdw_status st = fdw_spec_parse(text, strlen(text), o, &s, &e);
    ck_assert_msg(st == FDW_ERR_SPEC, "status %d for %s", (int)st, text);
    ck_assert_ptr_null(s);
    ck_assert_msg(!strcmp(e.field, field), "field %s, want %s (%s)", e.field, field, e.message);
    snprintf(msg, cap, "%s", e.message);
}

static fdw_spec *accepted(const char *text, const fdw_parse_opts *o)
{
    fdw_spec *s = NULL;
    fdw_error e;
    fdw_status st = fdw_spec_parse(text, strlen(text), o, &s, &e);
    ck_assert_msg(st == FDW_OK, "%s: %s (%s)", e.field, e.message, text);
    return s;
}

/* msg with the first occurrence of path replaced by <P>. */
static void shape(const char *msg, const char *path, char *out, size_t cap)
{
    const char *at = strstr(msg, path);
    ck_assert_msg(at != NULL, "%s lacks %s", msg, path);
    snprintf(out, cap, "%.*s<P>%s", (int)(at - msg), msg, at + strlen(path));
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/fdw-confine-XXXXXX");
    snprintf(outside, sizeof outside, "/tmp/fdw-confine-out-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_ptr_nonnull(mkdtemp(outside));
    char p[600];
    snprintf(p, sizeof p, "%s/model.f32", dir);
    write_floats(p, 512, 2000.0f);
    snprintf(p, sizeof p, "%s/private.f32", dir);
    write_floats(p, 512, 2000.0f);
    snprintf(p, sizeof p, "%s/wavelet.f32", dir);
    write_floats(p, 4, 1.0f);
    snprintf(p, sizeof p, "%s/outside.f32", outside);
    write_floats(p, 512, 2000.0f);
    snprintf(p, sizeof p, "%s/v.rsf@", dir);
    write_floats(p, 512, 2100.0f);
    snprintf(p, sizeof p, "%s/w.rsf@", dir);
    write_floats(p, 512, 2900.0f);
    snprintf(p, sizeof p, "%s/v.rsf", dir);
    write_text(p, "n1=8 n2=8 n3=8 d1=10 d2=10 d3=10 data_format=native_float esize=4 "
                  "in=\"v.rsf@\"\n");
}

static void teardown(void)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", dir, outside);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(one_refusal)
{
    fdw_parse_opts o = confined();
    char text[2048], v[1024], m[4][1024], s[4][1024];
    const char *paths[4] = {"private.f32", "missing.f32", NULL, "/etc/no-such-file"};
    char out_path[600];
    snprintf(out_path, sizeof out_path, "%s/outside.f32", outside);
    paths[2] = out_path;
    for (int i = 0; i < 4; i++) {
        snprintf(v, sizeof v, "{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"%s\"}",
                 paths[i]);
        refused(spec_with(text, sizeof text, v, NULL, NULL), &o, "velocity.path", m[i],
                sizeof m[i]);
        ck_assert_msg(strstr(m[i], "is not a file this job may read (RULE)"), "%s", m[i]);
        shape(m[i], paths[i], s[i], sizeof s[i]);
    }
    for (int i = 1; i < 4; i++)
        ck_assert_str_eq(s[i], s[0]);
    /* ../ out of the directory is refused before the file system is asked */
    snprintf(v, sizeof v, "{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"../%s/outside.f32\"}",
             strrchr(outside, '/') + 1);
    o = confined();
    refused(spec_with(text, sizeof text, v, NULL, NULL), &o, "velocity.path", m[0], sizeof m[0]);
    ck_assert_int_eq(calls, 0);
    /* the same refusal for a wavelet */
    refused(spec_with(text, sizeof text, "{\"type\":\"constant\",\"value\":2000}",
                      "{\"type\":\"file\",\"path\":\"private.f32\"}", NULL),
            &o, "sources[0].wavelet.path", m[0], sizeof m[0]);
}
END_TEST

START_TEST(every_file_is_asked_for)
{
    fdw_parse_opts o = confined();
    char text[2048];
    fdw_spec *s = accepted(spec_with(text, sizeof text,
                                     "{\"type\":\"file\",\"format\":\"rsf\",\"path\":\"v.rsf\"}",
                                     "{\"type\":\"file\",\"path\":\"wavelet.f32\"}", NULL),
                           &o);
    fdw_spec_free(s);
    ck_assert_int_eq(calls, 3);
    ck_assert_int_eq(seen_use[0], FDW_FILE_MODEL);
    ck_assert_ptr_nonnull(strstr(seen[0], "/v.rsf"));
    ck_assert_int_eq(seen_use[1], FDW_FILE_MODEL_DATA);
    ck_assert_ptr_nonnull(strstr(seen[1], "/v.rsf@"));
    ck_assert_int_eq(seen_use[2], FDW_FILE_WAVELET);
    /* refusing the RSF binary refuses the spec, on the model's field */
    o = confined();
    refuse_use = FDW_FILE_MODEL_DATA;
    char m[1024];
    refused(spec_with(text, sizeof text, "{\"type\":\"file\",\"format\":\"rsf\",\"path\":\"v.rsf\"}",
                      NULL, NULL),
            &o, "velocity.path", m, sizeof m);
    refuse_use = -1;
}
END_TEST

START_TEST(recorded_facts_stand_for_a_read)
{
    /* The file holds 2000 m/s everywhere; the callback's record says 1234..2345. */
    fdw_parse_opts o = confined();
    give_facts = 1;
    char text[2048];
    fdw_spec *s = accepted(spec_with(text, sizeof text,
                                     "{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"model.f32\"}",
                                     NULL, NULL),
                           &o);
    give_facts = 0;
    char *json = fdw_spec_to_json(s);
    ck_assert_ptr_nonnull(strstr(json, "\"vmax\":2345"));
    free(json);
    fdw_spec_free(s);
}
END_TEST

START_TEST(rsf_binary_pinned)
{
    fdw_parse_opts o = confined();
    char text[2048];
    fdw_spec *s = accepted(spec_with(text, sizeof text,
                                     "{\"type\":\"file\",\"format\":\"rsf\",\"path\":\"v.rsf\"}",
                                     NULL, NULL),
                           &o);
    /* after the check the header is pointed at another binary: the run refuses it */
    char p[600];
    snprintf(p, sizeof p, "%s/v.rsf", dir);
    write_text(p, "n1=8 n2=8 n3=8 d1=10 d2=10 d3=10 data_format=native_float esize=4 "
                  "in=\"w.rsf@\"\n");
    char out[600];
    snprintf(out, sizeof out, "%s/out", dir);
    fdw_run_opts ro = {.out_dir = out, .backend = FDW_BACKEND_CPU, .threads = 1};
    fdw_error e;
    fdw_status st = fdw_run(s, &ro, NULL, NULL, &e);
    ck_assert_int_ne(st, FDW_OK);
    ck_assert_msg(strstr(e.message, "no longer names the binary"), "%s", e.message);
    fdw_spec_free(s);
}
END_TEST

START_TEST(caps_refuse_before_expanding)
{
    fdw_parse_opts o = {.max_sources = 2, .max_receivers = 10, .max_snapshots = 6,
                        .max_record_bytes = 4096};
    char text[4096], m[1024];
    const char *c = "{\"type\":\"constant\",\"value\":2000}";
    snprintf(text, sizeof text,
             "{\"grid\":{\"nx\":8,\"ny\":8,\"nz\":8,\"dx\":10,\"dy\":10,\"dz\":10},\"order\":4,"
             "\"velocity\":%s,\"time\":{\"nt\":4},\"sources\":["
             "{\"position\":[30,30,30],\"wavelet\":{\"type\":\"ricker\",\"f0\":10}},"
             "{\"position\":[30,30,30],\"wavelet\":{\"type\":\"ricker\",\"f0\":10}},"
             "{\"position\":[30,30,30],\"wavelet\":{\"type\":\"ricker\",\"f0\":10}}]}",
             c);
    refused(text, &o, "sources", m, sizeof m);
    refused(spec_with(text, sizeof text, c, NULL,
                      ",\"receivers\":{\"lines\":[{\"from\":[0,0,0],\"to\":[70,70,70],"
                      "\"count\":11}]}"),
            &o, "receivers.lines[0].count", m, sizeof m);
    refused(spec_with(text, sizeof text, c, NULL,
                      ",\"receivers\":{\"lines\":[{\"from\":[0,0,0],\"to\":[70,70,70],"
                      "\"count\":6}],\"planes\":[{\"axis\":\"z\",\"position\":10}]}"),
            &o, "receivers.planes[0]", m, sizeof m);
    ck_assert_msg(strstr(m, "at most 10"), "%s", m);
    /* 8 receivers x 5 samples x 4 bytes fit 4096; 8 x 401 x 4 do not */
    snprintf(text, sizeof text,
             "{\"grid\":{\"nx\":8,\"ny\":8,\"nz\":8,\"dx\":10,\"dy\":10,\"dz\":10},\"order\":4,"
             "\"velocity\":%s,\"time\":{\"nt\":400},"
             "\"sources\":[{\"position\":[30,30,30],\"wavelet\":{\"type\":\"ricker\",\"f0\":10}}],"
             "\"receivers\":{\"lines\":[{\"from\":[0,0,0],\"to\":[70,70,70],\"count\":8}]}}",
             c);
    refused(text, &o, "receivers", m, sizeof m);
    refused(spec_with(text, sizeof text, c, NULL,
                      ",\"snapshots\":{\"every\":1,\"slices\":[{\"plane\":\"xy\",\"index\":1}]}"),
            &o, "snapshots.every", m, sizeof m);
    fdw_spec_free(accepted(spec_with(text, sizeof text, c, NULL,
                                     ",\"snapshots\":{\"every\":2,\"slices\":[{\"plane\":\"xy\","
                                     "\"index\":1}]}"),
                           &o));
}
END_TEST

START_TEST(derived_dt_checked)
{
    fdw_parse_opts o = {0};
    char text[2048], m[1024];
    snprintf(text, sizeof text,
             "{\"grid\":{\"nx\":8,\"ny\":8,\"nz\":8,\"dx\":10,\"dy\":10,\"dz\":10},\"order\":4,"
             "\"velocity\":{\"type\":\"constant\",\"value\":2000},\"time\":{\"nt\":4,"
             "\"safety\":5e-324},\"sources\":[{\"position\":[30,30,30],"
             "\"wavelet\":{\"type\":\"ricker\",\"f0\":10}}]}");
    refused(text, &o, "time.safety", m, sizeof m);
    snprintf(text, sizeof text,
             "{\"grid\":{\"nx\":8,\"ny\":8,\"nz\":8,\"dx\":10,\"dy\":10,\"dz\":10},\"order\":4,"
             "\"velocity\":{\"type\":\"constant\",\"value\":2000},\"time\":{\"nt\":4,"
             "\"dt\":1e-300},\"sources\":[{\"position\":[30,30,30],"
             "\"wavelet\":{\"type\":\"ricker\",\"f0\":10}}]}");
    refused(text, &o, "time.dt", m, sizeof m);
    ck_assert_msg(strstr(m, "single precision"), "%s", m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("spec_confine");
    TCase *tc = tcase_create("confine");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, one_refusal);
    tcase_add_test(tc, every_file_is_asked_for);
    tcase_add_test(tc, recorded_facts_stand_for_a_read);
    tcase_add_test(tc, rsf_binary_pinned);
    tcase_add_test(tc, caps_refuse_before_expanding);
    tcase_add_test(tc, derived_dt_checked);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
