/* fdwave.h — the whole public face of libfdwave: parse and validate a job spec,
 * run it with callbacks for progress, snapshots, logging and cancellation.
 * The daemon (server/) and fdwave-run call only what is declared here. */
#ifndef FDWAVE_H
#define FDWAVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FDW_VERSION "0.1.0"

/* Every fallible function returns one of these and fills an fdw_error. */
typedef enum fdw_status {
    FDW_OK = 0,
    FDW_ERR_SPEC,        /* the job spec is invalid; err.field holds the JSON path */
    FDW_ERR_IO,          /* a file could not be read or written */
    FDW_ERR_NOMEM,       /* host or device memory exhausted (message says how much) */
    FDW_ERR_DEVICE,      /* a GPU call failed, or no such device */
    FDW_ERR_CANCELLED,   /* a callback asked the run to stop */
    FDW_ERR_UNSUPPORTED, /* valid request this build cannot do (e.g. cuda without nvcc) */
    FDW_ERR_INTERNAL,    /* a bug: please report */
    FDW_ERR_UNSTABLE     /* the run blew up: its field stopped being finite or bounded (the
                          * message names the step and the likely cause, err.field the
                          * spec field most likely at fault) */
} fdw_status;

typedef struct fdw_error {
    fdw_status code;
    char field[256];   /* JSON path of the offending spec field, e.g. "sources[2].position"; "" if none */
    char message[768]; /* one human-readable sentence */
} fdw_error;

/* Short stable name of a status ("spec", "io", ...), used as the HTTP error code. */
const char *fdw_status_name(fdw_status s);

/* ---- Job specs ---------------------------------------------------------- */

/* Which backend runs a job (fdw_run_opts.backend, fdw_spec_host_bytes). */
typedef enum { FDW_BACKEND_AUTO = 0, FDW_BACKEND_CPU, FDW_BACKEND_CUDA } fdw_backend_kind;

typedef struct fdw_spec fdw_spec; /* opaque; see engine/spec.h inside the engine */

/* ---- Velocity model files ----------------------------------------------- */

/* What one read of a model file establishes: its format, the geometry it records, its
 * velocity range and digest. The daemon records this at upload and hands it back through
 * the resolver, so a spec naming the model is checked without reading the file again. */
typedef struct fdw_model_info {
    char format[8];            /* "raw-f32", "segy" or "rsf" */
    uint64_t nvalues;          /* samples in the file */
    /* Geometry the file records (SEG-Y: crosslines, inlines, samples; RSF: n1, n2, n3);
     * 0 where the format records none (raw: only nvalues). */
    int nx, ny, nz;
    /* Spacing the file records in metres (RSF d1..d3; SEG-Y dz from its sample interval);
     * 0 where it records none. */
    double dx, dy, dz;
    double vmin, vmax;         /* m/s, over every sample */
    char sha256[65];           /* hex digest of the file's bytes; filled by the caller
                                  (the daemon hashes an upload as it arrives) */
} fdw_model_info;

/* Read a model file once: check that it is a readable file of format ("raw-f32", "segy",
 * "rsf") whose every sample is a positive finite velocity, and fill info (all but sha256,
 * left empty). Errors name field (e.g. "model") and, for a bad sample, its index. */
fdw_status fdw_model_inspect(const char *path, const char *format, const char *field,
                             fdw_model_info *info, fdw_error *err);

/* Maps a model name used by a spec ("velocity": {"type": "model", "name": NAME}) to its
 * file and, when known, what fdw_model_inspect recorded of it. Returns 0 and fills path
 * and *info (info->nvalues = 0 when nothing is recorded: the parser then reads the file),
 * or non-zero if the name is unknown to this user. */
typedef int (*fdw_model_resolver)(void *user, const char *name, char *path, size_t pathlen,
                                  fdw_model_info *info);

/* ---- Observed shot gathers (the rtm and gradient kinds' "data") --------- */

/* What one read of a data file establishes, under the rules the imaging kinds read it by
 * (docs/spec.md, rtm's "data"): the daemon records it at upload. */
