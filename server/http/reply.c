/* reply.c — the answers routes give (see reply.h). */
#include "http/reply.h"
#include "core/log.h"
#include "http/metrics.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum MHD_Result reply_response(request *r, unsigned status, struct MHD_Response *resp)
{
    fdwd_app *app = r->app;
    if (!resp)
        return MHD_NO;
    metrics_count_status(app, status);
    enum MHD_Result ret = MHD_queue_response(r->conn, status, resp);
    MHD_destroy_response(resp);
    return ret;
}

struct MHD_Response *json_response(json_t *body)
{
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body);
    if (!text)
        return NULL;
    size_t n = strlen(text);
    char *withnl = realloc(text, n + 2);
    if (withnl) {
        text = withnl;
        text[n++] = '\n';
        text[n] = '\0';
    }
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(n, text, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(text);
        return NULL;
    }
    MHD_add_response_header(resp, "Content-Type", "application/json");
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    return resp;
}

/* Length of the valid UTF-8 sequence at p (1 to 4), or 0 when p does not start one
 * (overlong forms, surrogates and code points above U+10FFFF are not valid). */
static size_t utf8_seq(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    size_t n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3
                                            : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((n == 3 && p[0] == 0xe0 && p[1] < 0xa0) || (n == 3 && p[0] == 0xed && p[1] >= 0xa0) ||
        (n == 4 && p[0] == 0xf0 && p[1] < 0x90) || (n == 4 && p[0] == 0xf4 && p[1] >= 0x90))
        return 0;
    return n;
}

/* in as valid UTF-8: every byte that is not part of a valid sequence written as the text
 * \xHH, so a message quoting a request path of arbitrary bytes can still be answered. */
static void utf8_escaped(const char *in, char *out, size_t cap)
{
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p && o + 5 < cap;) {
        size_t n = utf8_seq(p);
        if (n == 0) {
            o += (size_t)snprintf(out + o, cap - o, "\\x%02X", *p);
            p++;
        } else if (o + n < cap) {
            memcpy(out + o, p, n);
            o += n;
            p += n;
        } else {
            break;
        }
    }
    out[o] = '\0';
}

struct MHD_Response *error_response(const char *code, const char *field, const char *message)
{
    char msg[4096];
    utf8_escaped(message, msg, sizeof msg);
    return json_response(json_pack("{s:{s:s, s:s, s:s?}}", "error", "code", code, "message",
                                   msg, "field", field));
}

enum MHD_Result reply_json(request *r, unsigned status, json_t *body)
{
    return reply_response(r, status, json_response(body));
}

enum MHD_Result reply_json_at(request *r, unsigned status, json_t *body, const char *location)
{
    struct MHD_Response *resp = json_response(body);
    if (resp)
        MHD_add_response_header(resp, "Location", location);
    return reply_response(r, status, resp);
}

enum MHD_Result reply_error(request *r, unsigned status, const char *code, const char *field,
                            const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (status >= 500)
        log_error("%s %s -> %u %s: %s", r->method, r->path, status, code, msg);
    else
        log_debug("%s %s -> %u %s: %s", r->method, r->path, status, code, msg);
    return reply_response(r, status, error_response(code, field, msg));
}
