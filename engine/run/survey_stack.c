/* survey_stack.c — a survey's shots summed in shot order (survey_stack.h). The sums are
 * float, as each shot's volume is: stack[k] = stack[k-1] + shot k, one rounding per shot,
 * the same on every backend and in every grouping. */
#include "run/survey_stack.h"

#include "core/error.h"
#include "kinds/kind.h"
#include "output/atomic_file.h"
#include "spec/spec_survey.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STATE_MAGIC "FDWSTACK"

struct fdw_survey_stack {
    const fdw_spec *spec;
    const fdw_stack_ops *ops;
    char *out_dir, *ckpt_dir;
    size_t n;                  /* points of a volume */
    int nvol, nnum;
    const char *vol_name[FDW_STACK_MAX_VOLUMES];
    const char *vol_units[FDW_STACK_MAX_VOLUMES];
    const char *num_name[FDW_STACK_MAX_NUMBERS];
    float *vol[FDW_STACK_MAX_VOLUMES];
    double num[FDW_STACK_MAX_NUMBERS];
    float *shot;               /* a shot's volume as read */
    int count;                 /* shots added */
    int saved;                 /* the count of the last state saved */
};

static void state_path(const fdw_survey_stack *s, int count, char *path, size_t len)
{
    snprintf(path, len, "%s/stack_%d.f32", s->ckpt_dir, count);
}

void fdw_survey_stack_free(fdw_survey_stack *s)
{
    if (!s)
        return;
    for (int v = 0; v < s->nvol; v++)
        free(s->vol[v]);
    free(s->shot);
    free(s->out_dir);
    free(s->ckpt_dir);
    free(s);
}

fdw_survey_stack *fdw_survey_stack_new(const fdw_spec *spec, const char *out_dir,
                                       const char *ckpt_dir, fdw_error *err)
{
    fdw_survey_stack *s = calloc(1, sizeof *s);
    if (!s) {
        fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for the survey's stack");
        return NULL;
    }
    s->spec = spec;
    s->ops = spec->kind->stack;
    s->n = (size_t)fdw_spec_points(spec);
    s->out_dir = strdup(out_dir);
    s->ckpt_dir = ckpt_dir ? strdup(ckpt_dir) : NULL;
    s->nvol = s->ops->volumes(spec, s->vol_name, s->vol_units, FDW_STACK_MAX_VOLUMES);
    for (const char *const *q = s->ops->numbers; q && *q && s->nnum < FDW_STACK_MAX_NUMBERS; q++)
        s->num_name[s->nnum++] = *q;
    int ok = s->out_dir && (!ckpt_dir || s->ckpt_dir);
    for (int v = 0; v < s->nvol && ok; v++)
        ok = (s->vol[v] = calloc(s->n, sizeof(float))) != NULL;
    if (ok)
        ok = (s->shot = malloc(s->n * sizeof(float))) != NULL;
    if (!ok) {
        fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for the survey's stack "
                 "(%d volumes of %.1f MiB)", s->nvol + 1, (double)s->n * 4.0 / 1048576.0);
        fdw_survey_stack_free(s);
        return NULL;
    }
    return s;
}

int fdw_survey_stack_count(const fdw_survey_stack *s)
{
    return s->count;
}

