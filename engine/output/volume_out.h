/* volume_out.h — a volume of the grid (an image, a gradient, an illumination) as a run's
 * outputs: raw float32 (x fastest), SEG-Y (a trace a column) and slices through the middle
 * of the grid (raw float32 for a viewer that puts them on its own scale, and PNG), each
 * file in the manifest with its meaning and units. The imaging kinds write a shot's volumes
 * with it and a survey its stacks (run/survey_stack.c). Internal to libfdwave. */
#ifndef FDW_VOLUME_OUT_H
#define FDW_VOLUME_OUT_H

#include "output/outputs.h"

#define FDW_VOLUME_NAME_MAX 64 /* a volume's file names (stem, suffix, slice) fit */
#define FDW_VOLUME_SLICE_FILES 4 /* the files of fdw_volume_slices */

/* name.f32, name.segy and the slices (fdw_volume_slices) of vol (nx*ny*nz values) in
 * out_dir, each listed in m with what (a sentence) and units. */
fdw_status fdw_volume_write(const fdw_spec *s, const char *out_dir, fdw_manifest *m,
                            const char *name, const float *vol, const char *what,
                            const char *units, fdw_error *err);

/* The xz plane at the middle j and the yz plane at the middle i (depth down) as
 * name_xz_j<j>.f32 / .png and name_yz_i<i>.f32 / .png in out_dir (float32 [z][across];
 * PNG blue-white-red symmetric about 0), listed in m (fdw_volume_slices_list); their
 * names into files, raw then PNG per plane. */
fdw_status fdw_volume_slices(const fdw_spec *s, const char *out_dir, fdw_manifest *m,
                             const char *name, const float *vol, const char *what,
                             const char *kind, const char *units,
                             char files[FDW_VOLUME_SLICE_FILES][FDW_VOLUME_NAME_MAX],
                             fdw_error *err);

/* The slices of name that exist in out_dir into m: kind "image" (or kind when not NULL),
 * what, units; a raw slice with its max_abs (read back from the file) and, when shots > 0,
 * "shots" (the number of a survey's shots in a partial stack). */
void fdw_volume_slices_list(const fdw_spec *s, const char *out_dir, fdw_manifest *m,
                            const char *name, const char *what, const char *kind,
                            const char *units, int shots);

#endif
