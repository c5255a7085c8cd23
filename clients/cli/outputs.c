/* outputs.c — `fdwave outputs ID` (the job's manifest as a table) and `fdwave fetch ID
 * NAME|--all [-o DIR]` (download output files; each is written to a temporary name and
 * renamed, so an interrupted download never leaves a truncated file under its real name). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "exit_codes.h"
#include "format.h"
#include "report.h"

static int get_manifest(const fdc_client *c, long id, fdc_response *r)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld/outputs", id);
    int rc = fdc_call(c, "GET", path, NULL, NULL, 0, NULL, r);
    if (rc == FDC_EXIT_OK && !json_is_array(json_object_get(r->json, "files"))) {
        rc = fdc_fail_answer("the server's manifest has no \"files\" list: %.200s", r->body);
        fdc_response_free(r);
    }
    return rc;
}

int fdc_cmd_outputs(const fdc_client *c, const fdc_args *a)
{
    if (a->npos != 1)
        return fdc_fail_synopsis("outputs ID");
    long id = fdc_parse_job_id(a->pos[0]);
    if (!id)
        return FDC_EXIT_USAGE;
    fdc_response r;
    int rc = get_manifest(c, id, &r);
    if (rc)
        return rc;
    if (c->json) {
        fdc_print_json(r.json);
        fdc_response_free(&r);
        return FDC_EXIT_OK;
    }
    json_t *files = json_object_get(r.json, "files");
    if (json_array_size(files) == 0)
        printf("job %ld has no outputs yet\n", id);
    else
        printf("%-32s %-8s %-9s %-16s %s\n", "NAME", "FORMAT", "KIND", "DIMS", "DESCRIPTION");
    size_t i;
    json_t *f;
    json_array_foreach(files, i, f)
    {
        char name[256], fmt[32], kind[32], dims[64], desc[256];
        fdc_fmt_value(name, sizeof name, json_object_get(f, "name"));
        fdc_fmt_value(fmt, sizeof fmt, json_object_get(f, "format"));
        fdc_fmt_value(kind, sizeof kind, json_object_get(f, "kind"));
        fdc_fmt_value(dims, sizeof dims, json_object_get(f, "dims"));
        fdc_fmt_value(desc, sizeof desc, json_object_get(f, "description"));
        printf("%-32s %-8s %-9s %-16s %s\n", name, fmt, kind, dims, desc);
    }
    fdc_response_free(&r);
    return FDC_EXIT_OK;
}

/* Output names come from the server; refuse anything that could leave the target dir. */
static int safe_name(const char *n)
{
    return n && *n && n[0] != '.' && !strchr(n, '/') && !strchr(n, '\\') && strlen(n) < 256;
}

typedef struct file_sink {
    FILE *f;
    int failed;
} file_sink;

static size_t to_file(void *user, const char *d, size_t n)
{
    file_sink *s = user;
    if (fwrite(d, 1, n, s->f) != n) {
        s->failed = errno ? errno : EIO;
        return 0;
    }
    return n;
}

/* Downloads output name of job id to dir/name. */
static int fetch_one(const fdc_client *c, long id, const char *name, const char *dir)
{
    char path[512], dest[4096], tmp[4200];
    snprintf(path, sizeof path, "/v1/jobs/%ld/outputs/%s", id, name);
    snprintf(dest, sizeof dest, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.part", dir, name);
    file_sink s = {fopen(tmp, "wb"), 0};
    if (!s.f)
        return fdc_fail_local("cannot create %s: %s", tmp, strerror(errno));
    fdc_stream_opts o = {.sink = to_file, .sink_user = &s, .idle_timeout_s = 60};
    int rc = fdc_stream(c, path, &o);
    if (fclose(s.f) != 0 && !s.failed)
        s.failed = errno;
    if (rc == FDC_EXIT_OK && s.failed)
        rc = fdc_fail_local("cannot write %s: %s", tmp, strerror(s.failed));
    if (rc == FDC_EXIT_OK && rename(tmp, dest) != 0)
        rc = fdc_fail_local("cannot rename %s to %s: %s", tmp, dest, strerror(errno));
    if (rc != FDC_EXIT_OK) {
        remove(tmp);
        return rc;
    }
    if (!c->json)
        printf("%s\n", dest);
    return FDC_EXIT_OK;
}

/* mkdir -p: dir and every missing folder above it (as `fetch -o a/b/c` needs). Returns 0,
 * or -1 with errno set (a part that exists but is no directory: ENOTDIR). */
static int make_dirs(const char *dir)
{
    char p[4096];
    if (snprintf(p, sizeof p, "%s", *dir ? dir : ".") >= (int)sizeof p) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *s = p + 1;; s++) {
        const int end = *s == '\0';
        if (*s != '/' && !end)
            continue;
        *s = '\0';
        struct stat st;
        if (mkdir(p, 0777) != 0 && errno != EEXIST)
            return -1;
        if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            return -1;
        }
        if (end)
            return 0;
        *s = '/';
    }
}

int fdc_cmd_fetch(const fdc_client *c, const fdc_args *a)
{
    if (a->npos != (a->all ? 1 : 2))
        return fdc_fail_synopsis("fetch ID NAME|--all [-o DIR]");
    long id = fdc_parse_job_id(a->pos[0]);
    if (!id)
        return FDC_EXIT_USAGE;
    const char *dir = a->out_dir ? a->out_dir : ".";
    if (make_dirs(dir) != 0)
        return fdc_fail_local("cannot create directory %s: %s", dir, strerror(errno));
    if (!a->all) {
        if (!safe_name(a->pos[1]))
            return fdc_fail_usage("output name '%s' must not contain '/' or start with '.'",
                                  a->pos[1]);
        return fetch_one(c, id, a->pos[1], dir);
    }
    fdc_response r;
    int rc = get_manifest(c, id, &r);
    if (rc)
        return rc;
    json_t *files = json_object_get(r.json, "files");
    json_t *got = json_array();
    size_t i;
    json_t *f;
    json_array_foreach(files, i, f)
    {
        const char *name = json_string_value(json_object_get(f, "name"));
        if (!safe_name(name)) {
            fprintf(stderr, "fdwave: skipping unsafe output name '%s'\n", name ? name : "");
            continue;
        }
        rc = fetch_one(c, id, name, dir);
        if (rc)
            break;
        json_array_append_new(got, json_sprintf("%s/%s", dir, name));
    }
    if (rc == FDC_EXIT_OK) {
        /* Keep the manifest beside the files: it says what each one holds. */
        char mpath[4096];
        snprintf(mpath, sizeof mpath, "%s/manifest.json", dir);
        if (json_dump_file(r.json, mpath, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
            rc = fdc_fail_local("cannot write %s", mpath);
        else if (!c->json) {
            printf("%s\n", mpath);
        } else {
            json_array_append_new(got, json_string(mpath));
        }
    }
    if (c->json && rc == FDC_EXIT_OK) {
        json_t *o = json_pack("{s:I, s:O}", "job", (json_int_t)id, "files", got);
        fdc_print_json(o);
        json_decref(o);
    }
    json_decref(got);
    fdc_response_free(&r);
    return rc;
}
