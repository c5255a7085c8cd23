/* survey_out.c — the files of a survey (survey.h). Each shot runs in its own directory
 * (shot_NNNN.run); when it completes, its gathers are renamed into the output directory
 * as shot_NNNN.sgy and shot_NNNN.f32 (so a finished shot's files are whole and stay, what
 * ever happens to the shots after it), the directory is removed and the shot is recorded
 * as finished in the checkpoint directory's "current" file (the file the daemon looks for
 * to resume a job): "survey <spec hash> <shots>" and one finished shot index per line,
 * replaced atomically. At the end all_shots.sgy and all_shots.f32 hold every shot's
 * traces in shot order, and manifest.json lists each shot (number, source position,
 * files) and a kind's once-per-run report (keep_reports). A kind whose shots add up
 * (kind.h's stack: the imaging kinds) has its shots added in shot order as they finish
 * (survey_stack.c); a shot counts as finished once added, its run directory kept until
 * then, and the record's finished shots are then always the first ones.
 *
 * A survey run in parts (FDW_SURVEY_PART, one per Slurm array task) records its own
 * finished shots in its own checkpoint directory and keeps each one's files for the
 * combining run (FDW_SURVEY_JOIN): the gathers as above, a stack's shot as the directory
 * shot_NNNN.done (renamed from .run once whole), the kept reports' manifest entries in
 * .survey_reports.json. The combining run takes every shot from those files and makes
 * the whole survey's outputs, a stack summed from zero in shot order as a whole run
 * sums it, so the bits are the same. */
#include "run/survey.h"
#include "run/survey_stack.h"

#include "core/error.h"
#include "kinds/kind.h"
#include "output/atomic_file.h"
#include "output/outputs.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SEGY_HEAD 3600   /* textual (3200) and binary (400) file headers */
#define SEGY_TRACE_HEAD 240
#define MANIFEST_EVERY_S 2.0 /* the manifest rewritten at most this often while running */

