/* manifest.c — manifest.json, the table of contents of a run's output directory:
 *   {"job": name|null, "kind": ..., "fdwave_version": ..., "spec": <normalised spec>,
 *    "files": [{"name","kind","format","description","dims","units","step","time",
 *               "bytes", <numbers set by fdw_manifest_set_number>}, ...],
 *    <extra keys set by fdw_manifest_set_json>}
 * Entries are kept in the order added; adding a name again replaces its entry. The
 * keys job, kind, fdwave_version, spec and files belong to the manifest itself, so
 * fdw_manifest_set_json ignores them. Calls are serialised by a mutex (progress and
 * snapshot code may run on different threads). Written atomically with jansson. */
#include "output/outputs.h"
#include "output/atomic_file.h"
#include "core/error.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct fdw_manifest {
    pthread_mutex_t mu;
    char *dir;
    json_t *head;   /* job, kind, version, spec */
    json_t *files;  /* array of entries */
    json_t *extra;  /* object of extra keys */
};

static const char *const reserved_keys[] = {"job", "kind", "fdwave_version", "spec", "files"};

fdw_manifest *fdw_manifest_new(const fdw_spec *spec, const char *out_dir)
{
    fdw_manifest *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    pthread_mutex_init(&m->mu, NULL);
    m->dir = strdup(out_dir && out_dir[0] ? out_dir : ".");
    m->head = json_object();
    m->files = json_array();
    m->extra = json_object();
    if (!m->dir || !m->head || !m->files || !m->extra) {
        fdw_manifest_free(m);
        return NULL;
    }
    json_t *spec_json = NULL;
    if (spec) {
        char *text = fdw_spec_to_json(spec);
        if (text) {
            spec_json = json_loads(text, 0, NULL);
            free(text);
        }
    }
    json_object_set_new(m->head, "job",
                        spec && spec->name[0] ? json_string(spec->name) : json_null());
    json_object_set_new(m->head, "kind", spec ? json_string(fdw_spec_kind(spec)) : json_null());
    json_object_set_new(m->head, "fdwave_version", json_string(FDW_VERSION));
    json_object_set_new(m->head, "spec", spec_json ? spec_json : json_null());
    return m;
}