typedef struct fdw_data_info {
    char format[8];            /* "raw-f32" or "segy" */
    uint64_t bytes;            /* the file's size */
    long long traces;          /* SEG-Y: traces in the file; raw-f32: 0 (its layout is
                                  the job's: receivers x samples) */
    int samples;               /* SEG-Y: samples per trace; raw-f32: 0 */
    double sample_interval;    /* SEG-Y: seconds between samples; raw-f32: 0 */
    int nshots;                /* SEG-Y: distinct FFIDs (shots); raw-f32: 0 */
    long long *ffids;          /* SEG-Y: the nshots FFIDs, ascending; malloc'd, the caller
                                  frees it (NULL for raw-f32) */
} fdw_data_info;

/* Read a data file of format ("raw-f32", "segy") once and check it as a job would: a
 * raw-f32 file is a whole number of float32 values, not none; a SEG-Y file is readable
 * with fixed-length traces, a sample interval (binary header or trace 1), and every
 * trace's sample count, sample interval, coordinate units and scalars as the one-shot
 * and survey readers require them. Errors name field and, for a header, the trace and
 * the header field. The grid-dependent checks (a receiver inside the grid, the traces'
 * length against a run's steps) are the spec's, when a job names the file. */
fdw_status fdw_data_inspect(const char *path, const char *format, const char *field,
                            fdw_data_info *info, fdw_error *err);

/* Maps a data name used by a spec ("data": {"name": NAME}, rtm and gradient) to its file
 * and format (the daemon's uploads). Returns 0 and fills path and format, or non-zero if
 * the name is unknown to this user. */
typedef int (*fdw_data_resolver)(void *user, const char *name, char *path, size_t pathlen,
                                 char *format, size_t formatlen);

/* What a spec reads a file for (fdw_file_access). */
typedef enum fdw_file_use {
    FDW_FILE_MODEL = 0,   /* a velocity model file ("velocity.path") */
    FDW_FILE_WAVELET,     /* a source wavelet file ("sources[i].wavelet.path") */
    FDW_FILE_MODEL_DATA,  /* the binary an RSF model's header names with in= */
    FDW_FILE_KIND_DATA    /* a data file of a kind's own section (the sweep kind's
                             "initial.surface.path", "initial.volume.path", rtm's
                             "data.path"); format: its format ("raw-f32", "raw-f64",
                             "segy") */
} fdw_file_use;

/* Decides whether the job may read a file its spec names. Called for every such file
 * (model, wavelet, RSF binary) with its canonical path (absolute, no symbolic links),
 * after the path was found under one of fdw_parse_opts.allowed_dirs; format is the model
 * format ("raw-f32", "segy", "rsf") for FDW_FILE_MODEL, else NULL. Returns 0 to allow,
 * non-zero to refuse: the parse then fails with the same message a missing file or a path
 * outside the allowed directories gets, so a refusal tells nothing of the file. For a
 * model it may fill *info with facts recorded earlier (as fdw_model_resolver does;
 * info->nvalues = 0: none, the parser reads the file). */
typedef int (*fdw_file_access)(void *user, const char *real_path, fdw_file_use use,
                               const char *format, fdw_model_info *info);

