/* format.c — text formatters for the CLI's human-readable output (see format.h). */
#include "format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fdc_fmt_bytes(char *out, size_t cap, double b)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024.0 && u < 4) {
        b /= 1024.0;
        u++;
    }
    snprintf(out, cap, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

void fdc_fmt_gib(char *out, size_t cap, double b)
{
    snprintf(out, cap, "%.1f GiB", b / (1024.0 * 1024.0 * 1024.0));
}

void fdc_fmt_value(char *out, size_t cap, const json_t *v)
{
    if (!v || json_is_null(v)) {
        snprintf(out, cap, "-");
    } else if (json_is_string(v)) {
        snprintf(out, cap, "%s", json_string_value(v));
    } else if (json_is_integer(v)) {
        snprintf(out, cap, "%lld", (long long)json_integer_value(v));
    } else if (json_is_real(v)) {
        snprintf(out, cap, "%g", json_real_value(v));
    } else {
        char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        snprintf(out, cap, "%s", s ? s : "?");
        free(s);
    }
}

void fdc_print_json(const json_t *v)
{
    char *s = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (s) {
        fputs(s, stdout);
        fputc('\n', stdout);
        free(s);
    }
}

void fdc_table_init(fdc_table *t, int ncols)
{
    *t = (fdc_table){.ncols = ncols};
}

void fdc_table_add(fdc_table *t, const char *const *row)
{
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        char **c = realloc(t->cells, cap * (size_t)t->ncols * sizeof *c);
        if (!c)
            return; /* out of memory: the row is left out */
        t->cells = c;
        t->cap = cap;
    }
    for (int i = 0; i < t->ncols; i++)
        t->cells[t->nrows * (size_t)t->ncols + (size_t)i] = strdup(row[i] ? row[i] : "");
    t->nrows++;
}

/* Characters in a UTF-8 string: bytes that do not continue a sequence. */
static size_t text_width(const char *s)
{
    size_t n = 0;
    for (; s && *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

void fdc_table_print(const fdc_table *t, const char *align)
{
    size_t *w = calloc((size_t)t->ncols, sizeof *w);
    if (!w)
        return;
    for (size_t r = 0; r < t->nrows; r++)
        for (int i = 0; i < t->ncols; i++) {
            size_t n = text_width(t->cells[r * (size_t)t->ncols + (size_t)i]);
            w[i] = n > w[i] ? n : w[i];
        }
    for (size_t r = 0; r < t->nrows; r++) {
        for (int i = 0; i < t->ncols; i++) {
            const char *cell = t->cells[r * (size_t)t->ncols + (size_t)i];
            const int last = i == t->ncols - 1;
            const int pad = (int)(w[i] - text_width(cell));
            if (align[i] == 'r')
                printf("%*s%s", pad, "", cell ? cell : "");
            else
                printf("%s%*s", cell ? cell : "", last ? 0 : pad, "");
            fputs(last ? "\n" : "  ", stdout);
        }
    }
    free(w);
}

void fdc_table_free(fdc_table *t)
{
    for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    *t = (fdc_table){0};
}

void fdc_fmt_upload(fdc_upload_cols *u, const json_t *d)
{
    fdc_fmt_value(u->name, sizeof u->name, json_object_get(d, "name"));
    fdc_fmt_value(u->fmt, sizeof u->fmt, json_object_get(d, "format"));
    fdc_fmt_bytes(u->size, sizeof u->size, json_number_value(json_object_get(d, "bytes")));
    fdc_fmt_value(u->owner, sizeof u->owner, json_object_get(d, "owner"));
    fdc_fmt_value(u->created, sizeof u->created, json_object_get(d, "created_at"));
    fdc_fmt_value(u->sha, sizeof u->sha, json_object_get(d, "sha256"));
}