/* Size of out_dir/name, or -1 when it does not exist (yet). */
static long long file_bytes(const fdw_manifest *m, const char *name)
{
    size_t len = strlen(m->dir) + strlen(name) + 2;
    char *p = malloc(len);
    if (!p)
        return -1;
    snprintf(p, len, "%s/%s", m->dir, name);
    struct stat st;
    long long r = stat(p, &st) == 0 && S_ISREG(st.st_mode) ? (long long)st.st_size : -1;
    free(p);
    return r;
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

void fdw_manifest_add(fdw_manifest *m, const char *name, const char *kind, const char *format,
                      const char *description, int ndims, const long *dims, const char *units,
                      long step, double time)
{
    if (!m || !name || !name[0])
        return;
    json_t *e = json_object();
    json_t *d = json_array();
    if (!e || !d) {
        json_decref(e);
        json_decref(d);
        return;
    }
    for (int q = 0; q < ndims && dims; q++)
        json_array_append_new(d, json_integer(dims[q]));
    long long bytes = file_bytes(m, name);
    json_object_set_new(e, "name", json_string(name));
    json_object_set_new(e, "kind", str_or_null(kind));
    json_object_set_new(e, "format", str_or_null(format));
    json_object_set_new(e, "description", str_or_null(description));
    json_object_set_new(e, "dims", d);
    json_object_set_new(e, "units", str_or_null(units));
    json_object_set_new(e, "step", step >= 0 ? json_integer(step) : json_null());
    json_object_set_new(e, "time", time >= 0 ? json_real(time) : json_null());
    json_object_set_new(e, "bytes", bytes >= 0 ? json_integer(bytes) : json_null());

    pthread_mutex_lock(&m->mu);
    size_t idx;
    json_t *old;
    int replaced = 0;
    json_array_foreach(m->files, idx, old) {
        const char *oname = json_string_value(json_object_get(old, "name"));
        if (oname && strcmp(oname, name) == 0) {
            json_array_set_new(m->files, idx, e);
            replaced = 1;
            break;
        }
    }
    if (!replaced)
        json_array_append_new(m->files, e);
    pthread_mutex_unlock(&m->mu);
}

void fdw_manifest_set_number(fdw_manifest *m, const char *name, const char *key, double v)
{
    if (!m || !name || !key || !key[0] || !isfinite(v))
        return;
    pthread_mutex_lock(&m->mu);
    size_t idx;
    json_t *e;
    json_array_foreach(m->files, idx, e) {
        const char *ename = json_string_value(json_object_get(e, "name"));
        if (ename && strcmp(ename, name) == 0) {
            json_object_set_new(e, key, json_real(v));
            break;
        }
    }
    pthread_mutex_unlock(&m->mu);
}

void fdw_manifest_set_json(fdw_manifest *m, const char *key, const char *json_text)
{
    if (!m || !key || !key[0])
        return;
    for (size_t q = 0; q < sizeof reserved_keys / sizeof *reserved_keys; q++)
        if (strcmp(key, reserved_keys[q]) == 0)
            return;
    json_t *v = json_text ? json_loads(json_text, JSON_DECODE_ANY, NULL) : json_null();
    if (!v) /* not JSON: keep the text as a string rather than lose it */
        v = json_string(json_text);
    if (!v)
        return;
    pthread_mutex_lock(&m->mu);
    json_object_set_new(m->extra, key, v);
    pthread_mutex_unlock(&m->mu);
}

char *fdw_manifest_files_text(fdw_manifest *m)
{
    if (!m)
        return NULL;
    pthread_mutex_lock(&m->mu);
    char *text = json_dumps(m->files, JSON_COMPACT | JSON_PRESERVE_ORDER);
    pthread_mutex_unlock(&m->mu);
    return text;
}

int fdw_manifest_restore_files(fdw_manifest *m, const char *text)
{
    json_t *files = m && text ? json_loads(text, 0, NULL) : NULL;
    if (!json_is_array(files)) {
        json_decref(files);
        return -1;
    }
    pthread_mutex_lock(&m->mu);
    json_decref(m->files);
    m->files = files;
    pthread_mutex_unlock(&m->mu);
    return 0;
}

fdw_status fdw_manifest_write(fdw_manifest *m, fdw_error *err)
{
    if (!m)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "fdw_manifest_write: no manifest");
    pthread_mutex_lock(&m->mu);
    /* Files recorded before they existed get their size now. */
    size_t idx;
    json_t *e;
    json_array_foreach(m->files, idx, e) {
        if (json_is_null(json_object_get(e, "bytes"))) {
            long long b = file_bytes(m, json_string_value(json_object_get(e, "name")));
            if (b >= 0)
                json_object_set_new(e, "bytes", json_integer(b));
        }
    }
    json_t *root = json_deep_copy(m->head);
    if (root) {
        json_object_set(root, "files", m->files);
        json_object_update(root, m->extra);
    }
    char *text = root ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    pthread_mutex_unlock(&m->mu);
    if (!text)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cannot build manifest.json");

    size_t len = strlen(m->dir) + sizeof "/manifest.json";
    char *path = malloc(len);
    if (!path) {
        free(text);
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cannot build manifest path");
    }
    snprintf(path, len, "%s/manifest.json", m->dir);
    fdw_atomic_file af;
    fdw_status st = fdw_atomic_open(&af, path, err);
    if (st == FDW_OK) {
        size_t n = strlen(text);
        if (fwrite(text, 1, n, af.fp) != n || fputc('\n', af.fp) == EOF) {
            fdw_atomic_abort(&af);
            st = fdw_fail(err, FDW_ERR_IO, NULL, "cannot write %s: %s", path, strerror(errno));
        } else {
            st = fdw_atomic_commit(&af, err);
        }
    }
    free(path);
    free(text);
    return st;
}

void fdw_manifest_free(fdw_manifest *m)
{
    if (!m)
        return;
    json_decref(m->head);
    json_decref(m->files);
    json_decref(m->extra);
    free(m->dir);
    pthread_mutex_destroy(&m->mu);
    free(m);
}
