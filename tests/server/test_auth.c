/* test_auth.c — users and tokens against a real fdwaved: `fdwaved token add/list/
 * remove`; no token or a wrong token -> 401; a user sees and cancels only their own jobs
 * (another user's job is 404); an admin sees all; ?access_token= works like the header;
 * with no tokens the daemon refuses to listen on a non-loopback address. */
#include "harness.h"

#include <check.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static daemon_proc D;
static char alice[128], bob[128], root[128];

static void add_token(const char *name, int admin, char *out)
{
    harness_add_token(&D, name, admin, out);
}

static void setup(void)
{
    curl_global_init(CURL_GLOBAL_ALL);
    harness_tmpdir(D.data, sizeof D.data);
    add_token("alice", 0, alice);
    add_token("bob", 0, bob);
    add_token("root", 1, root);
    if (harness_start(&D, NULL) != 0)
        abort();
}

static void teardown(void)
{
    harness_stop(&D);
    harness_rmtree(D.data);
}

static long as(const char *token, const char *method, const char *path, http_resp *r)
{
    char h[256] = "";
    if (token)
        snprintf(h, sizeof h, "Authorization: Bearer %.200s", token);
    const char *hs[] = {h, NULL};
    http(&D, method, path, token ? hs : NULL, NULL, 0, r);
    return r->status;
}

START_TEST(token_cli)
{
    char out[2048];
    const char *list[] = {"token", "list", "--data", D.data, NULL};
    ck_assert_int_eq(harness_run_cli(list, out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "alice\tuser"));
    ck_assert_ptr_nonnull(strstr(out, "root\tadmin"));
    ck_assert_ptr_null(strstr(out, alice)); /* tokens are never shown again */
    const char *dup[] = {"token", "add", "alice", "--data", D.data, NULL};
    ck_assert_int_ne(harness_run_cli(dup, out, sizeof out), 0);
    const char *add[] = {"token", "add", "carol", "--data", D.data, NULL};
    ck_assert_int_eq(harness_run_cli(add, out, sizeof out), 0);
    out[strcspn(out, "\n")] = '\0';
    char carol[128];
    snprintf(carol, sizeof carol, "%.100s", out);
    http_resp r;
    ck_assert_int_eq(as(carol, "GET", "/v1/jobs", &r), 200);
    http_free(&r);
    const char *rm[] = {"token", "remove", "carol", "--data", D.data, NULL};
    ck_assert_int_eq(harness_run_cli(rm, out, sizeof out), 0);
    ck_assert_int_eq(as(carol, "GET", "/v1/jobs", &r), 401);
    http_free(&r);
    ck_assert_int_ne(harness_run_cli(rm, out, sizeof out), 0);
}
END_TEST

START_TEST(unauthorized)
{
    http_resp r;
    ck_assert_int_eq(as(NULL, "GET", "/v1/jobs", &r), 401);
    ck_assert_ptr_nonnull(strstr(r.body, "\"unauthorized\""));
    http_free(&r);
    ck_assert_int_eq(as("fdw_wrong", "GET", "/v1/jobs", &r), 401);
    ck_assert_ptr_nonnull(strstr(r.body, "\"unauthorized\""));
    http_free(&r);
    char spec[4096];
    small_spec(spec, sizeof spec, 16, 10, 5, 1);
    long st;
    ck_assert_int_eq(submit(&D, spec, NULL, &st), -1);
    ck_assert_int_eq(st, 401);
    /* health stays public */
    ck_assert_int_eq(as(NULL, "GET", "/v1/health", &r), 200);
    http_free(&r);
}
END_TEST

START_TEST(ownership)
{
    char spec[4096], h[256];
    small_spec(spec, sizeof spec, 16, 10, 5, 1);
    snprintf(h, sizeof h, "Authorization: Bearer %s", alice);
    const char *ha[] = {h, NULL};
    long st;
    long id = submit(&D, spec, ha, &st);
    ck_assert_int_eq(st, 201);
    char path[128];
    snprintf(path, sizeof path, "/v1/jobs/%ld", id);
    http_resp r;
    ck_assert_int_eq(as(alice, "GET", path, &r), 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"owner\":\"alice\""));
    http_free(&r);
    ck_assert_int_eq(as(bob, "GET", path, &r), 404);
    ck_assert_ptr_nonnull(strstr(r.body, "\"not_found\""));
    http_free(&r);
    ck_assert_int_eq(as(bob, "DELETE", path, &r), 404);
    http_free(&r);
    char ev[160];
    snprintf(ev, sizeof ev, "%s/events", path);
    ck_assert_int_eq(as(bob, "GET", ev, &r), 404);
    http_free(&r);
    snprintf(ev, sizeof ev, "%s/outputs", path);
    ck_assert_int_eq(as(bob, "GET", ev, &r), 404);
    http_free(&r);
    ck_assert_int_eq(as(root, "GET", path, &r), 200);
    http_free(&r);
    /* listings are scoped */
    ck_assert_int_eq(as(bob, "GET", "/v1/jobs", &r), 200);
    ck_assert_ptr_null(strstr(r.body, "\"owner\":\"alice\""));
    http_free(&r);
    ck_assert_int_eq(as(root, "GET", "/v1/jobs", &r), 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"owner\":\"alice\""));
    http_free(&r);
    /* the token as a query parameter (EventSource, <img>) */
    char q[300];
    snprintf(q, sizeof q, "%s?access_token=%s", path, alice);
    ck_assert_int_eq(as(NULL, "GET", q, &r), 200);
    http_free(&r);
    ck_assert_str_eq(wait_done(&D, id, 30, alice), "succeeded");
    snprintf(q, sizeof q, "%s/events?access_token=%s", path, alice);
    ck_assert_int_eq(as(NULL, "GET", q, &r), 200);
    ck_assert_ptr_nonnull(strstr(r.body, "event: end"));
    http_free(&r);
    /* models are scoped too: bob cannot overwrite alice's model */
    char hb[256];
    snprintf(hb, sizeof hb, "Authorization: Bearer %s", alice);
    const char *hput[] = {hb, NULL};
    ck_assert_int_eq(http(&D, "PUT", "/v1/models/alice.f32", hput, "abcdabcd", 8, &r), 0);
    ck_assert_int_eq(r.status, 201);
    http_free(&r);
    snprintf(hb, sizeof hb, "Authorization: Bearer %s", bob);
    ck_assert_int_eq(http(&D, "PUT", "/v1/models/alice.f32", hput, "xxxx", 4, &r), 0);
    ck_assert_int_eq(r.status, 409);
    ck_assert_ptr_nonnull(strstr(r.body, "\"conflict\""));
    http_free(&r);
    ck_assert_int_eq(as(bob, "GET", "/v1/models", &r), 200);
    ck_assert_ptr_null(strstr(r.body, "alice.f32"));
    http_free(&r);
}
END_TEST

START_TEST(refuse_public_without_tokens)
{
    daemon_proc e = {0};
    harness_tmpdir(e.data, sizeof e.data);
    const char *extra[] = {"--listen", "0.0.0.0:0", NULL};
    ck_assert_int_eq(harness_start(&e, extra), -1); /* exits instead of listening */
    FILE *f = fopen(e.log, "r");
    ck_assert_ptr_nonnull(f);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "no API tokens"));
    harness_rmtree(e.data);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("server_auth");
    TCase *tc = tcase_create("auth");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, token_cli);
    tcase_add_test(tc, unauthorized);
    tcase_add_test(tc, ownership);
    tcase_add_test(tc, refuse_public_without_tokens);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