struct fdw_survey_out {
    const fdw_spec *spec;
    fdw_survey_mode mode;
    int stacks;                /* the kind's shots add up (kind.h's stack) */
    char *out_dir, *ckpt_dir;  /* ckpt_dir NULL: no record kept */
    unsigned char *done;       /* the caller's, one per shot */
    int width;                 /* digits of the shot numbers in file names (>= 4) */
    long ns;                   /* samples per trace */
    double sdt;                /* sample interval, s */
    unsigned long long hash;   /* of the survey's normalised spec */
    fdw_manifest *manifest;
    double manifest_at;        /* when it was last written */
    json_t *reports;           /* keep_reports' manifest entries, by name */
    fdw_survey_stack *stack;   /* the kind's sum of the shots, or NULL */
    unsigned char *ran;        /* a stack's shots whose runs completed, not yet added */
    void (*partial)(void *user, int count, int nfiles, const char *const *files);
    void *partial_user;
    pthread_mutex_t mu;
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* FNV-1a of the normalised spec: a record of finished shots is used only by the same
 * survey. */
static unsigned long long spec_hash(const fdw_spec *spec)
{
    unsigned long long h = 0xcbf29ce484222325ull;
    for (const char *p = spec->json ? spec->json : ""; *p; p++) {
        h ^= (unsigned char)*p;
        h *= 0x100000001b3ull;
    }
    return h;
}

/* out_dir/shot_NNNN<suffix> of shot i (name only when dir is NULL). */
static void shot_name(const fdw_survey_out *o, int i, const char *suffix, char *out, size_t len,
                      int with_dir)
{
    const int number = o->spec->survey->shots[i].number;
    if (with_dir)
        snprintf(out, len, "%s/shot_%0*d%s", o->out_dir, o->width, number, suffix);
    else
        snprintf(out, len, "shot_%0*d%s", o->width, number, suffix);
}

void fdw_survey_out_shot_dir(const fdw_survey_out *o, int i, char *path, size_t len)
{
    shot_name(o, i, ".run", path, len, 1);
}

/* Where a part keeps a stack's finished shot for the combining run: shot_NNNN.done. */
static void finished_dir(const fdw_survey_out *o, int i, char *path, size_t len)
{
    shot_name(o, i, ".done", path, len, 1);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The kept reports' entries, shared by the parts with the combining run. */
static void reports_path(const fdw_survey_out *o, char *path, size_t len)
{
    snprintf(path, len, "%s/.survey_reports.json", o->out_dir);
}

/* The manifest's entries of shot i's files that exist. */
static void add_shot_entries(fdw_survey_out *o, int i)
{
    const fdw_shot *S = &o->spec->survey->shots[i];
    char name[64], path[FDW_PATH_MAX + 64], desc[320];
    const long dims[2] = {o->ns, S->nreceivers};
    static const char *const suffix[2] = {".sgy", ".f32"};
    static const char *const format[2] = {"segy", "raw-f32"};
    for (int f = 0; f < 2; f++) {
        shot_name(o, i, suffix[f], name, sizeof name, 0);
        shot_name(o, i, suffix[f], path, sizeof path, 1);
        if (!exists(path))
            continue;
        snprintf(desc, sizeof desc,
                 "shot %d (source at %g, %g, %g m): %d traces of %ld samples every %g s "
                 "(sample 0 is t = 0)%s",
                 S->number, S->pos[0], S->pos[1], S->pos[2], S->nreceivers, o->ns, o->sdt,
                 f == 0 ? "; SEG-Y, IEEE float, FFID = shot number"
                        : "; float32 little-endian [receiver][sample]");
        fdw_manifest_add(o->manifest, name, "gather", format[f], desc, 2, dims,
                         "wavefield amplitude (arbitrary)", -1, -1.0);
        fdw_manifest_set_number(o->manifest, name, "sample_interval", o->sdt);
        fdw_manifest_set_number(o->manifest, name, "shot", S->number);
        fdw_manifest_set_number(o->manifest, name, "source_x", S->pos[0]);
        fdw_manifest_set_number(o->manifest, name, "source_y", S->pos[1]);
        fdw_manifest_set_number(o->manifest, name, "source_z", S->pos[2]);
    }
}

/* The manifest's "survey" member: the counts and each finished shot in shot order. */
static void set_survey_json(fdw_survey_out *o, const char *all_shots)
{
    const fdw_survey *sv = o->spec->survey;
    json_t *shots = json_array();
    int ndone = 0;
    for (int i = 0; i < sv->nshots; i++) {
        if (!o->done[i])
            continue;
        char segy[64], raw[64], path[FDW_PATH_MAX + 64];
        shot_name(o, i, ".sgy", segy, sizeof segy, 0);
        shot_name(o, i, ".sgy", path, sizeof path, 1);
        const int has_segy = exists(path);
        shot_name(o, i, ".f32", raw, sizeof raw, 0);
        shot_name(o, i, ".f32", path, sizeof path, 1);
        const int has_raw = exists(path);
        json_array_append_new(
            shots, json_pack("{sisosisoso}", "shot", sv->shots[i].number, "source",
                             json_pack("[fff]", sv->shots[i].pos[0], sv->shots[i].pos[1],
                                       sv->shots[i].pos[2]),
                             "receivers", sv->shots[i].nreceivers, "file",
                             has_segy ? json_string(segy) : json_null(), "raw",
                             has_raw ? json_string(raw) : json_null()));
        ndone++;
    }
    json_t *s = json_pack("{sisisisoso}", "nshots", sv->nshots, "shots_done", ndone,
                          "first_number", sv->shots[0].number, "all_shots",
                          all_shots ? json_string(all_shots) : json_null(), "shots", shots);
    char *text = s ? json_dumps(s, JSON_COMPACT) : NULL;
    json_decref(s);
    if (text)
        fdw_manifest_set_json(o->manifest, "survey", text);
    free(text);
}

/* The record of finished shots, replaced atomically. */
static fdw_status write_record(fdw_survey_out *o, fdw_error *err)
{
    if (!o->ckpt_dir)
        return FDW_OK;
    char path[FDW_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/current", o->ckpt_dir);
    fdw_atomic_file af;
    fdw_status st = fdw_atomic_open(&af, path, err);
    if (st != FDW_OK)
        return st;
    fprintf(af.fp, "survey %016llx %d\n", o->hash, o->spec->survey->nshots);
    for (int i = 0; i < o->spec->survey->nshots; i++)
        if (o->done[i])
            fprintf(af.fp, "%d\n", i);
    return fdw_atomic_commit(&af, err);
}

/* The record of an earlier run of this survey: the shots it finished whose files are
 * here. A record of another spec, or none, marks nothing. */
static void read_record(fdw_survey_out *o)
{
    char path[FDW_PATH_MAX + 16], line[128];
    snprintf(path, sizeof path, "%s/current", o->ckpt_dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    unsigned long long hash = 0;
    int n = 0;
    if (!fgets(line, sizeof line, f) || sscanf(line, "survey %llx %d", &hash, &n) != 2 ||
        hash != o->hash || n != o->spec->survey->nshots) {
        fclose(f);
        return;
    }
    while (fgets(line, sizeof line, f)) {
        char *end;
        const long i = strtol(line, &end, 10);
        if (end == line || i < 0 || i >= n)
            continue;
        char file[FDW_PATH_MAX + 64];
        if (o->mode == FDW_SURVEY_PART && o->stacks) { /* kept for the combining run */
            finished_dir(o, (int)i, file, sizeof file);
            o->done[i] = is_dir(file);
            continue;
        }
        shot_name(o, (int)i, ".f32", file, sizeof file, 1);
        o->done[i] = o->stack ? 1 : exists(file);
    }
    fclose(f);
    if (!o->stack)
        return;
    /* a stack: the first shots recorded, and the stack's state of that many */
    int count = 0;
    while (count < n && o->done[count])
        count++;
    memset(o->done, 0, (size_t)n);
    if (fdw_survey_stack_restore(o->stack, count) == 0)
        memset(o->done, 1, (size_t)count);
}

fdw_survey_out *fdw_survey_out_new(const fdw_spec *spec, fdw_survey_mode mode,
                                   const char *out_dir, const char *ckpt_dir, int resume,
                                   unsigned char *done)
{
    fdw_survey_out *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->spec = spec;
    o->mode = mode;
    o->stacks = spec->kind->stack != NULL;
    const int stack = o->stacks && mode != FDW_SURVEY_PART; /* a part sums nothing */
    o->done = done;
    o->out_dir = strdup(out_dir);
    o->ckpt_dir = ckpt_dir ? strdup(ckpt_dir) : NULL;
    o->manifest = fdw_manifest_new(spec, out_dir);
    o->reports = json_object();
    pthread_mutex_init(&o->mu, NULL);
    if (stack) {
        fdw_error e;
        o->stack = fdw_survey_stack_new(spec, out_dir, ckpt_dir, &e);
        o->ran = calloc((size_t)spec->survey->nshots, 1);
    }
    if (!o->out_dir || (ckpt_dir && !o->ckpt_dir) || !o->manifest || !o->reports ||
        (stack && (!o->stack || !o->ran))) {
        fdw_survey_out_free(o);
        return NULL;
    }
    const fdw_survey *sv = spec->survey;
    const int last = sv->shots[sv->nshots - 1].number;
    o->width = 4;
    for (int v = last; v >= 10000; v /= 10)
        o->width++;
    const int interval = spec->receiver_interval >= 1 ? spec->receiver_interval : 1;
    o->ns = spec->nt / interval + 1;
    o->sdt = spec->dt * interval;
    o->hash = spec_hash(spec);
    memset(done, 0, (size_t)sv->nshots);
    if (o->ckpt_dir && resume && (mode != FDW_SURVEY_JOIN || o->stack))
        read_record(o); /* the combining run's own record: the shots stacked so far */
    for (int i = 0; i < sv->nshots; i++)
        if (done[i])
            add_shot_entries(o, i);
    return o;
}

void fdw_survey_out_on_partial(fdw_survey_out *o,
                               void (*fn)(void *user, int count, int nfiles,
                                          const char *const *files),
                               void *user)
{
    o->partial = fn;
    o->partial_user = user;
}

/* The manifest entries of the kept reports (keep_reports). */
static void add_report_entries(fdw_survey_out *o)
{
    const char *name;
    json_t *f;
    json_object_foreach(o->reports, name, f) {
        json_t *jd = json_object_get(f, "dims");
        long dims[8];
        int nd = 0;
        for (size_t q = 0; q < json_array_size(jd) && nd < 8; q++)
            dims[nd++] = (long)json_integer_value(json_array_get(jd, q));
        fdw_manifest_add(o->manifest, name, json_string_value(json_object_get(f, "kind")),
                         json_string_value(json_object_get(f, "format")),
                         json_string_value(json_object_get(f, "description")), nd, dims,
                         json_string_value(json_object_get(f, "units")), -1, -1.0);
    }
}

/* A shot's run wrote, besides its gathers, the files its kind reports once per run (the
 * ETE kind's operator fit): the same for every shot of one model, time step and band, so
 * the last finished shot's copy is kept in the output directory under its own name and
 * listed in the survey's manifest with the shot manifest's entry. Called under o->mu. */
static void keep_reports(fdw_survey_out *o, const char *dir)
{
    char path[FDW_PATH_MAX + 320], to[FDW_PATH_MAX + 320];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    json_t *man = json_load_file(path, 0, NULL);
    json_t *files = json_object_get(man, "files"), *f;
    size_t i;
    json_array_foreach(files, i, f) {
        const char *name = json_string_value(json_object_get(f, "name"));
        const char *kind = json_string_value(json_object_get(f, "kind"));
        if (!name || !kind || strcmp(kind, "gather") == 0 || strchr(name, '/') ||
            name[0] == '.' || !o->reports)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, name);
        snprintf(to, sizeof to, "%s/%s", o->out_dir, name);
        if (rename(path, to) == 0)
            json_object_set(o->reports, name, f);
    }
    json_decref(man);
    add_report_entries(o);
    if (o->mode == FDW_SURVEY_PART && json_object_size(o->reports) > 0) {
        char rp[FDW_PATH_MAX + 32], tmp[FDW_PATH_MAX + 48];
        reports_path(o, rp, sizeof rp);
        snprintf(tmp, sizeof tmp, "%s.%ld", rp, (long)getpid()); /* parts write at once */
        if (json_dump_file(o->reports, tmp, JSON_COMPACT) != 0 || rename(tmp, rp) != 0)
            unlink(tmp); /* the combined manifest then lacks the report's entry */
    }
}

/* Remove a shot's run directory and every file its run left there. */
static void remove_dir(const char *dir)
{
    char path[FDW_PATH_MAX + 512];
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* The directory a stack's shot c is added from: its run's, or in the combining run the one
 * its part kept. */
static void shot_dir_of(const fdw_survey_out *o, int c, char *dir, size_t len)
{
    if (o->mode == FDW_SURVEY_JOIN)
        finished_dir(o, c, dir, len);
    else
        fdw_survey_out_shot_dir(o, c, dir, len);
}

/* Shot i's run completed (a stack's kind): it and every completed shot after it, in shot
 * order, added to the stack, their directories removed, the stack's state and partial
 * slices saved, the record written, and the partial slices announced. Under o->mu. */
static fdw_status add_to_stack(fdw_survey_out *o, int i, fdw_error *err)
{
    enum { MAXF = FDW_VOLUME_SLICE_FILES * FDW_STACK_MAX_VOLUMES };
    const int nshots = o->spec->survey->nshots, first = fdw_survey_stack_count(o->stack);
    o->ran[i] = 1;
    int added = 0;
    fdw_status st = FDW_OK;
    /* the partial slices of each count reached: (added shots) x (files) names */
    char (*files)[FDW_VOLUME_NAME_MAX] = NULL;
    int *nfiles = NULL;
    for (int c = first; c < nshots && o->ran[c] && st == FDW_OK; c++)
        added++;
    if (added == 0)
        return FDW_OK;
    files = malloc((size_t)added * MAXF * sizeof *files);
    nfiles = calloc((size_t)added, sizeof *nfiles);
    if (!files || !nfiles)
        st = fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory adding to the stack");
    char dir[FDW_PATH_MAX + 64];
    for (int a = 0; a < added && st == FDW_OK; a++) {
        const int c = first + a;
        shot_dir_of(o, c, dir, sizeof dir);
        st = fdw_survey_stack_add(o->stack, dir, err);
        if (st == FDW_OK)
            st = fdw_survey_stack_slices(o->stack, o->manifest, files + (size_t)a * MAXF, MAXF,
                                         &nfiles[a], err);
        if (st == FDW_OK) {
            o->ran[c] = 0;
            o->done[c] = 1;
            add_shot_entries(o, c);
        }
    }
    if (st == FDW_OK)
        st = fdw_survey_stack_save(o->stack, err);
    if (st == FDW_OK)
        st = write_record(o, err);
    for (int a = 0; a < added && st == FDW_OK; a++) { /* recorded: their runs are done with */
        shot_dir_of(o, first + a, dir, sizeof dir);
        remove_dir(dir);
    }
    if (st == FDW_OK) {
        fdw_survey_stack_forget_before(o->stack);
        set_survey_json(o, NULL);
        st = fdw_manifest_write(o->manifest, err);
        o->manifest_at = now_s();
    }
    for (int a = 0; a < added && st == FDW_OK && o->partial; a++) {
        const char *names[MAXF];
        for (int q = 0; q < nfiles[a]; q++)
            names[q] = files[(size_t)a * MAXF + q];
        o->partial(o->partial_user, first + a + 1, nfiles[a], names);
    }
    free(files);
    free(nfiles);
    return st;
}

fdw_status fdw_survey_out_shot_done(fdw_survey_out *o, int i, fdw_error *err)
{
    char dir[FDW_PATH_MAX + 64], from[FDW_PATH_MAX + 96], to[FDW_PATH_MAX + 64];
    fdw_survey_out_shot_dir(o, i, dir, sizeof dir);
    static const char *const src[2] = {"gather.segy", "gather.f32"};
    static const char *const dst[2] = {".sgy", ".f32"};
    for (int f = 0; f < 2; f++) {
        snprintf(from, sizeof from, "%s/%s", dir, src[f]);
        shot_name(o, i, dst[f], to, sizeof to, 1);
        if (!exists(from)) {
            if (f == 1 && !o->stacks) /* gather.f32 is always written but by a stack's kind */
                return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "shot %d: its run left no %s",
                                o->spec->survey->shots[i].number, from);
            unlink(to); /* no SEG-Y (it cannot hold the gather): none from an earlier run */
            continue;
        }
        if (rename(from, to) != 0)
            return fdw_fail(err, FDW_ERR_IO, NULL, "cannot move %s to %s: %s", from, to,
                            strerror(errno));
    }
    pthread_mutex_lock(&o->mu);
    fdw_status st;
    if (o->stack) {
        st = add_to_stack(o, i, err);
        pthread_mutex_unlock(&o->mu);
        return st;
    }
    if (o->mode == FDW_SURVEY_PART && o->stacks) { /* whole, for the combining run */
        char done_dir[FDW_PATH_MAX + 64];
        finished_dir(o, i, done_dir, sizeof done_dir);
        remove_dir(done_dir); /* an earlier run's, not recorded */
        if (rename(dir, done_dir) != 0) {
            pthread_mutex_unlock(&o->mu);
            return fdw_fail(err, FDW_ERR_IO, NULL, "cannot move %s to %s: %s", dir, done_dir,
                            strerror(errno));
        }
    } else {
        keep_reports(o, dir);
        remove_dir(dir);
    }
    o->done[i] = 1;
    add_shot_entries(o, i);
    st = write_record(o, err);
    if (st == FDW_OK && o->mode == FDW_SURVEY_WHOLE &&
        now_s() - o->manifest_at >= MANIFEST_EVERY_S) {
        set_survey_json(o, NULL);
        st = fdw_manifest_write(o->manifest, err);
        o->manifest_at = now_s();
    }
    pthread_mutex_unlock(&o->mu);
    return st;
}

static void put_be32(unsigned char *b, uint32_t v)
{
    b[0] = (unsigned char)(v >> 24);
    b[1] = (unsigned char)(v >> 16);
    b[2] = (unsigned char)(v >> 8);
    b[3] = (unsigned char)v;
}

/* Append the traces of one shot's file (after its file headers) to out; trace headers'
 * sequence numbers (bytes 1-4 in the line, 5-8 in the file) renumbered from *seq on. The
 * first shot's file headers go first. *ntr: the shot's traces. */
static fdw_status append_segy(FILE *out, const char *path, int first, long ns, long long *seq,
                              long *ntr, fdw_error *err)
{
    *ntr = 0;
    FILE *in = fopen(path, "rb");
    if (!in)
        return fdw_fail(err, FDW_ERR_IO, NULL, "cannot read %s: %s", path, strerror(errno));
    unsigned char head[SEGY_HEAD];
    fdw_status st = FDW_OK;
    if (fread(head, 1, sizeof head, in) != sizeof head) {
        fclose(in);
        return fdw_fail(err, FDW_ERR_IO, NULL, "%s is shorter than a SEG-Y file header", path);
    }
    /* extended textual headers (binary header bytes 3505-3506) follow the binary one */
    const int next = (int16_t)((head[3504] << 8) | head[3505]);
    const size_t tsize = SEGY_TRACE_HEAD + 4u * (size_t)ns;
    unsigned char *buf = malloc(tsize > 3200 ? tsize : 3200);
    if (!buf) {
        fclose(in);
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of memory joining the shots");
    }
    if (first && fwrite(head, 1, sizeof head, out) != sizeof head)
        st = fdw_fail(err, FDW_ERR_IO, NULL, "cannot write all_shots.sgy: %s", strerror(errno));
    for (int e = 0; e < next && st == FDW_OK; e++) {
        if (fread(buf, 1, 3200, in) != 3200)
            st = fdw_fail(err, FDW_ERR_IO, NULL, "%s: short extended header", path);
        else if (first && fwrite(buf, 1, 3200, out) != 3200)
            st = fdw_fail(err, FDW_ERR_IO, NULL, "cannot write all_shots.sgy: %s",
                          strerror(errno));
    }
    size_t got;
    while (st == FDW_OK && (got = fread(buf, 1, tsize, in)) > 0) {
        if (got != tsize) {
            st = fdw_fail(err, FDW_ERR_IO, NULL, "%s ends within a trace (%zu of %zu bytes)",
                          path, got, tsize);
            break;
        }
        ++*seq;
        ++*ntr;
        put_be32(buf, (uint32_t)*seq);
        put_be32(buf + 4, (uint32_t)*seq);
        if (fwrite(buf, 1, tsize, out) != tsize)
            st = fdw_fail(err, FDW_ERR_IO, NULL, "cannot write all_shots.sgy: %s",
                          strerror(errno));
    }
    free(buf);
    fclose(in);
    return st;
}

/* Append a whole file to out. */
static fdw_status append_raw(FILE *out, const char *path, fdw_error *err)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        return fdw_fail(err, FDW_ERR_IO, NULL, "cannot read %s: %s", path, strerror(errno));
    char buf[1 << 16];
    size_t got;
    fdw_status st = FDW_OK;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, got, out) != got) {
            st = fdw_fail(err, FDW_ERR_IO, NULL, "cannot write all_shots.f32: %s",
                          strerror(errno));
            break;
        }
    fclose(in);
    return st;
}