typedef struct fdw_parse_opts {
    /* Directory that relative "path"s in the spec are resolved against ("." if NULL). */
    const char *base_dir;
    /* If non-NULL, every file a spec names must resolve (realpath) under one of these
     * directories; used by the daemon so jobs cannot read arbitrary files. NULL-terminated. */
    const char *const *allowed_dirs;
    fdw_model_resolver resolve_model; /* NULL: "model" references are rejected */
    fdw_data_resolver resolve_data;   /* NULL: "data": {"name"} is rejected (a
                                         normalised spec's recorded path is used) */
    void *resolve_user;
    /* Largest grid accepted, in points (0: default 2^36). */
    uint64_t max_points;
    /* Confinement of the files a spec names (velocity.path, wavelet paths, an RSF
     * header's in=), all checked in one place (spec_files.c). When allowed_dirs is set,
     * a path is first placed lexically ("..", "." and repeated slashes folded against
     * base_dir) and must lie under an allowed directory before the file system is asked
     * anything; then its canonical path must too, and file_access (when set) must allow
     * it. Every refusal, and a missing file, gets one message: the field, the path as
     * written and access_rule (NULL: a generic sentence), so the answer never tells
     * whether a path outside the job's reach exists. user: resolve_user. */
    fdw_file_access file_access;
    const char *access_rule;
    /* Limits on what a spec may ask the engine to expand or write, each checked on the
     * counts the spec implies before anything is expanded or allocated (0: the engine's
     * default, in parentheses; a value above the default is lowered to it):
     * max_sources (100000) sources; max_receivers (10^7) receivers after lines and planes
     * are expanded; max_snapshots (10^6) snapshot files a run writes (snapshot times x
     * slices and volumes x formats); max_record_bytes (2^36) bytes of receiver
     * recordings (receivers x recorded samples x 4) and of wavelet samples loaded. */
    long max_sources;
    long max_receivers;
    /* A survey (spec "survey"): max_shots (100000) shots, max_traces (10^8) traces of all
     * its shots together (receivers of each shot summed, before any are dropped outside
     * the grid); the recordings of all its shots count against max_record_bytes. */
    long max_shots;
    long long max_traces;
    long max_snapshots;
    uint64_t max_record_bytes;
    /* Devices available to run on (0: do not check "devices"): their ids are 0 ..
     * max_devices - 1, unless device_ids lists them (ndevice_ids of them; e.g. a daemon
     * given GPUs 2 and 3). A request for more devices than there are, or for an id that is
     * not one of them, fails with FDW_ERR_DEVICE naming the devices field. */
    int max_devices;
    const int *device_ids;
    int ndevice_ids;
    /* Leave to a later parse the checks that read the whole velocity model and cost like
     * steps of the run (the ETE kind's stability of its operator as assembled on the
     * model): the daemon sets it at submission, and the job's runner, which parses the
     * normalised spec again without it, makes them (a given dt they refuse fails the job
     * there, an auto dt they lower is the one the run uses). */
    int defer_model_checks;
    /* The JSON is a normalised spec this engine produced (fdw_spec_to_json), e.g. the
     * daemon's stored copy: the file facts recorded in it (a model's velocity range, the
     * trace headers of an imaging kind's SEG-Y data) are used instead of reading the file
     * again. Never set for text a user wrote. */
    int normalised;
} fdw_parse_opts;

/* Parse and fully validate a JSON spec. On failure *out is NULL and err names the field. */
fdw_status fdw_spec_parse(const char *json, size_t len, const fdw_parse_opts *opts,
                          fdw_spec **out, fdw_error *err);
/* Same, reading the JSON from a file; relative paths resolve against the file's directory
 * unless opts->base_dir is set. */
fdw_status fdw_spec_load(const char *path, const fdw_parse_opts *opts, fdw_spec **out,
                         fdw_error *err);
void fdw_spec_free(fdw_spec *spec);

const char *fdw_spec_kind(const fdw_spec *spec);   /* "acoustic", "stencil", "derivative" */
int fdw_spec_devices(const fdw_spec *spec);        /* devices requested (>= 1) */
const char *fdw_spec_name(const fdw_spec *spec);   /* the job's "name" ("" when absent) */
/* The device ids "devices": {"ids": [...]} names, copied into ids (at most cap; ids may
 * be NULL when cap is 0); returns how many it names, 0 when it names none (then the run
 * uses 0 .. devices-1). */
int fdw_spec_device_ids(const fdw_spec *spec, int *ids, int cap);
uint64_t fdw_spec_points(const fdw_spec *spec);    /* nx*ny*nz */
long fdw_spec_steps(const fdw_spec *spec);         /* time steps / iterations */
double fdw_spec_dt(const fdw_spec *spec);          /* resolved dt (s); 0 for non-time kinds */
/* The spec's "wall_time" in seconds (how long the service lets the job run); 0: none. */
double fdw_spec_wall_time(const fdw_spec *spec);
/* Shots of a survey job (spec "survey"); 0 for a single-shot job. */
int fdw_spec_shots(const fdw_spec *spec);
/* Bytes of device memory the run needs in total (all devices), for admission checks. A
 * survey: what one shot needs on all the spec's devices (its shots run one at a time on
 * them, or in parallel only where a shot fits on fewer). */
