/* client.c — libcurl requests to fdwaved with the URL, token and error mapping of the CLI
 * (see client.h). Failures are reported through report.h (text on stderr, or JSON on
 * stdout with --json); a successful answer is left to the commands. */
#include "client.h"

#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

#include "exit_codes.h"
#include "report.h"

typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static int buf_add(buf *b, const char *d, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p)
            return -1;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, d, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

static size_t collect(char *d, size_t sz, size_t nm, void *user)
{
    return buf_add(user, d, sz * nm) ? 0 : sz * nm;
}

/* A new easy handle for base URL + path with the token and common options set. */
static CURL *easy_for(const fdc_client *c, const char *path, const char *const *extra,
                      struct curl_slist **hdrs, char *errbuf)
{
    CURL *h = curl_easy_init();
    if (!h)
        return NULL;
    size_t n = strlen(c->url) + strlen(path) + 1;
    char *url = malloc(n);
    if (!url) {
        curl_easy_cleanup(h);
        return NULL;
    }
    snprintf(url, n, "%s%s", c->url, path);
    curl_easy_setopt(h, CURLOPT_URL, url);
    free(url);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "fdwave-cli/" FDC_VERSION);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    errbuf[0] = '\0';
    *hdrs = NULL;
    if (c->token && *c->token) {
        size_t tn = strlen(c->token) + 32;
        char *line = malloc(tn);
        if (line) {
            snprintf(line, tn, "Authorization: Bearer %s", c->token);
            *hdrs = curl_slist_append(*hdrs, line);
            free(line);
        }
    }
    /* We send small bodies; "Expect: 100-continue" only adds a round trip. */
    *hdrs = curl_slist_append(*hdrs, "Expect:");
    for (int i = 0; extra && extra[i]; i++)
        *hdrs = curl_slist_append(*hdrs, extra[i]);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, *hdrs);
    return h;
}

static int fail_transport(const fdc_client *c, CURLcode rc, const char *errbuf)
{
    return fdc_fail_unreachable(c->url, errbuf && *errbuf ? errbuf : curl_easy_strerror(rc));
}

int fdc_call(const fdc_client *c, const char *method, const char *path, const char *ctype,
             const char *body, size_t len, const char *const *extra_headers,
             fdc_response *resp)
{
    memset(resp, 0, sizeof *resp);
    char errbuf[CURL_ERROR_SIZE];
    struct curl_slist *hdrs = NULL;
    const char *extra[16];
    int ne = 0;
    char ctline[128];
    if (ctype) {
        snprintf(ctline, sizeof ctline, "Content-Type: %s", ctype);
        extra[ne++] = ctline;
    }
    for (int i = 0; extra_headers && extra_headers[i] && ne < 15; i++)
        extra[ne++] = extra_headers[i];
    extra[ne] = NULL;
    CURL *h = easy_for(c, path, extra, &hdrs, errbuf);
    if (!h)
        return fdc_fail_local("cannot initialise libcurl");
    buf b = {0};
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    if (strcmp(method, "GET") != 0) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body ? body : "");
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(body ? len : 0));
    }
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, 120L);
    CURLcode rc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(h);
    curl_slist_free_all(hdrs);
    if (rc != CURLE_OK) {
        free(b.p);
        return fail_transport(c, rc, errbuf);
    }
    if (status >= 400 || status < 200) {
        int code = fdc_fail_http(status, b.p, b.len);
        free(b.p);
        return code;
    }
    resp->status = status;
    resp->body = b.p ? b.p : calloc(1, 1);
    resp->len = b.len;
    resp->json = b.len ? json_loadb(b.p, b.len, 0, NULL) : NULL;
    return FDC_EXIT_OK;
}

void fdc_response_free(fdc_response *r)
{
    free(r->body);
    json_decref(r->json);
    memset(r, 0, sizeof *r);
}

/* Write callback state for fdc_stream: route 2xx bodies to the sink, collect others. */
typedef struct stream_ctx {
    CURL *h;
    const fdc_stream_opts *o;
    long status;
    buf err;
    int stopped;
} stream_ctx;

static size_t stream_write(char *d, size_t sz, size_t nm, void *user)
{
    stream_ctx *s = user;
    size_t n = sz * nm;
    if (!s->status)
        curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &s->status);
    if (s->status < 200 || s->status >= 300)
        return buf_add(&s->err, d, n) ? 0 : n;
    size_t took = s->o->sink(s->o->sink_user, d, n);
    if (took != n)
        s->stopped = 1;
    return took;
}

int fdc_stream(const fdc_client *c, const char *path, const fdc_stream_opts *o)
{
    char errbuf[CURL_ERROR_SIZE];
    struct curl_slist *hdrs = NULL;
    if (o->transport_failed)
        *o->transport_failed = 0;
    if (o->sink_stopped)
        *o->sink_stopped = 0;
    CURL *h = easy_for(c, path, o->extra_headers, &hdrs, errbuf);
    if (!h)
        return fdc_fail_local("cannot initialise libcurl");
    stream_ctx s = {.h = h, .o = o};
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, stream_write);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
    if (o->upload) {
        curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(h, CURLOPT_READDATA, o->upload);
        curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)o->upload_size);
    }
    if (o->method)
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, o->method);
    if (o->idle_timeout_s > 0) {
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, o->idle_timeout_s);
    }
    CURLcode rc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(h);
    curl_slist_free_all(hdrs);
    int ret = FDC_EXIT_OK;
    if (s.stopped && status >= 200 && status < 300) {
        if (o->sink_stopped)
            *o->sink_stopped = 1;
        ret = FDC_EXIT_OK;
    } else if (status >= 400 || (status && status < 200)) {
        ret = fdc_fail_http(status, s.err.p, s.err.len);
    } else if (rc != CURLE_OK) {
        if (o->transport_failed)
            *o->transport_failed = 1;
        ret = o->quiet_transport ? FDC_EXIT_UNREACHABLE : fail_transport(c, rc, errbuf);
    }
    free(s.err.p);
    return ret;
}
