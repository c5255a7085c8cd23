/* client.h — how the fdwave CLI talks to fdwaved: one libcurl request per call, with the
 * server URL and bearer token applied, and every failure turned into a printed message
 * plus one of the exit codes in exit_codes.h. Streaming bodies (downloads, uploads, the
 * event stream) go through fdc_stream. */
#ifndef FDC_CLIENT_H
#define FDC_CLIENT_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

typedef struct fdc_client {
    char url[1024];    /* base URL without a trailing slash, e.g. http://127.0.0.1:8080 */
    const char *token; /* bearer token or NULL */
    int json;          /* --json: machine-readable output */
} fdc_client;

/* A buffered response. body is NUL-terminated; json is the parsed body when it is JSON. */
typedef struct fdc_response {
    long status;
    char *body;
    size_t len;
    json_t *json;
} fdc_response;

/* Sends method path (path starts with '/', may hold a query) with an optional body.
 * extra_headers: NULL-terminated list of "Name: value" lines, or NULL.
 * Returns FDC_EXIT_OK with resp filled for a 2xx answer. Otherwise reports the reason
 * (report.h: "error: invalid_spec: sources[0].position: ...", "cannot reach fdwaved at
 * ...") and returns the matching exit code; resp is then freed already. */
int fdc_call(const fdc_client *c, const char *method, const char *path, const char *ctype,
             const char *body, size_t len, const char *const *extra_headers,
             fdc_response *resp);
void fdc_response_free(fdc_response *r);

/* A streamed request: the response body of a 2xx answer goes to sink (return the number
 * of bytes consumed; anything else stops the transfer), request body from upload if not
 * NULL (upload_size bytes, sent with PUT). On an HTTP error the body is collected and
 * reported as in fdc_call. If stopped_ok is non-NULL and the sink stopped the transfer,
 * *stopped_ok is set and that is not an error. idle_timeout_s > 0 aborts a connection that
 * sends nothing for that long. Returns an exit code; *transport_failed (if non-NULL) is set
 * when the connection failed or dropped (the caller may retry) instead of printing. */
typedef size_t (*fdc_sink)(void *user, const char *data, size_t n);
typedef struct fdc_stream_opts {
    const char *method;               /* NULL: GET, or PUT when upload is set */
    const char *const *extra_headers; /* NULL-terminated or NULL */
    fdc_sink sink;
    void *sink_user;
    FILE *upload;
    long long upload_size;
    long idle_timeout_s;
    int quiet_transport;              /* do not print transport errors (caller retries) */
    int *transport_failed;
    int *sink_stopped;
} fdc_stream_opts;
int fdc_stream(const fdc_client *c, const char *path, const fdc_stream_opts *o);

#endif
