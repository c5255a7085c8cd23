/* format.h — small text formatters shared by the CLI's human-readable output (rates and
 * times come from progress_bar.h, shared with fdwave-run). */
#ifndef FDC_FORMAT_H
#define FDC_FORMAT_H

#include <stddef.h>
#include <jansson.h>

/* "1.5 GiB" style: the unit that keeps the number below 1024. */
void fdc_fmt_bytes(char *out, size_t cap, double bytes);
/* Always in GiB with one decimal: "79.6 GiB", "0.5 GiB" (device memory, so that a
 * column of devices reads alike). */
void fdc_fmt_gib(char *out, size_t cap, double bytes);
/* A JSON value as short text: strings bare, null as "-", reals with %g, true/false and
 * arrays/objects as compact JSON (the Python CLI's textfmt.show prints the same). */
void fdc_fmt_value(char *out, size_t cap, const json_t *v);
/* Prints a JSON value to stdout, indented, followed by a newline. */
void fdc_print_json(const json_t *v);

/* A text table whose columns line up whatever their contents: cells are added a row at a
 * time (copied), then printed with each column as wide as its widest cell (in characters:
 * UTF-8 code points), two spaces apart, align[i] 'r' right-aligning column i; the last
 * column is not padded. The Python CLI's textfmt.table prints the same. */
typedef struct fdc_table {
    int ncols;
    size_t nrows, cap;
    char **cells;
} fdc_table;
void fdc_table_init(fdc_table *t, int ncols);
void fdc_table_add(fdc_table *t, const char *const *row);
void fdc_table_print(const fdc_table *t, const char *align);
void fdc_table_free(fdc_table *t);

/* The columns every upload shows (models list, data ls): name, format, size, owner,
 * created, SHA-256, from an upload's JSON d. */
typedef struct fdc_upload_cols {
    char name[160], fmt[32], size[32], owner[64], created[40], sha[80];
} fdc_upload_cols;
void fdc_fmt_upload(fdc_upload_cols *u, const json_t *d);

#endif
