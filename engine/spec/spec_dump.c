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

static void put_real(buf *b, double d)
{
    char s[40];
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
