/* survey_stack.h — the sum of a survey's shots for a kind whose shots add up to one
 * result (kind.h's fdw_stack_ops: the imaging kinds' image, illumination, gradient and
 * misfit). The shots are added in shot order whichever device group finished them first,
 * so the stack's bits depend on the shots alone (not on the groups, nor on a resume). After
 * each addition the stack's middle slices are written as PNG (the partial image a user
 * watches) and, with a checkpoint directory, the stack itself (stack_<count>.f32 there),
 * so a resumed survey starts from the shots already added. Internal to libfdwave. */
#ifndef FDW_SURVEY_STACK_H
#define FDW_SURVEY_STACK_H

#include "output/outputs.h"
#include "output/volume_out.h"

#define FDW_STACK_MAX_VOLUMES 4
#define FDW_STACK_MAX_NUMBERS 4

typedef struct fdw_survey_stack fdw_survey_stack;

/* A zero stack of spec's survey (its kind has stack ops), its state kept in ckpt_dir (NULL:
 * none kept). NULL with err set when out of memory. */
fdw_survey_stack *fdw_survey_stack_new(const fdw_spec *spec, const char *out_dir,
                                       const char *ckpt_dir, fdw_error *err);
/* The stack of the first count shots from the checkpoint directory; 0, or -1 (the stack
 * stays zero) when no such state is there. */
int fdw_survey_stack_restore(fdw_survey_stack *s, int count);
/* Shots added so far (the first count of the survey). */
int fdw_survey_stack_count(const fdw_survey_stack *s);
/* Add the next shot (index count) from dir, the directory its run wrote: its volumes
 * (<name>.f32) and its manifest result's numbers. */
fdw_status fdw_survey_stack_add(fdw_survey_stack *s, const char *dir, fdw_error *err);
/* The stack's middle slices as it stands (after count shots) into the output directory,
 * listed in m; their names into files (at most max), *nfiles how many. */
fdw_status fdw_survey_stack_slices(fdw_survey_stack *s, fdw_manifest *m,
                                   char files[][FDW_VOLUME_NAME_MAX], int max, int *nfiles,
                                   fdw_error *err);
/* The stack's state into the checkpoint directory (nothing without one); the state of
 * fewer shots is removed by forget_before once the caller has recorded the new count. */
fdw_status fdw_survey_stack_save(fdw_survey_stack *s, fdw_error *err);
/* The checkpoint directory's states of fewer shots than the stack holds removed. */
void fdw_survey_stack_forget_before(fdw_survey_stack *s);
/* The manifest entries of the partial slices written so far (the survey's manifest is
 * rebuilt at its end). */
void fdw_survey_stack_list_partials(const fdw_survey_stack *s, fdw_manifest *m);
/* The end: the kind's outputs of the stack, listed in m, result members into extra. */
fdw_status fdw_survey_stack_write(fdw_survey_stack *s, fdw_manifest *m, char *extra,
                                  size_t len, fdw_error *err);
/* Every state file removed (a completed survey keeps none). */
void fdw_survey_stack_forget(fdw_survey_stack *s);
void fdw_survey_stack_free(fdw_survey_stack *s);

#endif
