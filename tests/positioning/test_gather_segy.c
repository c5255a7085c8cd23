/* test_gather_segy.c — the gather.segy of real runs (fdw_spec_parse + fdw_run, CPU) read
 * back with libsegyio: with time.sample_interval the header interval is that interval
 * exactly and the traces hold every n-th step of the f32 gather; with dt "auto" and no
 * interval the header states dt x receivers.interval exactly (a whole number of µs, the
 * old 201.269 -> 201 µs rounding cannot recur); a plane of receivers carries its inline
 * and crossline numbers, the offsets are signed along the spread and the CDP is the
 * midpoint; a given dt whose sampling is not whole microseconds yields no SEG-Y. */
#include "physics_util.h"
#include "spec/spec.h"

#include <check.h>
#include <math.h>
#include <segyio/segy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int32_t field(const char *hdr, int f)
{
    int32_t v = 0;
    ck_assert_int_eq(segy_get_field(hdr, f, &v), SEGY_OK);
    return v;
}

/* A 40x30x24 grid of 10 m, velocity 2000 m/s, one source at (205, 150, 52.5); receivers
 * given by recv (a JSON object), time by time (a JSON object). */
static void run_job(const char *time, const char *recv, phys_run *run, fdw_spec **spec)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"kind\":\"acoustic\",\"grid\":{\"nx\":40,\"ny\":30,\"nz\":24,\"dx\":10,"
             "\"dy\":10,\"dz\":10},\"order\":8,"
             "\"velocity\":{\"type\":\"constant\",\"value\":2000},\"time\":%s,"
             "\"sources\":[{\"position\":[205,150,52.5],\"wavelet\":{\"type\":\"ricker\","
             "\"f0\":12}}],\"receivers\":%s,"
             "\"boundary\":{\"type\":\"sponge\",\"width\":6,\"free_surface\":true}}",
             time, recv);
    fdw_error err;
    ck_assert_msg(fdw_spec_parse(json, strlen(json), NULL, spec, &err) == FDW_OK, "%s: %s",
                  err.field, err.message);
    phys_run_spec(json, NULL, 0, run);
}

static segy_file *open_gather(const phys_run *run, char bin[SEGY_BINARY_HEADER_SIZE])
{
    char path[320];
    snprintf(path, sizeof path, "%s/gather.segy", run->dir);
    segy_file *fp = segy_open(path, "rb");
    ck_assert_msg(fp != NULL, "%s missing", path);
    ck_assert_int_eq(segy_binheader(fp, bin), SEGY_OK);
    return fp;
}

START_TEST(test_sample_interval_exact)
{
    /* 0.8 dt_max = 1.81 ms: the 3 ms interval is 2 steps of 1.5 ms */
    phys_run run;
    fdw_spec *spec;
    run_job("{\"nt\":120,\"sample_interval\":0.003}",
            "{\"planes\":[{\"axis\":\"z\",\"position\":35,\"stride\":6}]}",
            &run, &spec);
    ck_assert(spec->dt == 0.0015 && spec->receiver_interval == 2);
    char bin[SEGY_BINARY_HEADER_SIZE];
    segy_file *fp = open_gather(&run, bin);
    int32_t v;
    ck_assert_int_eq(segy_get_bfield(bin, SEGY_BIN_INTERVAL, &v), SEGY_OK);
    ck_assert_int_eq(v, 3000);
    ck_assert_int_eq(segy_get_bfield(bin, SEGY_BIN_SAMPLES, &v), SEGY_OK);
    ck_assert_int_eq(v, 61);
    ck_assert_int_eq(run.ns, 61);
    /* 7 x 5 plane receivers: inline = j / 6 + 1, crossline = i / 6 + 1 */
    ck_assert_int_eq(run.nrec, 35);
    const int trsize = segy_trsize(SEGY_IEEE_FLOAT_4_BYTE, 61);
    char hdr[SEGY_TRACE_HEADER_SIZE];
    float buf[61];
    for (int r = 0; r < run.nrec; r++) {
        ck_assert_int_eq(segy_traceheader(fp, r, hdr, 3600, trsize), SEGY_OK);
        ck_assert_int_eq(field(hdr, SEGY_TR_SAMPLE_INTER), 3000);
        ck_assert_int_eq(field(hdr, SEGY_TR_FIELD_RECORD), 1);
        ck_assert_int_eq(field(hdr, SEGY_TR_SHOT_POINT), 1);
        ck_assert_int_eq(field(hdr, SEGY_TR_SOURCE_X), 20500);
        ck_assert_int_eq(field(hdr, SEGY_TR_SOURCE_DEPTH), 5250);
        const double gx = field(hdr, SEGY_TR_GROUP_X) / 100.0;
        const double gy = field(hdr, SEGY_TR_GROUP_Y) / 100.0;
        ck_assert_int_eq(field(hdr, SEGY_TR_CDP_X), (int)lround((gx + 205) * 50));
        ck_assert_int_eq(field(hdr, SEGY_TR_CDP_Y), (int)lround((gy + 150) * 50));
        ck_assert_int_eq(field(hdr, SEGY_TR_INLINE), r / 7 + 1);
        ck_assert_int_eq(field(hdr, SEGY_TR_CROSSLINE), r % 7 + 1);
        ck_assert_int_eq(field(hdr, SEGY_TR_GROUP_X), (r % 7) * 6000);
        ck_assert_int_eq(field(hdr, SEGY_TR_GROUP_Y), (r / 7) * 6000);
        ck_assert_int_eq(field(hdr, SEGY_TR_RECV_GROUP_ELEV), -3500);
        /* the SEG-Y samples are the f32 gather's, sample for sample */
        ck_assert_int_eq(segy_readtrace(fp, r, buf, 3600, trsize), SEGY_OK);
        segy_to_native(SEGY_IEEE_FLOAT_4_BYTE, 61, buf);
        ck_assert(memcmp(buf, run.traces + (size_t)r * 61, sizeof buf) == 0);
    }
    segy_close(fp);
    fdw_spec_free(spec);
    phys_run_free(&run);
}
END_TEST