uint64_t fdw_spec_device_bytes(const fdw_spec *spec);
/* The most any one device holds of it: the largest slab's share (admission against the
 * largest device). */
uint64_t fdw_spec_device_bytes_max(const fdw_spec *spec);
/* Bytes of host memory the run holds at its peak on the given backend (CPU: the slabs
 * themselves live in host memory too): the problem's whole-grid arrays, the field copy,
 * the snapshot buffers, the receiver recordings, the checkpoints' image; for a survey,
 * those of every shot it may run at once and the model it keeps for them. An upper
 * estimate for admission; the process itself (libraries, threads' stacks) comes on top. */
uint64_t fdw_spec_host_bytes(const fdw_spec *spec, fdw_backend_kind backend);
/* Of those, the image a run's checkpoints are copied into (pinned on CUDA) before their
 * files are written while the loop goes on, held from the first checkpoint to the run's
 * end: both fields of every slab with their ghost planes and padding, the kind's changing
 * state and the recordings (on CUDA a copy per slab); 0 for a kind that keeps no
 * checkpoints (the sweep, the imaging kinds). An upper bound of a checkpoint file's
 * backend part. Counted in the host estimate whether or not a run checkpoints (the
 * daemon's jobs do). Not for a survey (per shot: fdw_spec_host_bytes counts it). */
uint64_t fdw_spec_checkpoint_bytes(const fdw_spec *spec, fdw_backend_kind backend);
int fdw_spec_warning_count(const fdw_spec *spec);
const char *fdw_spec_warning(const fdw_spec *spec, int i);
/* The normalised spec (defaults filled, dt resolved) as JSON; caller frees with free(). */
char *fdw_spec_to_json(const fdw_spec *spec);

/* ---- Running ------------------------------------------------------------ */

typedef struct fdw_device_progress {
    int device;            /* physical id (CUDA ordinal, or virtual index on CPU) */
    int z0, nz;            /* slab owned: global z planes [z0, z0+nz) */
    double mpts;           /* this device's rate, Mpoints/s */
    uint64_t mem_bytes;    /* memory this run holds on it */
} fdw_device_progress;

typedef struct fdw_progress {
    long step, nsteps;     /* steps done, total */
    double percent;        /* 100*step/nsteps */
    double mpts;           /* grid points updated per second / 1e6, over the recent interval */
    double elapsed_s, eta_s;
    int ndevices;
    const fdw_device_progress *devices;
    /* Kinds that iterate towards a fixed point (sweep): what the last step changed, for a
     * convergence plot. has_change 0: the kind reports no such thing (the rest are 0). */
    int has_change;
    double change;         /* largest decrease of a value that was already finite */
    long long changed;     /* values that changed, those that became finite included */
    /* A survey (fdw_spec_shots > 0): nshots shots, shots_done of them finished, and shot
     * (its number, the FFID) the one that step and nsteps are of: the lowest-numbered shot
     * under way (0 once none is). percent, eta_s and elapsed_s are then of the whole
     * survey; devices lists every device of every shot under way. nshots 0: a single
     * shot (shot and shots_done 0 too). */
    int nshots;
    int shots_done;
    int shot;
} fdw_progress;

/* What fdw_callbacks.checkpoint reports. */
typedef struct fdw_checkpoint_info {
    int resumed;           /* 1: the run resumed from this checkpoint; 0: it wrote it */
    long step, nsteps;     /* the steps it holds, of the run's total */
    uint64_t bytes;        /* its size on disk (all ranks of a distributed run) */
    double seconds;        /* time it took to write or read, this process: a write from
                              the copy of the state to the file complete on disk */
    double loop_seconds;   /* of a write, how long the time loop stopped for it (the copy
                              to host memory, any wait for the previous write, making it
                              current); the file is written while the loop goes on. 0 for
                              a resume */
} fdw_checkpoint_info;

typedef struct fdw_snapshot_info {
    int index;             /* 0, 1, 2, ... */
    long step;             /* time step the snapshot shows */
    double time;           /* seconds of simulated time */
    int nfiles;
    const char *const *files; /* file names relative to the output directory */
} fdw_snapshot_info;

