/* volume_out.h — a volume of the grid (an image, a gradient, an illumination) as a run's
 * outputs: raw float32 (x fastest), SEG-Y (a trace a column) and PNG slices through the
 * middle of the grid, each file in the manifest with its meaning and units. The imaging
 * kinds write a shot's volumes with it and a survey its stacks (run/survey_stack.c).
 * Internal to libfdwave. */
#ifndef FDW_VOLUME_OUT_H
#define FDW_VOLUME_OUT_H

#include "output/outputs.h"

#define FDW_VOLUME_NAME_MAX 64 /* a volume's file names (stem, suffix, slice) fit */

/* name.f32, name.segy and the two slices (fdw_volume_slices) of vol (nx*ny*nz values) in
 * out_dir, each listed in m with what (a sentence) and units. */
fdw_status fdw_volume_write(const fdw_spec *s, const char *out_dir, fdw_manifest *m,
                            const char *name, const float *vol, const char *what,
                            const char *units, fdw_error *err);

/* The xz plane at the middle j and the yz plane at the middle i as PNG (depth down,
 * blue-white-red symmetric about 0): name_xz_j<j>.png and name_yz_i<i>.png in out_dir,
 * listed in m (kind "image", or kind when not NULL) with what; their names into files. */
fdw_status fdw_volume_slices(const fdw_spec *s, const char *out_dir, fdw_manifest *m,
                             const char *name, const float *vol, const char *what,
                             const char *kind, char files[2][FDW_VOLUME_NAME_MAX],
                             fdw_error *err);

#endif