/* all_shots.sgy (when every shot has its SEG-Y) and all_shots.f32: every shot's traces in
 * shot order. Sets *segy when all_shots.sgy was written. */
static fdw_status join_shots(fdw_survey_out *o, int *segy, fdw_error *err)
{
    const fdw_survey *sv = o->spec->survey;
    char path[FDW_PATH_MAX + 64];
    *segy = 1;
    for (int i = 0; i < sv->nshots && *segy; i++) {
        shot_name(o, i, ".sgy", path, sizeof path, 1);
        *segy = exists(path);
    }
    for (int f = *segy ? 0 : 1; f < 2; f++) {
        fdw_atomic_file af;
        snprintf(path, sizeof path, "%s/all_shots.%s", o->out_dir, f == 0 ? "sgy" : "f32");
        fdw_status st = fdw_atomic_open(&af, path, err);
        long long seq = 0;
        long ntr = 0, first_ntr = -1, most = 0;
        int varies = 0;
        for (int i = 0; i < sv->nshots && st == FDW_OK; i++) {
            char shot[FDW_PATH_MAX + 64];
            shot_name(o, i, f == 0 ? ".sgy" : ".f32", shot, sizeof shot, 1);
            st = f == 0 ? append_segy(af.fp, shot, i == 0, o->ns, &seq, &ntr, err)
                        : append_raw(af.fp, shot, err);
            if (f == 0 && st == FDW_OK) {
                varies |= first_ntr >= 0 && ntr != first_ntr;
                first_ntr = first_ntr < 0 ? ntr : first_ntr;
                most = ntr > most ? ntr : most;
            }
        }
        /* Shots that dropped different receivers: the binary header's traces per ensemble
         * (bytes 3213-3214, first shot's until now) becomes the largest ensemble's. */
        if (f == 0 && st == FDW_OK && varies) {
            const long v = most < 32767 ? most : 32767;
            const unsigned char be[2] = {(unsigned char)(v >> 8), (unsigned char)v};
            if (fseek(af.fp, 3212, SEEK_SET) != 0 || fwrite(be, 1, 2, af.fp) != 2 ||
                fseek(af.fp, 0, SEEK_END) != 0)
                st = fdw_fail(err, FDW_ERR_IO, NULL, "cannot write all_shots.sgy: %s",
                              strerror(errno));
        }
        if (st == FDW_OK)
            st = fdw_atomic_commit(&af, err);
        else
            fdw_atomic_abort(&af);
        if (st != FDW_OK)
            return st;
    }
    const long dims[2] = {o->ns, (long)(sv->traces < LONG_MAX ? sv->traces : LONG_MAX)};
    static const char *const name[2] = {"all_shots.sgy", "all_shots.f32"};
    static const char *const format[2] = {"segy", "raw-f32"};
    static const char *const layout[2] = {
        "SEG-Y, IEEE float, FFID = shot number, trace sequence numbers running through the "
        "file",
        "float32 little-endian [trace][sample]"};
    for (int f = *segy ? 0 : 1; f < 2; f++) {
        char desc[320];
        snprintf(desc, sizeof desc,
                 "every shot's traces in shot order (%d shots, %lld traces of %ld samples every "
                 "%g s); %s",
                 sv->nshots, sv->traces, o->ns, o->sdt, layout[f]);
        fdw_manifest_add(o->manifest, name[f], "gather", format[f], desc, 2, dims,
                         "wavefield amplitude (arbitrary)", -1, -1.0);
        fdw_manifest_set_number(o->manifest, name[f], "sample_interval", o->sdt);
    }
    return FDW_OK;
}

