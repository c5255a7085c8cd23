/* routes_outputs.c — a job's outputs: GET /v1/jobs/{id}/outputs returns the engine's
 * manifest.json with a "url" added to every file entry ({"files":[]} before the manifest
 * exists); GET /v1/jobs/{id}/outputs/{name} sends one file with its Content-Type and
 * single-range Range support (206 with Content-Range, 416 when unsatisfiable). */
#include "core/app.h"
#include "store/jobs.h"
#include "http/routes.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void out_dir(fdwd_app *app, int64_t id, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%lld/out", app->jobs_dir, (long long)id);
}

enum MHD_Result route_job_outputs(request *r)
{
    fdwd_app *app = r->app;
    if (!jobs_visible(app, r->job_id, &r->who, NULL))
        return reply_error(r, 404, "not_found", NULL, "no job %lld", (long long)r->job_id);
    char path[CFG_PATH + 64];
    out_dir(app, r->job_id, path, sizeof path);
    strncat(path, "/manifest.json", sizeof path - strlen(path) - 1);
    json_error_t jerr;
    json_t *m = json_load_file(path, 0, &jerr);
    if (!m) {
        if (access(path, F_OK) == 0)
            return reply_error(r, 500, "internal", NULL, "the manifest is unreadable: %s",
                               jerr.text);
        return reply_json(r, 200, json_pack("{s:[]}", "files"));
    }
    json_t *files = json_object_get(m, "files");
    size_t i;
    json_t *f;
    json_array_foreach(files, i, f) {
        const char *name = json_string_value(json_object_get(f, "name"));
        if (name) {
            char url[600];
            snprintf(url, sizeof url, "/v1/jobs/%lld/outputs/%s", (long long)r->job_id, name);
            json_object_set_new(f, "url", json_string(url));
        }
    }
    return reply_json(r, 200, m);
}

static const char *content_type(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (dot && !strcmp(dot, ".png"))
        return "image/png";
    if (dot && !strcmp(dot, ".json"))
        return "application/json";
    if (dot && (!strcmp(dot, ".txt") || !strcmp(dot, ".rsf")))
        return "text/plain; charset=utf-8";
    return "application/octet-stream";
}

/* Parse "bytes=a-b" | "bytes=a-" | "bytes=-n" against size. Returns 1 with [*start,
 * *end] inclusive, 0 to ignore the header (absent, malformed or several ranges: send all),
 * -1 when unsatisfiable. */
static int parse_range(const char *h, uint64_t size, uint64_t *start, uint64_t *end)
{
    if (!h)
        return 0;
    while (*h == ' ')
        h++;
    if (strncmp(h, "bytes=", 6) != 0 || strchr(h, ','))
        return 0;
    h += 6;
    char *e;
    errno = 0;
    if (*h == '-') {
        unsigned long long n = strtoull(h + 1, &e, 10);
        if (e == h + 1 || *e || errno)
            return 0;
        if (n == 0 || size == 0)
            return -1;
        *start = n >= size ? 0 : size - n;
        *end = size - 1;
        return 1;
    }
    if (*h < '0' || *h > '9')
        return 0;
    unsigned long long a = strtoull(h, &e, 10);
    if (*e != '-' || errno)
        return 0;
    const char *b = e + 1;
    unsigned long long last = size ? size - 1 : 0;
    if (*b) {
        unsigned long long bb = strtoull(b, &e, 10);
        if (*e || errno || e == b)
            return 0;
        if (bb < a)
            return 0;
        last = bb < size ? bb : size - 1;
    }
    if (a >= size)
        return -1;
    *start = a;
    *end = last;
    return 1;
}

enum MHD_Result serve_fd(request *r, int fd, const char *ctype)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return reply_error(r, 404, "not_found", NULL, "no such file");
    }
    uint64_t size = (uint64_t)st.st_size, a = 0, b = size ? size - 1 : 0;
    int rg = parse_range(http_header(r, "Range"), size, &a, &b);
    char cr[96];
    if (rg < 0) {
        close(fd);
        snprintf(cr, sizeof cr, "bytes */%" PRIu64, size);
        struct MHD_Response *resp = error_response(
            "range_not_satisfiable", NULL, "the requested range lies outside the file");
        if (resp)
            MHD_add_response_header(resp, "Content-Range", cr);
        return reply_response(r, 416, resp);
    }
    uint64_t len = size == 0 ? 0 : b - a + 1;
    struct MHD_Response *resp = MHD_create_response_from_fd_at_offset64(len, fd, a);
    if (!resp) {
        close(fd);
        return reply_error(r, 500, "internal", NULL, "cannot send the file");
    }
    MHD_add_response_header(resp, "Content-Type", ctype);
    MHD_add_response_header(resp, "Accept-Ranges", "bytes");
    if (rg > 0) {
        snprintf(cr, sizeof cr, "bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64, a, b, size);
        MHD_add_response_header(resp, "Content-Range", cr);
        return reply_response(r, 206, resp);
    }
    return reply_response(r, 200, resp);
}

enum MHD_Result route_job_output_file(request *r)
{
    fdwd_app *app = r->app;
    if (!r->name[0] || strchr(r->name, '/') || r->name[0] == '.' || strlen(r->name) > 255)
        return reply_error(r, 400, "bad_request", "name",
                           "output names may not be empty, contain '/' or start with '.'");
    if (!jobs_visible(app, r->job_id, &r->who, NULL))
        return reply_error(r, 404, "not_found", NULL, "no job %lld", (long long)r->job_id);
    char path[CFG_PATH + 600];
    char dir[CFG_PATH + 64];
    out_dir(app, r->job_id, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s", dir, r->name);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return reply_error(r, 404, "not_found", NULL, "job %lld has no output \"%s\"",
                           (long long)r->job_id, r->name);
    return serve_fd(r, fd, content_type(r->name));
}
