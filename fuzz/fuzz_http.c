/* fuzz_http.c — libFuzzer target for fdwaved's HTTP request handling: the daemon's own
 * HTTP side (libmicrohttpd, the connection guard, routing, auth, body limits, uploads,
 * the validators and the group commit, every route's answer) runs in this process on a
 * loopback port with a temporary data directory, authentication off (loopback, no
 * tokens: every request is the admin "local", so the authenticated routes are reached)
 * and no scheduler (accepted jobs stay queued). Each input is sent as raw bytes on a new
 * connection, the writing side is closed, and the answer read until the server closes or
 * falls silent (event streams); ASan/UBSan watch the server's threads. */
#include "auth/admission.h"
#include "auth/sharing.h"
#include "auth/validate.h"
#include "core/app.h"
#include "core/config.h"
#include "core/datadir.h"
#include "core/db.h"
#include "core/log.h"
#include "data/factcache.h"
#include "data/models.h"
#include "events/events.h"
#include "events/sse.h"
#include "http/http.h"
#include "sched/accept.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* libFuzzer's entry points take no user pointer: the in-process daemon's context and the
 * port it bound live here, for the life of the fuzzing process. */
static fdwd_app g_app;
static int g_port;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static char dir[256];
    snprintf(dir, sizeof dir, "/tmp/fdw-fuzz-http-XXXXXX");
    if (!mkdtemp(dir))
        abort();
    char *args[] = {"fdwaved", "--listen", "127.0.0.1:0", "--data", dir, "--devices", "cpu:1",
                    "--head-timeout", "1", "--max-points", "32768", "--max-body", "64K",
                    "--max-model-bytes", "1M", "--log-level", "error", NULL};
    int n = (int)(sizeof args / sizeof args[0]) - 1;
    char err[2048] = "";
    signal(SIGPIPE, SIG_IGN);
    app_init(&g_app);
    if (config_load(&g_app.cfg, n, args, 1, NULL, err, sizeof err)) {
        fprintf(stderr, "fuzz_http: %s\n", err);
        abort();
    }
    log_set_level(g_app.cfg.log_level);
    g_app.loopback = 1;
    g_app.started_ms = now_ms();
    if (datadir_open(&g_app, err, sizeof err) || datadir_allowed(&g_app, err, sizeof err) ||
        app_init_devices(&g_app, err, sizeof err) || models_init(&g_app) ||
        factcache_init(&g_app) || sharing_init(&g_app) ||
        admission_init(&g_app, err, sizeof err)) {
        fprintf(stderr, "fuzz_http: %s\n", err);
        abort();
    }
    g_app.workers = 1;
    if (sse_start(&g_app, 15000, 1000)) {
        fprintf(stderr, "fuzz_http: cannot start the event streams\n");
        abort();
    }
    g_app.notify = (job_notifier){sse_notify_jobs, g_app.sse};
    if (events_start(&g_app) || accept_start(&g_app) || validate_start(&g_app, 1, 64) ||
        http_start(&g_app, err, sizeof err)) {
        fprintf(stderr, "fuzz_http: cannot start: %s\n", err);
        abort();
    }
    g_port = http_port(&g_app);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)g_port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    size_t off = 0;
    while (off < size) {
        struct pollfd p = {.fd = fd, .events = POLLOUT | POLLIN};
        if (poll(&p, 1, 1000) <= 0)
            break;
        if (p.revents & POLLOUT) {
            ssize_t w = send(fd, data + off, size - off, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
                break;
            if (w > 0)
                off += (size_t)w;
        }
        if ((p.revents & POLLIN) && !(p.revents & POLLOUT))
            break; /* answered early (an error) and not reading: stop sending */
    }
    shutdown(fd, SHUT_WR);
    char buf[65536];
    size_t got = 0;
    for (;;) {
        /* Up to 150 ms for the first bytes (a request the server still waits on, e.g. a
         * truncated body, is given up then and cut off by the head deadline later; the
         * next input runs meanwhile), then 20 ms of silence ends an event stream. */
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, got ? 20 : 150) <= 0)
            break;
        ssize_t r = recv(fd, buf, sizeof buf, 0);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    return 0;
}
