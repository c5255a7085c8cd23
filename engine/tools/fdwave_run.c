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
 * main runs five named steps: the options (getopt_long), the MPI ranks, the spec, the run
 * and the report. Progress goes to stderr through progress_bar.h (the
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
#include "run_setup.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
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
            "      --survey-part K/N  a survey's shots in N parts, each its own run (on\n"
            "                         other machines, say): run part K (1..N) into the\n"
            "                         shared output directory, keeping its shots there\n"
            "      --survey-combine N  then, once every part has run: the survey's outputs\n"
            "                         (all_shots, the stack, the manifest) from its parts'\n"
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
    const double mib = (double)c->bytes / (1024.0 * 1024.0);
    if (c->resumed)
        fprintf(stderr, "fdwave-run: resumed from the checkpoint of step %ld of %ld (%.1f MiB, "
                "%.2f s)\n", c->step, c->nsteps, mib, c->seconds);
    else /* written while the loop went on: what it cost the loop too */
        fprintf(stderr, "fdwave-run: checkpoint written at step %ld of %ld (%.1f MiB, %.2f s; "
                "the loop paused %.3f s)\n", c->step, c->nsteps, mib, c->seconds,
                c->loop_seconds);
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

/* A usage error: "fdwave-run: " and the message on stderr; EXIT_USAGE. */
static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fdwave-run: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EXIT_USAGE;
}

/* Say what was wrong with the option getopt_long refused (c: '?' or ':'). */
static int bad_option(char **argv, int c)
{
    char name[128];
    switch (option_refused(argv, c, name, sizeof name)) {
    case OPTION_NEEDS_VALUE: return usage_error("%s needs a value", name);
    case OPTION_TAKES_NO_VALUE:
        return usage_error("%s takes no value (see fdwave-run --help)", name);
    default: return usage_error("unknown option '%s' (see fdwave-run --help)", name);
    }
}

