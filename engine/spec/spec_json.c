/* spec_json.c — typed access to the members of a parsed JSON spec. Every accessor checks
 * presence, JSON type and basic range, and on failure fills the error with FDW_ERR_SPEC,
 * the JSON path of the field ("sources[2].position") and a sentence saying why. */
#include "spec/spec_parse.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void sp_key(char *out, const char *parent, const char *key)
{
    /* Asked for every member the parser looks up (the path names it in any error), so a
     * copy rather than a formatted print; truncated at SP_PATH as snprintf would. */
    size_t at = 0;
    if (parent && parent[0]) {
        const size_t pl = strnlen(parent, SP_PATH - 1);
        memcpy(out, parent, pl);
        at = pl;
        if (at < SP_PATH - 1)
            out[at++] = '.';
    }
    const size_t kl = strnlen(key, SP_PATH - 1 - at);
    memcpy(out + at, key, kl);
    out[at + kl] = '\0';
}

void sp_idx(char *out, const char *parent, size_t i)
{
    snprintf(out, SP_PATH, "%s[%zu]", parent, i);
}

int sp_fail(spec_ctx *c, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fdw_failv(c->err, FDW_ERR_SPEC, field, fmt, ap);
    va_end(ap);
    return -1;
}

const char *sp_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "a value";
}

/* names as one list for a message: a, b, c (quoted: "a", "b", "c"), cut at size. */
static void join_names(char *list, size_t size, const char *const *names, int quoted)
{
    size_t used = 0;
    list[0] = '\0';
    for (int i = 0; names[i]; i++) {
        const char *q = quoted ? "\"" : "";
        int n = snprintf(list + used, size - used, "%s%s%s%s", i ? ", " : "", q, names[i], q);
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
}

int sp_keys(spec_ctx *c, const json_t *obj, const char *path, const char *const *allowed)
{
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)obj, key, val) {
        int ok = 0;
        for (int i = 0; allowed[i]; i++)
            if (strcmp(key, allowed[i]) == 0)
                ok = 1;
        if (ok)
            continue;
        char field[SP_PATH], list[256];
        join_names(list, sizeof list, allowed, 0);
        sp_key(field, path, key);
        return sp_fail(c, field, "unknown field \"%s\" in %s (known fields: %s)", key,
                       path[0] ? path : "the spec", list);
    }
    return 0;
}

int sp_entry(spec_ctx *c, const json_t *e, const char *path, const char *shape,
             const char *const *allowed)
{
    if (!json_is_object(e))
        return sp_fail(c, path, "%s must be an object %s, not %s", path, shape,
                       sp_type_name(e));
    return sp_keys(c, e, path, allowed);
}

/* A member of an object as looked up: its value (NULL: absent) and its path. */
typedef struct member_at {
    json_t *v;
    char field[SP_PATH];
} member_at;

/* Look up key into m: 1 when present, 0 when absent and not required, -1 with a "missing"
 * error when required and absent. */
static int member(spec_ctx *c, const json_t *obj, const char *path, const char *key,
                  int required, member_at *m)
{
    sp_key(m->field, path, key);
    m->v = json_object_get(obj, key);
    if (!m->v && required)
        return sp_fail(c, m->field, "missing required field \"%s\" in %s", key,
                       path[0] ? path : "the spec");
    return m->v != NULL;
}

static int wrong_type(spec_ctx *c, const char *field, const char *want, const json_t *v)
{
    return sp_fail(c, field, "%s must be %s, not %s", field, want, sp_type_name(v));
}

/* sp_object, sp_array: the member, when present, of JSON type `type` (named want). */
static int member_of_type(spec_ctx *c, const json_t *obj, const char *path, const char *key,
                          int required, json_type type, const char *want, json_t **out)
{
    member_at m;
    const int has = member(c, obj, path, key, required, &m);
    *out = m.v;
    if (has > 0 && json_typeof(m.v) != type)
        return wrong_type(c, m.field, want, m.v);
    return has < 0 ? -1 : 0;
}

int sp_object(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
              json_t **out)
{
    return member_of_type(c, obj, path, key, required, JSON_OBJECT, "an object", out);
}

int sp_array(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
             json_t **out)
{
    return member_of_type(c, obj, path, key, required, JSON_ARRAY, "an array", out);
}

