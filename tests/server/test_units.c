/* test_units.c — units of fdwaved tested directly: SHA-256 (nettle, through digest.h)
 * against the FIPS 180-4 known answers (including incremental feeding), and the
 * settings: precedence flags > environment > config file > defaults, errors naming the
 * bad setting, and the flags read with getopt_long among other words (token commands).
 */
#include "core/config.h"
#include "core/log.h"
#include "core/digest.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

START_TEST(sha256_known_answers)
{
    char hex[65];
    digest_sha256_hex("", 0, hex);
    ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    digest_sha256_hex("abc", 3, hex);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    digest_sha256_hex(m448, strlen(m448), hex);
    ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnop"
                       "jklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    digest_sha256_hex(m896, strlen(m896), hex);
    ck_assert_str_eq(hex, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    /* one million 'a', fed in uneven pieces */
    struct sha256_ctx c;
    sha256_init(&c);
    char buf[997];
    memset(buf, 'a', sizeof buf);
    size_t left = 1000000;
    while (left) {
        size_t n = left < sizeof buf ? left : (left % 63) + 1;
        sha256_update(&c, n, (const uint8_t *)buf);
        left -= n;
    }
    digest_sha256_finish(&c, hex);
    ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

static char cfgfile[] = "/tmp/fdwd-cfg-XXXXXX";

static void write_cfg(const char *text)
{
    int fd = mkstemp(cfgfile);
    ck_assert(fd >= 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

/* The Slurm back end's settings (issue 28): a bad value names its setting and why. */
START_TEST(config_slurm)
{
    fdwd_config c;
    char err[512];
    char *ok[] = {"fdwaved", "--job-backend", "slurm", "--slurm-args", "--account=geo --qos=hi",
                  NULL};
    ck_assert_int_eq(config_load(&c, 5, ok, 1, NULL, err, sizeof err), 0);
    ck_assert_str_eq(c.job_backend, "slurm");
    ck_assert_int_eq(c.slurm_cpus_per_device, 1);
    ck_assert_int_eq(c.slurm_survey_tasks, 16);
    char *tasks[] = {"fdwaved", "--slurm-survey-tasks", "0", NULL};
    ck_assert_int_eq(config_load(&c, 3, tasks, 1, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "slurm-survey-tasks"), "%s", err);
    char *array[] = {"fdwaved", "--slurm-args", "-a 0-3", NULL};
    ck_assert_int_eq(config_load(&c, 3, array, 1, NULL, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "slurm-args: -a is set by fdwaved"));
    char *bad[] = {"fdwaved", "--job-backend", "pbs", NULL};
    ck_assert_int_eq(config_load(&c, 3, bad, 1, NULL, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "job-backend: expected local|slurm"));
    char *own[] = {"fdwaved", "--slurm-args", "-p x --output=/tmp/o", NULL};
    ck_assert_int_eq(config_load(&c, 3, own, 1, NULL, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "slurm-args: --output is set by fdwaved"));
    char *cmd[] = {"fdwaved", "--job-backend", "slurm", "--runner-command", "mpirun {runner} {run}",
                   NULL};
    ck_assert_int_eq(config_load(&c, 5, cmd, 1, NULL, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "runner-command: not used with job-backend = slurm"));
}
END_TEST

START_TEST(config_precedence)
{
    write_cfg("# comment\nlisten = 127.0.0.1:7000\nworkers = 3\nmax_body = 2M\n"
              "data = /tmp/from-file\nlog-level = warn\nallow-dir = /tmp\n");
    fdwd_config c;
    char err[512];
    /* defaults */
    char *a0[] = {"fdwaved", NULL};
    ck_assert_int_eq(config_load(&c, 1, a0, 1, NULL, err, sizeof err), 0);
    ck_assert_str_eq(c.listen_host, "127.0.0.1");
    ck_assert_int_eq(c.port, 8080);
    ck_assert_uint_eq(c.max_body, 1u << 20);
    ck_assert_uint_eq(c.max_model_bytes, 64ull << 30);
    ck_assert_str_eq(c.data_dir, "./fdwave-data");
    ck_assert_str_eq(c.cpu_job_sched, "idle");
    char *an[] = {"fdwaved", "--cpu-job-sched", "nice", NULL};
    ck_assert_int_eq(config_load(&c, 3, an, 1, NULL, err, sizeof err), 0);
    ck_assert_str_eq(c.cpu_job_sched, "nice");
    ck_assert_int_eq(c.sse_wake_rate, 1000);
    char *aw[] = {"fdwaved", "--sse-wake-rate", "0", NULL};
    ck_assert_int_eq(config_load(&c, 3, aw, 1, NULL, err, sizeof err), 0);
    ck_assert_int_eq(c.sse_wake_rate, 0);
    /* config file only */
    char *a1[] = {"fdwaved", "--config", cfgfile, NULL};
    ck_assert_int_eq(config_load(&c, 3, a1, 1, NULL, err, sizeof err), 0);
    ck_assert_int_eq(c.port, 7000);
    ck_assert_int_eq(c.workers, 3);
    ck_assert_uint_eq(c.max_body, 2u << 20);
    ck_assert_str_eq(c.data_dir, "/tmp/from-file");
    ck_assert_int_eq(c.log_level, LOG_WARN);
    ck_assert_int_eq(c.nallow, 1);
    /* environment beats the file */
    char *env[] = {"FDWAVE_WORKERS=5", "FDWAVE_DATA=/tmp/from-env", "HOME=/root",
                   "FDWAVE_ALLOW_DIR=/usr:/var", NULL};
    ck_assert_int_eq(config_load(&c, 3, a1, 1, env, err, sizeof err), 0);
    ck_assert_int_eq(c.workers, 5);
    ck_assert_str_eq(c.data_dir, "/tmp/from-env");
    ck_assert_int_eq(c.port, 7000);
    ck_assert_int_eq(c.nallow, 2);
    ck_assert_str_eq(c.allow_dirs[1], "/var");
    /* flags beat both */
    char *a2[] = {"fdwaved", "--config", cfgfile, "--workers", "7", "--data=/tmp/from-flag",
                  "--allow-dir", "/opt", "--listen", "0.0.0.0:0", NULL};
    ck_assert_int_eq(config_load(&c, 10, a2, 1, env, err, sizeof err), 0);
    ck_assert_int_eq(c.workers, 7);
    ck_assert_str_eq(c.data_dir, "/tmp/from-flag");
    ck_assert_str_eq(c.listen_host, "0.0.0.0");
    ck_assert_int_eq(c.port, 0);
    ck_assert_int_eq(c.nallow, 1);
    ck_assert_str_eq(c.allow_dirs[0], "/opt");
    ck_assert_uint_eq(c.max_body, 2u << 20); /* still from the file */
    /* the config file may also be named by the environment */
    char envcfg[600];
    snprintf(envcfg, sizeof envcfg, "FDWAVE_CONFIG=%s", cfgfile);
    char *env2[] = {envcfg, NULL};
    ck_assert_int_eq(config_load(&c, 1, a0, 1, env2, err, sizeof err), 0);
    ck_assert_int_eq(c.workers, 3);
    unlink(cfgfile);
}
END_TEST

START_TEST(config_errors)
{
    fdwd_config c;
    char err[512];
    char *a1[] = {"fdwaved", "--bogus", "1", NULL};
    ck_assert_int_eq(config_load(&c, 3, a1, 1, NULL, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "--bogus"));
    char *a2[] = {"fdwaved", "--listen", "nocolon", NULL};
    ck_assert_int_eq(config_load(&c, 3, a2, 1, NULL, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "listen"));
    char *a3[] = {"fdwaved", "--max-body", "12Q", NULL};
    ck_assert_int_eq(config_load(&c, 3, a3, 1, NULL, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "max-body"));
    char *a4[] = {"fdwaved", "--workers", NULL};
    ck_assert_int_eq(config_load(&c, 2, a4, 1, NULL, err, sizeof err), -1);
    char *env[] = {"FDWAVE_LOG_LEVEL=loud", NULL};
    ck_assert_int_eq(config_load(&c, 1, a4, 1, env, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "FDWAVE_LOG_LEVEL"));
    write_cfg("listen = 127.0.0.1:1\nunknown_key = 3\n");
    char *a5[] = {"fdwaved", "--config", cfgfile, NULL};
    ck_assert_int_eq(config_load(&c, 3, a5, 1, NULL, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, ":2:"));
    unlink(cfgfile);
    char *a6[] = {"fdwaved", "--config", "/nonexistent/fdwaved.conf", NULL};
    ck_assert_int_eq(config_load(&c, 3, a6, 1, NULL, err, sizeof err), -1);
    char *a8[] = {"fdwaved", "--sse-wake-rate", "-1", NULL};
    ck_assert_int_eq(config_load(&c, 3, a8, 1, NULL, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "sse-wake-rate"));
    char *a7[] = {"fdwaved", "--cpu-job-sched", "realtime", NULL};
    ck_assert_int_eq(config_load(&c, 3, a7, 1, NULL, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "cpu-job-sched: expected idle|nice"));
    char *a9[] = {"fdwaved", "--help=yes", NULL};
    ck_assert_int_eq(config_load(&c, 2, a9, 1, NULL, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "flag --help takes no value"));
    char *a10[] = {"fdwaved", "--max_body", "1M", NULL}; /* flags use dashes */
    ck_assert_int_eq(config_load(&c, 3, a10, 1, NULL, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "unknown flag --max_body"));
}
END_TEST

/* Each kind of setting lands in its own field (the table of settings names it), and each
 * range and check holds: the ends of a range, a zero where one is allowed or not, the
 * checked values, a list's reset by a later source and its limit. */
START_TEST(config_each_setting_in_its_field)
{
    fdwd_config c;
    char err[512];
    char *a[] = {"fdwaved", "--validate-queue", "7", "--max-shots", "9", "--workers", "0",
                 "--preempt-gap", "20", "--max-receivers", "10000000", "--disk-reserve", "0",
                 "--max-traces", "2K", "--host-memory", "3G", "--fairshare-halflife", "2h",
                 "--checkpoint-interval", "0", "--max-wall-time", "1d", "--backend", "cuda",
                 "--runner-command", "mpirun -np {ndevices} {runner} {run}", "--trusted-proxy",
                 "10.0.0.1", "--trusted-proxy", "::1", "--user-quota", "alice: devices=1",
                 "--default-quota", "queued=5", "--integrity-check", "--cgroup-dir", "/cg",
                 "--devices", "", NULL};
    const int n = (int)(sizeof a / sizeof a[0]) - 1;
    ck_assert_msg(config_load(&c, n, a, 1, NULL, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(c.validate_queue, 7);
    ck_assert_int_eq(c.max_shots, 9);
    ck_assert_int_eq(c.workers, 0);
    ck_assert_int_eq(c.preempt_gap, 20);
    ck_assert_int_eq(c.max_receivers, 10000000);
    ck_assert_uint_eq(c.disk_reserve, 0);
    ck_assert_uint_eq(c.max_traces, 2048);
    ck_assert_uint_eq(c.host_memory, 3ull << 30);
    ck_assert_int_eq(c.fairshare_halflife, 7200);
    ck_assert_int_eq(c.checkpoint_interval, 0);
    ck_assert_int_eq(c.max_wall_time, 86400);
    ck_assert_str_eq(c.backend, "cuda");
    ck_assert_str_eq(c.runner_command, "mpirun -np {ndevices} {runner} {run}");
    ck_assert_int_eq(c.ntrusted, 2);
    ck_assert_str_eq(c.trusted_proxies[1], "::1");
    ck_assert_int_eq(c.nquotas, 1);
    ck_assert_str_eq(c.user_quotas[0], "alice: devices=1");
    ck_assert_str_eq(c.default_quota, "queued=5");
    ck_assert_int_eq(c.integrity_check, 1);
    ck_assert_str_eq(c.cgroup_dir, "/cg");
    ck_assert_str_eq(c.devices, "");
    /* A list given again by a later source replaces it. */
    char *env[] = {"FDWAVE_TRUSTED_PROXY=10.0.0.9", NULL};
    char *b[] = {"fdwaved", NULL};
    ck_assert_int_eq(config_load(&c, 1, b, 1, env, err, sizeof err), 0);
    ck_assert_int_eq(c.ntrusted, 1);
    ck_assert_str_eq(c.trusted_proxies[0], "10.0.0.9");
    static const char *const bad[][3] = {
        {"--workers", "1025", "workers: expected an integer 0..1024"},
        {"--preempt-gap", "21", "preempt-gap: expected an integer 0..20"},
        {"--max-shots", "0", "max-shots: expected an integer 1..1000000"},
        {"--max-body", "0", "max-body: expected a positive byte count"},
        {"--fairshare-halflife", "0", "fairshare-halflife: expected a positive duration"},
        {"--retention", "3w", "retention: expected a duration"},
        {"--backend", "opencl", "backend: expected auto|cpu|cuda"},
        {"--trusted-proxy", "example.org", "trusted-proxy: expected an IPv4 or IPv6 address"},
        {"--user-quota", "devices=1", "user-quota: "},
        {"--default-quota", "bogus=1", "default-quota: "},
        {"--runner-command", "{runner}", "runner-command must name the run file"},
        {"--data", "", "data needs a value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *f[] = {"fdwaved", (char *)bad[i][0], (char *)bad[i][1], NULL};
        ck_assert_int_eq(config_load(&c, 3, f, 1, NULL, err, sizeof err), -1);
        ck_assert_msg(strstr(err, bad[i][2]), "%s %s: %s", bad[i][0], bad[i][1], err);
    }
    char *many[2 + 2 * 17];
    many[0] = "fdwaved";
    for (int i = 0; i < 17; i++) {
        many[1 + 2 * i] = "--allow-dir";
        many[2 + 2 * i] = "/srv";
    }
    many[1 + 2 * 17] = NULL;
    ck_assert_int_eq(config_load(&c, 1 + 2 * 17, many, 1, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "allow-dir: at most 16 entries"), "%s", err);
}
END_TEST

/* `fdwaved token add NAME --data DIR --admin`: the words that are not flags come back in
 * order, wherever the flags stand; the same parse serves twice in a row. */
START_TEST(config_words_and_flags)
{
    fdwd_config c;
    char err[512];
    char *a[] = {"fdwaved", "token", "--data", "/tmp/d", "add", "--admin", "alice", NULL};
    for (int round = 0; round < 2; round++) {
        ck_assert_int_eq(config_load(&c, 7, a, 2, NULL, err, sizeof err), 0);
        ck_assert_str_eq(c.data_dir, "/tmp/d");
        ck_assert_int_eq(c.admin, 1);
        ck_assert_int_eq(c.nargs, 2);
        ck_assert_str_eq(c.args[0], "add");
        ck_assert_str_eq(c.args[1], "alice");
    }
    /* argv is left in order (nothing permuted) */
    ck_assert_str_eq(a[4], "add");
    char *b[] = {"fdwaved", "--workers=2", "stray", NULL};
    ck_assert_int_eq(config_load(&c, 3, b, 1, NULL, err, sizeof err), 0);
    ck_assert_int_eq(c.workers, 2);
    ck_assert_int_eq(c.admin, 0);
    ck_assert_int_eq(c.nargs, 1);
    ck_assert_str_eq(c.args[0], "stray");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("server_units");
    TCase *tc = tcase_create("units");
    tcase_add_test(tc, sha256_known_answers);
    tcase_add_test(tc, config_precedence);
    tcase_add_test(tc, config_slurm);
    tcase_add_test(tc, config_errors);
    tcase_add_test(tc, config_each_setting_in_its_field);
    tcase_add_test(tc, config_words_and_flags);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
