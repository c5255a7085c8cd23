/* models.c — `fdwave models upload FILE NAME` (streams a velocity model to the server,
 * which stores it under NAME for jobs to use as {"type":"model","name":NAME}) and
 * `fdwave models list`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <curl/curl.h>

#include "commands.h"
#include "exit_codes.h"
#include "format.h"

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

static int upload(const fdc_client *c, const char *file, const char *name)
{
    FILE *f = fopen(file, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "fdwave: cannot read %s: %s\n", file,
                f ? "not a regular file" : strerror(errno));
        if (f)
            fclose(f);
        return FDC_EXIT_LOCAL_IO;
    }
    char *esc = curl_easy_escape(NULL, name, 0);
    char path[1024];
    snprintf(path, sizeof path, "/v1/models/%s", esc ? esc : "");
    curl_free(esc);
    const char *hdrs[] = {"Content-Type: application/octet-stream", NULL};
    buf_sink b = {0};
    fdc_stream_opts o = {.method = "PUT", .extra_headers = hdrs, .sink = to_buf,
                         .sink_user = &b, .upload = f, .upload_size = (long long)st.st_size};
    int rc = fdc_stream(c, path, &o);
    fclose(f);
    if (rc == FDC_EXIT_OK) {
        json_t *j = b.p ? json_loadb(b.p, b.len, 0, NULL) : NULL;
        if (c->json && j) {
            fdc_print_json(j);
        } else if (j) {
            char bytes[32];
            fdc_fmt_bytes(bytes, sizeof bytes, json_number_value(json_object_get(j, "bytes")));
            const char *sha = json_string_value(json_object_get(j, "sha256"));
            const char *fmt = json_string_value(json_object_get(j, "format"));
            printf("model %s uploaded (%s, %s, sha256 %s)\n", name, bytes, fmt ? fmt : "?",
                   sha ? sha : "?");
        } else {
            fprintf(stderr, "error: unexpected answer from the server: %.200s\n",
                    b.p ? b.p : "");
            rc = FDC_EXIT_SERVER;
        }
        json_decref(j);
    }
    free(b.p);
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
    printf("%-32s %-8s %10s  %-12s %-20s  %s\n", "NAME", "FORMAT", "SIZE", "OWNER", "CREATED",
           "SHA256");
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(r.json, "models"), i, m)
    {
        char name[160], fmt[32], size[32], owner[64], created[40], sha[80];
        fdc_fmt_value(name, sizeof name, json_object_get(m, "name"));
        fdc_fmt_value(fmt, sizeof fmt, json_object_get(m, "format"));
        fdc_fmt_bytes(size, sizeof size, json_number_value(json_object_get(m, "bytes")));
        fdc_fmt_value(owner, sizeof owner, json_object_get(m, "owner"));
        fdc_fmt_value(created, sizeof created, json_object_get(m, "created_at"));
        fdc_fmt_value(sha, sizeof sha, json_object_get(m, "sha256"));
        printf("%-32s %-8s %10s  %-12s %-20s  %s\n", name, fmt, size, owner, created, sha);
    }
    fdc_response_free(&r);
    return FDC_EXIT_OK;
}

int fdc_cmd_models(const fdc_client *c, const fdc_args *a)
{
    if (a->npos == 3 && strcmp(a->pos[0], "upload") == 0)
        return upload(c, a->pos[1], a->pos[2]);
    if (a->npos == 1 && strcmp(a->pos[0], "list") == 0)
        return list(c);
    fprintf(stderr, "usage: fdwave models upload FILE NAME | fdwave models list\n");
    return FDC_EXIT_USAGE;
}
