/* survey.h — running a survey (spec_survey.h): its shots one after another on the job's
 * devices, or in parallel in groups of devices when a shot fits on fewer (survey_plan.c);
 * each shot a single-shot run of a spec derived from the survey's (survey.c), its files
 * moved into place, the file of all shots and the manifest written (survey_out.c).
 * Internal to libfdwave. */
#ifndef FDW_SURVEY_H
#define FDW_SURVEY_H

#include "spec/spec_survey.h"

#include <stdint.h>

/* How a survey's devices are split: ngroups groups, group g on the job's devices
 * [first[g], first[g] + count[g]) (indices into its device list); one shot at a time per
 * group. */
typedef struct fdw_survey_layout {
    int ngroups;
    int first[FDW_MAX_DEVICES];
    int count[FDW_MAX_DEVICES];
} fdw_survey_layout;

/* A shot's view of a survey spec, for estimates: the spec with no survey, g devices and
 * their slab plan, and the receivers of the shot that records the most. Returns 0, or -1
 * when g devices cannot hold slabs of this grid (radius, CPML layers). */
int fdw_survey_shot_view(const fdw_spec *spec, int g, fdw_spec *view);

/* The groups for ndev devices: the smallest group (g devices) on which one shot's slab
 * fits in every device's capacity (capacity[d] bytes for device d; NULL: the host, whose
 * memory holds every group's shot at once: host_budget bytes), ndev / g groups (at most
 * one per shot), the devices shared out in order; forced > 0 (fdw_tuning.survey_groups)
 * asks for that many groups (at most ndev and the shots). One group of every device when
 * no smaller group fits. */
void fdw_survey_layout_make(const fdw_spec *spec, int ndev, const uint64_t *capacity,
                            uint64_t host_budget, int forced, fdw_survey_layout *out);

/* The host memory budget of a survey on the CPU backend (half the machine's physical
 * memory): the virtual devices' groups share it. */
uint64_t fdw_survey_host_budget(void);

/* fdw_run for a spec with a survey (run.c hands it over). */
fdw_status fdw_survey_run(const fdw_spec *spec, const fdw_run_opts *opts,
                          const fdw_callbacks *cb, fdw_result *result, fdw_error *err);

/* ---- survey_out.c: the files of a survey ---- */

typedef struct fdw_survey_out fdw_survey_out;

/* What a run makes of a survey's files (fdw_run_opts.survey_parts): the whole survey's;
 * one part's shots alone (each finished shot's files kept for the combining run, a
 * stack's shot in its shot_NNNN.done directory; no manifest, no all_shots, no stack);
 * or the combining run's (no shot run: the finished shots' files in, the whole survey's
 * outputs out). */
typedef enum { FDW_SURVEY_WHOLE = 0, FDW_SURVEY_PART, FDW_SURVEY_JOIN } fdw_survey_mode;

/* The outputs of spec's survey in out_dir, the record of finished shots in ckpt_dir (NULL:
 * none kept). With resume, the shots that record names as finished, whose files are in
 * out_dir, count as done (done[i] = 1; the rest 0). NULL when out of memory. */
fdw_survey_out *fdw_survey_out_new(const fdw_spec *spec, fdw_survey_mode mode,
                                   const char *out_dir, const char *ckpt_dir, int resume,
                                   unsigned char *done);
/* The combining run (FDW_SURVEY_JOIN): every shot's files found in out_dir (done[i] = 1),
 * a stack's shots added in shot order from their shot_NNNN.done directories. A shot
 * without its files is an error naming it. */
fdw_status fdw_survey_out_join(fdw_survey_out *o, fdw_error *err);
/* The working directory of shot i's run: out_dir/shot_NNNN.run (made by the run). */
void fdw_survey_out_shot_dir(const fdw_survey_out *o, int i, char *path, size_t len);
/* Shot i's run completed: its gathers moved from its directory to shot_NNNN.sgy / .f32,
 * the directory removed, the manifest written and the shot recorded as finished (a
 * stack's kind: it and the completed shots after it added in shot order, survey_stack.h).
 * Thread-safe. */
fdw_status fdw_survey_out_shot_done(fdw_survey_out *o, int i, fdw_error *err);
/* fn(user, count, nfiles, files) after shots were added to a stack: its partial slices
 * after count shots, written (called under the survey output's lock). */
void fdw_survey_out_on_partial(fdw_survey_out *o,
                               void (*fn)(void *user, int count, int nfiles,
                                          const char *const *files),
                               void *user);
/* The end: with completed, all_shots.sgy (and all_shots.f32) in shot order and a stack's
 * outputs (its result members added to result_json); the manifest with its result either
 * way. */
fdw_status fdw_survey_out_finish(fdw_survey_out *o, int completed, const char *result_json,
                                 fdw_error *err);
/* The record of finished shots removed (after a completed survey). */
void fdw_survey_out_forget(fdw_survey_out *o);
void fdw_survey_out_free(fdw_survey_out *o);

#endif
