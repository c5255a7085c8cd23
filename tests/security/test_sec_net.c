/* test_sec_net.c — the connection and request attacks of issue 15 against a real fdwaved
 * with two users and an admin: a request head dripped a byte at a time (408 and closed
 * at the head deadline), an upload slower than the rate floor (cut off), unauthenticated
 * connections held open (never more than their share; an authenticated client still gets
 * in), a client behind a trusted proxy (counted by X-Forwarded-For; a forged header from
 * an untrusted peer changes nothing), paths that are not UTF-8 (answered), hostile
 * submissions in flight while /v1/health stays fast, partial uploads left by a killed
 * daemon (removed at start-up), path traversal, and tokens. */
#include "sec_util.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void setup(void)
{
    curl_global_init(CURL_GLOBAL_ALL);
    sec_users();
    const char *extra[] = {"--head-timeout", "2", "--body-min-rate", "256K",
                           "--anonymous-connections", "6", "--max-connections-per-ip", "200",
                           NULL};
    sec_start(extra);
}

/* The proxy test's second daemon, stopped here too when an assertion ended that test
 * early (the tests run without fork). */
static daemon_proc P;

static void teardown(void)
{
    if (P.pid > 0) {
        harness_stop(&P);
        harness_rmtree(P.data);
    }
    harness_stop(&SD);
    harness_rmtree(SD.data);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int connect_to(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

/* Read what the server sends until it closes or timeout_ms of silence; returns bytes. */
static size_t read_all(int fd, char *buf, size_t cap, int timeout_ms)
{
    size_t got = 0;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, timeout_ms) <= 0)
            break;
        ssize_t r = recv(fd, buf + got, cap - 1 - got, 0);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    buf[got] = '\0';
    return got;
}

/* Whether the server closed fd (a read returns 0 or an error without blocking long). */
static int is_closed(int fd, int timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, timeout_ms) <= 0)
        return 0;
    char c[4096];
    ssize_t r;
    while ((r = recv(fd, c, sizeof c, MSG_DONTWAIT)) > 0)
        ;
    return r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

START_TEST(dripped_head_is_cut_off)
{
    int fd = connect_to(SD.port);
    const char *head = "GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: ";
    double t0 = now_s();
    int closed = 0;
    char buf[4096] = "";
    for (const char *p = head; !closed && now_s() - t0 < 8; p = *p ? p + 1 : p) {
        if (send(fd, *p ? p : "a", 1, MSG_NOSIGNAL) < 0) {
            closed = 1;
            break;
        }
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        if (poll(&pf, 1, 300) > 0) {
            read_all(fd, buf, sizeof buf, 500);
            closed = 1;
        }
    }
    double took = now_s() - t0;
    close(fd);
    ck_assert_msg(closed, "a dripped head was still open after %.1f s", took);
    ck_assert_msg(took < 4.5, "cut off after %.1f s; the head deadline is 2 s", took);
    ck_assert_msg(strstr(buf, "408"), "answer: %s", buf);
}
END_TEST

START_TEST(slow_body_is_cut_off)
{
    int fd = connect_to(SD.port);
    char head[512];
    int hl = snprintf(head, sizeof head,
                      "PUT /v1/models/slow.f32 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                      "Content-Length: 4000000\r\n\r\n",
                      TOK_ALICE);
    ck_assert_int_eq(send(fd, head, (size_t)hl, MSG_NOSIGNAL), hl);
    double t0 = now_s();
    int closed = 0;
    char chunk[1024];
    memset(chunk, 0, sizeof chunk);
    while (!closed && now_s() - t0 < 10) {
        if (send(fd, chunk, sizeof chunk, MSG_NOSIGNAL) < 0)
            closed = 1;
        else
            closed = is_closed(fd, 200);
    }
    double took = now_s() - t0;
    close(fd);
    ck_assert_msg(closed, "a 5 KB/s upload was still open after %.1f s", took);
    ck_assert_msg(took < 5, "cut off after %.1f s", took);
    /* nothing of it is left under models/. The reaper shuts the socket down and MHD then
     * completes the request, which removes the partial file: the client can see the close
     * first, so wait for the removal (bounded) rather than expect it at once. */
    char cmd[700];
    snprintf(cmd, sizeof cmd, "ls -A %s/models | grep -q .", SD.data);
    int left = 1;
    for (double t1 = now_s(); left && now_s() - t1 < 10; ) {
        left = system(cmd) == 0;
        if (left)
            usleep(20000);
    }
    ck_assert_msg(!left, "the partial upload was still under models/ 10 s after the cut");
}
END_TEST

