/* spec_parse.h — internal to the job-spec parser (spec*.c): the parse context, typed
 * JSON accessors that report the JSON path of a bad field, and the per-section parsers.
 * Nothing outside spec*.c and the kinds' spec sections (engine/kinds/) includes this; the
 * engine's public face is fdwave.h. */
#ifndef FDW_SPEC_PARSE_H
#define FDW_SPEC_PARSE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "spec/spec.h"

#define SP_PATH 256                 /* room for one JSON path, as fdw_error.field */
#define SP_MAX_GRID_N 100000        /* largest nx, ny or nz */
#define SP_MAX_NT 100000000L        /* largest nt / iterations */
#define SP_MAX_RECEIVERS 10000000L  /* largest expanded receiver count */
#define SP_MAX_SOURCES 100000L      /* largest source count */
#define SP_MAX_SHOTS 100000L        /* most shots of a survey */
#define SP_MAX_TRACES 100000000LL   /* most traces of all a survey's shots together */
#define SP_MAX_SNAPSHOTS 1000000L   /* most snapshot files one run writes */
#define SP_MAX_RECORD_BYTES (1ull << 36) /* receiver recordings; wavelet samples loaded */
#define SP_DEFAULT_MAX_POINTS (1ull << 36)
#define SP_DEFAULT_SPONGE_WIDTH 36
#define SP_DEFAULT_REFLECTION 1e-2
#define SP_DEFAULT_CPML_WIDTH 20
#define SP_DEFAULT_CPML_REFLECTION 1e-3
#define SP_DEFAULT_SAFETY 0.8
#define SP_MIN_PPW 5.0              /* grid points per shortest wavelength before a warning */

/* State shared by the section parsers of one fdw_spec_parse call. */
typedef struct spec_ctx {
    const fdw_parse_opts *opts;
    const char *base_dir;           /* relative file paths resolve against this */
    fdw_spec *spec;                 /* being filled */
    fdw_error *err;
    json_t *norm;                   /* the normalised spec being built (an object) */
    double f0max;                   /* largest Ricker f0 of the sources (0: none) */
    double f0min;                   /* smallest (0: none), and its member's path */
    char f0min_field[SP_PATH];
    uint64_t wavelet_bytes;         /* wavelet samples loaded so far, bytes */
    /* Where time.sample_interval came from when a kind read it from a data file's headers
     * (rtm's SEG-Y "data"): the member and the words (the file, the header fields) that
     * wave_time.c's errors name instead of time.sample_interval; "" when the user gave it. */
    char si_field[SP_PATH];
    char si_what[640];
} spec_ctx;

/* ---- limits (spec_limits.c): the engine's defaults lowered by the caller's opts ---- */

long sp_max_sources(const spec_ctx *c);
long sp_max_receivers(const spec_ctx *c);
long sp_max_snapshots(const spec_ctx *c);
uint64_t sp_max_record_bytes(const spec_ctx *c);
long sp_max_shots(const spec_ctx *c);
long long sp_max_traces(const spec_ctx *c);

/* ---- paths and errors (spec_json.c) ---- */

