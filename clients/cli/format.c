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