START_TEST(anonymous_connections_have_a_share)
{
    enum { N = 20 };
    int fds[N];
    for (int i = 0; i < N; i++) {
        fds[i] = connect_to(SD.port);
        usleep(20000);
    }
    usleep(1600000); /* past the second a new connection has to send its head */
    int open = 0;
    for (int i = 0; i < N; i++)
        open += !is_closed(fds[i], 50);
    ck_assert_msg(open <= 6, "%d idle unauthenticated connections stay open (share 6)", open);
    /* a user still gets in */
    http_resp r;
    ck_assert_int_eq(sec_as(TOK_ALICE, "GET", "/v1/jobs", NULL, 0, NULL, &r), 200);
    http_free(&r);
    for (int i = 0; i < N; i++)
        close(fds[i]);
}
END_TEST

/* A raw request; returns the status line's code (0: no answer). */
static long raw_status(const char *request)
{
    int fd = connect_to(SD.port);
    send(fd, request, strlen(request), MSG_NOSIGNAL);
    char buf[8192];
    read_all(fd, buf, sizeof buf, 3000);
    close(fd);
    long st = 0;
    sscanf(buf, "HTTP/1.1 %ld", &st);
    const char *body = strstr(buf, "\r\n\r\n");
    if (st >= 400) {
        json_error_t e;
        json_t *j = body ? json_loads(body + 4, 0, &e) : NULL;
        ck_assert_msg(j && json_object_get(j, "error"), "no JSON error body: %s", buf);
        json_decref(j);
    }
    return st;
}

