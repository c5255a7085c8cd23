/* config.c — builds the daemon's settings from defaults < config file < environment <
 * flags. Every setting has one name used in all three places: flag "--max-body", env
 * "FDWAVE_MAX_BODY", config-file key "max-body" (or "max_body"). A list setting
 * (allow-dir) given by a higher-precedence source replaces the lower ones entirely.
 * Flags are read with getopt_long from the table flag_table (the --help text comes from it
 * too); the words that are not flags are handed back (`fdwaved token ...`). */
#include "core/config.h"
#include "core/log.h"
#include "core/quota.h"
#include "runner/command.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FDWD_INSTALLED_WEB_DIR
#define FDWD_INSTALLED_WEB_DIR "/usr/local/share/fdwave/web"
#endif
#ifndef FDWD_SOURCE_WEB_DIR
#define FDWD_SOURCE_WEB_DIR "clients/web"
#endif

enum kind { K_STR, K_INT, K_SIZE, K_LIST, K_LISTEN, K_LEVEL, K_FLAG, K_DURATION };

/* A value's check beyond its kind: 0, or -1 with why (naming the setting). */
typedef int (*value_check)(const char *val, char *why, size_t len);

/* One setting: its name, kind, where its value goes in fdwd_config (off; K_STR and K_LIST:
 * cap bytes of text an entry; K_LIST: count, where the number of entries goes, and at
 * most hi entries), its range (K_INT, K_SIZE, K_DURATION: lo..hi, hi 0: none), a check
 * (K_STR, K_LIST), and its --help line. */
typedef struct opt {
    const char *name;
    enum kind kind;
    size_t off, cap;
    long long lo, hi;
    size_t count;
    value_check check;
    const char *help;
} opt;

#define MEMBER(f) (((fdwd_config *)0)->f)
#define NONE 0, 0, 0, 0, 0, NULL
#define FLAG(f) offsetof(fdwd_config, f), 0, 0, 0, 0, NULL
#define INT(f, lo, hi) offsetof(fdwd_config, f), 0, lo, hi, 0, NULL
#define SIZE(f, lo) offsetof(fdwd_config, f), 0, lo, 0, 0, NULL
#define DURATION(f, lo) offsetof(fdwd_config, f), 0, lo, INT_MAX, 0, NULL
#define STR(f, check) offsetof(fdwd_config, f), sizeof MEMBER(f), 0, 0, 0, check
#define LIST(f, n, check)                                                                   \
    offsetof(fdwd_config, f), sizeof MEMBER(f)[0], 0, sizeof MEMBER(f) / sizeof MEMBER(f)[0], \
        offsetof(fdwd_config, n), check

static int check_backend(const char *val, char *why, size_t len)
{
    if (!strcmp(val, "auto") || !strcmp(val, "cpu") || !strcmp(val, "cuda"))
        return 0;
    snprintf(why, len, "backend: expected auto|cpu|cuda, got \"%.100s\"", val);
    return -1;
}

static int check_sched(const char *val, char *why, size_t len)
{
    if (!strcmp(val, "idle") || !strcmp(val, "nice"))
        return 0;
    snprintf(why, len, "cpu-job-sched: expected idle|nice, got \"%.100s\"", val);
    return -1;
}

static int check_job_backend(const char *val, char *why, size_t len)
{
    if (!strcmp(val, "local") || !strcmp(val, "slurm"))
        return 0;
    snprintf(why, len, "job-backend: expected local|slurm, got \"%.100s\"", val);
    return -1;
}

/* sbatch words the Slurm back end sets itself may not come from slurm-args. */
static int check_slurm_args(const char *val, char *why, size_t len)
{
    static const char *const own[] = {"--output", "--error", "--open-mode", "--chdir",
                                      "--job-name", "--parsable", "--wrap", "-o", "-e", "-D",
                                      "-J", "--array", "-a"};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
        const size_t n = strlen(own[i]);
        for (const char *p = strstr(val, own[i]); p; p = strstr(p + 1, own[i]))
            if ((p == val || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ' || p[n] == '=')) {
                snprintf(why, len, "slurm-args: %s is set by fdwaved for each job and may "
                         "not be given here", own[i]);
                return -1;
            }
    }
    return 0;
}