fdw_status fdw_survey_out_finish(fdw_survey_out *o, int completed, const char *result_json,
                                 fdw_error *err)
{
    if (o->mode == FDW_SURVEY_PART)
        return FDW_OK; /* the combining run makes them */
    pthread_mutex_lock(&o->mu);
    /* the entries in shot order (they were added as shots finished) */
    fdw_manifest *m = fdw_manifest_new(o->spec, o->out_dir);
    if (m) {
        fdw_manifest_free(o->manifest);
        o->manifest = m;
        for (int i = 0; i < o->spec->survey->nshots; i++)
            if (o->done[i])
                add_shot_entries(o, i);
        add_report_entries(o);
        if (o->stack)
            fdw_survey_stack_list_partials(o->stack, o->manifest);
    }
    int segy = 0;
    char first[FDW_PATH_MAX + 64], extra[1024] = "";
    shot_name(o, 0, ".f32", first, sizeof first, 1);
    const int gathers = !o->stack || exists(first); /* rtm's shots leave none */
    fdw_status st = completed && gathers ? join_shots(o, &segy, err) : FDW_OK;
    if (st == FDW_OK && completed && o->stack)
        st = fdw_survey_stack_write(o->stack, o->manifest, extra, sizeof extra, err);
    if (st == FDW_OK) {
        set_survey_json(o, completed && segy ? "all_shots.sgy" : NULL);
        if (completed && o->mode == FDW_SURVEY_JOIN) {
            char rp[FDW_PATH_MAX + 32];
            reports_path(o, rp, sizeof rp);
            unlink(rp); /* taken into the manifest */
        }
        if (result_json) { /* the stack's members before the closing brace */
            const size_t len = strlen(result_json);
            char *res = malloc(len + strlen(extra) + 1);
            if (res && len > 0 && result_json[len - 1] == '}') {
                snprintf(res, len + strlen(extra) + 1, "%.*s%s}", (int)(len - 1), result_json,
                         extra);
                fdw_manifest_set_json(o->manifest, "result", res);
            } else {
                fdw_manifest_set_json(o->manifest, "result", result_json);
            }
            free(res);
        }
        st = fdw_manifest_write(o->manifest, err);
    }
    pthread_mutex_unlock(&o->mu);
    return st;
}

