/* config.h — fdwaved's settings and where they come from: command-line flags, then
 * FDWAVE_<FLAG> environment variables, then a "key = value" config file (--config), then
 * built-in defaults (highest precedence first). */
#ifndef FDWD_CONFIG_H
#define FDWD_CONFIG_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#define CFG_MAX_ALLOW_DIRS 16
#define CFG_PATH 4096
#define CFG_MAX_ARGS 16
#define CFG_MAX_QUOTAS 256
#define CFG_QUOTA_LEN 256

typedef struct fdwd_config {
    char listen_host[256];        /* --listen HOST:PORT */
    int port;                     /* 0: ephemeral */
    char data_dir[CFG_PATH];      /* --data */
    int workers;                  /* --workers; 0: one per device */
    char devices[256];            /* --devices cpu:N | gpu | gpu:0,1; "" = auto */
    char backend[16];             /* --backend auto|cpu|cuda */
    uint64_t max_body;            /* --max-body, bytes of a job spec */
    uint64_t max_model_bytes;     /* --max-model-bytes */
    uint64_t max_data_bytes;      /* --max-data-bytes: one upload of observed data */
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
    int max_shots;                /* --max-shots: shots of one survey job */
    uint64_t max_traces;          /* --max-traces: traces of all a survey's shots */
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
    /* Runners, checkpoints, memory (issue 16; docs/operations.md) */
    char runner[CFG_PATH];        /* --runner: the runner program; "": next to fdwaved */
    char runner_command[1024];    /* --runner-command: "{runner} {run}" or under mpirun... */
    int runner_stop_timeout;      /* --runner-stop-timeout: seconds a runner told to stop has */
    uint64_t runner_memory_overhead; /* --runner-memory-overhead: above the job's estimate */
    char cgroup_dir[CFG_PATH];    /* --cgroup-dir: the cgroup v2 directory for runners */
    int max_attempts;             /* --max-attempts: runs of a job whose runner is killed */
    int checkpoint_interval;      /* --checkpoint-interval: seconds; 0 none */
    uint64_t host_memory;         /* --host-memory: what running jobs may hold; 0 auto */
    /* Where jobs run (issue 28; docs/operations.md "Jobs on a Slurm cluster") */
    char job_backend[8];          /* --job-backend local|slurm */
    char slurm_partition[128];    /* --slurm-partition: sbatch --partition; "": the default */
    char slurm_args[1024];        /* --slurm-args: more sbatch words (account, QOS, ...) */
    int slurm_cpus_per_device;    /* --slurm-cpus-per-device: CPUs a job asks per device */
    int slurm_survey_tasks;       /* --slurm-survey-tasks: most array tasks of a survey */
    /* Disk and database */
    uint64_t disk_reserve;        /* --disk-reserve: bytes kept free for recording ends */
    uint64_t min_free_disk;       /* --min-free-disk: health is degraded below it */
    int integrity_check;          /* --integrity-check: full check at start */
    /* Sharing */
    int nquotas;                  /* --user-quota, repeatable: "NAME: key=value, ..." */
    char user_quotas[CFG_MAX_QUOTAS][CFG_QUOTA_LEN];
    char default_quota[CFG_QUOTA_LEN]; /* --default-quota: "key=value, ..." */
    int fairshare_halflife;       /* --fairshare-halflife: seconds */
    int fairshare_weight;         /* --fairshare-weight: priority levels at most */
    int max_wall_time;            /* --max-wall-time: seconds; 0 none */
    int preempt_gap;              /* --preempt-gap: levels above a running job; 0 off */
    int retention;                /* --retention: seconds a finished job keeps outputs; 0 */
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
void config_usage(FILE *out);

#endif