static int check_proxy(const char *val, char *why, size_t len)
{
    unsigned char buf[16];
    if (inet_pton(AF_INET, val, buf) == 1 || inet_pton(AF_INET6, val, buf) == 1)
        return 0;
    snprintf(why, len, "trusted-proxy: expected an IPv4 or IPv6 address, got \"%.100s\"", val);
    return -1;
}

/* A quota line (named: with its user's NAME, user-quota; else default-quota). */
static int check_quota(const char *key, int named, const char *val, char *why, size_t len)
{
    char qerr[300];
    if (quota_check(val, named, qerr, sizeof qerr) == 0)
        return 0;
    snprintf(why, len, "%s: %s", key, qerr);
    return -1;
}

static int check_user_quota(const char *val, char *why, size_t len)
{
    return check_quota("user-quota", 1, val, why, len);
}

static int check_default_quota(const char *val, char *why, size_t len)
{
    return check_quota("default-quota", 0, val, why, len);
}

static const opt flag_table[] = {
    {"listen", K_LISTEN, NONE, "HOST:PORT to listen on (default 127.0.0.1:8080; port 0 = any free port)"},
    {"data", K_STR, STR(data_dir, NULL), "data directory: fdwave.db, models/, jobs/<id>/ (default ./fdwave-data)"},
    {"workers", K_INT, INT(workers, 0, 1024), "jobs run at once (default: one per device)"},
    {"devices", K_STR, STR(devices, NULL), "cpu:N | gpu | gpu:0,1 (default: all CUDA GPUs, else cpu:4)"},
    {"backend", K_STR, STR(backend, check_backend), "auto | cpu | cuda (default auto)"},
    {"max-body", K_SIZE, SIZE(max_body, 1), "largest job spec body, bytes; K/M/G suffixes (default 1M)"},
    {"max-model-bytes", K_SIZE, SIZE(max_model_bytes, 1), "largest model upload, bytes (default 64G)"},
    {"max-data-bytes", K_SIZE, SIZE(max_data_bytes, 1), "largest upload of observed data (PUT /v1/data), bytes (default 64G)"},
    {"max-connections", K_INT, INT(max_connections, 1, 1000000), "simultaneous HTTP connections (default 1024)"},
    {"max-connections-per-ip", K_INT, INT(max_connections_per_ip, 1, 1000000), "simultaneous connections from one address; a trusted proxy's are not counted (default 64)"},
    {"connection-timeout", K_INT, INT(connection_timeout, 1, 1000000), "seconds an idle connection is kept (default 60)"},
    {"head-timeout", K_INT, INT(head_timeout, 1, 1000000), "seconds a client has to send a request's head (method, path, "
                            "headers), and the grace before --body-min-rate applies (default 10)"},
    {"body-min-rate", K_SIZE, SIZE(body_min_rate, 1), "bytes per second a request body must average once it has run "
                              "--head-timeout seconds; slower uploads are cut off (default 16K)"},
    {"anonymous-connections", K_INT, INT(anonymous_connections, 0, 1000000), "connections that have not shown a valid token (slow "
                                     "or idle ones are closed first beyond it; default "
                                     "max-connections / 8)"},
    {"max-requests-per-client", K_INT, INT(max_requests_per_client, 1, 1000000), "requests in flight from one client address seen "
                                       "through a trusted proxy (default 64)"},
    {"trusted-proxy", K_LIST, LIST(trusted_proxies, ntrusted, check_proxy), "address of a reverse proxy whose X-Forwarded-For is believed "
                              "(repeatable; per-address limits then apply to the client it "
                              "names)"},
    {"max-sources", K_INT, INT(max_sources, 1, 1000000), "sources one job may have (default 1000)"},
    {"max-receivers", K_INT, INT(max_receivers, 1, 10000000), "receivers one job may have after lines and planes are expanded "
                             "(default 100000)"},
    {"max-snapshots", K_INT, INT(max_snapshots, 1, 1000000), "snapshot files one job may write (default 10000)"},
    {"max-shots", K_INT, INT(max_shots, 1, 1000000), "shots one survey job may have (default 1000)"},
    {"max-traces", K_SIZE, SIZE(max_traces, 1), "traces of all the shots of one survey job together; K/M/G "
                           "suffixes (default 1M)"},
    {"max-record-bytes", K_SIZE, SIZE(max_record_bytes, 1), "bytes of receiver recordings (and wavelet samples) one job "
                                 "may hold (default 4G)"},
    {"max-points", K_SIZE, SIZE(max_points, 1), "grid points one job may have; K/M/G suffixes (default 64G)"},
    {"validate-threads", K_INT, INT(validate_threads, 1, 64), "job specs checked at once, off the HTTP threads (default 1)"},
    {"validate-queue", K_INT, INT(validate_queue, 1, 1000000), "submissions waiting to be checked; more get 503 (default 256)"},
    {"upload-sweep", K_INT, INT(upload_sweep, 1, 1000000), "seconds between sweeps that remove partial model uploads no "
                            "upload is writing, and their minimum age (default 600)"},
    {"http-threads", K_INT, INT(http_threads, 1, 256), "HTTP thread pool size (default: one per CPU core, 2 to 16)"},
    {"sse-keepalive", K_INT, INT(sse_keepalive, 1, 3600), "seconds between keep-alive comments on idle event streams (default 15)"},
    {"sse-wake-rate", K_INT, INT(sse_wake_rate, 0, 1000000), "event streams of one job resumed per second after the first 8 a new "
                             "event wakes, so a fan-out to many watchers does not stall the API; "
                             "0 = all at once (default 1000)"},
    {"cpu-job-sched", K_STR, STR(cpu_job_sched, check_sched), "idle | nice: CPU-backend simulations run SCHED_IDLE (only on CPU time "
                             "nothing else wants) or at nice 10 (default idle)"},
    {"allow-dir", K_LIST, LIST(allow_dirs, nallow, NULL), "directory job specs may read files from (repeatable)"},
    {"web", K_STR, STR(web_dir, NULL), "directory of the web page served at / (default: installed, else source)"},
    {"log-level", K_LEVEL, NONE, "debug | info | warn | error (default info)"},
    {"runner", K_STR, STR(runner, NULL), "the runner program each job runs in (default: fdwave-runner next to "
                      "fdwaved, else the installed one)"},
    {"runner-command", K_STR, STR(runner_command, runner_check_command), "command line that starts a job's runner: words with {runner}, "
                              "{run} (the run file), {job}, {ndevices}, {devices}; e.g. "
                              "\"mpirun -np {ndevices} {runner} {run}\" (default "
                              "\"{runner} {run}\")"},
    {"runner-stop-timeout", K_DURATION, DURATION(runner_stop_timeout, 1), "time a runner told to stop (cancel, shutdown, "
                                        "preemption) has before it is killed (default 120s)"},
    {"runner-memory-overhead", K_SIZE, SIZE(runner_memory_overhead, 1), "host memory a runner may hold above its job's "
                                       "estimate: libraries, CUDA context (default 1G)"},
    {"cgroup-dir", K_STR, STR(cgroup_dir, NULL), "cgroup v2 directory delegated to fdwaved for the runners' memory "
                          "limits (default: its own cgroup when delegated)"},
    {"max-attempts", K_INT, INT(max_attempts, 1, 100), "runs a job gets when its runner is killed (default 3)"},
    {"checkpoint-interval", K_DURATION, DURATION(checkpoint_interval, 0), "time between a running job's checkpoints; 0 = none "
                                        "(default 10m)"},
    {"host-memory", K_SIZE, SIZE(host_memory, 1), "host memory running jobs may hold together (default: the "
                            "host's, less 10% and at least 1G for the system)"},
    {"job-backend", K_STR, STR(job_backend, check_job_backend), "local | slurm: jobs run in runners this daemon starts, or each "
                           "as a Slurm job submitted with sbatch (default local)"},
    {"slurm-partition", K_STR, STR(slurm_partition, NULL), "job-backend slurm: the partition jobs are submitted to "
                               "(default: Slurm's default partition)"},
    {"slurm-args", K_STR, STR(slurm_args, check_slurm_args), "job-backend slurm: more sbatch options, space-separated, "
                          "e.g. \"--account=geo --qos=normal\" (default none)"},
    {"slurm-cpus-per-device", K_INT, INT(slurm_cpus_per_device, 1, 1024), "job-backend slurm: CPUs a job asks for each of its "
                                     "devices (default 1)"},
    {"slurm-survey-tasks", K_INT, INT(slurm_survey_tasks, 1, 1000), "job-backend slurm: most Slurm array tasks a survey's shots "
                                  "are split into, consecutive shots each; 1 = the survey "
                                  "runs as one Slurm job (default 16)"},
    {"disk-reserve", K_SIZE, SIZE(disk_reserve, 0), "space set aside at start-up in the data directory, released "
                             "to record a job's end when the disk is full; 0 = none "
                             "(default 64M)"},
    {"min-free-disk", K_SIZE, SIZE(min_free_disk, 1), "free space below which /v1/health says degraded and jobs "
                              "wait (default 1G)"},
    {"integrity-check", K_FLAG, FLAG(integrity_check), "run PRAGMA integrity_check at start instead of quick_check"},
    {"user-quota", K_LIST, LIST(user_quotas, nquotas, check_user_quota), "a user's quota (repeatable): \"NAME: queued=N, devices=N, "
                           "device-hours=H/PERIOD, disk=SIZE, priority=P\""},
    {"default-quota", K_STR, STR(default_quota, check_default_quota), "quota of users without a user-quota line, same keys "
                             "(default: none)"},
    {"fairshare-halflife", K_DURATION, DURATION(fairshare_halflife, 1), "half-life of the decay of past usage in the fair "
                                       "share (default 7d)"},
    {"fairshare-weight", K_INT, INT(fairshare_weight, 0, 20), "priority levels the fair share may take from a user "
                                "with the most recent usage (default 5; 0 = off)"},
    {"max-wall-time", K_DURATION, DURATION(max_wall_time, 0), "longest wall_time a job may ask, and the limit of jobs "
                                  "that ask none; 0 = none (default 0)"},
    {"preempt-gap", K_INT, INT(preempt_gap, 0, 20), "a queued job this many priority levels above a running one "
                           "preempts it (checkpoint, then re-queue); 0 = never (default 10)"},
    {"retention", K_DURATION, DURATION(retention, 0), "time a finished job keeps its outputs; 0 = for ever "
                              "(default 0)"},
    {"config", K_STR, STR(config_file, NULL), "config file of \"key = value\" lines (keys are the flag names)"},
    {"help", K_FLAG, FLAG(help), "print this help"},
    {"version", K_FLAG, FLAG(version), "print the version"},
    {"admin", K_FLAG, FLAG(admin), NULL}, /* `fdwaved token add NAME --admin` only; not in --help */
};
#define NOPTS (int)(sizeof flag_table / sizeof flag_table[0])
_Static_assert(sizeof flag_table / sizeof flag_table[0] <= 64,
               "apply_list keeps one bit a setting");