enum {
    OPT_JSON = 256, OPT_MPI, OPT_CUDA_AWARE_MPI, OPT_CPU_PORTABLE, OPT_MPI_STATS,
    OPT_CHECKPOINT, OPT_CHECKPOINT_INTERVAL, OPT_CHECKPOINT_STEPS, OPT_SURVEY_PART,
    OPT_SURVEY_COMBINE
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


/* --survey-part K/N (combine 0) or --survey-combine N (combine 1) into rs, engine parts
 * numbered from 0: 0, or EXIT_USAGE with the reason said. */
static int survey_option(int combine, const char *v, run_setup *rs)
{
    if (rs->survey_parts)
        return usage_error("one of --survey-part and --survey-combine, once");
    if (combine) {
        const long long n = number_option("--survey-combine", v, 2, 100000);
        if (n < 0)
            return EXIT_USAGE;
        rs->survey_parts = (int)n;
        rs->survey_part = FDW_SURVEY_COMBINE;
        return 0;
    }
    int k = 0, n = 0, used = 0;
    if (sscanf(v, "%d/%d%n", &k, &n, &used) != 2 || v[used] || n < 2 || n > 100000 || k < 1 ||
        k > n)
        return usage_error("--survey-part takes K/N, part K of N parts (2 <= N <= 100000, "
                           "1 <= K <= N), not '%s'", v);
    rs->survey_parts = n;
    rs->survey_part = k - 1;
    return 0;
}

/* What the command line asks for. rs points into tuning: not to be copied. */
typedef struct run_args {
    const char *spec_path, *out_dir;
    char default_dir[PATH_MAX];
    run_setup rs;
    fdw_tuning tuning;
    int json, want_mpi;
    int cuda_aware; /* fdw_mpi_cuda_aware: 0 auto, 1 on, 2 off */
} run_args;

/* One option getopt_long returned (c, with optarg) into a and ui: 0, an exit status for a
 * bad one, or -2 after --help or --version (the program ends with 0). */
static int apply_option(int c, char **argv, run_args *a, run_ui *ui)
{
    static const char *const cuda_aware[] = {"auto", "on", "off"};
    long long v;
    switch (c) {
    case 'o':
        a->out_dir = optarg;
        return optarg[0] ? 0 : usage_error("--out needs a directory");
    case 'b':
        return run_setup_backend(optarg, &a->rs.backend)
                   ? usage_error("--backend must be auto, cpu or cuda, not '%s'", optarg)
                   : 0;
    case 'd':
        a->rs.ndevice_ids = parse_devices(optarg, a->rs.device_ids, RUN_SETUP_MAX_DEVICES);
        return a->rs.ndevice_ids > 0 ? 0
                                     : usage_error("--devices takes a comma-separated list "
                                                   "of device ids (e.g. 0,1), not '%s'",
                                                   optarg);
    case 't': {
        char *end;
        errno = 0;
        long t = strtol(optarg, &end, 10);
        a->rs.threads = (int)t;
        if (end == optarg || *end || errno || t < 1 || t > 4096)
            return usage_error("--threads takes a number from 1 to 4096, not '%s'", optarg);
        return 0;
    }
    case 'q': ui->quiet = 1; return 0;
    case OPT_JSON: a->json = 1; return 0;
    case OPT_MPI: a->want_mpi = 1; return 0;
    case OPT_CPU_PORTABLE: a->tuning.cpu_portable = 1; return 0;
    case OPT_MPI_STATS: a->tuning.mpi_stats = 1; return 0;
    case OPT_CHECKPOINT:
        a->rs.checkpoint_dir = optarg;
        return optarg[0] ? 0 : usage_error("--checkpoint needs a directory");
    case OPT_CHECKPOINT_INTERVAL:
        v = number_option("--checkpoint-interval", optarg, 0, 31536000);
        a->rs.checkpoint_interval_s = (double)v;
        return v < 0 ? EXIT_USAGE : 0;
    case OPT_CHECKPOINT_STEPS:
        v = number_option("--checkpoint-steps", optarg, 1, 1000000000);
        a->rs.checkpoint_every_steps = (long)v;
        return v < 0 ? EXIT_USAGE : 0;
    case OPT_SURVEY_PART:
    case OPT_SURVEY_COMBINE: return survey_option(c == OPT_SURVEY_COMBINE, optarg, &a->rs);
    case OPT_CUDA_AWARE_MPI:
        for (int m = 0; m < 3; m++) {
            if (strcmp(optarg, cuda_aware[m]) == 0) {
                a->cuda_aware = m;
                return 0;
            }
        }
        return usage_error("--cuda-aware-mpi must be auto, on or off, not '%s'", optarg);
    case 'h':
        usage(stdout);
        return -2;
    case 'V':
        printf("fdwave-run %s\n", FDW_VERSION);
        return -2;
    default: /* '?' or ':' */
        return bad_option(argv, c);
    }
}

/* Step 1, the options: fills a (and ui->quiet). -1 when the run goes on, else the exit
 * status (0 after --help or --version). */
static int parse_options(int argc, char **argv, run_args *a, run_ui *ui)
{
    a->rs.backend = FDW_BACKEND_AUTO;
    a->rs.tuning = &a->tuning;
    a->rs.checkpoint_interval_s = 600;
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
        {"survey-part", required_argument, NULL, OPT_SURVEY_PART},
        {"survey-combine", required_argument, NULL, OPT_SURVEY_COMBINE},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    opterr = 0; /* our messages, not getopt's */
    int c, bad = 0;
    while (!bad && (c = getopt_long(argc, argv, ":o:b:d:t:qhV", longopts, NULL)) != -1) {
        bad = apply_option(c, argv, a, ui);
        if (bad == -2)
            return 0;
    }
    if (bad)
        return bad;
    if (!a->rs.checkpoint_dir &&
        (a->rs.checkpoint_every_steps > 0 || a->rs.checkpoint_interval_s != 600))
        return usage_error("--checkpoint-interval and --checkpoint-steps need --checkpoint DIR");
    for (int i = optind; i < argc; i++) {
        if (a->spec_path)
            return usage_error("one job spec at a time ('%s' and '%s')", a->spec_path, argv[i]);
        a->spec_path = argv[i];
    }
    if (!a->spec_path) {
        usage(stderr);
        return EXIT_USAGE;
    }
    return -1;
}

/* Step 2, the ranks: under mpirun (or --mpi) one rank per slab; rank 0 prints, the others
 * stay silent. *mpi: MPI is up (mpi_done ends it); *root: this process prints. -1 when the
 * run goes on, else the exit status. */
static int start_ranks(run_args *a, int *argc, char ***argv, fdw_comm *comm, int *mpi,
                       int *root, run_ui *ui)
{
    memset(comm, 0, sizeof *comm);
    *mpi = 0;
    *root = 1;
#ifdef FDW_HAVE_MPI
    if (a->want_mpi || fdw_mpi_launched()) {
        char msg[256];
        const int init = fdw_mpi_init(argc, argv, (fdw_mpi_cuda_aware)a->cuda_aware, comm,
                                      msg, sizeof msg);
        if (init != 0) {
            if (comm->rank == 0) /* every rank fails alike; rank 0 says why */
                fprintf(stderr, "fdwave-run: %s\n", msg);
            if (init > 0) /* MPI is up: nobody leaves before rank 0 has said it */
                fdw_mpi_finalize();
            return EXIT_RUN_FAILED;
        }
        *mpi = 1;
        *root = comm->rank == 0;
        if (!*root)
            ui->quiet = 1;
        a->rs.comm = comm;
    }
#else
    (void)argc;
    (void)argv;
    (void)ui;
    const char *np = getenv("OMPI_COMM_WORLD_SIZE");
    if (a->want_mpi || (np && atoi(np) > 1)) {
        fprintf(stderr, "fdwave-run: this fdwave-run was built without MPI support "
                        "(FDW_MPI=OFF, or no MPI library at build time); rebuild with "
                        "libopenmpi-dev installed to run under mpirun\n");
        return EXIT_RUN_FAILED;
    }
#endif
    return -1;
}

static void mpi_done(int mpi)
{
#ifdef FDW_HAVE_MPI
    if (mpi)
        fdw_mpi_finalize();
#else
    (void)mpi;
#endif
}

/* --survey-part and --survey-combine need a survey, and a part its shots make. */
static fdw_status check_survey_part(const run_setup *rs, const fdw_spec *spec, fdw_error *err)
{
    const int nshots = fdw_spec_shots(spec);
    const char *opt = rs->survey_part == FDW_SURVEY_COMBINE ? "--survey-combine" : "--survey-part";
    const int nparts = nshots < 1 ? 0 : fdw_survey_nparts(nshots, rs->survey_parts);
    if (nparts == rs->survey_parts)
        return FDW_OK;
    err->code = FDW_ERR_SPEC;
    snprintf(err->field, sizeof err->field, "survey");
    if (nshots < 1)
        snprintf(err->message, sizeof err->message,
                 "%s runs a part of a survey, but this spec has no \"survey\"", opt);
    else
        snprintf(err->message, sizeof err->message,
                 "%s in %d parts: the survey's %d shots make at most %d (a part per shot)", opt,
                 rs->survey_parts, nshots, nparts);
    return FDW_ERR_SPEC;
}

/* Step 3, the spec: load it (a rank that cannot read it stops every rank); on failure the
 * root says why (and, with --json, prints the summary). The spec's warnings reach stderr
 * through the engine's log callback when the run starts (and the --json summary lists
 * them). */
static fdw_status load_spec(const run_args *a, int root, fdw_spec **spec, fdw_error *err)
{
    fdw_status st = fdw_spec_load(a->spec_path, NULL, spec, err);
    if (st == FDW_OK && a->rs.survey_parts > 1)
        st = check_survey_part(&a->rs, *spec, err);
    if (a->rs.comm && a->rs.comm->size > 1)
        st = fdw_comm_agree(a->rs.comm, st, err);
    if (st != FDW_OK && root) {
        print_error(a->spec_path, err);
        if (a->json)
            print_json_summary("invalid", a->spec_path, NULL, NULL, NULL, err);
    }
    return st;
}

/* Step 4, the run: the output directory, the devices, Ctrl-C, the progress display and the
 * callbacks, then fdw_run. */
static fdw_status run_spec(run_args *a, const fdw_spec *spec, run_ui *ui, fdw_result *res,
                           fdw_error *err)
{
    if (!a->out_dir) {
        default_out_dir(a->spec_path, a->default_dir, sizeof a->default_dir);
        a->out_dir = a->default_dir;
    }
    a->rs.out_dir = a->out_dir;

    /* Cancel cleanly on the first Ctrl-C; a second one kills (SA_RESETHAND). */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    const int tty = isatty(STDERR_FILENO);
    progress_bar_init(&ui->bar, stderr, tty);
    fdw_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.progress = on_progress;
    cb.snapshot = on_snapshot;
    cb.log = on_log;
    cb.cancelled = on_cancelled;
    cb.checkpoint = on_checkpoint;
    cb.user = ui;
    cb.progress_interval_s = tty ? 0.2 : 1.0;

    if (!ui->quiet)
        fprintf(stderr, "fdwave-run: %s: %s job, %llu grid points, %ld steps, outputs in %s\n",
                a->spec_path, fdw_spec_kind(spec), (unsigned long long)fdw_spec_points(spec),
                fdw_spec_steps(spec), a->out_dir);

    memset(res, 0, sizeof *res);
    const fdw_status st = fdw_run(spec, run_setup_opts(&a->rs), &cb, res, err);
    progress_bar_hide(&ui->bar);
    return st;
}

/* Step 5, the report: what became of the run on stderr (and stdout: where the outputs are,
 * or the --json summary); returns the exit status. */
static int report(const run_args *a, int root, int quiet, const fdw_spec *spec, fdw_status st,
                  const fdw_result *res, const fdw_error *err)
{
    int code;
    const char *status;
    if (st == FDW_OK) {
        code = 0;
        status = "succeeded";
        if (!quiet && res->nshots > 0)
            fprintf(stderr, "fdwave-run: done: %d shots (%d run now, %d group%s of devices), "
                    "%ld steps in %.2f s, %.1f Mpts/s (%s)\n", res->nshots,
                    res->shots_done - res->shots_resumed, res->groups,
                    res->groups == 1 ? "" : "s", res->steps_done, res->elapsed_s, res->mpts,
                    res->backend);
        else if (!quiet)
            fprintf(stderr, "fdwave-run: done: %ld steps in %.2f s, %.1f Mpts/s (%s)\n",
                    res->steps_done, res->elapsed_s, res->mpts, res->backend);
        if (!a->json && root)
            printf("outputs: %s\nmanifest: %s/manifest.json\n", a->out_dir, a->out_dir);
    } else if (st == FDW_ERR_CANCELLED) {
        code = stop_signal == SIGTERM ? 128 + SIGTERM : EXIT_CANCELLED;
        status = "cancelled";
        if (root && res->nshots > 0)
            fprintf(stderr, "fdwave-run: %s after %d of %d shots; their files are in %s\n",
                    res->suspended ? "suspended" : "cancelled", res->shots_done, res->nshots,
                    a->out_dir);
        else if (root)
            fprintf(stderr, "fdwave-run: cancelled after %ld steps; outputs so far are in %s\n",
                    res->steps_done, a->out_dir);
    } else {
        code = st == FDW_ERR_SPEC ? EXIT_USAGE : EXIT_RUN_FAILED;
        status = "failed";
        if (root)
            print_error(a->spec_path, err);
    }
    if (a->json && root)
        print_json_summary(status, a->spec_path, a->out_dir, spec, res,
                           st == FDW_OK ? NULL : err);
    return code;
}

int main(int argc, char **argv)
{
    run_args a;
    memset(&a, 0, sizeof a);
    run_ui ui;
    memset(&ui, 0, sizeof ui);
    int code = parse_options(argc, argv, &a, &ui);
    if (code >= 0)
        return code;
    fdw_comm comm;
    int mpi, root;
    if ((code = start_ranks(&a, &argc, &argv, &comm, &mpi, &root, &ui)) >= 0)
        return code;
    fdw_error err;
    memset(&err, 0, sizeof err);
    fdw_spec *spec = NULL;
    if (load_spec(&a, root, &spec, &err) != FDW_OK) {
        code = EXIT_USAGE;
    } else {
        fdw_result res;
        const fdw_status st = run_spec(&a, spec, &ui, &res, &err);
        code = report(&a, root, ui.quiet, spec, st, &res, &err);
    }
    fdw_spec_free(spec);
    mpi_done(mpi);
    return code;
}
