/* spec_dump.c — writes the normalised spec as compact JSON text. The same bytes as
 * json_dumps, except that each real is printed with the fewest significant digits (15, 16
 * or 17) that read back as the same double: 0.8 stays "0.8" rather than
 * "0.80000000000000004", and every value still round-trips exactly through fdw_spec_parse. */
#include "spec/spec_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct buf {
    char *p;
    size_t len, cap;
    int failed;
} buf;

static void put(buf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *np = realloc(b->p, cap);
        if (!np) {
            b->failed = 1;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

/* The text "%.15g" gives for d when d is a decimal of at most 15 significant digits with
 * 1e-4 <= |d| < 1e15 (where %g writes no exponent): n / 10^k read back as d, written
 * "int.frac" without trailing zeros. 1 when it wrote s, 0 when d is not such a decimal.
 * A spec's reals nearly all are (10.0, 2000.0, 0.002), and this costs a few multiplies
 * where printing and reading back cost a microsecond each. n / 10^k is one correctly
 * rounded division of two exact doubles, the value strtod gives for that decimal; and
 * rounding d to 15 digits gives that decimal back (d lies within half an ulp of it). */
static int put_decimal(char *s, double d)
{
    static const double p10[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    const double a = d < 0 ? -d : d;
    if (!(a >= 1e-4 && a < 1e15))
        return 0;
    for (int k = 0; k < 16; k++) {
        const double x = a * p10[k];
        if (x >= 1e15)
            return 0; /* more than 15 significant digits */
        const long long n = (long long)(x + 0.5);
        if ((double)n / p10[k] != a)
            continue;
        const long long ip = n / (long long)p10[k], fp = n % (long long)p10[k];
        int at = sprintf(s, "%s%lld.", d < 0 ? "-" : "", ip);
        if (k == 0) {
            s[at++] = '0';
        } else {
            at += sprintf(s + at, "%0*lld", k, fp);
            while (s[at - 1] == '0') /* k is the least that reads back: none, but be sure */
                at--;
            if (s[at - 1] == '.')
                s[at++] = '0';
        }
        s[at] = '\0';
        return 1;
    }
    return 0;
}

static void put_real(buf *b, double d)
{
    char s[40];
    if (put_decimal(s, d)) {
        put(b, s, strlen(s));
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(s, sizeof s, "%.*g", prec, d);
        if (strtod(s, NULL) == d)
            break;
    }
    /* keep it a JSON real, so integers and reals stay distinct when read back */
    if (!strpbrk(s, ".eEn"))
        strcat(s, ".0");
    put(b, s, strlen(s));
}

/* Strings that need escaping go through jansson (its escaping is the reference). */
static void put_jansson(buf *b, const json_t *v)
{
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    if (!s) {
        b->failed = 1;
        return;
    }
    put(b, s, strlen(s));
    free(s);
}

/* A key or string value: between quotes as it is when nothing in it needs escaping (the
 * spec's keys and nearly all of its strings; jansson validated their UTF-8 when the spec
 * was read), else through jansson. The daemon dumps a spec per submission, and a jansson
 * string and dump per key were a tenth of its CPU time per POST. */
static void put_string(buf *b, const char *s)
{
    const char *c = s;
    while (*c && (unsigned char)*c >= 0x20 && *c != '"' && *c != '\\')
        c++;
    if (!*c) {
        put(b, "\"", 1);
        put(b, s, (size_t)(c - s));
        put(b, "\"", 1);
        return;
    }
    json_t *v = json_string(s);
    if (!v) {
        b->failed = 1;
        return;
    }
    put_jansson(b, v);
    json_decref(v);
}

static void put_value(buf *b, const json_t *v)
{
    if (json_is_real(v)) {
        put_real(b, json_real_value(v));
    } else if (json_is_object(v)) {
        const char *key;
        json_t *val;
        int first = 1;
        put(b, "{", 1);
        json_object_foreach((json_t *)v, key, val) {
            if (!first)
                put(b, ",", 1);
            first = 0;
            put_string(b, key);
            put(b, ":", 1);
            put_value(b, val);
        }
        put(b, "}", 1);
    } else if (json_is_array(v)) {
        put(b, "[", 1);
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i)
                put(b, ",", 1);
            put_value(b, json_array_get(v, i));
        }
        put(b, "]", 1);
    } else if (json_is_string(v)) {
        put_string(b, json_string_value(v));
    } else if (json_is_integer(v)) {
        char s[32];
        snprintf(s, sizeof s, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        put(b, s, strlen(s));
    } else if (json_is_true(v)) {
        put(b, "true", 4);
    } else if (json_is_false(v)) {
        put(b, "false", 5);
    } else {
        put(b, "null", 4);
    }
}

char *sp_dump(const json_t *root)
{
    buf b = {0};
    put_value(&b, root);
    if (b.failed) {
        free(b.p);
        return NULL;
    }
    return b.p;
}
