/* test_provenance.c — what a submission and an upload are bound to, against a real
 * fdwaved with three users (issue 14, items 4 and 5):
 * - an Idempotency-Key is bound to its first spec: the same key with the same spec (in
 *   any key order or spacing) answers 200 with the same job, with another spec 422
 *   idempotency_key_reused naming the job; another user's same key is independent and
 *   never reveals the first user's job; a retry is answered even when a quota would
 *   now refuse a new job;
 * - a model upload is checked at upload, per format (SEG-Y that is none, raw whose size
 *   is no whole number of samples, RSF whose samples do not match n1*n2*n3, RSF that
 *   names a separate binary), refused with 400 invalid_model naming the reason;
 * - a job records the SHA-256 of the uploaded model it was checked against ("model" in
 *   its JSON), by name or by relative path, and keeps it after a --replace re-upload; a
 *   queued job whose model was replaced before it ran fails with that reason instead of
 *   running on content it does not record;
 * - the spec is parsed once, at submission, and the files it named are checked again from
 *   that record when the job runs: an admin's job naming another user's upload fails when
 *   its submitter is no longer an admin. */
#include "harness.h"

#include <check.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static daemon_proc D;
static char alice[128], bob[128];

static void setup(void)
{
    curl_global_init(CURL_GLOBAL_ALL);
    harness_tmpdir(D.data, sizeof D.data);
    harness_add_token(&D, "alice", 0, alice);
    harness_add_token(&D, "bob", 0, bob);
    /* One device and alice may queue 2 jobs: a retry must be answered past the quota. */
    const char *extra[] = {"--devices", "cpu:1", "--user-quota", "alice: queued=2", NULL};
    if (harness_start(&D, extra) != 0)
        abort();
}

static void teardown(void)
{
    harness_stop(&D);
    harness_rmtree(D.data);
}

/* A request as token's user; key (may be NULL) as Idempotency-Key. */
static void req(const char *token, const char *method, const char *path, const char *key,
                const char *ctype, const char *body, size_t len, http_resp *r)
{
    char auth[256], idem[256], ct[128];
    const char *hs[4] = {NULL, NULL, NULL, NULL};
    int n = 0;
    snprintf(auth, sizeof auth, "Authorization: Bearer %.200s", token);
    hs[n++] = auth;
    if (key) {
        snprintf(idem, sizeof idem, "Idempotency-Key: %.200s", key);
        hs[n++] = idem;
    }
    if (ctype) {
        snprintf(ct, sizeof ct, "Content-Type: %s", ctype);
        hs[n++] = ct;
    }
    ck_assert_int_eq(http(&D, method, path, hs, body, len, r), 0);
}

static long post_job(const char *token, const char *key, const char *spec, http_resp *r)
{
    req(token, "POST", "/v1/jobs", key, "application/json", spec, strlen(spec), r);
    json_t *j = http_json(r);
    long id = (long)json_integer_value(json_object_get(j, "id"));
    json_decref(j);
    return id;
}

static void expect_error(http_resp *r, long status, const char *code, const char *field)
{
    ck_assert_msg(r->status == status, "expected %ld, got %ld: %s", status, r->status, r->body);
    json_t *j = http_json(r);
    json_t *e = json_object_get(j, "error");
    ck_assert_msg(e != NULL, "no error object: %s", r->body);
    ck_assert_str_eq(json_string_value(json_object_get(e, "code")), code);
    if (field)
        ck_assert_str_eq(json_string_value(json_object_get(e, "field")), field);
    json_decref(j);
}

static void cancel_all(const char *token)
{
    http_resp r;
    req(token, "GET", "/v1/jobs?state=queued", NULL, NULL, NULL, 0, &r);
    json_t *j = http_json(&r);
    http_free(&r);
    size_t i;
    json_t *job;
    json_array_foreach(json_object_get(j, "jobs"), i, job) {
        char p[64];
        snprintf(p, sizeof p, "/v1/jobs/%lld/cancel", json_integer_value(json_object_get(job, "id")));
        req(token, "POST", p, NULL, NULL, NULL, 0, &r);
        http_free(&r);
    }
    json_decref(j);
}