/* out = parent.key, or key when parent is empty. */
void sp_key(char *out, const char *parent, const char *key);
/* out = parent[i]. */
void sp_idx(char *out, const char *parent, size_t i);
/* Fail with FDW_ERR_SPEC on field; returns -1 so callers can `return sp_fail(...)`. */
int sp_fail(spec_ctx *c, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "a string", "an array", ... for messages. */
const char *sp_type_name(const json_t *v);
/* Reject any member of obj not in allowed (NULL-terminated); path names obj. */
int sp_keys(spec_ctx *c, const json_t *obj, const char *path, const char *const *allowed);
/* The kind's own spec section (fdw_spec.kspec): size zeroed bytes, or NULL with the failure
 * said. */
void *sp_kspec(spec_ctx *c, size_t size);
/* An entry e at path that must be an object (shape names its members for the message:
 * {"plane", "index"}) with only the allowed keys. */
int sp_entry(spec_ctx *c, const json_t *e, const char *path, const char *shape,
             const char *const *allowed);

/* ---- typed members of an object at path. Each returns 0 on success (absent optional
 * members leave the default in *out and set *present = 0 where asked), -1 on error. ---- */
int sp_object(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
              json_t **out);
int sp_array(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
             json_t **out);
int sp_int(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
           long long min, long long max, long long *out);
/* A finite number (integers accepted). */
int sp_num(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
           double *out);
/* A finite number > 0. */
int sp_pos(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
           double *out);
int sp_bool(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
            int *out);
/* A string that must be one of names (NULL-terminated); *out = its index. */
int sp_enum(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
            const char *const *names, int *out);
/* A string of at most maxlen bytes (including the terminator) copied into out. */
int sp_string(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
              char *out, size_t maxlen);
/* An array of 3 finite numbers. */
int sp_vec3(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
            double out[3]);
/* A bare value at field: integer in [min,max] / finite number. */
int sp_value_int(spec_ctx *c, const json_t *v, const char *field, long long min,
                 long long max, long long *out);
int sp_value_num(spec_ctx *c, const json_t *v, const char *field, double *out);
int sp_value_vec3(spec_ctx *c, const json_t *v, const char *field, double out[3]);

/* ---- grid geometry (spec.c) ---- */

/* Fail unless pos lies inside the grid box [origin, origin + (n-1) h] on every axis
 * (within 1e-9 h, then clamped onto the box); what names the object in the message
 * ("source 0", "the end of receiver line 2"). */
int sp_check_inside(spec_ctx *c, const char *field, double pos[3], const char *what);
/* The required position path.key (3 finite numbers) into pos, checked inside the grid by
 * sp_check_inside, what (printf-style) naming the object. */
int sp_position(spec_ctx *c, const json_t *obj, const char *path, const char *key,
                double pos[3], const char *what, ...) __attribute__((format(printf, 6, 7)));
/* Add a warning (printf-style) to the spec. */
void sp_warn(spec_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether pos lies inside an absorbing layer (sponge or CPML; free surface excluded). */
int sp_in_sponge(const fdw_spec *s, const double pos[3]);
/* JSON array of 3 reals. */
json_t *sp_json_vec3(const double v[3]);

/* Compact JSON text of the normalised spec, reals in their shortest exact form
 * (spec_dump.c); caller frees. NULL when out of memory. */
char *sp_dump(const json_t *root);

/* ---- files (spec_files.c) ---- */

/* Resolve a user path against c->base_dir to an absolute real path (into out,
 * FDW_PATH_MAX bytes); the file must exist. With check_allowed and a confining caller
 * (opts->allowed_dirs or opts->file_access) it must lie under an allowed directory and be
 * allowed by opts->file_access for use (format: the model format for FDW_FILE_MODEL),
 * which may fill *info (may be NULL) with recorded facts; every refusal gets one
 * message. */
int sp_resolve_path(spec_ctx *c, const char *field, const char *path, fdw_file_use use,
                    const char *format, int check_allowed, fdw_model_info *info, char *out);

/* ---- the top level's sections; each parses its member of the top object and adds the
 * normalised form to c->norm (the kinds' sections: kinds/wave/wave_spec.h,
 * kinds/field/field_spec.h and each kind's folder) ---- */
/* A survey (spec_survey.c): "survey" in place of "sources" (shots, their wavelets, the
 * receiver layout), then, after the receivers, the receivers of every shot counted
 * against the limits. Called by the wave kinds' section (kinds/wave/wave_spec.c). */
int sp_parse_survey(spec_ctx *c, const json_t *root);
int sp_finish_survey(spec_ctx *c, const json_t *root);
int sp_parse_snapshots(spec_ctx *c, const json_t *root);  /* spec_snapshots.c */
int sp_parse_wall_time(spec_ctx *c, const json_t *root);  /* spec_wall_time.c */

#endif