int sp_value_int(spec_ctx *c, const json_t *v, const char *field, long long min,
                 long long max, long long *out)
{
    long long x;
    if (json_is_integer(v)) {
        x = json_integer_value(v);
    } else if (json_is_real(v)) {
        /* JSON has one number type: 96.0 is the integer 96, 96.5 is not an integer. */
        double d = json_real_value(v);
        if (!(d == floor(d)) || fabs(d) > 9e15)
            return sp_fail(c, field, "%s must be an integer, not %g", field, d);
        x = (long long)d;
    } else {
        return wrong_type(c, field, "an integer", v);
    }
    if (x < min || x > max)
        return sp_fail(c, field, "%s is %lld but must be between %lld and %lld", field, x, min,
                       max);
    *out = x;
    return 0;
}

int sp_int(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
           long long min, long long max, long long *out)
{
    member_at m;
    const int has = member(c, obj, path, key, required, &m);
    return has > 0 ? sp_value_int(c, m.v, m.field, min, max, out) : has;
}

int sp_value_num(spec_ctx *c, const json_t *v, const char *field, double *out)
{
    if (!json_is_number(v))
        return wrong_type(c, field, "a number", v);
    double d = json_number_value(v);
    if (!isfinite(d))
        return sp_fail(c, field, "%s must be a finite number", field);
    *out = d;
    return 0;
}

/* sp_num, and with pos set sp_pos: a finite number, greater than 0 where pos. */
static int number(spec_ctx *c, const json_t *obj, const char *path, const char *key,
                  int required, int pos, double *out)
{
    member_at m;
    double d;
    const int has = member(c, obj, path, key, required, &m);
    if (has <= 0 || sp_value_num(c, m.v, m.field, &d))
        return has == 0 ? 0 : -1;
    if (pos && !(d > 0))
        return sp_fail(c, m.field, "%s must be greater than 0, not %g", m.field, d);
    *out = d;
    return 0;
}

int sp_num(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
           double *out)
{
    return number(c, obj, path, key, required, 0, out);
}

int sp_pos(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
           double *out)
{
    return number(c, obj, path, key, required, 1, out);
}

int sp_bool(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
            int *out)
{
    member_at m;
    const int has = member(c, obj, path, key, required, &m);
    if (has > 0 && !json_is_boolean(m.v))
        return wrong_type(c, m.field, "true or false", m.v);
    if (has > 0)
        *out = json_is_true(m.v);
    return has < 0 ? -1 : 0;
}

/* sp_enum, sp_string: member() of a member that must be a string. */
static int string_member(spec_ctx *c, const json_t *obj, const char *path, const char *key,
                         int required, member_at *m)
{
    const int has = member(c, obj, path, key, required, m);
    return has > 0 && !json_is_string(m->v) ? wrong_type(c, m->field, "a string", m->v) : has;
}

int sp_enum(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
            const char *const *names, int *out)
{
    member_at m;
    const int has = string_member(c, obj, path, key, required, &m);
    if (has <= 0)
        return has;
    const char *s = json_string_value(m.v);
    for (int i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return 0;
        }
    char list[256];
    join_names(list, sizeof list, names, 1);
    return sp_fail(c, m.field, "%s is \"%.64s\" but must be one of %s", m.field, s, list);
}

int sp_string(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
              char *out, size_t maxlen)
{
    member_at m;
    const int has = string_member(c, obj, path, key, required, &m);
    if (has <= 0)
        return has;
    size_t n = json_string_length(m.v);
    if (n + 1 > maxlen)
        return sp_fail(c, m.field, "%s is %zu bytes long; at most %zu are allowed", m.field,
                       n, maxlen - 1);
    memcpy(out, json_string_value(m.v), n + 1);
    return 0;
}

int sp_value_vec3(spec_ctx *c, const json_t *v, const char *field, double out[3])
{
    if (!json_is_array(v))
        return wrong_type(c, field, "an array of 3 numbers [x, y, z]", v);
    if (json_array_size(v) != 3)
        return sp_fail(c, field, "%s must have 3 elements [x, y, z], not %zu", field,
                       json_array_size(v));
    for (size_t i = 0; i < 3; i++) {
        /* Errors name the whole vector: it is the field a user fixes. */
        json_t *e = json_array_get(v, i);
        if (!json_is_number(e))
            return sp_fail(c, field, "%s[%zu] must be a number, not %s", field, i,
                           sp_type_name(e));
        out[i] = json_number_value(e);
        if (!isfinite(out[i]))
            return sp_fail(c, field, "%s[%zu] must be a finite number", field, i);
    }
    return 0;
}

int sp_vec3(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
            double out[3])
{
    member_at m;
    const int has = member(c, obj, path, key, required, &m);
    return has > 0 ? sp_value_vec3(c, m.v, m.field, out) : has;
}

json_t *sp_json_vec3(const double v[3])
{
    return json_pack("[fff]", v[0], v[1], v[2]);
}
