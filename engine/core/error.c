/* error.c — error values: status names and filling fdw_error. */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *fdw_status_name(fdw_status s)
{
    switch (s) {
    case FDW_OK: return "ok";
    case FDW_ERR_SPEC: return "invalid_spec";
    case FDW_ERR_IO: return "io";
    case FDW_ERR_NOMEM: return "out_of_memory";
    case FDW_ERR_DEVICE: return "device";
    case FDW_ERR_CANCELLED: return "cancelled";
    case FDW_ERR_UNSUPPORTED: return "unsupported";
    case FDW_ERR_INTERNAL: return "internal";
    case FDW_ERR_UNSTABLE: return "unstable";
    }
    return "unknown";
}

void fdw_error_clear(fdw_error *err)
{
    if (!err)
        return;
    err->code = FDW_OK;
    err->field[0] = '\0';
    err->message[0] = '\0';
}

fdw_status fdw_failv(fdw_error *err, fdw_status code, const char *field, const char *fmt,
                     va_list ap)
{
    if (!err)
        return code;
    err->code = code;
    snprintf(err->field, sizeof err->field, "%s", field ? field : "");
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    return code;
}

fdw_status fdw_fail(fdw_error *err, fdw_status code, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fdw_failv(err, code, field, fmt, ap);
    va_end(ap);
    return code;
}