static const opt *find_opt(const char *name)
{
    char norm[64];
    size_t n = strlen(name);
    if (n >= sizeof norm)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        norm[i] = name[i] == '_' ? '-' : (char)tolower((unsigned char)name[i]);
    for (int i = 0; i < NOPTS; i++)
        if (strcmp(flag_table[i].name, norm) == 0)
            return &flag_table[i];
    return NULL;
}

/* "90", "90s", "45m", "12h", "7d" -> seconds. */
static int parse_duration(const char *s, long long *out)
{
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno || v < 0 || *s == '-')
        return -1;
    long long mul = 1;
    if (*end) {
        switch (*end) {
        case 's': mul = 1; break;
        case 'm': mul = 60; break;
        case 'h': mul = 3600; break;
        case 'd': mul = 86400; break;
        default: return -1;
        }
        if (end[1])
            return -1;
    }
    if (v > INT_MAX / mul)
        return -1;
    *out = v * mul;
    return 0;
}

/* "64G", "1M", "1048576" -> bytes. */
static int parse_size(const char *s, uint64_t *out)
{
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno || *s == '-')
        return -1;
    unsigned long long mul = 1;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': mul = 1ULL << 10; break;
        case 'M': mul = 1ULL << 20; break;
        case 'G': mul = 1ULL << 30; break;
        case 'T': mul = 1ULL << 40; break;
        default: return -1;
        }
        end++;
        if (*end == 'i' || *end == 'I')
            end++;
        if (*end == 'B' || *end == 'b')
            end++;
        if (*end)
            return -1;
    }
    if (v > UINT64_MAX / mul)
        return -1;
    *out = v * mul;
    return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

