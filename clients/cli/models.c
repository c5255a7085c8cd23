/* models.c — `fdwave models upload FILE NAME` (streams a velocity model to the server,
 * which checks it and stores it under NAME for jobs to use as
 * {"type":"model","name":NAME}) and `fdwave models list`, each with what the server
 * recorded of the file: samples, geometry, velocity range, SHA-256. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <curl/curl.h>

#include "commands.h"
#include "exit_codes.h"
#include "format.h"
#include "report.h"
#include "rsf_join.h"

/* "4096 values", "20x30x40" (the geometry a SEG-Y records) or "-" (not recorded yet). */
static void fmt_dims(char *out, size_t cap, const json_t *m)
{
    const json_t *d = json_object_get(m, "dims");
    const json_t *n = json_object_get(m, "nvalues");
    if (json_array_size(d) == 3)
        snprintf(out, cap, "%lldx%lldx%lld", (long long)json_integer_value(json_array_get(d, 0)),
                 (long long)json_integer_value(json_array_get(d, 1)),
                 (long long)json_integer_value(json_array_get(d, 2)));
    else if (json_is_integer(n))
        snprintf(out, cap, "%lld values", (long long)json_integer_value(n));
    else
        snprintf(out, cap, "-");
}

/* "1500-4500 m/s", or "-" when not recorded yet. */
static void fmt_range(char *out, size_t cap, const json_t *m)
{
    const json_t *lo = json_object_get(m, "vmin"), *hi = json_object_get(m, "vmax");
    if (json_is_number(lo) && json_is_number(hi))
        snprintf(out, cap, "%.6g-%.6g m/s", json_number_value(lo), json_number_value(hi));
    else
        snprintf(out, cap, "-");
}

typedef struct buf_sink {
    char *p;
    size_t len;
} buf_sink;

static size_t to_buf(void *user, const char *d, size_t n)
{
    buf_sink *b = user;
    char *np = realloc(b->p, b->len + n + 1);
    if (!np)
        return 0;
    memcpy(np + b->len, d, n);
    b->p = np;
    b->len += n;
    b->p[b->len] = '\0';
    return n;
}

int fdc_put_file(const fdc_client *c, FILE *f, long long size, const char *base,
                 const char *name, int replace, json_t **answer)
{
    char *esc = curl_easy_escape(NULL, name, 0);
    char path[1024];
    snprintf(path, sizeof path, "%s%s%s", base, esc ? esc : "", replace ? "?replace=true" : "");
    curl_free(esc);
    const char *hdrs[] = {"Content-Type: application/octet-stream", NULL};
    buf_sink b = {0};
    fdc_stream_opts o = {.method = "PUT", .extra_headers = hdrs, .sink = to_buf,
                         .sink_user = &b, .upload = f, .upload_size = size};
    int rc = fdc_stream(c, path, &o);
    fclose(f);
    *answer = NULL;
    if (rc == FDC_EXIT_OK) {
        *answer = b.p ? json_loadb(b.p, b.len, 0, NULL) : NULL;
        if (!json_is_object(*answer)) {
            json_decref(*answer);
            *answer = NULL;
            rc = fdc_fail_answer("unexpected answer from the server: %.200s", b.p ? b.p : "");
        }
    }
    free(b.p);
    return rc;
}

int fdc_upload_model(const fdc_client *c, const char *file, const char *name, int replace,
                     int to_stderr)
{
    long long size = 0;
    char why[600];
    FILE *f = fdc_model_open(file, name, &size, why, sizeof why); /* RSF: one file */
    if (!f)
        return fdc_fail_local("%s", why);
    json_t *j;
    int rc = fdc_put_file(c, f, size, "/v1/models/", name, replace, &j);
    if (rc == FDC_EXIT_OK && c->json) {
        if (!to_stderr)
            fdc_print_json(j);
    } else if (rc == FDC_EXIT_OK) {
        char bytes[32], dims[64], range[64];
        fdc_fmt_bytes(bytes, sizeof bytes, json_number_value(json_object_get(j, "bytes")));
        fmt_dims(dims, sizeof dims, j);
        fmt_range(range, sizeof range, j);
        const char *sha = json_string_value(json_object_get(j, "sha256"));
        const char *fmt = json_string_value(json_object_get(j, "format"));
        fprintf(to_stderr ? stderr : stdout, "model %s uploaded (%s, %s, %s, %s, sha256 %s)\n",
                name, bytes, fmt ? fmt : "?", dims, range, sha ? sha : "?");
    }
    json_decref(j);
    return rc;
}

static int list(const fdc_client *c)
{
    fdc_response r;
    int rc = fdc_call(c, "GET", "/v1/models", NULL, NULL, 0, NULL, &r);
    if (rc)
        return rc;
    if (c->json) {
        fdc_print_json(r.json);
        fdc_response_free(&r);
        return FDC_EXIT_OK;
    }
    printf("%-32s %-8s %10s  %-16s %-18s %-12s %-24s  %s\n", "NAME", "FORMAT", "SIZE", "DIMS",
           "VELOCITY", "OWNER", "CREATED", "SHA256");
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(r.json, "models"), i, m)
    {
        char dims[64], range[64];
        fdc_upload_cols u;
        fdc_fmt_upload(&u, m);
        fmt_dims(dims, sizeof dims, m);
        fmt_range(range, sizeof range, m);
        printf("%-32s %-8s %10s  %-16s %-18s %-12s %-24s  %s\n", u.name, u.fmt, u.size, dims,
               range, u.owner, u.created, u.sha);
    }
    fdc_response_free(&r);
    return FDC_EXIT_OK;
}

int fdc_cmd_models(const fdc_client *c, const fdc_args *a)
{
    if (a->npos == 3 && strcmp(a->pos[0], "upload") == 0)
        return fdc_upload_model(c, a->pos[1], a->pos[2], a->replace, 0);
    if (a->npos == 1 && strcmp(a->pos[0], "list") == 0)
        return list(c);
    return fdc_fail_synopsis("models upload [--replace] FILE NAME | fdwave models list");
}
