/* test_accept.c — the pieces of POST /v1/jobs that replaced read-backs, tested directly
 * (linked against fdwd_core): specs_norm_fields reads a normalised spec's name and
 * devices like a full parse does (on the engine's own output, on other JSON shapes, and
 * on broken text), and the 201 answer written by jobs_new_text is byte for byte the job
 * read back inside the accepting transaction (jobs_get_ex, json_dumps), queue
 * positions, idempotency repeats and strings that need escaping included. */
#include "db.h"
#include "fdwave.h"
#include "jobs.h"
#include "specs.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* specs_norm_fields against a full jansson parse of the same text. */
static void same_as_full_parse(const char *text)
{
    char *name;
    json_t *dev;
    ck_assert_int_eq(specs_norm_fields(text, &name, &dev), 0);
    json_t *all = json_loads(text, 0, NULL);
    ck_assert_ptr_nonnull(all);
    const char *want = json_string_value(json_object_get(all, "name"));
    ck_assert_str_eq(name, want ? want : "");
    json_t *wdev = json_object_get(all, "devices");
    if (wdev)
        ck_assert_msg(json_equal(dev, wdev), "devices differ for %s", text);
    else
        ck_assert_ptr_null(dev);
    json_decref(all);
    json_decref(dev);
    free(name);
}

START_TEST(norm_fields_shapes)
{
    same_as_full_parse("{\"kind\":\"acoustic\",\"name\":\"a \\\"b\\\" \\u00e9 {x} [y] \\\\\","
                       "\"grid\":{\"nx\":1,\"name\":\"inner\"},\"devices\":{\"count\":2,"
                       "\"ids\":[3,1]},\"z\":[1,{\"a\":\"}\"},[\"]\"]],\"t\":true}");
    same_as_full_parse("{\"kind\":\"stencil\",\"devices\":{\"count\":1}}");
    same_as_full_parse("{}");
    same_as_full_parse(" {\n \"devices\" : { \"count\" : 4 } ,\n \"name\" : \"n\" , "
                       "\"x\" : -1.5e3 , \"y\" : null }\n");
    /* a nested "name" is not the job's name */
    same_as_full_parse("{\"grid\":{\"name\":\"x\"},\"sources\":[{\"name\":\"y\"}]}");
    /* a non-string name reads as "" */
    char *name;
    json_t *dev;
    ck_assert_int_eq(specs_norm_fields("{\"name\":7,\"devices\":{\"count\":1}}", &name, &dev),
                     0);
    ck_assert_str_eq(name, "");
    ck_assert_int_eq(json_integer_value(json_object_get(dev, "count")), 1);
    free(name);
    json_decref(dev);
    /* broken text fails instead of guessing */
    ck_assert_int_eq(specs_norm_fields("{\"name\":", &name, &dev), -1);
    ck_assert_int_eq(specs_norm_fields("{\"name\":\"x\",\"devices\":{\"count\":1}", &name, &dev),
                     -1);
    ck_assert_int_eq(specs_norm_fields("[1,2]", &name, &dev), 0); /* not an object: empty */
    ck_assert_str_eq(name, "");
    ck_assert_ptr_null(dev);
    free(name);
}
END_TEST

START_TEST(norm_fields_engine_output)
{
    static const char *const specs[] = {
        "{\"name\":\"survey \\\"A\\\" \\u00fc\\n\",\"grid\":{\"nx\":16,\"ny\":16,\"nz\":16,"
        "\"dx\":10,\"dy\":10,\"dz\":10},\"velocity\":{\"type\":\"constant\",\"value\":2000},"
        "\"time\":{\"nt\":10},\"sources\":[{\"position\":[80,80,80],\"wavelet\":{\"type\":"
        "\"ricker\",\"f0\":10}}],\"devices\":{\"ids\":[3,1]}}",
        "{\"grid\":{\"nx\":16,\"ny\":16,\"nz\":16,\"dx\":10,\"dy\":10,\"dz\":10},\"velocity\":"
        "{\"type\":\"constant\",\"value\":2000},\"time\":{\"nt\":10},\"sources\":[{\"position\":"
        "[80,80,80],\"wavelet\":{\"type\":\"ricker\",\"f0\":10}}],\"devices\":2}",
        "{\"kind\":\"stencil\",\"name\":\"s\",\"grid\":{\"nx\":16,\"ny\":16,\"nz\":16,\"dx\":10,"
        "\"dy\":10,\"dz\":10},\"iterations\":5}",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        fdw_parse_opts o = {0};
        fdw_spec *s = NULL;
        fdw_error err = {0};
        ck_assert_msg(fdw_spec_parse(specs[i], strlen(specs[i]), &o, &s, &err) == FDW_OK,
                      "spec %zu: %s", i, err.message);
        char *norm = fdw_spec_to_json(s);
        ck_assert_ptr_nonnull(norm);
        same_as_full_parse(norm);
        free(norm);
        fdw_spec_free(s);
    }
}
END_TEST

