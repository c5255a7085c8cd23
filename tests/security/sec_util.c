/* sec_util.c — the security tests' shared daemon, users and requests (see sec_util.h). */
#include "sec_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

daemon_proc SD;
char TOK_ALICE[128], TOK_BOB[128], TOK_ROOT[128];

static void add_token(const char *name, int admin, char *out)
{
    char buf[512];
    const char *args[] = {"token", "add", name, "--data", SD.data, admin ? "--admin" : NULL,
                          NULL};
    int rc = harness_run_cli(args, buf, sizeof buf);
    if (rc != 0 || strncmp(buf, "fdw_", 4) != 0) {
        fprintf(stderr, "token add %s failed (%d): %s\n", name, rc, buf);
        abort();
    }
    buf[strcspn(buf, "\n")] = '\0';
    snprintf(out, 128, "%.100s", buf);
}

void sec_users(void)
{
    harness_tmpdir(SD.data, sizeof SD.data);
    add_token("alice", 0, TOK_ALICE);
    add_token("bob", 0, TOK_BOB);
    add_token("root", 1, TOK_ROOT);
}

void sec_start(const char *const *extra)
{
    if (harness_start(&SD, extra) != 0) {
        fprintf(stderr, "fdwaved did not start; see %s\n", SD.log);
        abort();
    }
}

long sec_as(const char *token, const char *method, const char *path, const char *body,
            size_t len, const char *extra_header, http_resp *r)
{
    char auth[256] = "";
    const char *hs[4];
    int n = 0;
    if (token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %.200s", token);
        hs[n++] = auth;
    }
    if (body && !strcmp(method, "POST"))
        hs[n++] = "Content-Type: application/json";
    if (extra_header)
        hs[n++] = extra_header;
    hs[n] = NULL;
    memset(r, 0, sizeof *r);
    if (http(&SD, method, path, hs, body, len, r) != 0)
        r->status = 0;
    return r->status;
}

int sec_error(const http_resp *r, char *code, char *field, char *message, size_t cap)
{
    json_t *j = http_json(r);
    json_t *e = json_object_get(j, "error");
    if (!json_is_object(e)) {
        json_decref(j);
        return -1;
    }
    const char *c = json_string_value(json_object_get(e, "code"));
    const char *f = json_string_value(json_object_get(e, "field"));
    const char *m = json_string_value(json_object_get(e, "message"));
    snprintf(code, cap, "%s", c ? c : "");
    snprintf(field, cap, "%s", f ? f : "null");
    snprintf(message, cap, "%s", m ? m : "");
    json_decref(j);
    return 0;
}

long sec_upload(const char *token, const char *name, const char *query, int n, float v)
{
    size_t count = (size_t)n * n * n;
    float *vals = malloc(count * sizeof *vals);
    for (size_t i = 0; i < count; i++)
        vals[i] = v;
    char path[512];
    snprintf(path, sizeof path, "/v1/models/%s%s", name, query ? query : "");
    http_resp r;
    long st = sec_as(token, "PUT", path, (const char *)vals, count * sizeof *vals, NULL, &r);
    http_free(&r);
    free(vals);
    return st;
}

void sec_spec(char *buf, size_t cap, const char *velocity, const char *wavelet)
{
    snprintf(buf, cap,
             "{\"grid\":{\"nx\":16,\"ny\":16,\"nz\":16,\"dx\":10,\"dy\":10,\"dz\":10},"
             "\"order\":4,\"velocity\":%s,\"time\":{\"nt\":8},"
             "\"sources\":[{\"position\":[80,80,80],\"wavelet\":%s}]}",
             velocity, wavelet ? wavelet : "{\"type\":\"ricker\",\"f0\":10}");
}
