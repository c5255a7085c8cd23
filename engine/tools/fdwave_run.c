/* fdwave_run.c — the fdwave-run program: run one job spec from the shell, without the
 * daemon, through the same engine calls the daemon makes (fdw_spec_load, fdw_run).
 *
 *   fdwave-run job.json [--out DIR] [--backend auto|cpu|cuda] [--devices 0,1]
 *              [--threads N] [--quiet] [--json] [--mpi] [--cuda-aware-mpi auto|on|off]
 *              [--checkpoint DIR [--checkpoint-interval S] [--checkpoint-steps N]]
 *
 * With --checkpoint the run writes checkpoints into DIR (every S seconds, default 600,
 * and every N steps) and, started again with the same spec and DIR after a crash or a
 * kill, resumes from the last one; the outputs equal an uninterrupted run's bit for bit.
 *
 * Under mpirun (or with --mpi) every rank runs one slab of the job (docs/mpi.md): on the
 * CUDA backend with --backend cuda (or auto when every rank sees a GPU; a rank takes its
 * host's GPUs in turn, or those of --devices), else on the CPU backend; rank 0 alone
 * prints (including which GPU each rank uses) and writes the outputs, and every rank exits
 * with the same status.
 *
 * Options are read with getopt_long. Progress goes to stderr through progress_bar.h (the
 * fdwave CLI's too): on a terminal one line redrawn in place (bar, percent, step/nsteps,
 * Mpoints/s, ETA); otherwise one plain line per progress report. SIGINT
 * (or SIGTERM) cancels within a step; the outputs written so far stay. Exit status:
 * 0 done, 1 the run failed, 2 bad spec or usage, 130 cancelled (143 on SIGTERM). */
#include "fdwave/comm.h"
#include "fdwave/fdwave.h"
#ifdef FDW_HAVE_MPI
#include "mpi_comm.h"
#endif
#include "option_refused.h"
#include "progress_bar.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { EXIT_RUN_FAILED = 1, EXIT_USAGE = 2, EXIT_CANCELLED = 130 };

static volatile sig_atomic_t stop_signal; /* the signal that asked to stop, 0 if none */

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

/* State shared with the engine callbacks. */
typedef struct run_ui {
    int quiet;
    progress_bar bar; /* on stderr; redrawn in place when it is a terminal */
} run_ui;

static void usage(FILE *to)
{
    fprintf(to,
            "usage: fdwave-run JOB.json [options]\n"
            "Run a finite-difference wave simulation job spec and write its outputs.\n"
            "\n"
            "  -o, --out DIR          output directory (default ./out/<JOB file stem>)\n"
            "  -b, --backend KIND     auto (CUDA when a GPU is present), cpu or cuda\n"
            "  -d, --devices LIST     device ids to run on, e.g. 0,1 (default: the spec's);\n"
            "                         under mpirun: the GPUs of each host, taken in turn\n"
            "                         by its ranks (default: all it has)\n"
            "  -t, --threads N        CPU backend OpenMP threads (default: all cores)\n"
            "  -q, --quiet            no progress or snapshot lines (warnings still shown)\n"
            "      --json             print a JSON summary of the run on stdout\n"
            "      --mpi              run as one rank of an MPI job (automatic under mpirun)\n"
            "      --cuda-aware-mpi WHEN  under MPI, GPU ranks hand GPU memory to MPI: auto\n"
            "                         (when the MPI library is CUDA-aware; default), on\n"
            "                         (insist: an error if it is not), off (stage the planes\n"
            "                         through host memory)\n"
            "      --cpu-portable     CPU backend: the portable kernels instead of the\n"
            "                         AVX-512 ones (acoustic: bit-identical to the CUDA\n"
            "                         backend; ETE: the same bits either way)\n"
            "      --mpi-stats        CUDA under MPI: each rank prints its exchange figures\n"
            "                         per step on stderr at the end\n"
            "      --checkpoint DIR   write checkpoints into DIR and resume from the one\n"
            "                         there (same spec, devices and backend) when started\n"
            "                         again after a crash or a kill\n"
            "      --checkpoint-interval S  seconds between checkpoints (default 600; 0: not\n"
            "                         by time)\n"
            "      --checkpoint-steps N  also a checkpoint every N steps\n"
            "  -h, --help             this help\n"
            "  -V, --version          print the version\n"
            "\n"
            "Exit status: 0 done, 1 run failed, 2 bad spec or usage, 130 cancelled (Ctrl-C).\n"
            "Outputs (snapshots, receiver gathers, manifest.json) go to the output directory;\n"
            "manifest.json lists every file with its meaning, dimensions and units.\n");
}

