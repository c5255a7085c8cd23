/* report.h — how the fdwave CLI reports a failure. As text on stderr by default; with
 * --json as one line of JSON on stdout, so a script reading stdout always gets JSON:
 *     {"error":{"code":"invalid_spec","message":"...","field":"sources[0].position"},
 *      "http_status":400}
 * code is the server's error code when the server answered with one, else the CLI's
 * own: "usage", "unreachable", "local_io", "bad_answer" (an answer fdwaved would not
 * give), "http_NNN" (an HTTP error without the API's error body). field is the JSON
 * path or parameter at fault, or null; http_status is null when no HTTP answer came.
 * Every function returns the exit code (exit_codes.h) the command should end with; the
 * Python client's CLI prints the same objects and the same text. */
#ifndef FDC_REPORT_H
#define FDC_REPORT_H

#include <stddef.h>

/* --json: report errors as JSON on stdout from now on. */
void fdc_report_set_json(int on);

/* A usage error: "fdwave: MESSAGE" and "(see fdwave --help)" (exit 2). */
int fdc_fail_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A command given the wrong arguments: "usage: fdwave SYNOPSIS" (exit 2). */
int fdc_fail_synopsis(const char *synopsis);
/* A local file that cannot be read or written: "fdwave: MESSAGE" (exit 9). */
int fdc_fail_local(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An answer the CLI cannot use: "error: MESSAGE" (exit 8). */
int fdc_fail_answer(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* No answer: "cannot reach fdwaved at URL: WHY" (exit 5). */
int fdc_fail_unreachable(const char *url, const char *why);
/* An HTTP error answer (status >= 400, or an unexpected 1xx/3xx) with its body: the API's
 * error object as "error: CODE: FIELD: MESSAGE (HTTP STATUS)", anything else (a proxy,
 * another program on the port) as "error: HTTP STATUS from server: FIRST LINE". Exit 4,
 * 6, 7 or 8 by status. */
int fdc_fail_http(long status, const char *body, size_t len);

/* The field of the last API error fdc_fail_http reported ("" when none): what a command
 * may add a hint to. */
const char *fdc_last_error_field(void);

/* Exit code for an HTTP status >= 400. */
int fdc_exit_for_http(long status);

#endif
