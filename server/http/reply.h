/* reply.h — how a route answers: JSON bodies (compact, newline-terminated, with
 * Cache-Control: no-store), the API's error object {"error":{"code","message","field"}},
 * and queueing a prepared response (each status counted for /metrics). */
#ifndef FDWD_REPLY_H
#define FDWD_REPLY_H

#include "http/request.h"

#include <jansson.h>
#include <microhttpd.h>

/* A JSON response (body stolen), or NULL. */
struct MHD_Response *json_response(json_t *body);
/* The error object as a response. field: the JSON path of the bad field, "" for the
 * document as a whole (a body that is not a JSON object), NULL when no field is at fault
 * (then "field" is null). */
struct MHD_Response *error_response(const char *code, const char *field, const char *message);
/* Queue a prepared response and release it. NULL resp: MHD_NO (the connection closes). */
enum MHD_Result reply_response(request *r, unsigned status, struct MHD_Response *resp);
/* Answer with JSON (body stolen). */
enum MHD_Result reply_json(request *r, unsigned status, json_t *body);
/* Answer with JSON (body stolen) and a Location header naming location. */
enum MHD_Result reply_json_at(request *r, unsigned status, json_t *body, const char *location);
/* Answer with the error object (logged: at error level for 5xx, debug otherwise). */
enum MHD_Result reply_error(request *r, unsigned status, const char *code, const char *field,
                            const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
