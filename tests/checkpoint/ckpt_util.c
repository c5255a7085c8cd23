/* ckpt_util.c — the checkpoint tests' shared helpers (see ckpt_util.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ckpt_util.h"

#include <dirent.h>
#include <ftw.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void ckpt_tmpdir(const char *tag, char *out, size_t cap)
{
    const char *t = getenv("TMPDIR");
    snprintf(out, cap, "%s/fdw-%s-XXXXXX", t && t[0] ? t : "/tmp", tag);
    if (!mkdtemp(out))
        out[0] = '\0';
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void ckpt_rmtree(const char *dir)
{
    if (dir && dir[0])
        nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void on_log(void *user, int level, const char *msg)
{
    ckpt_watch *w = user;
    if (w->on_line)
        w->on_line(msg);
    if (!w->waited[0] && strstr(msg, "waits for the write of step"))
        snprintf(w->waited, sizeof w->waited, "%s", msg);
    if (level < FDW_LOG_INFO)
        return;
    size_t n = strlen(w->log);
    snprintf(w->log + n, sizeof w->log - n, "%s\n", msg);
}

static void on_checkpoint(void *user, const fdw_checkpoint_info *c)
{
    ckpt_watch *w = user;
    w->empty += c->bytes == 0;
    if (c->resumed) {
        w->resumed++;
        w->resumed_step = c->step;
        w->done = c->step;
    } else {
        w->checkpoints++;
        if (c->bytes > w->largest)
            w->largest = c->bytes;
    }
}

/* Polled once after every step the loop does. */
static int on_suspend(void *user)
{
    ckpt_watch *w = user;
    w->done++;
    return w->suspend_at > 0 && w->done >= w->suspend_at;
}

fdw_callbacks ckpt_callbacks(ckpt_watch *w)
{
    fdw_callbacks cb = {.log = on_log, .suspend = on_suspend, .checkpoint = on_checkpoint,
                        .user = w};
    return cb;
}

int ckpt_fits_estimate(const ckpt_watch *w, const fdw_spec *spec, fdw_backend_kind backend)
{
    return w->largest <= fdw_spec_checkpoint_bytes(spec, backend) + 65536u;
}

int ckpt_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f) == 0 ? 0 : -1;
}

/* Outputs of every sort: acoustic with a CPML on 2 slabs (receivers at the slab
 * boundary, snapshots of slices and volume); acoustic with a sponge and a free surface on
 * 3 slabs; stencil on 2; derivative along z on 2; ETE; sweep (its own engine: no
 * checkpoints, so a resumed run starts again and must still end the same). */