static int on_progress(void *user, const fdw_progress *p)
{
    run_ui *ui = user;
    if (!ui->quiet) {
        const progress_report r = {.percent = p->percent, .step = p->step, .nsteps = p->nsteps,
                                   .mpts = p->mpts, .elapsed_s = p->elapsed_s,
                                   .eta_s = p->eta_s, .nshots = p->nshots,
                                   .shots_done = p->shots_done, .shot = p->shot};
        progress_bar_show(&ui->bar, &r);
    }
    return stop_signal != 0;
}

static void on_snapshot(void *user, const fdw_snapshot_info *s)
{
    run_ui *ui = user;
    if (ui->quiet)
        return;
    progress_bar_hide(&ui->bar);
    fprintf(stderr, "snapshot %d at step %ld (t = %.6g s):", s->index, s->step, s->time);
    for (int f = 0; f < s->nfiles; f++)
        fprintf(stderr, " %s", s->files[f]);
    fputc('\n', stderr);
    progress_bar_redraw(&ui->bar);
    fflush(stderr);
}

static void on_log(void *user, int level, const char *msg)
{
    run_ui *ui = user;
    if (level < FDW_LOG_INFO || (ui->quiet && level < FDW_LOG_WARN))
        return;
    static const char *const names[] = {"debug", "info", "warning", "error"};
    progress_bar_hide(&ui->bar);
    fprintf(stderr, "fdwave-run: %s: %s\n", names[level > 3 ? 3 : level], msg);
    progress_bar_redraw(&ui->bar);
    fflush(stderr);
}

static void on_checkpoint(void *user, const fdw_checkpoint_info *c)
{
    run_ui *ui = user;
    if (ui->quiet)
        return;
    progress_bar_hide(&ui->bar);
    fprintf(stderr, "fdwave-run: %s step %ld of %ld (%.1f MiB, %.2f s)\n",
            c->resumed ? "resumed from the checkpoint of" : "checkpoint written at", c->step,
            c->nsteps, (double)c->bytes / (1024.0 * 1024.0), c->seconds);
    progress_bar_redraw(&ui->bar);
    fflush(stderr);
}

static int on_cancelled(void *user)
{
    (void)user;
    return stop_signal != 0;
}

/* Parse "0,1,3" into ids; returns the count or -1 when malformed. */
static int parse_devices(const char *s, int *ids, int max)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 0 || v > INT_MAX || n >= max)
            return -1;
        ids[n++] = (int)v;
        if (*end == ',')
            end++;
        else if (*end)
            return -1;
        p = end;
    }
    return n;
}

/* ./out/<stem of the spec file name> */
static void default_out_dir(const char *spec_path, char *out, size_t len)
{
    const char *base = strrchr(spec_path, '/');
    base = base ? base + 1 : spec_path;
    size_t n = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        n = (size_t)(dot - base);
    if (n == 0)
        snprintf(out, len, "out/job");
    else
        snprintf(out, len, "out/%.*s", (int)n, base);
}

/* The --json summary on stdout. */
static void print_json_summary(const char *status, const char *spec_path, const char *out_dir,
                               const fdw_spec *spec, const fdw_result *res,
                               const fdw_error *err)
{
    json_t *o = json_object();
    json_object_set_new(o, "status", json_string(status));
    json_object_set_new(o, "spec", json_string(spec_path));
    if (out_dir) {
        char manifest[PATH_MAX + 32];
        snprintf(manifest, sizeof manifest, "%s/manifest.json", out_dir);
        json_object_set_new(o, "out_dir", json_string(out_dir));
        json_object_set_new(o, "manifest", json_string(manifest));
    }
    if (res) {
        json_object_set_new(o, "steps_done", json_integer(res->steps_done));
        json_object_set_new(o, "elapsed_s", json_real(res->elapsed_s));
        json_object_set_new(o, "mpts", json_real(res->mpts));
        json_object_set_new(o, "backend", json_string(res->backend));
        json_object_set_new(o, "max_abs_error", json_real(res->max_abs_error));
        if (res->nshots > 0) { /* a survey */
            json_object_set_new(o, "nshots", json_integer(res->nshots));
            json_object_set_new(o, "shots_done", json_integer(res->shots_done));
            json_object_set_new(o, "shots_resumed", json_integer(res->shots_resumed));
            json_object_set_new(o, "groups", json_integer(res->groups));
        }
    }
    if (spec) {
        json_t *w = json_array();
        for (int q = 0; q < fdw_spec_warning_count(spec); q++)
            json_array_append_new(w, json_string(fdw_spec_warning(spec, q)));
        json_object_set_new(o, "warnings", w);
    }
    if (err && err->code != FDW_OK) {
        json_t *e = json_object();
        json_object_set_new(e, "code", json_string(fdw_status_name(err->code)));
        json_object_set_new(e, "field", json_string(err->field));
        json_object_set_new(e, "message", json_string(err->message));
        json_object_set_new(o, "error", e);
    }
    char *text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (text) {
        puts(text);
        free(text);
    }
    json_decref(o);
}

