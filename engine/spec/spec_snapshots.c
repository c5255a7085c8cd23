/* spec_snapshots.c — the "snapshots" section: every how many steps to save the wavefield,
 * which slices (xy/xz/yz through a grid index) and/or the whole volume, as PNG and/or raw
 * float32. The volume becomes an FDW_PLANE_VOLUME entry after the slices. */
#include "spec/spec_parse.h"

#include <limits.h>
#include <stdlib.h>

#define SP_MAX_SLICES 1024

static const char *const PLANES[] = {"xy", "xz", "yz", NULL};

/* Slice i of the list e into s->slices[i], and its normal form into nslices. */
static int parse_slice(spec_ctx *c, const json_t *e, size_t i, json_t *nslices)
{
    static const char *const keys[] = {"plane", "index", NULL};
    fdw_spec *s = c->spec;
    const int limit[3] = {s->nz, s->ny, s->nx}; /* xy: k < nz, xz: j < ny, yz: i < nx */
    static const char *const what[3] = {"nz", "ny", "nx"};
    char path[SP_PATH], field[SP_PATH];
    int plane = 0;
    long long index;
    sp_idx(path, "snapshots.slices", i);
    sp_key(field, path, "index");
    if (sp_entry(c, e, path, "{\"plane\", \"index\"}", keys) ||
        sp_enum(c, e, path, "plane", 1, PLANES, &plane) ||
        sp_int(c, e, path, "index", 1, LLONG_MIN, LLONG_MAX, &index))
        return -1;
    if (index < 0 || index >= limit[plane])
        return sp_fail(c, field, "%s is %lld but a %s slice index must be from 0 to %d (%s - 1)",
                       field, index, PLANES[plane], limit[plane] - 1, what[plane]);
    s->slices[i].plane = (fdw_plane)plane;
    s->slices[i].index = (int)index;
    s->nslices++;
    json_array_append_new(nslices, json_pack("{sssI}", "plane", PLANES[plane], "index",
                                             (json_int_t)index));
    return 0;
}

/* What a section with snapshots every `every` steps asks of the run: something to write,
 * not too many files; warnings for what will not be written. */
static int check_snapshots(spec_ctx *c, long long every, int volume)
{
    const fdw_spec *s = c->spec;
    if (every > 0 && s->nslices == 0)
        return sp_fail(c, "snapshots.slices",
                       "snapshots.every is %lld but no slices and no volume are requested",
                       every);
    if (every > 0 && !s->snapshot_png && !s->snapshot_raw)
        return sp_fail(c, "snapshots.raw",
                       "snapshots.png and snapshots.raw are both false: snapshots would write "
                       "nothing");
    if (every > 0 && s->nslices > 0) {
        /* Files the run would write: snapshot times x (slices x formats + volumes). */
        const long long times = s->nt / every;
        long long per = 0;
        for (int i = 0; i < s->nslices; i++)
            per += s->slices[i].plane == FDW_PLANE_VOLUME ? s->snapshot_raw
                                                          : s->snapshot_png + s->snapshot_raw;
        if (per > 0 && times > sp_max_snapshots(c) / per)
            return sp_fail(c, "snapshots.every",
                           "snapshots every %lld steps over %ld steps write %lld files (%lld "
                           "times, %lld files each); at most %ld are allowed",
                           every, s->nt, times * per, times, per, sp_max_snapshots(c));
    }
    if (every > 0 && every > s->nt)
        sp_warn(c, "snapshots.every is %lld but the run has only %ld steps: no snapshot will "
                "be taken", every, s->nt);
    if (every == 0 && s->nslices > 0)
        sp_warn(c, "snapshots.every is 0: the requested slices will not be written");
    if (every > 0 && volume && !s->snapshot_raw)
        sp_warn(c, "volume snapshots are written as raw float32 only, and snapshots.raw is false: "
                "no volume will be written");
    return 0;
}

int sp_parse_snapshots(spec_ctx *c, const json_t *root)
{
    static const char *const keys[] = {"every", "slices", "volume", "png", "raw", NULL};
    fdw_spec *s = c->spec;
    json_t *o, *slices = NULL;
    long long every = 0;
    int volume = 0;
    s->snapshot_png = s->snapshot_raw = 1;
    if (sp_object(c, root, "", "snapshots", 0, &o))
        return -1;
    if (o && (sp_keys(c, o, "snapshots", keys) ||
              sp_int(c, o, "snapshots", "every", 0, 0, SP_MAX_NT, &every) ||
              sp_array(c, o, "snapshots", "slices", 0, &slices) ||
              sp_bool(c, o, "snapshots", "volume", 0, &volume) ||
              sp_bool(c, o, "snapshots", "png", 0, &s->snapshot_png) ||
              sp_bool(c, o, "snapshots", "raw", 0, &s->snapshot_raw)))
        return -1;
    size_t n = slices ? json_array_size(slices) : 0;
    if (n > SP_MAX_SLICES)
        return sp_fail(c, "snapshots.slices", "%zu slices given; at most %d are allowed", n,
                       SP_MAX_SLICES);
    s->snapshot_every = (int)every;
    s->slices = calloc(n + 1, sizeof *s->slices);
    if (!s->slices)
        return sp_fail(c, "snapshots.slices", "out of memory");
    json_t *nslices = json_array();
    for (size_t i = 0; i < n; i++) {
        if (parse_slice(c, json_array_get(slices, i), i, nslices)) {
            json_decref(nslices);
            return -1;
        }
    }
    if (volume) {
        s->slices[s->nslices].plane = FDW_PLANE_VOLUME;
        s->slices[s->nslices].index = 0;
        s->nslices++;
    }
    json_object_set_new(c->norm, "snapshots",
                        json_pack("{sIsosbsbsb}", "every", (json_int_t)every, "slices", nslices,
                                  "volume", volume, "png", s->snapshot_png, "raw",
                                  s->snapshot_raw));
    return check_snapshots(c, every, volume);
}
