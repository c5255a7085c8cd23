/* test_accept.c — the piece of POST /v1/jobs that replaced a read-back, tested directly
 * (linked against fdwd_core): the 201 answer, rendered from what was stored
 * (jobs_new_record, job_json_of), is byte for byte the job read back inside the
 * accepting transaction (job_json_get, json_dumps), queue positions, idempotency
 * repeats and strings that need escaping included. */
#include "core/app.h"
#include "core/db.h"
#include "fdwave/fdwave.h"
#include "store/job_json.h"
#include "store/jobs.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dbdir[] = "/tmp/fdwd-accept-XXXXXX";
static fdwd_app app_storage, *app = &app_storage; /* the context: just its database */

static void db_setup(void)
{
    ck_assert_ptr_nonnull(mkdtemp(dbdir));
    char path[600], err[512];
    snprintf(path, sizeof path, "%s/fdwave.db", dbdir);
    app_init(app);
    app->db = db_open(path, err, sizeof err);
    ck_assert_msg(app->db != NULL, "%s", err);
}

static void db_teardown(void)
{
    db_close(app->db);
    app->db = NULL;
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dbdir);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(new_json_equals_read_back)
{
    sqlite3 *c = db(app->db);
    ck_assert_ptr_nonnull(c);
    json_t *wl = json_pack("[s, s, s]", "quote \" and \\ and \u00e9 and /",
                           "controls \b\f\n\r\t \x01 \x1f \x7f end", "second");
    char *warn = json_dumps(wl, JSON_COMPACT);
    const char *none = "[]";
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
        json_t *read = job_json_get(app, st.id, &admin, 0);
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
        job_record rec;
        jobs_new_record(&jobs[i], &st, &rec);
        json_t *built = job_json_of(app, &rec, 0);
        char *a = json_dumps(built, JSON_COMPACT), *b = json_dumps(read, JSON_COMPACT);
        json_decref(built);
        ck_assert_msg(strcmp(a, b) == 0, "job %zu:\nbuilt %s\nread  %s", i, a, b);
        free(a);
        free(b);
        json_decref(read);
    }
    ck_assert_int_eq(db_commit(c), SQLITE_OK);
    free(warn);
    json_decref(wl);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("server_accept");
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