/* "fdwave-run: job.json: field: message" (the field part only when there is one). */
static void print_error(const char *spec_path, const fdw_error *err)
{
    if (err->field[0])
        fprintf(stderr, "fdwave-run: %s: %s: %s\n", spec_path, err->field, err->message);
    else
        fprintf(stderr, "fdwave-run: %s: %s\n", spec_path, err->message);
}

/* Say what was wrong with the option getopt_long refused (c: '?' or ':'). */
static int bad_option(char **argv, int c)
{
    char name[128];
    switch (option_refused(argv, c, name, sizeof name)) {
    case OPTION_NEEDS_VALUE:
        fprintf(stderr, "fdwave-run: %s needs a value\n", name);
        break;
    case OPTION_TAKES_NO_VALUE:
        fprintf(stderr, "fdwave-run: %s takes no value (see fdwave-run --help)\n", name);
        break;
    default:
        fprintf(stderr, "fdwave-run: unknown option '%s' (see fdwave-run --help)\n", name);
    }
    return EXIT_USAGE;
}

enum {
    OPT_JSON = 256, OPT_MPI, OPT_CUDA_AWARE_MPI, OPT_CPU_PORTABLE, OPT_MPI_STATS,
    OPT_CHECKPOINT, OPT_CHECKPOINT_INTERVAL, OPT_CHECKPOINT_STEPS
};

/* A whole number in [lo, hi] for option name; -1 (and a message) when it is not. */
static long long number_option(const char *name, const char *v, long long lo, long long hi)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || errno || x < lo || x > hi) {
        fprintf(stderr, "fdwave-run: %s takes a whole number from %lld to %lld, not '%s'\n",
                name, lo, hi, v);
        return -1;
    }
    return x;
}