static const char *const SPECS[CKPT_NSPECS][2] = {
    {"acoustic cpml, 2 slabs",
     "{\"kind\":\"acoustic\",\"grid\":{\"nx\":30,\"ny\":26,\"nz\":28,\"dx\":10,\"dy\":10,"
     "\"dz\":10},\"order\":8,\"velocity\":{\"type\":\"layered\",\"layers\":[{\"top\":0,"
     "\"v\":1800},{\"top\":140,\"v\":2500}]},\"time\":{\"nt\":90,\"dt\":\"auto\"},"
     "\"sources\":[{\"position\":[150,130,120],\"wavelet\":{\"type\":\"ricker\",\"f0\":25}}],"
     "\"receivers\":{\"points\":[[100,100,135],[200,150,140]],\"lines\":[{\"from\":[20,130,"
     "0],\"to\":[20,130,270],\"count\":28}],\"interval\":2},\"boundary\":{\"type\":\"cpml\","
     "\"width\":6},\"snapshots\":{\"every\":20,\"slices\":[{\"plane\":\"xz\",\"index\":13},"
     "{\"plane\":\"xy\",\"index\":14}],\"volume\":true,\"png\":true,\"raw\":true},"
     "\"devices\":2}"},
    {"acoustic sponge + free surface, 3 slabs",
     "{\"kind\":\"acoustic\",\"grid\":{\"nx\":28,\"ny\":24,\"nz\":30,\"dx\":10,\"dy\":10,"
     "\"dz\":10},\"order\":4,\"velocity\":{\"type\":\"constant\",\"value\":2000},"
     "\"time\":{\"nt\":80,\"dt\":\"auto\"},\"sources\":[{\"position\":[140,120,40],"
     "\"wavelet\":{\"type\":\"ricker\",\"f0\":20}}],\"receivers\":{\"lines\":[{\"from\":[10,"
     "120,5],\"to\":[260,120,5],\"count\":12}]},\"boundary\":{\"type\":\"sponge\","
     "\"width\":5,\"free_surface\":true},\"snapshots\":{\"every\":25,\"slices\":[{\"plane\":"
     "\"yz\",\"index\":14}],\"png\":false,\"raw\":true},\"devices\":3}"},
    {"stencil, 2 slabs",
     "{\"kind\":\"stencil\",\"grid\":{\"nx\":24,\"ny\":20,\"nz\":33,\"dx\":1,\"dy\":1,"
     "\"dz\":1},\"order\":8,\"iterations\":30,\"seed\":7,\"snapshots\":{\"every\":7,"
     "\"slices\":[{\"plane\":\"xz\",\"index\":9}],\"png\":true,\"raw\":true},\"devices\":2}"},
    {"derivative along z, 2 slabs",
     "{\"kind\":\"derivative\",\"grid\":{\"nx\":16,\"ny\":12,\"nz\":32,\"dx\":1,\"dy\":1,"
     "\"dz\":0.5},\"order\":8,\"axis\":\"z\",\"periods\":[1,2,3],\"iterations\":9,"
     "\"devices\":2}"},
    {"ete",
     "{\"kind\":\"ete\",\"grid\":{\"nx\":32,\"ny\":30,\"nz\":28,\"dx\":10,\"dy\":10,"
     "\"dz\":10},\"velocity\":{\"type\":\"layered\",\"layers\":[{\"top\":0,\"v\":1500},"
     "{\"top\":150,\"v\":2200}]},\"time\":{\"nt\":40,\"dt\":\"auto\"},\"sources\":[{"
     "\"position\":[160,150,100],\"wavelet\":{\"type\":\"ricker\",\"f0\":12}}],"
     "\"receivers\":{\"lines\":[{\"from\":[20,150,50],\"to\":[300,150,50],\"count\":15}]},"
     "\"boundary\":{\"type\":\"sponge\",\"width\":6,\"free_surface\":true},"
     "\"snapshots\":{\"every\":10,\"slices\":[{\"plane\":\"xz\",\"index\":15}]},"
     "\"devices\":2}"},
    {"sweep (no checkpoints)",
     "{\"kind\":\"sweep\",\"grid\":{\"nx\":20,\"ny\":18,\"nz\":16,\"dx\":0.5,\"dy\":0.5,"
     "\"dz\":0.5},\"precision\":\"float64\",\"F\":1.1,\"psi\":1.0,\"a\":[-0.3,0.4,0.7],"
     "\"initial\":{\"points\":[{\"position\":[3,4,5],\"t0\":0}]},\"sweeps\":4,"
     "\"snapshots\":{\"every\":1,\"slices\":[{\"plane\":\"xz\",\"index\":9}]},"
     "\"output\":{\"volume\":\"f64\",\"slices\":[{\"plane\":\"xz\",\"index\":9}]}}"},
};

const char *ckpt_spec(int i, const char **name)
{
    if (i < 0 || i >= CKPT_NSPECS)
        return NULL;
    if (name)
        *name = SPECS[i][0];
    return SPECS[i][1];
}

static unsigned char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc(len > 0 ? (size_t)len : 1);
    if (p && fread(p, 1, (size_t)len, f) != (size_t)len) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *n = (size_t)len;
    return p;
}

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Timings, which no two runs share: every "seconds" member, at any depth. */
static void strip_timings(json_t *v)
{
    if (json_is_object(v)) {
        json_object_del(v, "seconds");
        const char *k;
        json_t *m;
        json_object_foreach(v, k, m) strip_timings(m);
    } else if (json_is_array(v)) {
        size_t i;
        json_t *m;
        json_array_foreach(v, i, m) strip_timings(m);
    }
}