START_TEST(paths_that_are_not_utf8_are_answered)
{
    ck_assert_int_eq(raw_status("GET /v1/jobs/%ff HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 404);
    ck_assert_int_eq(raw_status("GET /%ff%fe%c0%80 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 404);
    char req[512];
    snprintf(req, sizeof req,
             "DELETE /v1/models/%%ff.f32 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
             "Connection: close\r\n\r\n",
             TOK_ALICE);
    ck_assert_int_eq(raw_status(req), 405);
    snprintf(req, sizeof req,
             "PUT /v1/models/%%ff.f32 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
             "Content-Length: 4\r\nConnection: close\r\n\r\nabcd",
             TOK_ALICE);
    ck_assert_int_eq(raw_status(req), 400);
}
END_TEST

START_TEST(traversal_and_tokens)
{
    http_resp r;
    /* no token, a wrong token, a token in the query */
    ck_assert_int_eq(sec_as(NULL, "GET", "/v1/jobs", NULL, 0, NULL, &r), 401);
    http_free(&r);
    ck_assert_int_eq(sec_as("fdw_0000", "GET", "/v1/jobs", NULL, 0, NULL, &r), 401);
    http_free(&r);
    ck_assert_int_eq(sec_as(NULL, "GET", "/v1/jobs?access_token=nonsense", NULL, 0, NULL, &r),
                     401);
    http_free(&r);
    /* alice's job is invisible to bob, by header and by query token */
    char spec[2048];
    sec_spec(spec, sizeof spec, "{\"type\":\"constant\",\"value\":1500}", NULL);
    ck_assert_int_eq(sec_as(TOK_ALICE, "POST", "/v1/jobs", spec, strlen(spec), NULL, &r), 201);
    json_t *j = http_json(&r);
    long id = (long)json_integer_value(json_object_get(j, "id"));
    json_decref(j);
    http_free(&r);
    char path[256];
    snprintf(path, sizeof path, "/v1/jobs/%ld", id);
    ck_assert_int_eq(sec_as(TOK_BOB, "GET", path, NULL, 0, NULL, &r), 404);
    http_free(&r);
    snprintf(path, sizeof path, "/v1/jobs/%ld?access_token=%s", id, TOK_BOB);
    ck_assert_int_eq(sec_as(NULL, "GET", path, NULL, 0, NULL, &r), 404);
    http_free(&r);
    ck_assert_str_eq(wait_done(&SD, id, 60, TOK_ALICE), "succeeded");
    snprintf(path, sizeof path, "/v1/jobs/%ld/outputs/manifest.json", id);
    ck_assert_int_eq(sec_as(TOK_BOB, "GET", path, NULL, 0, NULL, &r), 404);
    http_free(&r);
    /* traversal through output names, model names and static files */
    snprintf(path, sizeof path, "/v1/jobs/%ld/outputs/..%%2F..%%2Ffdwave.db", id);
    long st = sec_as(TOK_ALICE, "GET", path, NULL, 0, NULL, &r);
    ck_assert_msg(st == 404 || st == 400, "%ld", st);
    http_free(&r);
    st = sec_as(TOK_ALICE, "PUT", "/v1/models/..%2F..%2Fetc%2Fpasswd.f32", "abcd", 4, NULL, &r);
    ck_assert_int_eq(st, 400);
    http_free(&r);
    st = sec_as(NULL, "GET", "/..%2Ffdwave.db", NULL, 0, NULL, &r);
    ck_assert_msg(st == 404 || st == 400, "%ld", st);
    ck_assert_ptr_null(strstr(r.body ? r.body : "", "SQLite"));
    http_free(&r);
}
END_TEST

/* ---- hostile submissions and GET /v1/health ------------------------------------------ */

typedef struct hostile {
    int n;                   /* submissions this thread sends */
    int unexpected;          /* answers other than 400 (refused) or 503 (queue full) */
    int done;
} hostile;

/* The costliest spec the caps let through to expansion: 90000 receivers on a plane
 * (under --max-receivers 100000), expanded and checked, then refused on a bad field
 * parsed after them; and the 10^7 receivers on one line, refused on the count. */
static const char *HOSTILE_SPECS[2] = {
    "{\"grid\":{\"nx\":300,\"ny\":300,\"nz\":300,\"dx\":10,\"dy\":10,\"dz\":10},"
    "\"order\":4,\"velocity\":{\"type\":\"constant\",\"value\":1500},\"time\":{\"nt\":1000},"
    "\"sources\":[{\"position\":[80,80,80],\"wavelet\":{\"type\":\"ricker\",\"f0\":1}}],"
    "\"receivers\":{\"planes\":[{\"axis\":\"z\",\"position\":1000}]},"
    "\"snapshots\":{\"every\":-1}}",
    "{\"grid\":{\"nx\":400,\"ny\":400,\"nz\":400,\"dx\":10,\"dy\":10,\"dz\":10},"
    "\"order\":4,\"velocity\":{\"type\":\"constant\",\"value\":1500},\"time\":{\"nt\":1000},"
    "\"sources\":[{\"position\":[80,80,80],\"wavelet\":{\"type\":\"ricker\",\"f0\":1}}],"
    "\"receivers\":{\"lines\":[{\"from\":[0,0,0],\"to\":[3990,3990,3990],"
    "\"count\":10000000}]}}"};

static void *hostile_main(void *arg)
{
    hostile *h = arg;
    for (int i = 0; i < h->n; i++) {
        http_resp r;
        const char *spec = HOSTILE_SPECS[i % 2];
        sec_as(TOK_BOB, "POST", "/v1/jobs", spec, strlen(spec), NULL, &r);
        if (r.status != 400 && r.status != 503)
            h->unexpected++;
        http_free(&r);
    }
    h->done = 1;
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

START_TEST(health_stays_fast_under_hostile_submits)
{
    enum { THREADS = 64, EACH = 4, PROBES = 200 };
    pthread_t t[THREADS];
    hostile h[THREADS];
    for (int i = 0; i < THREADS; i++) {
        h[i] = (hostile){.n = EACH};
        pthread_create(&t[i], NULL, hostile_main, &h[i]);
    }
    double lat[PROBES];
    int failed = 0; /* asserted after the join: the threads use this frame's memory */
    for (int i = 0; i < PROBES; i++) {
        http_resp r;
        double t0 = now_s();
        failed += sec_as(NULL, "GET", "/v1/health", NULL, 0, NULL, &r) != 200;
        lat[i] = (now_s() - t0) * 1e3;
        http_free(&r);
        usleep(5000);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    ck_assert_msg(failed == 0, "%d of %d health probes got no 200", failed, PROBES);
    for (int i = 0; i < THREADS; i++)
        ck_assert_msg(h[i].unexpected == 0, "a hostile spec was not refused");
    qsort(lat, PROBES, sizeof lat[0], cmp_double);
    double p99 = lat[(int)(PROBES * 0.99) - 1];
    printf("health under %d hostile submitters: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
           THREADS, lat[PROBES / 2], p99, lat[PROBES - 1]);
    /* The target is 20 ms (bench/security/health_under_load.sh measures it); a
     * loaded CI machine gets some slack here. */
    ck_assert_msg(p99 < 100, "GET /v1/health p99 %.1f ms under hostile submits", p99);
}
END_TEST

/* ---- a trusted proxy and X-Forwarded-For ---------------------------------------------- */

START_TEST(proxy_clients_counted_by_forwarded_address)
{
    memset(&P, 0, sizeof P);
    harness_tmpdir(P.data, sizeof P.data);
    /* the test connects from 127.0.0.1, which plays the proxy */
    const char *extra[] = {"--trusted-proxy", "127.0.0.1", "--max-requests-per-client", "2",
                           "--max-connections-per-ip", "2", NULL};
    ck_assert_int_eq(harness_start(&P, extra), 0);
    /* two requests in flight for client 10.0.0.1: bodies still arriving */
    int fds[3];
    const char *req0 = "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 10.0.0.1\r\n"
                       "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"gr";
    for (int i = 0; i < 2; i++) {
        fds[i] = connect_to(P.port); /* more connections than the per-IP limit: a proxy */
        send(fds[i], req0, strlen(req0), MSG_NOSIGNAL);
    }
    usleep(300000);
    char req[512];
    /* a third request of that client is refused; another client's is served */
    fds[2] = connect_to(P.port);
    snprintf(req, sizeof req,
             "GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 10.0.0.1\r\n"
             "Connection: close\r\n\r\n");
    send(fds[2], req, strlen(req), MSG_NOSIGNAL);
    char buf[4096];
    read_all(fds[2], buf, sizeof buf, 2000);
    close(fds[2]);
    ck_assert_msg(strstr(buf, " 429 "), "answer: %.200s", buf);
    int fd = connect_to(P.port);
    snprintf(req, sizeof req,
             "GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 10.9.9.9, 10.0.0.2\r\n"
             "Connection: close\r\n\r\n");
    send(fd, req, strlen(req), MSG_NOSIGNAL);
    read_all(fd, buf, sizeof buf, 2000);
    close(fd);
    ck_assert_msg(strstr(buf, " 200 "), "answer: %.200s", buf);
    close(fds[0]);
    close(fds[1]);
    harness_stop(&P);
    harness_rmtree(P.data);
    P.pid = 0;
    /* on the main daemon (no trusted proxy) a forged header is ignored: the per-address
     * limit still counts the peer */
    ck_assert_int_eq(raw_status("GET /v1/health HTTP/1.1\r\nHost: x\r\n"
                                "X-Forwarded-For: 10.0.0.7\r\nConnection: close\r\n\r\n"),
                     200);
}
END_TEST

/* ---- partial uploads ------------------------------------------------------------------- */

START_TEST(partial_uploads_removed_at_start)
{
    /* an upload in progress when the daemon is killed leaves its temporary file */
    int fd = connect_to(SD.port);
    char head[512];
    int hl = snprintf(head, sizeof head,
                      "PUT /v1/models/big.f32 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                      "Content-Length: 1000000\r\n\r\n",
                      TOK_ALICE);
    send(fd, head, (size_t)hl, MSG_NOSIGNAL);
    char chunk[65536];
    memset(chunk, 0, sizeof chunk);
    send(fd, chunk, sizeof chunk, MSG_NOSIGNAL);
    usleep(300000);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "ls -A %s/models | grep -q '^\\.upload-'", SD.data);
    ck_assert_int_eq(system(cmd), 0);
    harness_kill9(&SD);
    close(fd);
    ck_assert_int_eq(system(cmd), 0); /* still there */
    sec_start(NULL);
    ck_assert_int_ne(system(cmd), 0); /* removed at start-up */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("security_net");
    TCase *tc = tcase_create("net");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 90);
    tcase_add_test(tc, dripped_head_is_cut_off);
    tcase_add_test(tc, slow_body_is_cut_off);
    tcase_add_test(tc, anonymous_connections_have_a_share);
    tcase_add_test(tc, paths_that_are_not_utf8_are_answered);
    tcase_add_test(tc, traversal_and_tokens);
    tcase_add_test(tc, health_stays_fast_under_hostile_submits);
    tcase_add_test(tc, proxy_clients_counted_by_forwarded_address);
    tcase_add_test(tc, partial_uploads_removed_at_start);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK); /* the tests share one daemon, restarted once */
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
