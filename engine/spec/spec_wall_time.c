/* spec_wall_time.c — the spec's "wall_time": how long the job may run (the service stops
 * it there and ends it failed; fdwave-run ignores it). Seconds as a positive number, or a
 * text "90s", "45m", "12h", "2d" or "HH:MM:SS"; the normalised spec holds seconds. Absent:
 * 0 (the service's maximum applies). */
#include "spec/spec_parse.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The longest the member may say: a year. */
#define WALL_TIME_MAX (366.0 * 86400.0)

/* Seconds of a text, or -1 when it is none of the forms. */
static double parse_text(const char *t)
{
    unsigned h, m, s;
    char tail;
    if (sscanf(t, "%u:%u:%u%c", &h, &m, &s, &tail) == 3 && m < 60 && s < 60)
        return h * 3600.0 + m * 60.0 + s;
    double v;
    char unit, extra;
    if (sscanf(t, "%lf%c%c", &v, &unit, &extra) != 2 || !(v > 0) || !isfinite(v))
        return -1;
    switch (unit) {
    case 's': return v;
    case 'm': return v * 60.0;
    case 'h': return v * 3600.0;
    case 'd': return v * 86400.0;
    }
    return -1;
}

int sp_parse_wall_time(spec_ctx *c, const json_t *root)
{
    const json_t *v = json_object_get(root, "wall_time");
    c->spec->wall_time_s = 0;
    if (!v)
        return 0;
    double s = -1;
    if (json_is_number(v))
        s = json_number_value(v);
    else if (json_is_string(v))
        s = parse_text(json_string_value(v));
    else
        return sp_fail(c, "wall_time", "wall_time must be seconds (a number) or a text such as "
                       "\"90m\", \"12h\", \"2d\" or \"36:00:00\", not %s", sp_type_name(v));
    if (!(s >= 1) || !isfinite(s) || s > WALL_TIME_MAX)
        return sp_fail(c, "wall_time", "wall_time must be from 1 second to 366 days (seconds, "
                       "or a text such as \"90m\", \"12h\", \"2d\" or \"36:00:00\")");
    c->spec->wall_time_s = s;
    json_object_set_new(c->norm, "wall_time", json_real(s));
    return 0;
}