START_TEST(idempotency_key_bound_to_its_spec)
{
    char blocker[4096], spec[4096], other[4096];
    small_spec(blocker, sizeof blocker, 48, 200000, 100000, 1); /* holds the one device */
    small_spec(spec, sizeof spec, 16, 10, 5, 1);
    small_spec(other, sizeof other, 16, 12, 5, 1);
    http_resp r;
    long b = post_job(alice, NULL, blocker, &r);
    ck_assert_int_eq(r.status, 201);
    http_free(&r);
    /* The quota below counts queued jobs: the blocker must be running, not still queued
     * behind a scheduler pass on a loaded machine (a bound, not a wait). */
    char *ran = events_until(&D, b, alice, "{\"state\":\"running\"", 600);
    ck_assert_msg(ran != NULL, "the blocker never started");
    free(ran);
    long id = post_job(alice, "shot-7", spec, &r);
    ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
    http_free(&r);
    /* The same spec again, its keys in another order and spaced out: the same job. */
    json_t *parsed = json_loads(spec, 0, NULL);
    char *respaced = json_dumps(parsed, JSON_INDENT(3) | JSON_SORT_KEYS);
    json_decref(parsed);
    ck_assert_int_eq(post_job(alice, "shot-7", respaced, &r), id);
    ck_assert_int_eq(r.status, 200);
    http_free(&r);
    free(respaced);
    /* Another spec under the same key: 422, naming the job; nothing new is stored. */
    post_job(alice, "shot-7", other, &r);
    expect_error(&r, 422, "idempotency_key_reused", "Idempotency-Key");
    char want[64];
    snprintf(want, sizeof want, "already used for job %ld", id);
    ck_assert_msg(strstr(r.body, want), "%s", r.body);
    http_free(&r);
    /* So is a body that is no spec at all. */
    req(alice, "POST", "/v1/jobs", "shot-7", "application/json", "{", 1, &r);
    expect_error(&r, 422, "idempotency_key_reused", "Idempotency-Key");
    http_free(&r);
    /* Bob's "shot-7" is his own: a new job, whatever alice's spec was; his retry with
     * another spec is refused naming his job, never alice's. */
    long bid = post_job(bob, "shot-7", other, &r);
    ck_assert_int_eq(r.status, 201);
    ck_assert_int_ne(bid, id);
    http_free(&r);
    post_job(bob, "shot-7", spec, &r);
    expect_error(&r, 422, "idempotency_key_reused", NULL);
    snprintf(want, sizeof want, "job %ld ", bid);
    ck_assert_msg(strstr(r.body, want), "%s", r.body);
    snprintf(want, sizeof want, "job %ld ", id);
    ck_assert_msg(!strstr(r.body, want), "bob's answer names alice's job: %s", r.body);
    http_free(&r);
    /* Alice has one job running and one queued; a third fills her quota (queued=2): a new
     * submission is refused, her retry still gets its job. */
    long third = post_job(alice, NULL, other, &r);
    ck_assert_int_eq(r.status, 201);
    http_free(&r);
    post_job(alice, "shot-8", other, &r);
    ck_assert_msg(r.status == 429 || r.status == 403 || r.status == 400, "%ld %s", r.status,
                  r.body);
    http_free(&r);
    ck_assert_int_eq(post_job(alice, "shot-7", spec, &r), id);
    ck_assert_int_eq(r.status, 200);
    http_free(&r);
    /* Only alice's jobs are hers: a page of her list has the blocker, the keyed job and
     * the third, not bob's. */
    req(alice, "GET", "/v1/jobs", NULL, NULL, NULL, 0, &r);
    json_t *page = http_json(&r);
    http_free(&r);
    ck_assert_int_eq(json_array_size(json_object_get(page, "jobs")), 3);
    json_decref(page);
    (void)b;
    (void)third;
    cancel_all(alice);
    cancel_all(bob);
}
END_TEST

/* bytes of an RSF model in the one-file form: header, 0x0c 0x0c 0x04, n samples (but
 * declared n1 x n2 x n3). */
static char *rsf_inline(int n1, int n2, int n3, size_t nsamples, const char *in, size_t *len)
{
    char head[256];
    int hl = snprintf(head, sizeof head,
                      "test model\n\tn1=%d d1=10 n2=%d d2=10 n3=%d d3=10\n\tesize=4 "
                      "data_format=\"native_float\" in=\"%s\"\n",
                      n1, n2, n3, in);
    *len = (size_t)hl + 3 + nsamples * 4;
    char *b = malloc(*len);
    memcpy(b, head, (size_t)hl);
    memcpy(b + hl, "\014\014\004", 3);
    float *v = (float *)(void *)(b + hl + 3);
    for (size_t i = 0; i < nsamples; i++) {
        float x = 1900.0f + (float)(i % 5);
        memcpy(&v[i], &x, 4);
    }
    return b;
}

