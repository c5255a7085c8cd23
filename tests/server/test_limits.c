/* test_limits.c — the connection limits fdwaved sets explicitly, driven with raw
 * sockets: a client over the per-IP connection limit is refused (its connection is
 * closed without an answer) while the others keep working, and an idle connection is
 * closed after --connection-timeout. */
#include "harness.h"

#include <arpa/inet.h>
#include <check.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static daemon_proc D;

static void setup(void)
{
    curl_global_init(CURL_GLOBAL_ALL);
    harness_tmpdir(D.data, sizeof D.data);
    const char *extra[] = {"--max-connections-per-ip", "4", "--connection-timeout", "2", NULL};
    if (harness_start(&D, extra) != 0)
        abort();
}

static void teardown(void)
{
    harness_stop(&D);
    harness_rmtree(D.data);
}

static int connect_raw(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)D.port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

/* Send a GET on fd and read the answer; returns bytes read (0: closed unanswered). */
static ssize_t get_on(int fd, char *buf, size_t cap)
{
    const char *req = "GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0)
        return 0;
    size_t got = 0;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 3000) <= 0)
            break;
        ssize_t r = recv(fd, buf + got, cap - 1 - got, 0);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    buf[got] = '\0';
    return (ssize_t)got;
}

START_TEST(per_ip_limit)
{
    int held[4];
    for (int i = 0; i < 4; i++)
        held[i] = connect_raw();
    usleep(200000);
    char buf[4096];
    int extra = connect_raw(); /* the fifth from this address */
    ck_assert_int_eq(get_on(extra, buf, sizeof buf), 0);
    close(extra);
    /* the held ones still work */
    ck_assert(get_on(held[0], buf, sizeof buf) > 0);
    ck_assert_ptr_nonnull(strstr(buf, "200 OK"));
    for (int i = 0; i < 4; i++)
        close(held[i]);
    usleep(200000);
    /* with them closed, new connections are served again */
    int again = connect_raw();
    ck_assert(get_on(again, buf, sizeof buf) > 0);
    close(again);
}
END_TEST

START_TEST(idle_timeout)
{
    int fd = connect_raw();
    /* Say nothing: the server drops the connection after about two seconds. */
    struct pollfd p = {.fd = fd, .events = POLLIN};
    ck_assert_int_eq(poll(&p, 1, 6000), 1);
    char c;
    ck_assert_int_eq(recv(fd, &c, 1, 0), 0);
    close(fd);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("server_limits");
    TCase *tc = tcase_create("limits");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, per_ip_limit);
    tcase_add_test(tc, idle_timeout);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