/* The state file: the magic, count, nvol, nnum and n as int64, the volumes, the numbers. */
int fdw_survey_stack_restore(fdw_survey_stack *s, int count)
{
    if (!s->ckpt_dir || count < 1)
        return count == 0 ? 0 : -1;
    char path[FDW_PATH_MAX + 32];
    state_path(s, count, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char magic[8];
    int64_t head[4];
    int ok = fread(magic, 1, 8, f) == 8 && memcmp(magic, STATE_MAGIC, 8) == 0 &&
             fread(head, sizeof head[0], 4, f) == 4 && head[0] == count &&
             head[1] == s->nvol && head[2] == s->nnum && head[3] == (int64_t)s->n;
    for (int v = 0; v < s->nvol && ok; v++)
        ok = fread(s->vol[v], sizeof(float), s->n, f) == s->n;
    ok = ok && fread(s->num, sizeof(double), (size_t)s->nnum, f) == (size_t)s->nnum &&
         fgetc(f) == EOF;
    fclose(f);
    if (!ok) {
        for (int v = 0; v < s->nvol; v++)
            memset(s->vol[v], 0, s->n * sizeof(float));
        memset(s->num, 0, sizeof s->num);
        return -1;
    }
    s->count = s->saved = count;
    return 0;
}

/* The numbers of a shot's manifest result into num. */
static fdw_status read_numbers(const fdw_survey_stack *s, const char *dir, double *num,
                               fdw_error *err)
{
    if (s->nnum == 0)
        return FDW_OK;
    char path[FDW_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    json_error_t je;
    json_t *m = json_load_file(path, 0, &je);
    const json_t *res = json_object_get(m, "result");
    fdw_status st = FDW_OK;
    for (int q = 0; q < s->nnum && st == FDW_OK; q++) {
        const json_t *v = json_object_get(res, s->num_name[q]);
        if (!json_is_number(v))
            st = fdw_fail(err, FDW_ERR_INTERNAL, NULL, "shot %d: its run's manifest %s has "
                          "no result.%s", s->spec->survey->shots[s->count].number, path,
                          s->num_name[q]);
        else
            num[q] = json_number_value(v);
    }
    json_decref(m);
    return st;
}

fdw_status fdw_survey_stack_add(fdw_survey_stack *s, const char *dir, fdw_error *err)
{
    const int number = s->spec->survey->shots[s->count].number;
    double num[FDW_STACK_MAX_NUMBERS];
    fdw_status st = read_numbers(s, dir, num, err);
    if (st != FDW_OK)
        return st;
    /* a failure part way leaves this stack unusable, but the survey then fails and a
     * resume starts from the last state saved */
    for (int v = 0; v < s->nvol; v++) {
        char path[FDW_PATH_MAX + FDW_VOLUME_NAME_MAX + 8];
        snprintf(path, sizeof path, "%s/%s.f32", dir, s->vol_name[v]);
        FILE *f = fopen(path, "rb");
        const size_t got = f ? fread(s->shot, sizeof(float), s->n, f) : 0;
        if (f)
            fclose(f);
        if (got != s->n)
            return fdw_fail(err, FDW_ERR_IO, NULL, "shot %d: cannot read %s", number, path);
        float *restrict acc = s->vol[v];
        const float *restrict add = s->shot;
#pragma omp parallel for schedule(static)
        for (size_t p = 0; p < s->n; p++)
            acc[p] += add[p];
    }
    for (int q = 0; q < s->nnum; q++)
        s->num[q] += num[q];
    s->count++;
    return FDW_OK;
}

/* The stack's state for its count, written atomically. */
static fdw_status save_state(fdw_survey_stack *s, fdw_error *err)
{
    char path[FDW_PATH_MAX + 32];
    state_path(s, s->count, path, sizeof path);
    fdw_atomic_file af;
    fdw_status st = fdw_atomic_open(&af, path, err);
    if (st != FDW_OK)
        return st;
    const int64_t head[4] = {s->count, s->nvol, s->nnum, (int64_t)s->n};
    int ok = fwrite(STATE_MAGIC, 1, 8, af.fp) == 8 && fwrite(head, sizeof head[0], 4, af.fp) == 4;
    for (int v = 0; v < s->nvol && ok; v++)
        ok = fwrite(s->vol[v], sizeof(float), s->n, af.fp) == s->n;
    ok = ok && fwrite(s->num, sizeof(double), (size_t)s->nnum, af.fp) == (size_t)s->nnum;
    if (!ok) {
        fdw_atomic_abort(&af);
        return fdw_fail(err, FDW_ERR_IO, NULL, "cannot write %s: %s", path, strerror(errno));
    }
    return fdw_atomic_commit(&af, err);
}

/* The partial slices' stem of volume v after count shots. */
static void partial_stem(const fdw_survey_stack *s, int v, int count, char *out, size_t len)
{
    snprintf(out, len, "stack_%s_%04d", s->vol_name[v], count);
}

static void partial_what(const fdw_survey_stack *s, int v, int count, char *out, size_t len)
{
    snprintf(out, len, "the survey's %s summed over its first %d of %d shots", s->vol_name[v],
             count, s->spec->survey->nshots);
}

fdw_status fdw_survey_stack_slices(fdw_survey_stack *s, fdw_manifest *m,
                                   char files[][FDW_VOLUME_NAME_MAX], int max, int *nfiles,
                                   fdw_error *err)
{
    *nfiles = 0;
    fdw_status st = FDW_OK;
    for (int v = 0; v < s->nvol && st == FDW_OK; v++) {
        char stem[FDW_VOLUME_NAME_MAX / 2], what[160];
        char sl[FDW_VOLUME_SLICE_FILES][FDW_VOLUME_NAME_MAX];
        partial_stem(s, v, s->count, stem, sizeof stem);
        partial_what(s, v, s->count, what, sizeof what);
        st = fdw_volume_slices(s->spec, s->out_dir, NULL, stem, s->vol[v], what, "snapshot",
                               s->vol_units[v], sl, err);
        if (st == FDW_OK)
            fdw_volume_slices_list(s->spec, s->out_dir, m, stem, what, "snapshot",
                                   s->vol_units[v], s->count);
        for (int q = 0; q < FDW_VOLUME_SLICE_FILES && st == FDW_OK && *nfiles < max; q++)
            memcpy(files[(*nfiles)++], sl[q], FDW_VOLUME_NAME_MAX);
    }
    return st;
}

fdw_status fdw_survey_stack_save(fdw_survey_stack *s, fdw_error *err)
{
    return s->ckpt_dir ? save_state(s, err) : FDW_OK;
}

void fdw_survey_stack_forget_before(fdw_survey_stack *s)
{
    if (!s->ckpt_dir)
        return;
    char path[FDW_PATH_MAX + 32];
    for (int c = s->saved; c < s->count; c++) {
        state_path(s, c, path, sizeof path);
        unlink(path);
    }
    s->saved = s->count;
}

void fdw_survey_stack_list_partials(const fdw_survey_stack *s, fdw_manifest *m)
{
    for (int c = 1; c <= s->count; c++)
        for (int v = 0; v < s->nvol; v++) {
            char stem[FDW_VOLUME_NAME_MAX / 2], what[160];
            partial_stem(s, v, c, stem, sizeof stem);
            partial_what(s, v, c, what, sizeof what);
            fdw_volume_slices_list(s->spec, s->out_dir, m, stem, what, "snapshot",
                                   s->vol_units[v], c);
        }
}

fdw_status fdw_survey_stack_write(fdw_survey_stack *s, fdw_manifest *m, char *extra,
                                  size_t len, fdw_error *err)
{
    return s->ops->write(s->spec, s->out_dir, m, (const float *const *)s->vol, s->num,
                         s->count, extra, len, err);
}

void fdw_survey_stack_forget(fdw_survey_stack *s)
{
    if (!s->ckpt_dir)
        return;
    char path[FDW_PATH_MAX + 32];
    for (int c = 0; c <= s->count; c++) {
        state_path(s, c, path, sizeof path);
        unlink(path);
    }
}
