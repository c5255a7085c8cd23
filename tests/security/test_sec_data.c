/* test_sec_data.c — the data-access attacks of issue 15 against a real fdwaved with two
 * users and an admin: bob reaching alice's private model by name, by velocity.path
 * (relative, absolute, through a symbolic link in a shared directory), as a wavelet file
 * and through an RSF header's in=; the existence oracle (a server path outside the
 * user's reach gets one message whether or not it exists); model ownership (create once,
 * explicit replace by the owner, 409 for another user, an admin's replace keeps the
 * owner, a racing upload cannot take a name); an admin's job on a user's model runs
 * (the worker re-checks with the submitter's rights); priorities above the default are
 * an admin's; a derived dt of 0, a 10^7-receiver spec and a grid beyond the devices'
 * memory are refused naming the field. */
#include "sec_util.h"

#include <arpa/inet.h>
#include <check.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char shared[512]; /* the --allow-dir every user may read */

static void setup(void)
{
    curl_global_init(CURL_GLOBAL_ALL);
    sec_users();
    harness_tmpdir(shared, sizeof shared);
    const char *extra[] = {"--allow-dir", shared, "--max-receivers", "1000", NULL};
    sec_start(extra);
    ck_assert_int_eq(sec_upload(TOK_ALICE, "alice.f32", "", 16, 1500.0f), 201);
}

static void teardown(void)
{
    harness_stop(&SD);
    harness_rmtree(SD.data);
    harness_rmtree(shared);
}

/* Submit spec as token; returns the status and copies the error's field and message. */
static long submit_as(const char *token, const char *query, const char *spec, char *field,
                      char *message, size_t cap)
{
    char path[128];
    snprintf(path, sizeof path, "/v1/jobs%s", query ? query : "");
    http_resp r;
    long st = sec_as(token, "POST", path, spec, strlen(spec), NULL, &r);
    char code[256];
    field[0] = message[0] = '\0';
    if (st >= 400)
        sec_error(&r, code, field, message, cap);
    http_free(&r);
    return st;
}

/* bob's spec with velocity (and wavelet) must be refused on field with the one refusal;
 * returns the message with the path as written replaced by "<P>", for comparisons. */
static void refused(const char *velocity, const char *wavelet, const char *field,
                    const char *written, char *shape, size_t cap)
{
    char spec[2048], f[512], m[1024];
    sec_spec(spec, sizeof spec, velocity, wavelet);
    long st = submit_as(TOK_BOB, NULL, spec, f, m, sizeof m);
    ck_assert_msg(st == 400, "bob's spec with %s: %ld %s", velocity, st, m);
    ck_assert_msg(strcmp(f, field) == 0, "field %s, want %s (%s)", f, field, m);
    ck_assert_msg(strstr(m, "is not a file this job may read"), "message: %s", m);
    ck_assert_msg(!strstr(m, SD.data) || strstr(written, SD.data),
                  "the message shows the server's data directory: %s", m);
    if (shape) {
        const char *at = strstr(m, written);
        ck_assert_msg(at != NULL, "message %s lacks the path %s", m, written);
        snprintf(shape, cap, "%.*s<P>%s", (int)(at - m), m, at + strlen(written));
    }
}