#define BAD(...)                                                                           \
    do {                                                                                   \
        snprintf(err, errlen, __VA_ARGS__);                                                \
        return -1;                                                                         \
    } while (0)

/* --listen HOST:PORT ([::1]:8080 for an IPv6 address). */
static int apply_listen(fdwd_config *c, const char *val, const char *src, char *err,
                        size_t errlen)
{
    const char *colon = strrchr(val, ':');
    if (!colon || colon == val || (size_t)(colon - val) >= sizeof c->listen_host)
        BAD("%s listen: expected HOST:PORT, got \"%s\"", src, val);
    int port;
    if (parse_int(colon + 1, 0, 65535, &port))
        BAD("%s listen: port must be 0..65535, got \"%s\"", src, colon + 1);
    size_t hl = (size_t)(colon - val);
    if (val[0] == '[' && hl >= 2 && val[hl - 1] == ']') { /* [::1]:8080 */
        memcpy(c->listen_host, val + 1, hl - 2);
        c->listen_host[hl - 2] = '\0';
    } else {
        memcpy(c->listen_host, val, hl);
        c->listen_host[hl] = '\0';
    }
    c->port = port;
    return 0;
}

/* One entry of a list setting; the first from a new source clears the earlier ones (one
 * bit of *reset per setting). */