enum { FDW_LOG_DEBUG = 0, FDW_LOG_INFO = 1, FDW_LOG_WARN = 2, FDW_LOG_ERROR = 3 };

typedef struct fdw_callbacks {
    /* Called at most every progress_interval_s (default 0.5 s) and once at the end.
     * Returning non-zero cancels the run within one step. */
    int (*progress)(void *user, const fdw_progress *p);
    /* Called once a snapshot's files are complete on disk. */
    void (*snapshot)(void *user, const fdw_snapshot_info *s);
    void (*log)(void *user, int level, const char *msg);
    /* Polled every step; non-zero cancels. May be NULL. */
    int (*cancelled)(void *user);
    void *user;
    double progress_interval_s;
    /* Polled every step (may be NULL): non-zero asks the run to write a checkpoint at this
     * step and stop; fdw_run then returns FDW_ERR_CANCELLED with result->suspended set (a
     * shutdown or a preemption the job resumes from). Without a checkpoint directory the
     * run stops as if cancelled. */
    int (*suspend)(void *user);
    /* A checkpoint was written, or the run resumed from one (may be NULL). */
    void (*checkpoint)(void *user, const struct fdw_checkpoint_info *c);
} fdw_callbacks;

struct fdw_comm; /* engine/comm.h */


/* Choices the engine makes by itself, forced for benchmarks and tests. Zero everywhere (or
 * a NULL pointer in fdw_run_opts) means: the engine decides. Results are bit-identical
 * whatever is chosen, except cpu_portable (see below). */
typedef struct fdw_tuning {
    /* CPU kernels: 1 forces the portable C kernels instead of the AVX-512 ones (acoustic:
     * the two agree within a few ulps, the portable one is bit-identical to the GPU; ETE:
     * the two give the same bits). */
    int cpu_portable;
    /* CUDA ETE kind: its kernel (0: the default; 1: its fallback, the table through the
     * read-only cache, forced; docs/ete.md). */
    int cuda_config;
    /* CUDA 2.5D update (acoustic, stencil) and ETE kernel: planes per block along z
     * (0: automatic). */
    int cuda_zchunk;
    /* CUDA derivative kind: 1 scalar kernels, 2 the vector walk, 3 the vector tile
     * (0: the default per axis); planes per walk chunk (0: automatic). */
    int cuda_deriv;
    int cuda_deriv_chunk;
    /* CUDA under MPI: each rank prints its exchange figures per step on stderr when the
     * run ends (host wait, exchange, the part not hidden by the interior). */
    int mpi_stats;
    /* Sweep kind: 1 computes every point of every sub-sweep instead of skipping the points
     * whose upwind patch has not changed since their last update (same T either way). */
    int sweep_full;
    /* Sweep kind on CUDA with several slabs: the reach W, planes between the waits of
     * neighbouring slabs across their cut (each also computes the cells within W of it);
     * 0: the default (8), 1: a wait every plane. Same T either way. */
    int sweep_reach;
    /* Survey: run the shots in this many groups of the devices at once (1: one shot at a
     * time on every device); 0: as many as fit (survey_plan.c). Same results either way. */
    int survey_groups;
} fdw_tuning;

/* Checkpoints (docs/operations.md, "Checkpoints"): the state a later step needs (fields, auxiliary
 * fields, receiver recordings so far, the outputs delivered), written atomically into a
 * directory, so that a run stopped at any point (a crash, kill -9, a shutdown, a
 * preemption) resumes from the last one and leaves outputs identical bit for bit to an
 * uninterrupted run's. A distributed run writes one file per rank. Kinds that bring their
 * own engine (sweep) have none: they log it and run from the start. */
typedef struct fdw_checkpoint_opts {
    const char *dir;           /* created if missing; NULL: none written or read */
    double interval_s;         /* wall seconds between checkpoints; 0: not by time */
    long every_steps;          /* also after every this many steps; 0: not by steps */
    int resume;                /* start from the checkpoint in dir when it fits this spec,
                                  plan and backend (else log why and start at step 0) */
    int keep;                  /* 1: leave the last checkpoint after a completed run */
} fdw_checkpoint_opts;