START_TEST(private_model_unreachable)
{
    char spec[2048], f[512], m[1024], v[1200];
    /* by name */
    sec_spec(spec, sizeof spec, "{\"type\":\"model\",\"name\":\"alice.f32\"}", NULL);
    ck_assert_int_eq(submit_as(TOK_BOB, NULL, spec, f, m, sizeof m), 400);
    ck_assert_str_eq(f, "velocity.name");
    /* by path: relative to the models directory, absolute, through ../ */
    refused("{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"alice.f32\"}", NULL,
            "velocity.path", "alice.f32", NULL, 0);
    char abs[700];
    snprintf(abs, sizeof abs, "%s/models/alice.f32", SD.data);
    snprintf(v, sizeof v, "{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"%s\"}", abs);
    refused(v, NULL, "velocity.path", abs, NULL, 0);
    refused("{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"../models/alice.f32\"}", NULL,
            "velocity.path", "alice.f32", NULL, 0);
    /* the database and the partial uploads are nobody's files */
    refused("{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"../fdwave.db\"}", NULL,
            "velocity.path", "fdwave.db", NULL, 0);
    /* as bob's source wavelet */
    refused("{\"type\":\"constant\",\"value\":1500}",
            "{\"type\":\"file\",\"path\":\"alice.f32\"}", "sources[0].wavelet.path",
            "alice.f32", NULL, 0);
    /* through a symbolic link in the shared directory */
    char link[700];
    snprintf(link, sizeof link, "%s/models", shared);
    char target[700];
    snprintf(target, sizeof target, "%s/models", SD.data);
    ck_assert_int_eq(symlink(target, link), 0);
    snprintf(v, sizeof v, "{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"%s/models/alice.f32\"}",
             shared);
    refused(v, NULL, "velocity.path", "alice.f32", NULL, 0);
    /* through an RSF header in the shared directory whose in= names her file */
    char hdr[700];
    snprintf(hdr, sizeof hdr, "%s/evil.rsf", shared);
    FILE *h = fopen(hdr, "w");
    ck_assert_ptr_nonnull(h);
    fprintf(h, "n1=16 n2=16 n3=16 d1=10 d2=10 d3=10 data_format=native_float esize=4\n"
               "in=\"models/alice.f32\"\n");
    fclose(h);
    snprintf(v, sizeof v, "{\"type\":\"file\",\"format\":\"rsf\",\"path\":\"%s\"}", hdr);
    sec_spec(spec, sizeof spec, v, NULL);
    ck_assert_int_eq(submit_as(TOK_BOB, NULL, spec, f, m, sizeof m), 400);
    ck_assert_str_eq(f, "velocity.path");
    /* ... and alice may use her own model by name, by path and as a wavelet */
    sec_spec(spec, sizeof spec, "{\"type\":\"model\",\"name\":\"alice.f32\"}", NULL);
    ck_assert_int_eq(submit_as(TOK_ALICE, NULL, spec, f, m, sizeof m), 201);
    sec_spec(spec, sizeof spec,
             "{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"alice.f32\"}", NULL);
    ck_assert_int_eq(submit_as(TOK_ALICE, NULL, spec, f, m, sizeof m), 201);
    sec_spec(spec, sizeof spec, "{\"type\":\"constant\",\"value\":1500}",
             "{\"type\":\"file\",\"path\":\"alice.f32\"}");
    ck_assert_msg(submit_as(TOK_ALICE, NULL, spec, f, m, sizeof m) == 201, "%s", m);
    /* bob does not see her model listed */
    http_resp r;
    ck_assert_int_eq(sec_as(TOK_BOB, "GET", "/v1/models", NULL, 0, NULL, &r), 200);
    ck_assert_ptr_null(strstr(r.body, "alice.f32"));
    http_free(&r);
}
END_TEST

START_TEST(no_existence_oracle)
{
    /* A shared file bob may read is accepted; a server path outside his reach gets the
     * same message whether or not it exists. */
    char path[700], v[1200], spec[2048], f[512], m[1024];
    snprintf(path, sizeof path, "%s/shared.f32", shared);
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    for (int i = 0; i < 16 * 16 * 16; i++) {
        float x = 2000.0f;
        fwrite(&x, 4, 1, fp);
    }
    fclose(fp);
    snprintf(v, sizeof v, "{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"%s\"}", path);
    sec_spec(spec, sizeof spec, v, NULL);
    ck_assert_msg(submit_as(TOK_BOB, NULL, spec, f, m, sizeof m) == 201, "%s", m);
    char a[1024], b[1024], c[1024], d[1024];
    refused("{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"/etc/passwd\"}", NULL,
            "velocity.path", "/etc/passwd", a, sizeof a);
    refused("{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"/etc/no-such-file-here\"}",
            NULL, "velocity.path", "/etc/no-such-file-here", b, sizeof b);
    ck_assert_str_eq(a, b);
    /* inside the shared directory too: a missing file and a directory read the same */
    snprintf(v, sizeof v, "{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"%s/none.f32\"}",
             shared);
    refused(v, NULL, "velocity.path", "none.f32", c, sizeof c);
    snprintf(v, sizeof v, "{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"%s/.\"}", shared);
    refused(v, NULL, "velocity.path", "/.", d, sizeof d);
    /* and an existing model of alice's reads like a missing name */
    refused("{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"alice.f32\"}", NULL,
            "velocity.path", "alice.f32", a, sizeof a);
    refused("{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"nobody.f32\"}", NULL,
            "velocity.path", "nobody.f32", b, sizeof b);
    ck_assert_str_eq(a, b);
}
END_TEST

/* The owner GET /v1/models shows for name (as root, who sees all), copied into out. */
static void owner_of(const char *name, char *out, size_t cap)
{
    http_resp r;
    ck_assert_int_eq(sec_as(TOK_ROOT, "GET", "/v1/models", NULL, 0, NULL, &r), 200);
    json_t *j = http_json(&r);
    http_free(&r);
    out[0] = '\0';
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(j, "models"), i, m) {
        if (!strcmp(json_string_value(json_object_get(m, "name")), name))
            snprintf(out, cap, "%s", json_string_value(json_object_get(m, "owner")));
    }
    json_decref(j);
}

