/* outputs.h — what a run leaves in its output directory: raw float32 arrays, PNG images
 * of slices (symmetric colour scale), SEG-Y receiver gathers, and manifest.json listing
 * every file with its meaning, dimensions and units. Files are written under a temporary
 * name and renamed, so a reader never sees a partial file. */
#ifndef FDW_OUTPUTS_H
#define FDW_OUTPUTS_H

#include "spec/spec.h"

fdw_status fdw_write_raw_f32(const char *path, const float *data, size_t n, fdw_error *err);
fdw_status fdw_write_raw_f64(const char *path, const double *data, size_t n, fdw_error *err);

/* w x h image, row-major (w fastest). Colour: blue-white-red, symmetric about zero;
 * clip <= 0 means use the slice's own max |value| (all zero: mid grey). */
fdw_status fdw_write_png(const char *path, const float *data, int w, int h, float clip,
                         fdw_error *err);
/* w x h 8-bit RGB image whose row y (top first) row() writes as w * 3 bytes into rgb. */
fdw_status fdw_write_png_rgb(const char *path, int w, int h,
                             void (*row)(void *user, int y, int w, unsigned char *rgb),
                             void *user, fdw_error *err);

/* The shot a gather records: its number (1-based; written as the FFID and the shot point)
 * and its source position (metres). A single-shot run is shot 1 at its first source. */
typedef struct fdw_gather_shot {
    int number;
    double x, y, z;
} fdw_gather_shot;

/* Receiver gather: traces[r*ns + s] for nrec receivers and ns samples of interval dt
 * seconds. Trace headers carry the shot (FFID, shot point, source x/y/depth), the
 * receiver x/y/z (scaled metres) and the offset; shot may be NULL (source fields zero).
 * The file is readable by segyio tools. */
fdw_status fdw_write_segy_gather(const char *path, const float *traces, int nrec, int ns,
                                 double dt, const fdw_receiver *recs,
                                 const fdw_gather_shot *shot, fdw_error *err);

typedef struct fdw_manifest fdw_manifest;

/* A manifest for a run of spec into out_dir. */
fdw_manifest *fdw_manifest_new(const fdw_spec *spec, const char *out_dir);
/* Record one output file (name relative to out_dir). kind: "snapshot", "gather", "model",
 * "field"; format: "raw-f32", "png", "segy"; dims: ndims sizes fastest first; units e.g.
 * "Pa (arbitrary)"; step/time < 0 when not applicable. */
void fdw_manifest_add(fdw_manifest *m, const char *name, const char *kind, const char *format,
                      const char *description, int ndims, const long *dims, const char *units,
                      long step, double time);
/* A number on the entry of the file name recorded before (e.g. a snapshot's "max_abs",
 * a gather's "sample_interval"); nothing when there is no such entry or v is not
 * finite. */
void fdw_manifest_set_number(fdw_manifest *m, const char *name, const char *key, double v);
/* Extra top-level key (e.g. "result"): takes a JSON text, copied. */
void fdw_manifest_set_json(fdw_manifest *m, const char *key, const char *json_text);
/* The files recorded so far as compact JSON text (caller frees), and the inverse: the
 * entries of such a text replace the manifest's (a run resumed from a checkpoint keeps
 * the snapshots it had delivered). restore returns 0, or -1 when text is no JSON list. */
char *fdw_manifest_files_text(fdw_manifest *m);
int fdw_manifest_restore_files(fdw_manifest *m, const char *text);
/* Write out_dir/manifest.json atomically. Can be called repeatedly as files appear. */
fdw_status fdw_manifest_write(fdw_manifest *m, fdw_error *err);
void fdw_manifest_free(fdw_manifest *m);

#endif