static int apply_list(fdwd_config *c, const opt *o, const char *val, const char *src,
                      uint64_t *reset, char *err, size_t errlen)
{
    int *count = (int *)((char *)c + o->count);
    const uint64_t bit = 1ull << (o - flag_table);
    if (!(*reset & bit)) {
        *count = 0;
        *reset |= bit;
    }
    if (!val || !*val)
        return 0;
    char why[400];
    if (*count >= o->hi)
        BAD("%s %s: at most %lld entries", src, o->name, o->hi);
    if (strlen(val) >= o->cap)
        BAD("%s %s: value too long", src, o->name);
    if (o->check && o->check(val, why, sizeof why))
        BAD("%s %s", src, why);
    strcpy((char *)c + o->off + (size_t)(*count)++ * o->cap, val);
    return 0;
}

/* Apply one key = value from source src ("flag", "environment", "config file") to the
 * field of c its setting names. */
static int apply(fdwd_config *c, const opt *o, const char *val, const char *src,
                 uint64_t *list_reset, char *err, size_t errlen)
{
    const char *name = o->name;
    void *dst = (char *)c + o->off;
    if (o->kind != K_FLAG && (!val || !*val) && strcmp(name, "allow-dir") != 0 &&
        strcmp(name, "devices") != 0)
        BAD("%s %s needs a value", src, name);
    switch (o->kind) {
    case K_FLAG:
        *(int *)dst = 1;
        return 0;
    case K_LISTEN:
        return apply_listen(c, val, src, err, errlen);
    case K_LEVEL: {
        int l = log_level_parse(val);
        if (l < 0)
            BAD("%s log-level: expected debug|info|warn|error, got \"%s\"", src, val);
        c->log_level = l;
        return 0;
    }
    case K_SIZE: {
        uint64_t v;
        if (parse_size(val, &v) || v < (uint64_t)o->lo)
            BAD("%s %s: expected a %s byte count (K/M/G suffixes), got \"%s\"", src, name,
                o->lo == 0 ? "" : "positive", val);
        *(uint64_t *)dst = v;
        return 0;
    }
    case K_INT:
        if (parse_int(val, (int)o->lo, (int)o->hi, (int *)dst))
            BAD("%s %s: expected an integer %lld..%lld, got \"%s\"", src, name, o->lo, o->hi,
                val);
        return 0;
    case K_DURATION: {
        long long v;
        if (parse_duration(val, &v) || v < o->lo)
            BAD("%s %s: expected a %sduration: seconds, or a number with s, m, h or d, got "
                "\"%.100s\"", src, name, o->lo > 0 ? "positive " : "", val);
        *(int *)dst = (int)v;
        return 0;
    }
    case K_LIST:
        return apply_list(c, o, val, src, list_reset, err, errlen);
    case K_STR: {
        char why[400];
        if (o->check && o->check(val, why, sizeof why))
            BAD("%s %s", src, why);
        if (strlen(val) >= o->cap)
            BAD("%s %s: value too long", src, name);
        strcpy(dst, val);
        return 0;
    }
    }
    return 0;
}
#undef BAD