START_TEST(ownership_never_moves)
{
    char owner[128];
    ck_assert_int_eq(sec_upload(TOK_ALICE, "m.f32", "", 16, 1600.0f), 201);
    ck_assert_int_eq(sec_upload(TOK_BOB, "m.f32", "", 16, 1700.0f), 409);
    ck_assert_int_eq(sec_upload(TOK_BOB, "m.f32", "?replace=true", 16, 1700.0f), 409);
    /* the owner's plain re-upload is a conflict; an explicit replace is not */
    ck_assert_int_eq(sec_upload(TOK_ALICE, "m.f32", "", 16, 1650.0f), 409);
    ck_assert_int_eq(sec_upload(TOK_ALICE, "m.f32", "?replace=true", 16, 1650.0f), 201);
    owner_of("m.f32", owner, sizeof owner);
    ck_assert_str_eq(owner, "alice");
    /* an admin's replace keeps alice the owner, and her jobs keep running on it */
    ck_assert_int_eq(sec_upload(TOK_ROOT, "m.f32", "?replace=true", 16, 1660.0f), 201);
    owner_of("m.f32", owner, sizeof owner);
    ck_assert_str_eq(owner, "alice");
    char spec[2048], f[512], m[1024];
    sec_spec(spec, sizeof spec, "{\"type\":\"model\",\"name\":\"m.f32\"}", NULL);
    ck_assert_int_eq(submit_as(TOK_ALICE, NULL, spec, f, m, sizeof m), 201);
    /* a user may not upload for someone else; an admin may */
    ck_assert_int_eq(sec_upload(TOK_BOB, "forbob.f32", "?owner=alice", 16, 1600.0f), 403);
    ck_assert_int_eq(sec_upload(TOK_ROOT, "forbob.f32", "?owner=bob", 16, 1600.0f), 201);
    owner_of("forbob.f32", owner, sizeof owner);
    ck_assert_str_eq(owner, "bob");
}
END_TEST

/* Open a connection and send the head and half the body of a PUT of name (n^3 floats)
 * as token; returns the socket. */
static int half_upload(const char *token, const char *name, int n, size_t *sent, size_t *total)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)SD.port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    *total = (size_t)n * n * n * 4;
    char head[512];
    int hl = snprintf(head, sizeof head,
                      "PUT /v1/models/%s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                      "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                      name, token, *total);
    ck_assert_int_eq(send(fd, head, (size_t)hl, MSG_NOSIGNAL), hl);
    float *v = malloc(*total);
    for (size_t i = 0; i < *total / 4; i++)
        v[i] = 1800.0f;
    *sent = *total / 2;
    ck_assert_int_eq(send(fd, v, *sent, MSG_NOSIGNAL), (ssize_t)*sent);
    free(v);
    return fd;
}

/* Finish the half upload on fd; returns the status of its answer. */
static long finish_upload(int fd, size_t sent, size_t total)
{
    float *v = malloc(total - sent);
    for (size_t i = 0; i < (total - sent) / 4; i++)
        v[i] = 1800.0f;
    ck_assert_int_eq(send(fd, v, total - sent, MSG_NOSIGNAL), (ssize_t)(total - sent));
    free(v);
    char buf[4096];
    size_t got = 0;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 10000) <= 0)
            break;
        ssize_t r = recv(fd, buf + got, sizeof buf - 1 - got, 0);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    buf[got] = '\0';
    close(fd);
    long status = 0;
    sscanf(buf, "HTTP/1.1 %ld", &status);
    return status;
}

START_TEST(racing_upload_cannot_take_a_name)
{
    /* bob starts first but finishes last: alice's name is created by her upload, and
     * bob's ends in 409 without touching it (no check-then-replace window). */
    size_t sent, total;
    int fd = half_upload(TOK_BOB, "race.f32", 16, &sent, &total);
    usleep(200000);
    ck_assert_int_eq(sec_upload(TOK_ALICE, "race.f32", "", 16, 1900.0f), 201);
    ck_assert_int_eq(finish_upload(fd, sent, total), 409);
    char owner[128];
    owner_of("race.f32", owner, sizeof owner);
    ck_assert_str_eq(owner, "alice");
    /* her content survived: a job on it sees vmax 1900 */
    http_resp r;
    ck_assert_int_eq(sec_as(TOK_ALICE, "GET", "/v1/models", NULL, 0, NULL, &r), 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"vmax\":1900"));
    http_free(&r);
    /* and bob's partial file is gone */
    char cmd[700];
    snprintf(cmd, sizeof cmd, "ls -A %s/models | grep -q '^\\.upload-'", SD.data);
    ck_assert_int_ne(system(cmd), 0);
}
END_TEST

