/* report.c — the fdwave CLI's failure reports, as text or JSON (see report.h). */
#include "report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "exit_codes.h"

static int json_mode;
static char last_field[256]; /* the field of the last API error reported */

const char *fdc_last_error_field(void)
{
    return last_field;
}

void fdc_report_set_json(int on)
{
    json_mode = on;
}

int fdc_exit_for_http(long status)
{
    if (status == 401)
        return FDC_EXIT_UNAUTHORIZED;
    if (status == 404)
        return FDC_EXIT_NOT_FOUND;
    if (status >= 400 && status < 500)
        return FDC_EXIT_BAD_REQUEST;
    return FDC_EXIT_SERVER;
}

/* The JSON form: one compact line on stdout. */
static void print_json_error(const char *code, const char *message, const char *field,
                             long http_status)
{
    json_t *o = json_pack("{s:{s:s, s:s, s:s?}, s:o}", "error", "code", code, "message",
                          message, "field", field, "http_status",
                          http_status > 0 ? json_integer(http_status) : json_null());
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    if (s) {
        fputs(s, stdout);
        fputc('\n', stdout);
    } else {
        /* Out of memory: still say something a script can see. */
        fputs("{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\","
              "\"field\":null},\"http_status\":null}\n",
              stdout);
    }
    fflush(stdout);
    free(s);
    json_decref(o);
}

/* One report: text_prefix MESSAGE text_suffix on stderr, or the JSON form. */
static int report(int exit_code, const char *code, const char *field, long http_status,
                  const char *text_prefix, const char *message, const char *text_suffix)
{
    if (json_mode)
        print_json_error(code, message, field, http_status);
    else
        fprintf(stderr, "%s%s%s\n", text_prefix, message, text_suffix);
    return exit_code;
}

/* report() with the message formatted from fmt and ap. */
static int vreport(int exit_code, const char *code, const char *text_prefix,
                   const char *text_suffix, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return report(exit_code, code, NULL, 0, text_prefix, msg, text_suffix);
}

int fdc_fail_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vreport(FDC_EXIT_USAGE, "usage", "fdwave: ", "\n(see fdwave --help)", fmt, ap);
    va_end(ap);
    return rc;
}

int fdc_fail_synopsis(const char *synopsis)
{
    char msg[512];
    snprintf(msg, sizeof msg, "usage: fdwave %s", synopsis);
    return report(FDC_EXIT_USAGE, "usage", NULL, 0, "", msg, "");
}

int fdc_fail_local(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vreport(FDC_EXIT_LOCAL_IO, "local_io", "fdwave: ", "", fmt, ap);
    va_end(ap);
    return rc;
}

int fdc_fail_answer(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vreport(FDC_EXIT_SERVER, "bad_answer", "error: ", "", fmt, ap);
    va_end(ap);
    return rc;
}

int fdc_fail_unreachable(const char *url, const char *why)
{
    char msg[1400];
    snprintf(msg, sizeof msg, "cannot reach fdwaved at %s: %s", url, why);
    return report(FDC_EXIT_UNREACHABLE, "unreachable", NULL, 0, "", msg, "");
}

int fdc_fail_http(long status, const char *body, size_t len)
{
    const int rc = fdc_exit_for_http(status);
    json_t *j = body && len ? json_loadb(body, len, 0, NULL) : NULL;
    json_t *e = json_object_get(j, "error");
    const char *code = json_string_value(json_object_get(e, "code"));
    if (json_is_object(e) && code) {
        const char *msg = json_string_value(json_object_get(e, "message"));
        const char *field = json_string_value(json_object_get(e, "field"));
        if (!msg)
            msg = "no message";
        snprintf(last_field, sizeof last_field, "%s", field ? field : "");
        if (json_mode)
            print_json_error(code, msg, field, status);
        else
            fprintf(stderr, "error: %s: %s%s%s (HTTP %ld)\n", code, field && *field ? field : "",
                    field && *field ? ": " : "", msg, status);
        json_decref(j);
        return rc;
    }
    json_decref(j);
    /* Not the API's error shape: show the start of the body so the user sees what
     * answered. */
    int show = 0;
    while (body && (size_t)show < len && show < 200 && body[show] != '\n' && body[show] != '\r')
        show++;
    char code_buf[32], msg[400];
    snprintf(code_buf, sizeof code_buf, "http_%ld", status);
    snprintf(msg, sizeof msg, "HTTP %ld from server%s%.*s", status, show ? ": " : "", show,
             body ? body : "");
    return report(rc, code_buf, NULL, status, "error: ", msg, "");
}