void fdw_survey_out_forget(fdw_survey_out *o)
{
    if (!o->ckpt_dir || o->mode == FDW_SURVEY_PART) /* a part's record: until the job ends */
        return;
    char path[FDW_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/current", o->ckpt_dir);
    unlink(path);
    if (o->stack)
        fdw_survey_stack_forget(o->stack);
}

/* The combining run's shots of a kind without a stack: each one's gathers in place. */
static fdw_status join_gathers(fdw_survey_out *o, fdw_error *err)
{
    char path[FDW_PATH_MAX + 64];
    for (int i = 0; i < o->spec->survey->nshots; i++) {
        shot_name(o, i, ".f32", path, sizeof path, 1);
        if (!exists(path))
            return fdw_fail(err, FDW_ERR_IO, "survey", "shot %d: no %s: its part of the survey "
                            "did not finish it", o->spec->survey->shots[i].number, path);
        o->done[i] = 1;
        add_shot_entries(o, i);
    }
    return FDW_OK;
}

fdw_status fdw_survey_out_join(fdw_survey_out *o, fdw_error *err)
{
    char path[FDW_PATH_MAX + 64];
    reports_path(o, path, sizeof path);
    json_t *reports = json_load_file(path, 0, NULL);
    if (json_is_object(reports)) {
        json_decref(o->reports);
        o->reports = reports;
    } else {
        json_decref(reports);
    }
    if (!o->stack)
        return join_gathers(o, err);
    const int nshots = o->spec->survey->nshots;
    pthread_mutex_lock(&o->mu);
    const int count = fdw_survey_stack_count(o->stack);
    for (int c = 0; c < nshots; c++) {
        finished_dir(o, c, path, sizeof path);
        if (c < count)
            remove_dir(path); /* stacked by an earlier combining run, not yet removed */
        else
            o->ran[c] = is_dir(path);
    }
    fdw_status st = count < nshots && o->ran[count] ? add_to_stack(o, count, err) : FDW_OK;
    const int now = fdw_survey_stack_count(o->stack);
    if (st == FDW_OK && now < nshots) {
        finished_dir(o, now, path, sizeof path);
        st = fdw_fail(err, FDW_ERR_IO, "survey", "shot %d: no %s: its part of the survey did "
                      "not finish it", o->spec->survey->shots[now].number, path);
    }
    pthread_mutex_unlock(&o->mu);
    return st;
}

void fdw_survey_out_free(fdw_survey_out *o)
{
    if (!o)
        return;
    if (o->manifest)
        fdw_manifest_free(o->manifest);
    json_decref(o->reports);
    fdw_survey_stack_free(o->stack);
    free(o->ran);
    pthread_mutex_destroy(&o->mu);
    free(o->out_dir);
    free(o->ckpt_dir);
    free(o);
}