static void defaults(fdwd_config *c)
{
    memset(c, 0, sizeof *c);
    strcpy(c->listen_host, "127.0.0.1");
    c->port = 8080;
    strcpy(c->data_dir, "./fdwave-data");
    strcpy(c->backend, "auto");
    c->max_body = 1ULL << 20;
    c->max_model_bytes = 64ULL << 30;
    c->max_data_bytes = 64ULL << 30;
    c->max_connections = 1024;
    c->max_connections_per_ip = 64;
    c->connection_timeout = 60;
    c->head_timeout = 10;
    c->body_min_rate = 16u << 10;
    c->max_requests_per_client = 64;
    c->max_sources = 1000;
    c->max_receivers = 100000;
    c->max_snapshots = 10000;
    c->max_shots = 1000;
    c->max_traces = 1u << 20;
    c->max_record_bytes = 4ull << 30;
    c->max_points = 1ull << 36;
    c->validate_threads = 1;
    c->validate_queue = 256;
    c->upload_sweep = 600;
    /* One thread per core: the HTTP threads never block (slow work is suspended or done
     * by other threads), and on the 2-core VM 4 threads gave POST p99 17.7-32 ms against
     * 16.5-19 ms with 2 (8 of 9 back-to-back pairs better, tests/bench/bench_http.sh). */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    c->http_threads = cores < 2 ? 2 : cores > 16 ? 16 : (int)cores;
    c->sse_keepalive = 15;
    c->sse_wake_rate = 1000;
    strcpy(c->cpu_job_sched, "idle");
    strcpy(c->job_backend, "local");
    c->slurm_cpus_per_device = 1;
    c->slurm_survey_tasks = 16;
    strcpy(c->runner_command, "{runner} {run}");
    c->runner_stop_timeout = 120;
    c->runner_memory_overhead = 1ull << 30;
    c->max_attempts = 3;
    c->checkpoint_interval = 600;
    c->disk_reserve = 64ull << 20;
    c->min_free_disk = 1ull << 30;
    c->fairshare_halflife = 7 * 86400;
    c->fairshare_weight = 5;
    c->preempt_gap = 10;
    c->log_level = LOG_INFO;
    struct stat st;
    if (stat(FDWD_INSTALLED_WEB_DIR, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(c->web_dir, sizeof c->web_dir, "%s", FDWD_INSTALLED_WEB_DIR);
    else
        snprintf(c->web_dir, sizeof c->web_dir, "%s", FDWD_SOURCE_WEB_DIR);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static int load_file(fdwd_config *c, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open config file %s: %s", path, strerror(errno));
        return -1;
    }
    char line[8192];
    int lineno = 0, rc = 0;
    uint64_t reset = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *s = trim(line);
        if (!*s || *s == '#' || *s == ';')
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            snprintf(err, errlen, "%s:%d: expected \"key = value\"", path, lineno);
            rc = -1;
            break;
        }
        *eq = '\0';
        char *key = trim(s), *val = trim(eq + 1);
        size_t vl = strlen(val);
        if (vl >= 2 && val[0] == '"' && val[vl - 1] == '"') {
            val[vl - 1] = '\0';
            val++;
        }
        const opt *o = find_opt(key);
        if (!o || o->kind == K_FLAG || strcmp(o->name, "config") == 0) {
            snprintf(err, errlen, "%s:%d: unknown setting \"%s\"", path, lineno, key);
            rc = -1;
            break;
        }
        char src[CFG_PATH + 32];
        snprintf(src, sizeof src, "%s:%d:", path, lineno);
        if (apply(c, o, val, src, &reset, err, errlen)) {
            rc = -1;
            break;
        }
    }
    fclose(f);
    return rc;
}

