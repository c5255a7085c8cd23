/* reply.c — the answers routes give (see reply.h). */
#include "reply.h"
#include "log.h"
#include "metrics.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum MHD_Result reply_response(request *r, unsigned status, struct MHD_Response *resp)
{
    if (!resp)
        return MHD_NO;
    metrics_count_status(status);
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

struct MHD_Response *error_response(const char *code, const char *field, const char *message)
{
    return json_response(json_pack("{s:{s:s, s:s, s:s?}}", "error", "code", code, "message",
                                   message, "field", field && *field ? field : NULL));
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