typedef struct fdw_run_opts {
    const char *out_dir;        /* created if missing; outputs and manifest.json go here */
    fdw_backend_kind backend;   /* AUTO: CUDA when compiled in and a GPU is present */
    /* Physical devices to use (CUDA ordinals); NULL: the spec's "devices.ids" or 0..n-1. */
    const int *device_ids;
    int ndevice_ids;
    int threads;                /* CPU backend OpenMP threads; 0 = default */
    /* Distributed run (engine/comm.h, e.g. one MPI rank per slab): every rank calls fdw_run
     * with the same spec; rank r runs slab r of the plan on the CPU backend; rank 0 alone
     * writes the outputs and calls progress, snapshot and log. NULL: one process. */
    const struct fdw_comm *comm;
    const fdw_tuning *tuning;   /* NULL: every choice automatic */
    const struct fdw_checkpoint_opts *checkpoint; /* NULL: no checkpoints */
    /* A survey run in parts (fdwaved's Slurm back end: one Slurm array task per part, then
     * one combining run; fdw_survey_part_shots says which shots a part has). survey_parts
     * 0 or 1: the whole survey in this run. With survey_parts > 1: survey_part in
     * [0, survey_parts) runs that part's shots alone (resuming as a whole survey does, from
     * its own checkpoint directory) and keeps each finished shot's files in out_dir for
     * the combining run, writing no manifest; survey_part = FDW_SURVEY_COMBINE runs no
     * shot: it finds every shot's files there and makes what a whole run makes at its end
     * (all_shots, a stack's image or gradient summed in shot order, the manifest), the
     * same bit for bit. */
    int survey_parts;
    int survey_part;
} fdw_run_opts;

#define FDW_SURVEY_COMBINE (-1)

/* How many parts a survey of nshots shots runs as when asked for at most most parts: at
 * most one part per shot, at least 1. */
int fdw_survey_nparts(int nshots, int most);
/* The shots of part `part` of a survey of nshots shots in nparts parts (as
 * fdw_survey_nparts gives): consecutive shots [*first, *first + *count) in shot order,
 * the first nshots % nparts parts one shot more than the others. The one rule of the
 * split, which the engine and the daemon both ask. */
void fdw_survey_part_shots(int nshots, int nparts, int part, int *first, int *count);

/* Summary of a finished run. */
typedef struct fdw_result {
    long steps_done;
    double elapsed_s;
    double mpts;                /* average Mpoints/s over the time loop */
    char backend[16];           /* "cpu" or "cuda" */
    double max_abs_error;       /* derivative kind: max |numerical - analytic|; else 0 */
    long resumed_step;          /* the step the run resumed from; 0 when it started anew */
    long checkpoint_step;       /* steps held by the last checkpoint written; -1: none */
    int suspended;              /* stopped by cb->suspend (after its checkpoint) */
    /* A survey: its shots, those finished (by this run and any earlier one it resumed),
     * those found finished at the start, and the groups of devices that ran them at once;
     * steps_done then counts the steps this run made, all shots together, and
     * checkpoint_step the steps of the shots recorded as finished (nt each). */
    int nshots, shots_done, shots_resumed, groups;
} fdw_result;

/* Run a validated spec to completion. Outputs and manifest.json are written to out_dir.
 * Returns FDW_ERR_CANCELLED if a callback cancelled. result may be NULL. */
fdw_status fdw_run(const fdw_spec *spec, const fdw_run_opts *opts, const fdw_callbacks *cb,
                   fdw_result *result, fdw_error *err);

/* ---- Devices ------------------------------------------------------------ */

typedef struct fdw_device_info {
    int id;
    char name[128];
    uint64_t total_bytes, free_bytes;
    int is_gpu;
} fdw_device_info;

/* Number of CUDA GPUs usable by this build (0 when built without CUDA or none present). */
int fdw_gpu_count(void);
fdw_status fdw_gpu_info(int id, fdw_device_info *info, fdw_error *err);

#ifdef __cplusplus
}
#endif
#endif