/* The environment variable name for an option: FDWAVE_MAX_BODY. */
static void env_name(const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "FDWAVE_%s", name);
    for (char *p = out; *p; p++)
        *p = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
}

static const char *env_get(char **envp, const char *key)
{
    if (!envp)
        return NULL;
    size_t kl = strlen(key);
    for (char **e = envp; *e; e++)
        if (strncmp(*e, key, kl) == 0 && (*e)[kl] == '=')
            return *e + kl + 1;
    return NULL;
}

/* The flag that made getopt_long stop with '?' or ':' (as typed, without a value). */
static void bad_flag(char **argv, int c, char *err, size_t errlen)
{
    const char *arg = argv[optind - 1];
    char name[80];
    if (strncmp(arg, "--", 2) == 0)
        snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
    else
        snprintf(name, sizeof name, "%.60s", arg);
    if (c == ':')
        snprintf(err, errlen, "flag %s needs a value", name);
    else if (optopt && strchr(arg, '='))
        snprintf(err, errlen, "flag %s takes no value", name);
    else
        snprintf(err, errlen, "unknown flag %s (see --help)", name);
}

/* getopt_long's value for flag flag_table[i]: FLAG_VAL + i (1, '?' and ':' mean other things). */
enum { FLAG_VAL = 256 };

/* A flag as getopt_long found it, applied after the file and the environment. */
typedef struct given_flag {
    const opt *o;
    const char *val;
} given_flag;

/* Read the flags in argv[first..argc) into given (in order) and the other words into
 * c->args; *config gets the last --config. Returns the number of flags, or -1. */
static int read_flags(fdwd_config *c, int argc, char **argv, int first, given_flag *given,
                      const char **config, char *err, size_t errlen)
{
    struct option longopts[NOPTS + 1];
    for (int i = 0; i < NOPTS; i++)
        longopts[i] = (struct option){flag_table[i].name,
                                      flag_table[i].kind == K_FLAG ? no_argument : required_argument,
                                      NULL, FLAG_VAL + i};
    /* argv[first - 1] stands in for the program name; "-": words come back in order (as
     * 1), so nothing is permuted; ":": a missing value is reported as ':'. */
    int sub_argc = argc - first + 1;
    char **sub_argv = argv + first - 1;
    int n = 0, ch;
    optind = 0; /* a fresh scan (config_load may run more than once) */
    opterr = 0;
    while ((ch = getopt_long(sub_argc, sub_argv, "-:", longopts, NULL)) != -1) {
        if (ch == 1) {
            if (c->nargs >= CFG_MAX_ARGS) {
                snprintf(err, errlen, "too many arguments (at \"%.200s\")", optarg);
                return -1;
            }
            c->args[c->nargs++] = optarg;
        } else if (ch >= FLAG_VAL && ch < FLAG_VAL + NOPTS) {
            const opt *o = &flag_table[ch - FLAG_VAL];
            if (strcmp(o->name, "config") == 0)
                *config = optarg;
            given[n++] = (given_flag){o, optarg};
        } else {
            bad_flag(sub_argv, ch, err, errlen);
            return -1;
        }
    }
    for (int i = optind; i < sub_argc; i++) { /* the words after "--" */
        if (c->nargs >= CFG_MAX_ARGS) {
            snprintf(err, errlen, "too many arguments (at \"%.200s\")", sub_argv[i]);
            return -1;
        }
        c->args[c->nargs++] = sub_argv[i];
    }
    return n;
}

