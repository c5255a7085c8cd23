/* harness.c — see harness.h. The daemon path comes from the FDWAVED compile definition
 * (the built target). */
#include "harness.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void harness_tmpdir(char *out, size_t cap)
{
    snprintf(out, cap, "/tmp/fdwd-test-XXXXXX");
    if (!mkdtemp(out))
        out[0] = '\0';
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(p);
}

void harness_rmtree(const char *dir)
{
    if (dir && dir[0])
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int harness_start(daemon_proc *d, const char *const *extra)
{
    snprintf(d->log, sizeof d->log, "%s/daemon.log", d->data);
    int logfd = open(d->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (logfd < 0)
        return -1;
    off_t start = lseek(logfd, 0, SEEK_END);
    const char *argv[96];
    int n = 0;
    for (int i = 0; d->wrapper && d->wrapper[i] && n < 32; i++)
        argv[n++] = d->wrapper[i];
    argv[n++] = FDWAVED;
    argv[n++] = "--listen";
    argv[n++] = "127.0.0.1:0";
    argv[n++] = "--data";
    argv[n++] = d->data;
    argv[n++] = "--devices";
    argv[n++] = "cpu:4";
    for (int i = 0; extra && extra[i] && n < 94; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(logfd, 2);
        int devnull = open("/dev/null", O_RDWR);
        dup2(devnull, 0);
        dup2(devnull, 1);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(logfd);
    d->pid = pid;
    d->port = 0;
    for (int tries = 0; tries < 200; tries++) {
        FILE *f = fopen(d->log, "r");
        if (f) {
            fseek(f, start, SEEK_SET);
            char line[1024];
            while (fgets(line, sizeof line, f)) {
                char *p = strstr(line, "listening on http://127.0.0.1:");
                if (p)
                    d->port = atoi(p + strlen("listening on http://127.0.0.1:"));
            }
            fclose(f);
        }
        if (d->port > 0) {
            snprintf(d->base, sizeof d->base, "http://127.0.0.1:%d", d->port);
            return 0;
        }
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            d->pid = 0;
            return -1;
        }
        usleep(50000);
    }
    return -1;
}

int harness_stop(daemon_proc *d)
{
    if (d->pid <= 0)
        return -1;
    kill(d->pid, SIGTERM);
    int st = 0;
    for (int i = 0; i < 300; i++) { /* 30 s */
        if (waitpid(d->pid, &st, WNOHANG) == d->pid) {
            d->pid = 0;
            return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        }
        usleep(100000);
    }
    kill(d->pid, SIGKILL);
    waitpid(d->pid, &st, 0);
    d->pid = 0;
    return -1;
}

void harness_kill9(daemon_proc *d)
{
    if (d->pid <= 0)
        return;
    kill(d->pid, SIGKILL);
    int st;
    waitpid(d->pid, &st, 0);
    d->pid = 0;
}

int harness_run_cli(const char *const *args, char *out, size_t cap)
{
    int fds[2];
    if (pipe(fds))
        return -1;
    const char *argv[32];
    int n = 0;
    argv[n++] = FDWAVED;
    for (int i = 0; args[i] && n < 31; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        execv(FDWAVED, (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    size_t len = 0;
    ssize_t r;
    while (len + 1 < cap && (r = read(fds[0], out + len, cap - 1 - len)) > 0)
        len += (size_t)r;
    out[len] = '\0';
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

long http_timeout_ms = 60000;

static size_t on_body(char *p, size_t sz, size_t n, void *u)
{
    http_resp *r = u;
    size_t add = sz * n;
    char *b = realloc(r->body, r->len + add + 1);
    if (!b)
        return 0;
    memcpy(b + r->len, p, add);
    r->body = b;
    r->len += add;
    r->body[r->len] = '\0';
    return add;
}

static size_t on_header(char *p, size_t sz, size_t n, void *u)
{
    http_resp *r = u;
    size_t add = sz * n, have = strlen(r->headers);
    if (have + add < sizeof r->headers) {
        memcpy(r->headers + have, p, add);
        r->headers[have + add] = '\0';
    }
    return add;
}

int http(const daemon_proc *d, const char *method, const char *path, const char *const *headers,
         const char *body, size_t len, http_resp *r)
{
    memset(r, 0, sizeof *r);
    CURL *c = curl_easy_init();
    if (!c)
        return -1;
    char url[2048];
    snprintf(url, sizeof url, "%s%s", d->base, path);
    struct curl_slist *h = NULL;
    for (int i = 0; headers && headers[i]; i++)
        h = curl_slist_append(h, headers[i]);
    h = curl_slist_append(h, "Expect:");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, http_timeout_ms);
    curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    if (!strcmp(method, "HEAD"))
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    }
    CURLcode rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    if (!r->body) {
        r->body = calloc(1, 1);
    }
    return rc == CURLE_OK ? 0 : -1;
}

void http_free(http_resp *r)
{
    free(r->body);
    r->body = NULL;
}

json_t *http_json(const http_resp *r) { return r->body ? json_loads(r->body, 0, NULL) : NULL; }

int header_value(const http_resp *r, const char *name, char *out, size_t cap)
{
    size_t nl = strlen(name);
    for (const char *p = r->headers; *p;) {
        const char *eol = strchr(p, '\n');
        if (!eol)
            eol = p + strlen(p);
        if ((size_t)(eol - p) > nl && !strncasecmp(p, name, nl) && p[nl] == ':') {
            const char *v = p + nl + 1;
            while (*v == ' ')
                v++;
            size_t vl = (size_t)(eol - v);
            while (vl && (v[vl - 1] == '\r' || v[vl - 1] == ' '))
                vl--;
            snprintf(out, cap, "%.*s", (int)vl, v);
            return 0;
        }
        p = *eol ? eol + 1 : eol;
    }
    return -1;
}

long submit(const daemon_proc *d, const char *spec, const char *const *headers, long *status)
{
    const char *h[16];
    int n = 0;
    h[n++] = "Content-Type: application/json";
    for (int i = 0; headers && headers[i] && n < 15; i++)
        h[n++] = headers[i];
    h[n] = NULL;
    http_resp r;
    long id = -1;
    if (http(d, "POST", "/v1/jobs", h, spec, strlen(spec), &r) == 0) {
        json_t *j = http_json(&r);
        if (j && (r.status == 201 || r.status == 200))
            id = (long)json_integer_value(json_object_get(j, "id"));
        json_decref(j);
    }
    if (status)
        *status = r.status;
    http_free(&r);
    return id;
}

const char *wait_done(const daemon_proc *d, long id, double timeout_s, const char *token)
{
    static const char *const terminal[] = {"succeeded", "failed", "cancelled"};
    char path[64], auth[256];
    snprintf(path, sizeof path, "/v1/jobs/%ld", id);
    const char *h[2] = {NULL, NULL};
    if (token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        h[0] = auth;
    }
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        http_resp r;
        const char *found = NULL;
        if (http(d, "GET", path, h, NULL, 0, &r) == 0) {
            json_t *j = http_json(&r);
            const char *s = json_string_value(json_object_get(j, "state"));
            for (int i = 0; s && i < 3; i++)
                if (!strcmp(s, terminal[i]))
                    found = terminal[i];
            json_decref(j);
        }
        http_free(&r);
        if (found)
            return found;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) > timeout_s)
            return "timeout";
        usleep(50000);
    }
}

typedef struct stream_read {
    http_resp r;
    const char *needle;
    int found;
} stream_read;

static size_t on_stream(char *p, size_t sz, size_t n, void *u)
{
    stream_read *s = u;
    size_t got = on_body(p, sz, n, &s->r);
    s->found = s->found || (s->r.body && strstr(s->r.body, s->needle));
    return s->found ? 0 : got; /* 0 ends the transfer */
}

char *events_until(const daemon_proc *d, long id, const char *token, const char *needle,
                   double timeout_s)
{
    CURL *c = curl_easy_init();
    if (!c)
        return NULL;
    char url[256], auth[256];
    snprintf(url, sizeof url, "%s/v1/jobs/%ld/events", d->base, id);
    struct curl_slist *h = curl_slist_append(NULL, "Accept: text/event-stream");
    if (token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        h = curl_slist_append(h, auth);
    }
    stream_read s = {.needle = needle};
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_stream);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(timeout_s * 1000));
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_perform(c);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    if (!s.found) {
        fprintf(stderr, "events of job %ld: no \"%s\" in:\n%s\n", id, needle,
                s.r.body ? s.r.body : "");
        free(s.r.body);
        return NULL;
    }
    return s.r.body;
}