int main(int argc, char **argv)
{
    const char *spec_path = NULL, *out_dir = NULL;
    fdw_run_opts ro;
    fdw_tuning tuning;
    memset(&ro, 0, sizeof ro);
    memset(&tuning, 0, sizeof tuning);
    ro.backend = FDW_BACKEND_AUTO;
    ro.tuning = &tuning;
    fdw_checkpoint_opts ckpt;
    memset(&ckpt, 0, sizeof ckpt);
    ckpt.interval_s = 600;
    ckpt.resume = 1;
    int ids[64], nids = 0, json = 0, want_mpi = 0;
    int cuda_aware = 0; /* fdw_mpi_cuda_aware: 0 auto, 1 on, 2 off */
    run_ui ui;
    memset(&ui, 0, sizeof ui);

    static const struct option longopts[] = {
        {"out", required_argument, NULL, 'o'},
        {"backend", required_argument, NULL, 'b'},
        {"devices", required_argument, NULL, 'd'},
        {"threads", required_argument, NULL, 't'},
        {"quiet", no_argument, NULL, 'q'},
        {"json", no_argument, NULL, OPT_JSON},
        {"mpi", no_argument, NULL, OPT_MPI},
        {"cuda-aware-mpi", required_argument, NULL, OPT_CUDA_AWARE_MPI},
        {"cpu-portable", no_argument, NULL, OPT_CPU_PORTABLE},
        {"mpi-stats", no_argument, NULL, OPT_MPI_STATS},
        {"checkpoint", required_argument, NULL, OPT_CHECKPOINT},
        {"checkpoint-interval", required_argument, NULL, OPT_CHECKPOINT_INTERVAL},
        {"checkpoint-steps", required_argument, NULL, OPT_CHECKPOINT_STEPS},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    opterr = 0; /* our messages, not getopt's */
    int c, bad = 0;
    while (!bad && (c = getopt_long(argc, argv, ":o:b:d:t:qhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            if (!optarg[0]) {
                fprintf(stderr, "fdwave-run: --out needs a directory\n");
                bad = EXIT_USAGE;
            }
            out_dir = optarg;
            break;
        case 'b':
            if (strcmp(optarg, "auto") == 0)
                ro.backend = FDW_BACKEND_AUTO;
            else if (strcmp(optarg, "cpu") == 0)
                ro.backend = FDW_BACKEND_CPU;
            else if (strcmp(optarg, "cuda") == 0)
                ro.backend = FDW_BACKEND_CUDA;
            else {
                fprintf(stderr, "fdwave-run: --backend must be auto, cpu or cuda, not '%s'\n",
                        optarg);
                bad = EXIT_USAGE;
            }
            break;
        case 'd':
            nids = parse_devices(optarg, ids, 64);
            if (nids <= 0) {
                fprintf(stderr,
                        "fdwave-run: --devices takes a comma-separated list of device ids "
                        "(e.g. 0,1), not '%s'\n",
                        optarg);
                bad = EXIT_USAGE;
            }
            break;
        case 't': {
            char *end;
            errno = 0;
            long t = strtol(optarg, &end, 10);
            if (end == optarg || *end || errno || t < 1 || t > 4096) {
                fprintf(stderr, "fdwave-run: --threads takes a number from 1 to 4096, not '%s'\n",
                        optarg);
                bad = EXIT_USAGE;
            }
            ro.threads = (int)t;
            break;
        }
        case 'q': ui.quiet = 1; break;
        case OPT_JSON: json = 1; break;
        case OPT_MPI: want_mpi = 1; break;
        case OPT_CPU_PORTABLE: tuning.cpu_portable = 1; break;
        case OPT_MPI_STATS: tuning.mpi_stats = 1; break;
        case OPT_CHECKPOINT:
            if (!optarg[0]) {
                fprintf(stderr, "fdwave-run: --checkpoint needs a directory\n");
                bad = EXIT_USAGE;
            }
            ckpt.dir = optarg;
            break;
        case OPT_CHECKPOINT_INTERVAL: {
            long long v = number_option("--checkpoint-interval", optarg, 0, 31536000);
            bad = v < 0 ? EXIT_USAGE : bad;
            ckpt.interval_s = (double)v;
            break;
        }
        case OPT_CHECKPOINT_STEPS: {
            long long v = number_option("--checkpoint-steps", optarg, 1, 1000000000);
            bad = v < 0 ? EXIT_USAGE : bad;
            ckpt.every_steps = (long)v;
            break;
        }
        case OPT_CUDA_AWARE_MPI:
            if (strcmp(optarg, "auto") == 0)
                cuda_aware = 0;
            else if (strcmp(optarg, "on") == 0)
                cuda_aware = 1;
            else if (strcmp(optarg, "off") == 0)
                cuda_aware = 2;
            else {
                fprintf(stderr, "fdwave-run: --cuda-aware-mpi must be auto, on or off, not '%s'\n",
                        optarg);
                bad = EXIT_USAGE;
            }
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("fdwave-run %s\n", FDW_VERSION);
            return 0;
        default: /* '?' or ':' */
            bad = bad_option(argv, c);
            break;
        }
    }
    if (!bad && !ckpt.dir && (ckpt.every_steps > 0 || ckpt.interval_s != 600)) {
        fprintf(stderr, "fdwave-run: --checkpoint-interval and --checkpoint-steps need "
                        "--checkpoint DIR\n");
        bad = EXIT_USAGE;
    }
    if (bad)
        return bad;
    if (ckpt.dir)
        ro.checkpoint = &ckpt;
    for (int a = optind; a < argc; a++) {
        if (spec_path) {
            fprintf(stderr, "fdwave-run: one job spec at a time ('%s' and '%s')\n", spec_path,
                    argv[a]);
            return EXIT_USAGE;
        }
        spec_path = argv[a];
    }
    if (!spec_path) {
        usage(stderr);
        return EXIT_USAGE;
    }

    /* MPI: one rank per slab. Rank 0 prints; the others stay silent. */
    fdw_comm comm;
    memset(&comm, 0, sizeof comm);
    int mpi = 0, root = 1;
#ifdef FDW_HAVE_MPI
    if (want_mpi || fdw_mpi_launched()) {
        char msg[256];
        const int init = fdw_mpi_init(&argc, &argv, (fdw_mpi_cuda_aware)cuda_aware, &comm,
                                      msg, sizeof msg);
        if (init != 0) {
            if (comm.rank == 0) /* every rank fails alike; rank 0 says why */
                fprintf(stderr, "fdwave-run: %s\n", msg);
            if (init > 0) /* MPI is up: nobody leaves before rank 0 has said it */
                fdw_mpi_finalize();
            return EXIT_RUN_FAILED;
        }
        mpi = 1;
        root = comm.rank == 0;
        if (!root)
            ui.quiet = 1;
        if (comm.size > 1)
            ro.comm = &comm;
    }
#else
    (void)mpi;
    (void)cuda_aware;
    const char *np = getenv("OMPI_COMM_WORLD_SIZE");
    if (want_mpi || (np && atoi(np) > 1)) {
        fprintf(stderr, "fdwave-run: this fdwave-run was built without MPI support "
                        "(FDW_MPI=OFF, or no MPI library at build time); rebuild with "
                        "libopenmpi-dev installed to run under mpirun\n");
        return EXIT_RUN_FAILED;
    }
#endif

    fdw_error err;
    memset(&err, 0, sizeof err);
    fdw_spec *spec = NULL;
    fdw_status st = fdw_spec_load(spec_path, NULL, &spec, &err);
    if (ro.comm) /* a rank that cannot read the spec stops every rank */
        st = fdw_comm_agree(ro.comm, st, &err);
    if (st != FDW_OK) {
        if (root) {
            print_error(spec_path, &err);
            if (json)
                print_json_summary("invalid", spec_path, NULL, NULL, NULL, &err);
        }
        fdw_spec_free(spec);
#ifdef FDW_HAVE_MPI
        if (mpi)
            fdw_mpi_finalize();
#endif
        return EXIT_USAGE;
    }
    /* The spec's warnings reach stderr through the engine's log callback when the run
     * starts (and the --json summary lists them). */

    char default_dir[PATH_MAX];
    if (!out_dir) {
        default_out_dir(spec_path, default_dir, sizeof default_dir);
        out_dir = default_dir;
    }
    ro.out_dir = out_dir;
    if (nids > 0) {
        ro.device_ids = ids;
        ro.ndevice_ids = nids;
    }

    /* Cancel cleanly on the first Ctrl-C; a second one kills (SA_RESETHAND). */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    const int tty = isatty(STDERR_FILENO);
    progress_bar_init(&ui.bar, stderr, tty);
    fdw_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.progress = on_progress;
    cb.snapshot = on_snapshot;
    cb.log = on_log;
    cb.cancelled = on_cancelled;
    cb.checkpoint = on_checkpoint;
    cb.user = &ui;
    cb.progress_interval_s = tty ? 0.2 : 1.0;

    if (!ui.quiet)
        fprintf(stderr, "fdwave-run: %s: %s job, %llu grid points, %ld steps, outputs in %s\n",
                spec_path, fdw_spec_kind(spec), (unsigned long long)fdw_spec_points(spec),
                fdw_spec_steps(spec), out_dir);

    fdw_result res;
    memset(&res, 0, sizeof res);
    st = fdw_run(spec, &ro, &cb, &res, &err);
    progress_bar_hide(&ui.bar);

    int code;
    const char *status;
    if (st == FDW_OK) {
        code = 0;
        status = "succeeded";
        if (!ui.quiet && res.nshots > 0)
            fprintf(stderr, "fdwave-run: done: %d shots (%d run now, %d group%s of devices), "
                    "%ld steps in %.2f s, %.1f Mpts/s (%s)\n", res.nshots,
                    res.shots_done - res.shots_resumed, res.groups, res.groups == 1 ? "" : "s",
                    res.steps_done, res.elapsed_s, res.mpts, res.backend);
        else if (!ui.quiet)
            fprintf(stderr, "fdwave-run: done: %ld steps in %.2f s, %.1f Mpts/s (%s)\n",
                    res.steps_done, res.elapsed_s, res.mpts, res.backend);
        if (!json && root)
            printf("outputs: %s\nmanifest: %s/manifest.json\n", out_dir, out_dir);
    } else if (st == FDW_ERR_CANCELLED) {
        code = stop_signal == SIGTERM ? 128 + SIGTERM : EXIT_CANCELLED;
        status = "cancelled";
        if (root && res.nshots > 0)
            fprintf(stderr, "fdwave-run: %s after %d of %d shots; their files are in %s\n",
                    res.suspended ? "suspended" : "cancelled", res.shots_done, res.nshots,
                    out_dir);
        else if (root)
            fprintf(stderr, "fdwave-run: cancelled after %ld steps; outputs so far are in %s\n",
                    res.steps_done, out_dir);
    } else {
        code = st == FDW_ERR_SPEC ? EXIT_USAGE : EXIT_RUN_FAILED;
        status = "failed";
        if (root)
            print_error(spec_path, &err);
    }
    if (json && root)
        print_json_summary(status, spec_path, out_dir, spec, &res, st == FDW_OK ? NULL : &err);
    fdw_spec_free(spec);
#ifdef FDW_HAVE_MPI
    if (mpi)
        fdw_mpi_finalize();
#endif
    return code;
}
