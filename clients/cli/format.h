/* format.h — small text formatters shared by the CLI's human-readable output (rates and
 * times come from progress_bar.h, shared with fdwave-run). */
#ifndef FDC_FORMAT_H
#define FDC_FORMAT_H

#include <stddef.h>
#include <jansson.h>

/* "1.5 GiB" style. */
void fdc_fmt_bytes(char *out, size_t cap, double bytes);
/* A JSON value as short text: strings bare, null as "-", arrays/objects compact. */
void fdc_fmt_value(char *out, size_t cap, const json_t *v);
/* Prints a JSON value to stdout, indented, followed by a newline. */
void fdc_print_json(const json_t *v);

#endif