int config_load(fdwd_config *c, int argc, char **argv, int first, char **envp, char *err,
                size_t errlen)
{
    defaults(c);
    given_flag *given = calloc((size_t)(argc > 0 ? argc : 1), sizeof *given);
    if (!given) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* Which config file: flag, then environment. */
    const char *cfgfile = NULL;
    int nflags = first >= 1 && first <= argc
                     ? read_flags(c, argc, argv, first, given, &cfgfile, err, errlen)
                     : 0;
    int rc = nflags < 0 ? -1 : 0;
    if (!rc && !cfgfile)
        cfgfile = env_get(envp, "FDWAVE_CONFIG");
    if (!rc && cfgfile && *cfgfile) {
        if (strlen(cfgfile) >= sizeof c->config_file) {
            snprintf(err, errlen, "config file path too long");
            rc = -1;
        } else {
            strcpy(c->config_file, cfgfile);
            rc = load_file(c, cfgfile, err, errlen);
        }
    }
    uint64_t reset = 0;
    for (int i = 0; !rc && i < NOPTS; i++) {
        const opt *o = &flag_table[i];
        if (o->kind == K_FLAG || strcmp(o->name, "config") == 0)
            continue;
        char key[80];
        env_name(o->name, key, sizeof key);
        const char *v = env_get(envp, key);
        if (!v)
            continue;
        char src[100];
        snprintf(src, sizeof src, "environment %s:", key);
        if (o->kind == K_LIST) { /* a colon-separated list in the environment */
            char buf[CFG_PATH * 2];
            snprintf(buf, sizeof buf, "%s", v);
            char *save = NULL;
            reset = 0;
            apply(c, o, "", src, &reset, err, errlen);
            /* user-quota lines hold a colon themselves: ';' separates them there */
            const char *sep = strcmp(o->name, "user-quota") == 0 ? ";" : ":";
            for (char *t = strtok_r(buf, sep, &save); t && !rc; t = strtok_r(NULL, sep, &save))
                rc = apply(c, o, t, src, &reset, err, errlen);
            continue;
        }
        rc = apply(c, o, v, src, &reset, err, errlen);
    }
    reset = 0;
    for (int i = 0; !rc && i < nflags; i++) {
        if (strcmp(given[i].o->name, "config") == 0)
            continue;
        char src[80];
        snprintf(src, sizeof src, "flag --%s:", given[i].o->name);
        rc = apply(c, given[i].o, given[i].val, src, &reset, err, errlen);
    }
    free(given);
    if (!rc && !strcmp(c->job_backend, "slurm") && strcmp(c->runner_command, "{runner} {run}")) {
        snprintf(err, errlen, "runner-command: not used with job-backend = slurm (each job is "
                 "its own Slurm job, which starts the runner); remove it");
        rc = -1;
    }
    return rc;
}

void config_usage(FILE *out)
{
    fputs("usage: fdwaved [FLAGS]                 run the daemon\n"
          "       fdwaved token add NAME [--admin] [--data DIR]   print a new API token\n"
          "       fdwaved token list [--data DIR]\n"
          "       fdwaved token remove NAME [--data DIR]\n"
          "       fdwaved check [--data DIR]            PRAGMA integrity_check of the database\n"
          "       fdwaved backup FILE [--data DIR]      online backup of the database to FILE\n\n"
          "Flags (each also read from env FDWAVE_<FLAG> and from the --config file as\n"
          "\"flag = value\"; precedence: flags > environment > config file > defaults):\n",
          out);
    for (int i = 0; i < NOPTS; i++) {
        if (!flag_table[i].help)
            continue;
        const char *arg = flag_table[i].kind == K_FLAG ? "" : " VALUE";
        fprintf(out, "  --%s%s\n      %s\n", flag_table[i].name, arg, flag_table[i].help);
    }
}