START_TEST(admin_job_on_user_model_runs)
{
    char spec[2048], f[512], m[1024];
    sec_spec(spec, sizeof spec, "{\"type\":\"model\",\"name\":\"alice.f32\"}", NULL);
    http_resp r;
    ck_assert_int_eq(sec_as(TOK_ROOT, "POST", "/v1/jobs", spec, strlen(spec), NULL, &r), 201);
    json_t *j = http_json(&r);
    long id = (long)json_integer_value(json_object_get(j, "id"));
    json_decref(j);
    http_free(&r);
    ck_assert_str_eq(wait_done(&SD, id, 60, TOK_ROOT), "succeeded");
    (void)f;
    (void)m;
}
END_TEST

START_TEST(priority_is_an_admins)
{
    char spec[2048], f[512], m[1024];
    sec_spec(spec, sizeof spec, "{\"type\":\"constant\",\"value\":1500}", NULL);
    ck_assert_int_eq(submit_as(TOK_BOB, "?priority=10", spec, f, m, sizeof m), 403);
    ck_assert_str_eq(f, "priority");
    ck_assert_int_eq(submit_as(TOK_BOB, "?priority=-3", spec, f, m, sizeof m), 201);
    ck_assert_int_eq(submit_as(TOK_ROOT, "?priority=10", spec, f, m, sizeof m), 201);
}
END_TEST

START_TEST(derived_quantities_checked)
{
    char spec[2048], f[512], m[1024];
    /* safety 5e-324 makes dt 0 */
    snprintf(spec, sizeof spec,
             "{\"grid\":{\"nx\":16,\"ny\":16,\"nz\":16,\"dx\":10,\"dy\":10,\"dz\":10},"
             "\"order\":4,\"velocity\":{\"type\":\"constant\",\"value\":1500},"
             "\"time\":{\"nt\":8,\"safety\":5e-324},"
             "\"sources\":[{\"position\":[80,80,80],\"wavelet\":{\"type\":\"ricker\",\"f0\":10}}],"
             "\"receivers\":{\"points\":[[40,40,40]]}}");
    ck_assert_int_eq(submit_as(TOK_BOB, NULL, spec, f, m, sizeof m), 400);
    ck_assert_str_eq(f, "time.safety");
    /* 10^7 receivers on one line: refused on the line's count, quickly */
    snprintf(spec, sizeof spec,
             "{\"grid\":{\"nx\":16,\"ny\":16,\"nz\":16,\"dx\":10,\"dy\":10,\"dz\":10},"
             "\"order\":4,\"velocity\":{\"type\":\"constant\",\"value\":1500},\"time\":{\"nt\":8},"
             "\"sources\":[{\"position\":[80,80,80],\"wavelet\":{\"type\":\"ricker\",\"f0\":10}}],"
             "\"receivers\":{\"lines\":[{\"from\":[0,0,0],\"to\":[150,150,150],"
             "\"count\":10000000}]}}");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(submit_as(TOK_BOB, NULL, spec, f, m, sizeof m), 400);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ck_assert_str_eq(f, "receivers.lines[0].count");
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    ck_assert_msg(ms < 500, "the refusal took %.0f ms", ms);
    /* 8e9 points need 128 GB on one device (a quarter of this host's memory) */
    snprintf(spec, sizeof spec,
             "{\"grid\":{\"nx\":2000,\"ny\":2000,\"nz\":2000,\"dx\":10,\"dy\":10,\"dz\":10},"
             "\"order\":4,\"velocity\":{\"type\":\"constant\",\"value\":1500},\"time\":{\"nt\":8},"
             "\"sources\":[{\"position\":[80,80,80],\"wavelet\":{\"type\":\"ricker\",\"f0\":10}}]}");
    ck_assert_int_eq(submit_as(TOK_BOB, NULL, spec, f, m, sizeof m), 400);
    ck_assert_str_eq(f, "grid");
    ck_assert_msg(strstr(m, "device memory"), "%s", m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("security_data");
    TCase *tc = tcase_create("data");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, private_model_unreachable);
    tcase_add_test(tc, no_existence_oracle);
    tcase_add_test(tc, ownership_never_moves);
    tcase_add_test(tc, racing_upload_cannot_take_a_name);
    tcase_add_test(tc, admin_job_on_user_model_runs);
    tcase_add_test(tc, priority_is_an_admins);
    tcase_add_test(tc, derived_quantities_checked);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
