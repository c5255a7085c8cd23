/* spec.h — the validated job description as the engine sees it (inside libfdwave only).
 * spec.c fills it from JSON; everything else reads it. Units: metres, seconds, m/s.
 * Grid index (i,j,k) is at origin + (i*dx, j*dy, k*dz); k (z, depth) is the slowest axis. */
#ifndef FDW_SPEC_H
#define FDW_SPEC_H

#include "fdwave/fdwave.h"
#include "core/limits.h"
#include "run/plan.h"
#include <limits.h>


typedef enum { FDW_VEL_CONSTANT = 0, FDW_VEL_LAYERED, FDW_VEL_GAUSSIAN, FDW_VEL_FILE } fdw_vel_type;
typedef enum { FDW_FMT_RAW_F32 = 0, FDW_FMT_SEGY, FDW_FMT_RSF } fdw_file_format;

typedef struct fdw_layer {
    double top;   /* depth (z, metres, absolute like positions) where this layer starts */
    double v;     /* m/s */
} fdw_layer;

typedef struct fdw_velocity_spec {
    fdw_vel_type type;
    double v0;                 /* constant value; background of the Gaussian anomaly */
    int nlayers;               /* layered: sorted by top, first top <= grid top */
    fdw_layer *layers;
    double center[3];          /* gaussian: v = v0 + dv * exp(-|x-center|^2 / (2 sigma^2)) */
    double sigma, dv;
    fdw_file_format format;    /* file */
    char path[FDW_PATH_MAX];   /* resolved, absolute */
    char data_path[FDW_PATH_MAX]; /* RSF: the binary its header named when the spec was
                                     checked (resolved, absolute); "" for in="stdin" and
                                     other formats. The run reads only this file. */
    char name[256];            /* model name when referred to by name (daemon uploads) */
    char sha256[65];           /* its digest as the model store recorded it ("" unknown) */
} fdw_velocity_spec;

typedef enum { FDW_WAVELET_RICKER = 0, FDW_WAVELET_FILE } fdw_wavelet_type;

/* How an off-grid position injects or samples (run/positioning.h): Kaiser-windowed sinc
 * (Hicks 2002, the default) or trilinear. */
typedef enum { FDW_INTERP_SINC = 0, FDW_INTERP_LINEAR } fdw_interp;

typedef struct fdw_source {
    double pos[3];             /* metres; may be off-grid */
    fdw_wavelet_type wavelet;
    double f0;                 /* Ricker peak frequency, Hz */
    double delay;              /* s; default 1.2/f0 */
    double amplitude;          /* default 1 */
    char path[FDW_PATH_MAX];   /* wavelet file: raw little-endian float32, one sample per dt */
    float *samples;            /* loaded wavelet file samples (owned) */
    long nsamples;
    fdw_interp interp;         /* "interpolation" (default sinc) */
} fdw_source;

typedef struct fdw_receiver {
    double pos[3];
    int iline, xline;          /* a receiver plane's inline / crossline number (1-based;
                                  0: not on a plane) for the SEG-Y trace headers */
} fdw_receiver;

typedef enum { FDW_PLANE_XY = 0, FDW_PLANE_XZ, FDW_PLANE_YZ, FDW_PLANE_VOLUME } fdw_plane;

typedef struct fdw_slice {
    fdw_plane plane;           /* XY at k=index, XZ at j=index, YZ at i=index; VOLUME: whole grid */
    int index;
} fdw_slice;

/* CPML: convolutional PML (CFS, kappa = 1) with auxiliary fields in the layers; see
 * backend.h for the per-step recursion. Appended, so the values above keep their number. */
typedef enum { FDW_BOUNDARY_SPONGE = 0, FDW_BOUNDARY_NONE, FDW_BOUNDARY_CPML } fdw_boundary_type;