START_TEST(test_auto_dt_whole_microseconds)
{
    /* interval 3 with dt "auto": 3 dt is a whole number of microseconds */
    phys_run run;
    fdw_spec *spec;
    run_job("{\"nt\":60,\"dt\":\"auto\",\"safety\":0.77}",
            "{\"lines\":[{\"from\":[300.3,150,20],\"to\":[100.3,150,20],\"count\":5}],"
            "\"interval\":3}",
            &run, &spec);
    const double us = spec->dt * 3 * 1e6;
    ck_assert_msg(fabs(us - nearbyint(us)) < 1e-6, "3 dt = %.9f us", us);
    char bin[SEGY_BINARY_HEADER_SIZE];
    segy_file *fp = open_gather(&run, bin);
    int32_t v;
    ck_assert_int_eq(segy_get_bfield(bin, SEGY_BIN_INTERVAL, &v), SEGY_OK);
    ck_assert_int_eq(v, (int32_t)nearbyint(us));
    /* the line runs towards -x from x = 300.3: receivers at x > 205 lie behind the source
     * along the spread, so their offsets are negative */
    const int ns = (int)run.ns;
    const int trsize = segy_trsize(SEGY_IEEE_FLOAT_4_BYTE, ns);
    char hdr[SEGY_TRACE_HEADER_SIZE];
    for (int r = 0; r < 5; r++) {
        const double x = 300.3 - 50.0 * r;
        ck_assert_int_eq(segy_traceheader(fp, r, hdr, 3600, trsize), SEGY_OK);
        ck_assert_int_eq(field(hdr, SEGY_TR_OFFSET), (int)lround(x - 205 > 0 ? -(x - 205)
                                                                            : 205 - x));
        ck_assert_int_eq(field(hdr, SEGY_TR_INLINE), 0);
        ck_assert_int_eq(field(hdr, SEGY_TR_SAMPLE_INTER), (int32_t)nearbyint(us));
    }
    segy_close(fp);
    fdw_spec_free(spec);
    phys_run_free(&run);
    /* a given dt that makes no whole microsecond: gather.f32 only, never a rounded SEG-Y */
    run_job("{\"nt\":30,\"dt\":0.0012345678}", "{\"points\":[[101.3,77.7,33.3]]}", &run,
            &spec);
    char path[320];
    snprintf(path, sizeof path, "%s/gather.segy", run.dir);
    ck_assert_int_ne(access(path, F_OK), 0);
    ck_assert_ptr_nonnull(run.traces);
    fdw_spec_free(spec);
    phys_run_free(&run);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gather-segy");
    TCase *tc = tcase_create("runs");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_sample_interval_exact);
    tcase_add_test(tc, test_auto_dt_whole_microseconds);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