static void put_model(const char *token, const char *name, const char *query, const char *body,
                      size_t len, http_resp *r)
{
    char path[256];
    snprintf(path, sizeof path, "/v1/models/%s%s", name, query ? query : "");
    req(token, "PUT", path, NULL, "application/octet-stream", body, len, r);
}

START_TEST(uploads_checked_per_format)
{
    http_resp r;
    /* SEG-Y that is none: 4000 bytes of text. */
    char junk[4000];
    memset(junk, 'x', sizeof junk);
    put_model(alice, "notsegy.segy", NULL, junk, sizeof junk, &r);
    expect_error(&r, 400, "invalid_model", "body");
    ck_assert_msg(strstr(r.body, "notsegy.segy is not a valid segy model"), "%s", r.body);
    http_free(&r);
    /* raw float32 whose size is no whole number of samples. */
    put_model(alice, "odd.f32", NULL, junk, 4003, &r);
    expect_error(&r, 400, "invalid_model", "body");
    ck_assert_msg(strstr(r.body, "not a whole number of float32 samples"), "%s", r.body);
    http_free(&r);
    /* RSF whose samples do not fill n1*n2*n3 (one short), then one too many. */
    size_t len;
    char *b = rsf_inline(8, 8, 8, 8 * 8 * 8 - 1, "stdin", &len);
    put_model(alice, "short.rsf", NULL, b, len, &r);
    expect_error(&r, 400, "invalid_model", "body");
    ck_assert_msg(strstr(r.body, "n1*n2*n3*4 = 2048") && strstr(r.body, "truncated"), "%s",
                  r.body);
    http_free(&r);
    free(b);
    b = rsf_inline(8, 8, 8, 8 * 8 * 8 + 1, "stdin", &len);
    put_model(alice, "long.rsf", NULL, b, len, &r);
    expect_error(&r, 400, "invalid_model", "body");
    http_free(&r);
    free(b);
    /* An RSF header that names a separate binary: an upload must hold its samples (and
     * may not name another file on the server: alice's own raw model beside it). */
    float v[512];
    for (int i = 0; i < 512; i++)
        v[i] = 2000.0f;
    put_model(alice, "beside.f32", NULL, (const char *)v, sizeof v, &r);
    ck_assert_int_eq(r.status, 201);
    http_free(&r);
    b = rsf_inline(8, 8, 8, 0, "beside.f32", &len);
    put_model(alice, "header-only.rsf", NULL, b, len - 3, &r);
    expect_error(&r, 400, "invalid_model", "body");
    ck_assert_msg(strstr(r.body, "in=\\\"stdin\\\""), "%s", r.body);
    http_free(&r);
    free(b);
    /* A good one-file RSF is kept with the geometry and spacing it records. */
    b = rsf_inline(8, 8, 8, 512, "stdin", &len);
    put_model(alice, "good.rsf", NULL, b, len, &r);
    ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
    json_t *j = http_json(&r);
    ck_assert_str_eq(json_string_value(json_object_get(j, "format")), "rsf");
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(j, "dims"), 2)), 8);
    ck_assert(json_real_value(json_object_get(j, "vmax")) == 1904.0);
    json_decref(j);
    http_free(&r);
    free(b);
    /* and runs. */
    const char *spec =
        "{\"grid\":{\"nx\":8,\"ny\":8,\"nz\":8,\"dx\":10,\"dy\":10,\"dz\":10},\"order\":2,"
        "\"velocity\":{\"type\":\"model\",\"name\":\"good.rsf\"},\"time\":{\"nt\":5},"
        "\"sources\":[{\"position\":[40,40,40],\"wavelet\":{\"type\":\"ricker\",\"f0\":10}}]}";
    long id = post_job(alice, NULL, spec, &r);
    ck_assert_msg(r.status == 201, "%ld %s", r.status, r.body);
    http_free(&r);
    ck_assert_str_eq(wait_done(&D, id, 60, alice), "succeeded");
    /* Nothing of the refused uploads is listed. */
    req(alice, "GET", "/v1/models", NULL, NULL, NULL, 0, &r);
    ck_assert_msg(!strstr(r.body, "notsegy") && !strstr(r.body, "odd.f32") &&
                      !strstr(r.body, "short.rsf") && !strstr(r.body, "header-only"),
                  "%s", r.body);
    http_free(&r);
}
END_TEST