typedef struct fdw_boundary {
    fdw_boundary_type type;
    int width[6];              /* points: xmin, xmax, ymin, ymax, zmin, zmax */
    int free_surface;          /* zmin face is a free surface (u = 0, mirror); width[4] ignored */
    double reflection;         /* target reflection coefficient of the sponge (default 1e-2)
                                  or of the CPML (default 1e-3) */
    double frequency;          /* CPML: frequency (Hz) of the CFS alpha = pi f (1 - depth);
                                  default the largest Ricker f0; 0 for other types */
} fdw_boundary;

typedef enum { FDW_AXIS_X = 0, FDW_AXIS_Y, FDW_AXIS_Z } fdw_axis;

struct fdw_kind_ops; /* kinds/kind.h */
struct fdw_survey;   /* spec/spec_survey.h */

struct fdw_spec {
    const struct fdw_kind_ops *kind;
    void *kspec;               /* the kind's own members (kinds/<kind>/), kind->section.free */
    char name[128];            /* optional free-text job name */

    /* grid */
    int nx, ny, nz;
    double dx, dy, dz;
    double origin[3];

    int order;                 /* even, 2..16 */
    int radius;                /* order/2: the stencil radius and the ghost depth */

    /* time (wave kinds) / iterations (field kinds) */
    long nt;
    double dt;                 /* resolved (auto already applied) */
    int dt_auto;
    double dt_safety;          /* fraction of dt_max used when dt_auto (default 0.8) */
    double dt_max;             /* stability limit for this grid/order/velocity */

    fdw_velocity_spec velocity;
    double vmin, vmax;         /* of the model (constant/layered/gaussian known at parse;
                                  file models: filled when the model is read at parse) */

    int nsources;
    fdw_source *sources;

    int nreceivers;            /* expanded list (points, lines, planes) */
    fdw_receiver *receivers;
    int receiver_interval;     /* record every N steps (>= 1) */
    fdw_interp receiver_interp;/* receivers.interpolation (default sinc) */
    long long nrec_rows;       /* z planes the receivers' interpolation reads, summed
                                  (positioning.h's rows: what the backends record) */
    long long nrec_taps;       /* the grid points they read, summed (host memory) */
    double sample_interval;    /* time.sample_interval (s), exact multiple of dt; 0:
                                  not given (the gather samples dt * receiver_interval) */

    fdw_boundary boundary;

    double wall_time_s;        /* "wall_time" (the service's limit); 0: not given */

    int snapshot_every;        /* 0: no snapshots */
    int nslices;
    fdw_slice *slices;         /* includes FDW_PLANE_VOLUME when "volume": true */
    int snapshot_png, snapshot_raw;

    int ndevices;
    int device_ids[FDW_MAX_DEVICES];
    int device_ids_given;
    /* The slabs of ndevices devices, built and checked (radius, CPML layers) once, at
     * parse; a run on another device count (a caller's device list, MPI ranks) plans its
     * own and checks it the same way (fdw_spec_check_plan). */
    fdw_plan plan;

    int nwarnings;
    char **warnings;

    char *json;                /* normalised JSON (cached for fdw_spec_to_json) */

    /* Survey (spec_survey.h): many shots over one model; NULL for a single-shot job. A
     * survey's spec has no sources of its own (nsources 0) and, when its receivers move
     * with the shot, none of its own either: run/survey.c derives one single-shot spec
     * per shot, whose shot_number is the shot's (FFID); 0 everywhere else. */
    struct fdw_survey *survey;
    int shot_number;
    /* A shot of a survey: the traces of the shots before it (where its own begin in a
     * file of every shot's traces in shot order); 0 everywhere else. */
    long long shot_trace0;
    /* A shot of a survey: the velocity model the survey read once (nx*ny*nz values,
     * x fastest), which fdw_model_load copies instead of reading the model again. */
    const float *model_cache;
    /* A shot of a survey: what the kind derived once for every shot (kind.h's share), or
     * NULL. */
    const void *kind_cache;
};

#endif