/* The sweep kind's count of point updates computed per sweep ("convergence" "per_sweep"
 * "computed"): its CPU engine lets a skip decision see a neighbour's change of the same
 * plane step or not, as the threads happen to run (engine/kinds/sweep/cpu_sweep_ops.c), so
 * two uninterrupted runs with several threads may count differently while their T is the
 * same bit for bit. It is work done, like the timings, not a result. */
static void strip_work_counts(json_t *manifest)
{
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(json_object_get(manifest, "convergence"), "per_sweep"),
                       i, m) json_object_del(m, "computed");
}

/* Name the first top-level member in which manifests a and b differ, with both values. */
static void say_difference(json_t *a, json_t *b, char *why, size_t len)
{
    if (!a || !b) {
        snprintf(why, len, "manifest.json missing or not JSON (%s)", a ? "second" : "first");
        return;
    }
    const char *k;
    json_t *va;
    json_object_foreach(a, k, va) {
        json_t *vb = json_object_get(b, k);
        if (vb && json_equal(va, vb))
            continue;
        char *ta = json_dumps(va, JSON_COMPACT | JSON_ENCODE_ANY);
        char *tb = vb ? json_dumps(vb, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
        snprintf(why, len, "manifest.json differs (beyond its result) in \"%s\": %.300s vs %.300s",
                 k, ta ? ta : "?", tb ? tb : "(absent)");
        free(ta);
        free(tb);
        return;
    }
    snprintf(why, len, "manifest.json differs (beyond its result): the second has more members");
}

static int manifests_equal(const char *pa, const char *pb, char *why, size_t len)
{
    json_t *a = json_load_file(pa, 0, NULL), *b = json_load_file(pb, 0, NULL);
    int eq = a && b;
    if (eq) {
        json_object_del(a, "result");
        json_object_del(b, "result");
        strip_timings(a);
        strip_timings(b);
        strip_work_counts(a);
        strip_work_counts(b);
        eq = json_equal(a, b);
    }
    if (!eq)
        say_difference(a, b, why, len);
    json_decref(a);
    json_decref(b);
    return eq;
}

/* The name of a file of b that a lacks (static; "" when none). */
static const char *first_extra(const char *a, const char *b)
{
    static char name[300];
    name[0] = '\0';
    DIR *d = opendir(b);
    struct dirent *e;
    while (d && !name[0] && (e = readdir(d))) {
        char pa[1024];
        struct stat sb;
        snprintf(pa, sizeof pa, "%s/%s", a, e->d_name);
        if (e->d_name[0] != '.' && stat(pa, &sb) != 0)
            snprintf(name, sizeof name, "%s only in the second", e->d_name);
    }
    if (d)
        closedir(d);
    return name;
}

int ckpt_outputs_equal(const char *a, const char *b, char *why, size_t len)
{
    DIR *d = opendir(a);
    if (!d) {
        snprintf(why, len, "no directory %s", a);
        return 0;
    }
    int eq = 1, na = 0;
    struct dirent *e;
    while (eq && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        na++;
        char pa[1024], pb[1024];
        snprintf(pa, sizeof pa, "%s/%s", a, e->d_name);
        snprintf(pb, sizeof pb, "%s/%s", b, e->d_name);
        if (strcmp(e->d_name, "manifest.json") == 0) {
            eq = manifests_equal(pa, pb, why, len);
            continue;
        }
        size_t la = 0, lb = 0;
        unsigned char *xa = read_all(pa, &la), *xb = read_all(pb, &lb);
        eq = xa && xb && la == lb && memcmp(xa, xb, la) == 0;
        if (!eq)
            snprintf(why, len, "%s differs (%zu and %zu bytes)", e->d_name, la, lb);
        free(xa);
        free(xb);
    }
    closedir(d);
    if (eq && count_files(b) != na) {
        snprintf(why, len, "%s holds %d files, %s %d (%s)", a, na, b, count_files(b),
                 first_extra(a, b));
        eq = 0;
    }
    return eq;
}
