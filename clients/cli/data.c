/* data.c — `fdwave data put NAME FILE` (streams observed shot gathers to the server, which
 * checks a SEG-Y file's headers as a job would and stores it under NAME for rtm and
 * gradient jobs to use as "data": {"name": NAME}), `fdwave data ls` and `fdwave data rm
 * NAME`, each with what the server recorded: size, format, traces, samples, interval,
 * shots, SHA-256. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <curl/curl.h>

#include "commands.h"
#include "exit_codes.h"
#include "format.h"
#include "report.h"

/* "12 traces x 70 at 3 ms, 1 shot" for SEG-Y; "-" for raw float32. */
static void fmt_layout(char *out, size_t cap, const json_t *d)
{
    const json_t *tr = json_object_get(d, "traces");
    if (!json_is_integer(tr)) {
        snprintf(out, cap, "-");
        return;
    }
    const long long shots = json_integer_value(json_object_get(d, "shots"));
    snprintf(out, cap, "%lld traces x %lld at %.6g ms, %lld shot%s", json_integer_value(tr),
             json_integer_value(json_object_get(d, "samples")),
             json_number_value(json_object_get(d, "sample_interval")) * 1e3, shots,
             shots == 1 ? "" : "s");
}

static int put(const fdc_client *c, const char *name, const char *file, int replace)
{
    FILE *f = fopen(file, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0) {
        int e = errno;
        if (f)
            fclose(f);
        return fdc_fail_local("cannot read %s: %s", file, strerror(e));
    }
    json_t *j;
    int rc = fdc_put_file(c, f, (long long)st.st_size, "/v1/data/", name, replace, &j);
    if (rc == FDC_EXIT_OK && c->json) {
        fdc_print_json(j);
    } else if (rc == FDC_EXIT_OK) {
        char bytes[32], layout[96];
        fdc_fmt_bytes(bytes, sizeof bytes, json_number_value(json_object_get(j, "bytes")));
        fmt_layout(layout, sizeof layout, j);
        const char *sha = json_string_value(json_object_get(j, "sha256"));
        const char *fmt = json_string_value(json_object_get(j, "format"));
        printf("data %s uploaded (%s, %s, %s, sha256 %s); use it as \"data\": {\"name\": "
               "\"%s\"}\n", name, bytes, fmt ? fmt : "?", layout, sha ? sha : "?", name);
    }
    json_decref(j);
    return rc;
}

/* The table of `data ls`: one line an upload. */
static void print_table(const json_t *list)
{
    printf("%-32s %-8s %10s  %-36s %-12s %-24s  %s\n", "NAME", "FORMAT", "SIZE", "TRACES",
           "OWNER", "CREATED", "SHA256");
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *d = json_array_get(list, i);
        char layout[96];
        fdc_upload_cols u;
        fdc_fmt_upload(&u, d);
        fmt_layout(layout, sizeof layout, d);
        printf("%-32s %-8s %10s  %-36s %-12s %-24s  %s\n", u.name, u.fmt, u.size, layout,
               u.owner, u.created, u.sha);
    }
}

/* A request whose answer is printed as it is with --json, else by show. */
static int answer(const fdc_client *c, const char *method, const char *path,
                  void (*show)(const json_t *j, const char *what), const char *what)
{
    fdc_response r;
    const int rc = fdc_call(c, method, path, NULL, NULL, 0, NULL, &r);
    if (rc != FDC_EXIT_OK)
        return rc;
    if (c->json)
        fdc_print_json(r.json);
    else
        show(r.json, what);
    fdc_response_free(&r);
    return FDC_EXIT_OK;
}

static void show_list(const json_t *j, const char *what)
{
    (void)what;
    print_table(json_object_get(j, "data"));
}

static void show_removed(const json_t *j, const char *what)
{
    (void)j;
    printf("data %s removed\n", what);
}

static int rm(const fdc_client *c, const char *name)
{
    char *esc = curl_easy_escape(NULL, name, 0);
    char path[1024];
    snprintf(path, sizeof path, "/v1/data/%s", esc ? esc : "");
    curl_free(esc);
    return answer(c, "DELETE", path, show_removed, name);
}

int fdc_cmd_data(const fdc_client *c, const fdc_args *a)
{
    const char *sub = a->npos > 0 ? a->pos[0] : "";
    if (a->npos == 3 && strcmp(sub, "put") == 0)
        return put(c, a->pos[1], a->pos[2], a->replace);
    if (a->npos == 1 && strcmp(sub, "ls") == 0)
        return answer(c, "GET", "/v1/data", show_list, NULL);
    if (a->npos == 2 && strcmp(sub, "rm") == 0)
        return rm(c, a->pos[1]);
    return fdc_fail_synopsis("data put [--replace] NAME FILE | fdwave data ls | fdwave data rm "
                             "NAME");
}