/* The "model" object of job id as alice sees it: name and sha256 copied out. */
static void job_model(long id, char *name, char *sha)
{
    char p[64];
    http_resp r;
    snprintf(p, sizeof p, "/v1/jobs/%ld", id);
    req(alice, "GET", p, NULL, NULL, NULL, 0, &r);
    json_t *j = http_json(&r);
    http_free(&r);
    json_t *m = json_object_get(j, "model");
    name[0] = sha[0] = '\0';
    if (json_is_object(m)) {
        snprintf(name, 160, "%s", json_string_value(json_object_get(m, "name")));
        snprintf(sha, 65, "%s", json_string_value(json_object_get(m, "sha256")));
    }
    json_decref(j);
}

enum { N = 16 * 16 * 16 };

/* Upload name (16^3 samples of velocity) as token's user; its SHA-256 into sha (or NULL). */
static void put_constant_model(const char *token, const char *name, float velocity,
                               char *sha)
{
    static float v[N];
    for (int i = 0; i < N; i++)
        v[i] = velocity;
    http_resp r;
    put_model(token, name, NULL, (const char *)v, sizeof v, &r);
    ck_assert_int_eq(r.status, 201);
    json_t *j = http_json(&r);
    if (sha)
        snprintf(sha, 65, "%s", json_string_value(json_object_get(j, "sha256")));
    json_decref(j);
    http_free(&r);
}

START_TEST(job_records_model_sha256)
{
    static float v[N];
    char sha1[65];
    put_constant_model(alice, "prov.f32", 1800.0f, sha1);
    http_resp r;
    json_t *j;
    char by_name[1024], by_path[1024];
    const char *fmt =
        "{\"grid\":{\"nx\":16,\"ny\":16,\"nz\":16,\"dx\":10,\"dy\":10,\"dz\":10},\"order\":4,"
        "\"velocity\":%s,\"time\":{\"nt\":%d},"
        "\"sources\":[{\"position\":[80,80,80],\"wavelet\":{\"type\":\"ricker\",\"f0\":10}}]}";
    snprintf(by_name, sizeof by_name, fmt, "{\"type\":\"model\",\"name\":\"prov.f32\"}", 10);
    snprintf(by_path, sizeof by_path, fmt,
             "{\"type\":\"file\",\"format\":\"raw-f32\",\"path\":\"prov.f32\"}", 10);
    long a = post_job(alice, NULL, by_name, &r);
    ck_assert_int_eq(r.status, 201);
    /* The POST answer shows it already. */
    ck_assert_msg(strstr(r.body, sha1), "%s", r.body);
    http_free(&r);
    long b = post_job(alice, NULL, by_path, &r);
    ck_assert_int_eq(r.status, 201);
    http_free(&r);
    ck_assert_str_eq(wait_done(&D, a, 60, alice), "succeeded");
    ck_assert_str_eq(wait_done(&D, b, 60, alice), "succeeded");
    char name[160], sha[65];
    job_model(a, name, sha);
    ck_assert_str_eq(name, "prov.f32");
    ck_assert_str_eq(sha, sha1);
    job_model(b, name, sha);
    ck_assert_str_eq(name, "prov.f32");
    ck_assert_str_eq(sha, sha1);
    /* A job on an analytic model names none. */
    char plain[4096];
    small_spec(plain, sizeof plain, 16, 5, 5, 1);
    long c = post_job(alice, NULL, plain, &r);
    http_free(&r);
    job_model(c, name, sha);
    ck_assert_str_eq(name, "");

    /* A job waits behind a long one; the model is replaced (--replace) meanwhile. */
    char blocker[4096];
    small_spec(blocker, sizeof blocker, 48, 200000, 100000, 1);
    wait_done(&D, c, 60, alice);
    long blk = post_job(alice, NULL, blocker, &r);
    http_free(&r);
    long queued = post_job(alice, NULL, by_name, &r);
    ck_assert_int_eq(r.status, 201);
    http_free(&r);
    for (int i = 0; i < N; i++)
        v[i] = 2100.0f;
    put_model(alice, "prov.f32", "?replace=true", (const char *)v, sizeof v, &r);
    ck_assert_int_eq(r.status, 201);
    j = http_json(&r);
    char sha2[65];
    snprintf(sha2, sizeof sha2, "%s", json_string_value(json_object_get(j, "sha256")));
    json_decref(j);
    http_free(&r);
    ck_assert_str_ne(sha1, sha2);
    /* The finished jobs keep the content they ran on. */
    job_model(a, name, sha);
    ck_assert_str_eq(sha, sha1);
    job_model(b, name, sha);
    ck_assert_str_eq(sha, sha1);
    /* The queued one, checked against the old content, does not run on the new one. */
    char p[64];
    snprintf(p, sizeof p, "/v1/jobs/%ld/cancel", blk);
    req(alice, "POST", p, NULL, NULL, NULL, 0, &r);
    http_free(&r);
    char reason[2048] = "";
    ck_assert_str_eq(wait_done(&D, queued, 60, alice), "failed");
    snprintf(p, sizeof p, "/v1/jobs/%ld", queued);
    req(alice, "GET", p, NULL, NULL, NULL, 0, &r);
    j = http_json(&r);
    snprintf(reason, sizeof reason, "%s", json_string_value(json_object_get(j, "reason")));
    json_decref(j);
    http_free(&r);
    ck_assert_msg(strstr(reason, "was replaced after the job was submitted"), "%s", reason);
    job_model(queued, name, sha);
    ck_assert_str_eq(sha, sha1);
    /* A job submitted now records and runs on the new content. */
    long d = post_job(alice, NULL, by_name, &r);
    http_free(&r);
    ck_assert_str_eq(wait_done(&D, d, 60, alice), "succeeded");
    job_model(d, name, sha);
    ck_assert_str_eq(sha, sha2);
}
END_TEST

