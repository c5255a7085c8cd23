/* test_sse.c — unit tests of the CLI's Server-Sent Events parser (clients/cli/sse.c):
 * the same stream fed whole, byte by byte and in odd chunks gives the same events; CRLF,
 * CR and LF line ends; comments; multi-line data; events without "event:"; ids kept for
 * Last-Event-ID; a stop request from the callback; reset after a dropped connection. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sse.h"

typedef struct seen {
    int n;
    char log[4096];
    int stop_after;
} seen;

static int record(void *user, const char *id, const char *type, const char *data)
{
    seen *s = user;
    s->n++;
    size_t l = strlen(s->log);
    snprintf(s->log + l, sizeof s->log - l, "[%s|%s|%s]", id, type, data);
    return s->stop_after && s->n >= s->stop_after;
}

static const char stream[] =
    ": keepalive\n\n"
    "id: 1\nevent: state\ndata: {\"state\":\"running\"}\n\n"
    "id: 2\r\nevent: progress\r\ndata: {\"percent\":50}\r\n\r\n"
    "id: 3\revent: log\rdata: line one\rdata: line two\r\r"
    "id: 4\ndata:no-space\nretry: 1000\nunknown: x\n\n"
    "event: ignored-without-data\n\n"
    "id: 5\nevent: end\ndata: {\"state\":\"succeeded\"}\n\n";

static const char expect[] =
    "[1|state|{\"state\":\"running\"}]"
    "[2|progress|{\"percent\":50}]"
    "[3|log|line one\nline two]"
    "[4|message|no-space]"
    "[5|end|{\"state\":\"succeeded\"}]";

static void feed_in_chunks(size_t chunk, seen *s)
{
    fdc_sse p;
    memset(s, 0, sizeof *s);
    fdc_sse_init(&p, record, s);
    size_t n = strlen(stream);
    for (size_t i = 0; i < n; i += chunk)
        fdc_sse_feed(&p, stream + i, i + chunk <= n ? chunk : n - i);
    ck_assert_str_eq(p.last_id, "5");
    fdc_sse_free(&p);
}

START_TEST(whole_and_split_streams_agree)
{
    size_t sizes[] = {strlen(stream), 1, 2, 3, 7, 13};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        seen s;
        feed_in_chunks(sizes[k], &s);
        ck_assert_int_eq(s.n, 5);
        ck_assert_str_eq(s.log, expect);
    }
}
END_TEST

START_TEST(callback_can_stop)
{
    seen s = {.stop_after = 2};
    fdc_sse p;
    fdc_sse_init(&p, record, &s);
    ck_assert_int_ne(fdc_sse_feed(&p, stream, strlen(stream)), 0);
    ck_assert_int_eq(s.n, 2);
    ck_assert_int_ne(fdc_sse_feed(&p, "data: more\n\n", 12), 0);
    ck_assert_int_eq(s.n, 2);
    fdc_sse_free(&p);
}
END_TEST

START_TEST(reset_drops_partial_event_keeps_id)
{
    seen s = {0};
    fdc_sse p;
    fdc_sse_init(&p, record, &s);
    const char *part = "id: 7\nevent: progress\ndata: {\"percent\":10}\n\nid: 8\nevent: prog";
    fdc_sse_feed(&p, part, strlen(part));
    ck_assert_int_eq(s.n, 1);
    fdc_sse_reset(&p); /* the connection dropped mid-event */
    ck_assert_str_eq(p.last_id, "8");
    const char *again = "id: 8\nevent: end\ndata: {}\n\n";
    fdc_sse_feed(&p, again, strlen(again));
    ck_assert_int_eq(s.n, 2);
    ck_assert_str_eq(s.log, "[7|progress|{\"percent\":10}][8|end|{}]");
    fdc_sse_free(&p);
}
END_TEST

START_TEST(long_data_line)
{
    seen s = {0};
    fdc_sse p;
    fdc_sse_init(&p, record, &s);
    size_t n = 100000;
    char *big = malloc(n + 16);
    memcpy(big, "data: ", 6);
    memset(big + 6, 'x', n);
    memcpy(big + 6 + n, "\n\n", 2);
    /* The callback's log buffer is small; count instead of logging. */
    fdc_sse_feed(&p, big, n + 8);
    ck_assert_int_eq(s.n, 1);
    ck_assert_int_eq((int)p.data_len, 0);
    free(big);
    fdc_sse_free(&p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("clients-sse");
    TCase *t = tcase_create("parser");
    tcase_add_test(t, whole_and_split_streams_agree);
    tcase_add_test(t, callback_can_stop);
    tcase_add_test(t, reset_drops_partial_event_keeps_id);
    tcase_add_test(t, long_data_line);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