static char dbdir[] = "/tmp/fdwd-accept-XXXXXX";

static void db_setup(void)
{
    ck_assert_ptr_nonnull(mkdtemp(dbdir));
    char path[600], err[512];
    snprintf(path, sizeof path, "%s/fdwave.db", dbdir);
    ck_assert_msg(db_init(path, err, sizeof err) == 0, "%s", err);
}

static void db_teardown(void)
{
    db_close_all();
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dbdir);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(new_json_equals_read_back)
{
    sqlite3 *c = db();
    ck_assert_ptr_nonnull(c);
    json_t *warn = json_pack("[s, s, s]", "quote \" and \\ and \u00e9 and /",
                             "controls \b\f\n\r\t \x01 \x1f \x7f end", "second");
    json_t *none = json_array();
    const job_new jobs[] = {
        {.owner = "alice", .name = "first", .kind = "acoustic", .priority = 0,
         .devices_requested = 1, .spec_body = "{}", .spec_json = "{}", .warnings = warn},
        {.owner = "bob", .name = "n\u00e4me \"q\" \U0001F600 \\ \x02", .kind = "stencil",
         .priority = 5,
         .devices_requested = 2, .devices_wanted = "[3,1]", .idempotency_key = "k1",
         .spec_body = "{}", .spec_json = "{}", .warnings = none},
        {.owner = "alice", .name = "", .kind = "derivative", .priority = 0,
         .devices_requested = 4, .spec_body = "{}", .spec_json = "{}", .warnings = NULL},
        {.owner = "carol", .name = "low", .kind = "acoustic", .priority = -3,
         .devices_requested = 1, .spec_body = "{}", .spec_json = "{}", .warnings = none},
        {.owner = "bob", .name = "again", .kind = "stencil", .priority = 5,
         .devices_requested = 2, .idempotency_key = "k1", .spec_body = "{}",
         .spec_json = "{}", .warnings = none},
    };
    /* queued ahead at insert: p0 -> 0; p5 -> 0; p0 -> p5 + two p0 - 1 = 2; p-3 -> 3 */
    const long want_pos[] = {0, 0, 2, 3, -1};
    int64_t first_bob = 0;
    ck_assert_int_eq(db_begin(c, 1), SQLITE_OK);
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
        job_stored st;
        ck_assert_int_eq(jobs_insert_tx(c, &jobs[i], &st), 0);
        identity admin = {.admin = 1};
        json_t *read = jobs_get_ex(st.id, &admin, 0);
        ck_assert_ptr_nonnull(read);
        if (i == 4) { /* the repeated key names bob's first job */
            ck_assert_int_eq(st.existed, 1);
            ck_assert_int_eq(st.id, first_bob);
            ck_assert_str_eq(json_string_value(json_object_get(read, "name")), jobs[1].name);
            json_decref(read);
            continue;
        }
        ck_assert_int_eq(st.existed, 0);
        if (i == 1)
            first_bob = st.id;
        ck_assert_int_eq(st.queue_position, want_pos[i]);
        char *a = jobs_new_text(&jobs[i], &st), *b = json_dumps(read, JSON_COMPACT);
        ck_assert_msg(strcmp(a, b) == 0, "job %zu:\nbuilt %s\nread  %s", i, a, b);
        free(a);
        free(b);
        json_decref(read);
    }
    ck_assert_int_eq(db_commit(c), SQLITE_OK);
    json_decref(warn);
    json_decref(none);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("server_accept");
    TCase *tc = tcase_create("norm_fields");
    tcase_add_test(tc, norm_fields_shapes);
    tcase_add_test(tc, norm_fields_engine_output);
    suite_add_tcase(s, tc);
    TCase *td = tcase_create("answer");
    tcase_add_checked_fixture(td, db_setup, db_teardown);
    tcase_add_test(td, new_json_equals_read_back);
    suite_add_tcase(s, td);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