void small_spec(char *buf, size_t cap, int n, int nt, int snap, int devices)
{
    double h = 10, L = (n - 1) * h, c = L / 2;
    snprintf(buf, cap,
             "{\"kind\":\"acoustic\",\"name\":\"test %d^3\","
             "\"grid\":{\"nx\":%d,\"ny\":%d,\"nz\":%d,\"dx\":10,\"dy\":10,\"dz\":10},"
             "\"order\":4,\"velocity\":{\"type\":\"constant\",\"value\":2000},"
             "\"time\":{\"nt\":%d,\"dt\":\"auto\"},"
             "\"sources\":[{\"position\":[%g,%g,%g],\"wavelet\":{\"type\":\"ricker\",\"f0\":25}}],"
             "\"receivers\":{\"lines\":[{\"from\":[%g,%g,%g],\"to\":[%g,%g,%g],\"count\":5}]},"
             "\"boundary\":{\"type\":\"sponge\",\"width\":4},"
             "\"snapshots\":{\"every\":%d,\"slices\":[{\"plane\":\"xy\",\"index\":%d}],"
             "\"png\":true,\"raw\":true},"
             "\"devices\":%d}",
             n, n, n, n, nt, c, c, c, 6 * h, c, c / 2, L - 6 * h, c, c / 2, snap, n / 2, devices);
}

void harness_add_token(const daemon_proc *d, const char *name, int admin, char *out)
{
    char buf[512];
    const char *args[] = {"token", "add", name, "--data", d->data, admin ? "--admin" : NULL,
                          NULL};
    int rc = harness_run_cli(args, buf, sizeof buf);
    if (rc != 0 || strncmp(buf, "fdw_", 4) != 0) {
        fprintf(stderr, "token add %s failed (%d): %s\n", name, rc, buf);
        abort();
    }
    buf[strcspn(buf, "\n")] = '\0';
    snprintf(out, 128, "%.100s", buf);
}
