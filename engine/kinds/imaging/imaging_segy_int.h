/* imaging_segy_int.h — what the SEG-Y data readers of the imaging kinds share
 * (imaging_segy.c: one shot, the record, loading; imaging_segy_survey.c: a survey of every
 * FFID of a file; imaging_segy_shots.c: a survey of one file per shot;
 * imaging_segy_inspect.c: an upload's check): the scanned file, its header fields' names for messages, and the
 * trace-by-trace checks. Internal to engine/kinds/imaging. */
#ifndef FDW_IMAGING_SEGY_INT_H
#define FDW_IMAGING_SEGY_INT_H

#include "kinds/imaging/imaging.h"
#include "output/segy_reader.h"
#include "spec/spec_parse.h"

struct img_segy {
    char path[FDW_PATH_MAX];
    long long ffid;
    double datum;              /* the elevation of depth 0 (m) */
    int ntr;                   /* traces of the shot: the receivers, in file order */
    int cap;
    int *trace;                /* their 0-based numbers in the file */
    double (*rec)[3];          /* their receivers (m, z depth) */
    double (*src)[3];          /* each one's source; NULL when taken from the record */
    double source[3];          /* the first trace's source */
    int samples, interval_us;  /* per trace; the sample interval */
    int interval_in_trace;     /* the interval came from trace 1's header, not the binary */
    long long size, mtime_ns;  /* the file when its headers were read */
    /* a survey (imaging_segy_survey.c): the FFIDs in ascending order, each one's traces
     * consecutive in trace[] (file order within a shot) */
    int nshots;
    long long *shot_ffid;
    int *shot_first, *shot_count;
    /* a survey of one file per shot (imaging_segy_shots.c): each shot's file, its size and
     * mtime when read, its datum; NULL for one file */
    char **shot_path;
    long long *shot_size, *shot_mtime;
    double *shot_datum;
};

/* Header fields as errors name them: segyio's name and the bytes. */
#define H_FFID "FieldRecord (FFID, bytes 9-12)"
#define H_GELEV "ReceiverGroupElevation (bytes 41-44)"
#define H_SELEV "SourceSurfaceElevation (bytes 45-48)"
#define H_SDEPTH "SourceDepth (bytes 49-52)"
#define H_ESCAL "ElevationScalar (bytes 69-70)"
#define H_CSCAL "SourceGroupScalar (bytes 71-72)"
#define H_UNITS "CoordinateUnits (bytes 89-90)"
#define H_NS "TRACE_SAMPLE_COUNT (bytes 115-116)"
#define H_DT "TRACE_SAMPLE_INTERVAL (bytes 117-118)"
#define B_DT "Interval (binary header bytes 3217-3218)"
#define B_NS "Samples (binary header bytes 3221-3222)"
#define B_UNITS "MeasurementSystem (binary header bytes 3255-3256)"

static const char *const SOURCE_FIELD[3] = {
    "SourceX (bytes 73-76) scaled by " H_CSCAL, "SourceY (bytes 77-80) scaled by " H_CSCAL,
    "data.datum - (" H_SELEV " - " H_SDEPTH ") scaled by " H_ESCAL};

/* A header value under a SEG-Y rev 1 scalar: positive multiplies, negative divides, 0
 * counts as 1. */
double fdw_img_segy_scaled(int32_t v, int32_t scalar);
/* The file's size and mtime (ns); 0, or -1 when it cannot be read. */
int fdw_img_segy_stamp(const char *path, long long *size, long long *mtime_ns);
/* Open g->path and read what every trace shares: the units, samples and sample interval
 * (the binary header's, else trace 1's). 0, or -1 with the error set (in closed). */
int fdw_img_segy_open(spec_ctx *c, img_segy *g, fdw_segy_in *in);
/* One more trace t in g (room grows by doubling); first: where the current shot's traces
 * start in g, for the per-shot limit. */
int fdw_img_segy_add(spec_ctx *c, img_segy *g, int t, int first);
/* Trace t's header (in in->hdr) against what every trace shares: its sample count and
 * interval those of g, its coordinate units lengths, its scalars SEG-Y rev 1's. Needs no
 * grid (fdw_data_inspect at upload runs it too). */
int fdw_img_segy_header_check(spec_ctx *c, const img_segy *g, const fdw_segy_in *in, int t);
/* Trace t's geometry (its header in in->hdr) into g's last entry, with its checks. */
int fdw_img_segy_geometry(spec_ctx *c, img_segy *g, fdw_segy_in *in, int t);
/* The root the wave sections parse, with g's sample interval as time.sample_interval (a
 * user's own must be the same); *w a new copy of root. */
int fdw_img_segy_interval_root(spec_ctx *c, const json_t *root, const img_segy *g,
                               json_t **w);

/* The file at g->path still of the recorded size and mtime (error on data.path). */
int fdw_img_segy_unchanged(spec_ctx *c, const img_segy *g, long long size, long long mtime);
/* The first axis along which a and b lie more than half a grid spacing apart, or -1. */
int fdw_img_segy_far_axis(const fdw_spec *s, const double *a, const double *b);
/* The traces long enough for the run's nt (error on data.path naming the sizes). */
int fdw_img_segy_check_length(spec_ctx *c, const img_segy *g);

/* a survey of the file's every FFID (imaging_segy_survey.c) */
int fdw_img_segy_scan_survey(spec_ctx *c, const json_t *root, img_segy *g, json_t **wave);
int fdw_img_segy_finish_survey(spec_ctx *c, img_segy *g, json_t *norm);
/* The newest trace's source (trace t of path, shot k of g) against its shot's first
 * trace's: within half a grid spacing per axis, or the shot has two sources (error on
 * field). */
int fdw_img_segy_same_source(spec_ctx *c, const img_segy *g, int k, int t, const char *path,
                             const char *field);
/* The root the wave sections parse: the survey's shots listed as g's headers give them
 * (numbered: each numbered by its FFID). */
int fdw_img_segy_survey_root(spec_ctx *c, const json_t *root, const img_segy *g, int numbered,
                             json_t **wave);

/* a survey whose listed shots each name a file (imaging_segy_shots.c) */
int fdw_img_segy_per_shot(const json_t *root);
int fdw_img_segy_scan_shots(spec_ctx *c, const json_t *root, img_segy *g, json_t **wave);
/* The normalised survey.shots of g's files: [{"data": {format, path, ffid, datum, size,
 * mtime}}, ...] (fdw_img_segy_finish_survey keeps them). */
json_t *fdw_img_segy_shot_files(const img_segy *g);
/* One shot of g->path (data.ffid's when ffid_given, else the file's only FFID), each trace
 * checked (imaging_segy.c). */
int fdw_img_segy_scan_one(spec_ctx *c, img_segy *g, int ffid_given);

#endif
