/* config.h — fdwaved's settings and where they come from: command-line flags, then
 * FDWAVE_<FLAG> environment variables, then a "key = value" config file (--config), then
 * built-in defaults (highest precedence first). */
#ifndef FDWD_CONFIG_H
#define FDWD_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#define CFG_MAX_ALLOW_DIRS 16
#define CFG_PATH 4096
#define CFG_MAX_ARGS 16

typedef struct fdwd_config {
    char listen_host[256];        /* --listen HOST:PORT */
    int port;                     /* 0: ephemeral */
    char data_dir[CFG_PATH];      /* --data */
    int workers;                  /* --workers; 0: one per device */
    char devices[256];            /* --devices cpu:N | gpu | gpu:0,1; "" = auto */
    char backend[16];             /* --backend auto|cpu|cuda */
    uint64_t max_body;            /* --max-body, bytes of a job spec */
    uint64_t max_model_bytes;     /* --max-model-bytes */
    int max_connections;          /* --max-connections */
    int max_connections_per_ip;   /* --max-connections-per-ip */
    int connection_timeout;       /* --connection-timeout, seconds */
    int head_timeout;             /* --head-timeout: seconds to send a request's head */
    uint64_t body_min_rate;       /* --body-min-rate: bytes/s a body must keep up after
                                     --head-timeout seconds of it */
    int anonymous_connections;    /* --anonymous-connections: connections that have not
                                     shown a valid token; 0: max-connections / 8 */
    int max_requests_per_client;  /* --max-requests-per-client: requests in flight from
                                     one client behind a trusted proxy */
    int ntrusted;                 /* --trusted-proxy, repeatable: addresses whose
                                     X-Forwarded-For is believed */
    char trusted_proxies[CFG_MAX_ALLOW_DIRS][64];
    int max_sources;              /* --max-sources: sources of one job */
    int max_receivers;            /* --max-receivers: receivers of one job, expanded */
    int max_snapshots;            /* --max-snapshots: snapshot files of one job */
    uint64_t max_record_bytes;    /* --max-record-bytes: receiver recordings of one job */
    uint64_t max_points;          /* --max-points: grid points of one job */
    int validate_threads;         /* --validate-threads: specs checked at once */
    int validate_queue;           /* --validate-queue: submissions waiting to be checked */
    int upload_sweep;             /* --upload-sweep: seconds between sweeps of partial
                                     uploads (and their minimum age) */
    int http_threads;             /* --http-threads, libmicrohttpd thread pool size */
    int sse_keepalive;            /* --sse-keepalive, seconds between keep-alive comments */
    int sse_wake_rate;            /* --sse-wake-rate, paced stream resumes per second; 0 off */
    char cpu_job_sched[8];        /* --cpu-job-sched idle|nice: CPU-backend simulations */
    int nallow;                   /* --allow-dir, repeatable */
    char allow_dirs[CFG_MAX_ALLOW_DIRS][CFG_PATH];
    char web_dir[CFG_PATH];       /* --web */
    int log_level;                /* --log-level */
    char config_file[CFG_PATH];   /* --config */
    int help, version;            /* --help, --version */
    int admin;                    /* --admin (fdwaved token add only) */
    int nargs;                    /* the words that are not flags, in order (pointers */
    char *args[CFG_MAX_ARGS];     /* into argv): `token add NAME`; the daemon takes none */
} fdwd_config;

/* Fill cfg from defaults, the config file, envp (NULL-terminated "KEY=VALUE" strings,
 * may be NULL) and the flags in argv[first..argc) (getopt_long: "--flag VALUE" or
 * "--flag=VALUE", in any order with the other words, which go to cfg->args). Unknown
 * flags and bad values fail with a message in err naming the flag and where it came
 * from. Returns 0 or -1. */
int config_load(fdwd_config *cfg, int argc, char **argv, int first, char **envp, char *err,
                size_t errlen);

/* The --help text. */
const char *config_usage(void);

#endif
