/* error.h — filling fdw_error values inside the engine. */
#ifndef FDW_ERROR_H
#define FDW_ERROR_H

#include "fdwave/fdwave.h"

#include <stdarg.h>

/* Set err's code, field (may be NULL) and printf-style message; returns code.
 * err may be NULL. */
fdw_status fdw_fail(fdw_error *err, fdw_status code, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The same with the message's arguments as a va_list (wrappers such as the spec's). */
fdw_status fdw_failv(fdw_error *err, fdw_status code, const char *field, const char *fmt,
                     va_list ap) __attribute__((format(printf, 4, 0)));

/* Reset err to FDW_OK with empty strings. */
void fdw_error_clear(fdw_error *err);

#endif
