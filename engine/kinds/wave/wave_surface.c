/* wave_surface.c — sources and receivers on a free surface. The surface plane (k = 0) is
 * held at zero pressure (positioning.h), so a source there radiates nothing and a receiver
 * there records nothing: a job that asks for either would run and hand back silence. A
 * source there is refused; receivers there are counted for a warning, and refused by the
 * kinds that migrate their data (rtm, gradient: the data would be ignored). */
#include "kinds/wave/wave_spec.h"
#include "run/positioning.h"
#include "spec/spec_survey.h"

#include <stdlib.h>

int wave_check_sources_below_surface(spec_ctx *c, const json_t *root)
{
    const fdw_spec *s = c->spec;
    if (!s->boundary.free_surface)
        return 0;
    const fdw_survey *sv = s->survey;
    const int n = sv ? sv->nshots : s->nsources;
    for (int i = 0; i < n; i++) {
        const double *pos = sv ? sv->shots[i].pos : s->sources[i].pos;
        if (!fdw_position_on_free_surface(s, pos))
            continue;
        char path[SP_PATH], field[SP_PATH];
        if (!sv) {
            sp_idx(path, "sources", i);
            sp_key(field, path, "position");
        } else if (json_object_get(json_object_get(root, "survey"), "shots")) {
            sp_idx(path, "survey.shots", i);
            sp_key(field, path, "position");
        } else {
            sp_key(field, "survey", "generate");
        }
        return sp_fail(c, field,
                       "%s %d at (%g, %g, %g) m lies on the free surface (z = %g m, the grid's "
                       "top plane), where the pressure is held at zero: it would radiate "
                       "nothing; place it below the surface (at z = %g m, one grid spacing "
                       "down, it radiates with its surface ghost)",
                       sv ? "shot" : "source", sv ? sv->shots[i].number : i, pos[0], pos[1],
                       pos[2], s->origin[2], s->origin[2] + s->dz);
    }
    return 0;
}

int wave_receivers_on_surface(const fdw_spec *s, int *first_shot, double first_pos[3])
{
    if (!s->boundary.free_surface)
        return 0;
    const fdw_survey *sv = s->survey;
    int count = 0;
    if (!sv || !sv->moving) {
        for (int i = 0; i < s->nreceivers; i++)
            if (fdw_position_on_free_surface(s, s->receivers[i].pos) && count++ == 0) {
                *first_shot = -1;
                for (int a = 0; a < 3; a++)
                    first_pos[a] = s->receivers[i].pos[a];
            }
        return count;
    }
    fdw_receiver *rec = malloc((size_t)(sv->max_receivers > 0 ? sv->max_receivers : 1) *
                               sizeof *rec);
    if (!rec)
        return 0; /* (a warning's count; the run itself does not depend on it) */
    for (int i = 0; i < sv->nshots; i++) {
        const int n = fdw_survey_receivers(s, i, rec);
        for (int r = 0; r < n; r++)
            if (fdw_position_on_free_surface(s, rec[r].pos) && count++ == 0) {
                *first_shot = sv->shots[i].number;
                for (int a = 0; a < 3; a++)
                    first_pos[a] = rec[r].pos[a];
            }
    }
    free(rec);
    return count;
}