/* The spec is parsed once, at submission; the files it names are checked again with the
 * submitter's rights when the job runs: an admin's queued job naming another user's upload
 * by path fails once the submitter is no longer an admin. */
START_TEST(rights_checked_again_when_it_runs)
{
    char boss[128], out[512];
    harness_add_token(&D, "boss", 1, boss);
    put_constant_model(alice, "hers.f32", 1900.0f, NULL);
    http_resp r;
    char blocker[4096], spec[1024];
    small_spec(blocker, sizeof blocker, 48, 200000, 100000, 1); /* holds the one device */
    long blk = post_job(alice, NULL, blocker, &r);
    ck_assert_int_eq(r.status, 201);
    http_free(&r);
    snprintf(spec, sizeof spec,
             "{\"grid\":{\"nx\":16,\"ny\":16,\"nz\":16,\"dx\":10,\"dy\":10,\"dz\":10},"
             "\"order\":4,\"velocity\":{\"type\":\"file\",\"format\":\"raw-f32\","
             "\"path\":\"hers.f32\"},\"time\":{\"nt\":10},\"sources\":[{\"position\":"
             "[80,80,80],\"wavelet\":{\"type\":\"ricker\",\"f0\":10}}]}");
    long job = post_job(boss, NULL, spec, &r);
    ck_assert_msg(r.status == 201, "an admin may name alice's upload: %ld %s", r.status, r.body);
    http_free(&r);
    /* boss is a user like the others from now on. */
    const char *rm[] = {"token", "remove", "boss", "--data", D.data, NULL};
    ck_assert_int_eq(harness_run_cli(rm, out, sizeof out), 0);
    harness_add_token(&D, "boss", 0, boss);
    char p[64];
    snprintf(p, sizeof p, "/v1/jobs/%ld/cancel", blk);
    req(alice, "POST", p, NULL, NULL, NULL, 0, &r);
    http_free(&r);
    ck_assert_str_eq(wait_done(&D, job, 60, boss), "failed");
    snprintf(p, sizeof p, "/v1/jobs/%ld", job);
    req(boss, "GET", p, NULL, NULL, NULL, 0, &r);
    json_t *j = http_json(&r);
    const char *reason = json_string_value(json_object_get(j, "reason"));
    ck_assert_msg(reason && strstr(reason, "the spec is no longer valid: boss may no longer "
                                           "read ") && strstr(reason, "hers.f32"),
                  "%s", reason ? reason : r.body);
    json_decref(j);
    http_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("provenance");
    TCase *tc = tcase_create("provenance");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, idempotency_key_bound_to_its_spec);
    tcase_add_test(tc, uploads_checked_per_format);
    tcase_add_test(tc, job_records_model_sha256);
    tcase_add_test(tc, rights_checked_again_when_it_runs);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
