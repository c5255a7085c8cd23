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
    if (parent && parent[0])
        snprintf(out, SP_PATH, "%s.%s", parent, key);
    else
        snprintf(out, SP_PATH, "%s", key);
}

void sp_idx(char *out, const char *parent, size_t i)
{
    snprintf(out, SP_PATH, "%s[%zu]", parent, i);
}

int sp_fail(spec_ctx *c, const char *field, const char *fmt, ...)
{
    fdw_error *err = c->err;
    if (err) {
        err->code = FDW_ERR_SPEC;
        snprintf(err->field, sizeof err->field, "%s", field ? field : "");
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
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
        char field[SP_PATH], list[256] = "";
        size_t used = 0;
        for (int i = 0; allowed[i]; i++) {
            int n = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", allowed[i]);
            if (n < 0 || (size_t)n >= sizeof list - used)
                break;
            used += (size_t)n;
        }
        sp_key(field, path, key);
        return sp_fail(c, field, "unknown field \"%s\" in %s (known fields: %s)", key,
                       path[0] ? path : "the spec", list);
    }
    return 0;
}

/* Look up key; -1 with "missing" error if required and absent. */
static int member(spec_ctx *c, const json_t *obj, const char *path, const char *key,
                  int required, json_t **out, char *field)
{
    sp_key(field, path, key);
    *out = json_object_get(obj, key);
    if (!*out && required)
        return sp_fail(c, field, "missing required field \"%s\" in %s", key,
                       path[0] ? path : "the spec");
    return 0;
}

static int wrong_type(spec_ctx *c, const char *field, const char *want, const json_t *v)
{
    return sp_fail(c, field, "%s must be %s, not %s", field, want, sp_type_name(v));
}

int sp_object(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
              json_t **out)
{
    char field[SP_PATH];
    if (member(c, obj, path, key, required, out, field))
        return -1;
    if (*out && !json_is_object(*out))
        return wrong_type(c, field, "an object", *out);
    return 0;
}

int sp_array(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
             json_t **out)
{
    char field[SP_PATH];
    if (member(c, obj, path, key, required, out, field))
        return -1;
    if (*out && !json_is_array(*out))
        return wrong_type(c, field, "an array", *out);
    return 0;
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
    char field[SP_PATH];
    json_t *v;
    if (member(c, obj, path, key, required, &v, field))
        return -1;
    return v ? sp_value_int(c, v, field, min, max, out) : 0;
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

int sp_num(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
           double *out)
{
    char field[SP_PATH];
    json_t *v;
    if (member(c, obj, path, key, required, &v, field))
        return -1;
    return v ? sp_value_num(c, v, field, out) : 0;
}

int sp_pos(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
           double *out)
{
    char field[SP_PATH];
    json_t *v;
    if (member(c, obj, path, key, required, &v, field))
        return -1;
    if (!v)
        return 0;
    double d;
    if (sp_value_num(c, v, field, &d))
        return -1;
    if (!(d > 0))
        return sp_fail(c, field, "%s must be greater than 0, not %g", field, d);
    *out = d;
    return 0;
}

int sp_bool(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
            int *out)
{
    char field[SP_PATH];
    json_t *v;
    if (member(c, obj, path, key, required, &v, field))
        return -1;
    if (!v)
        return 0;
    if (!json_is_boolean(v))
        return wrong_type(c, field, "true or false", v);
    *out = json_is_true(v);
    return 0;
}

int sp_enum(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
            const char *const *names, int *out)
{
    char field[SP_PATH];
    json_t *v;
    if (member(c, obj, path, key, required, &v, field))
        return -1;
    if (!v)
        return 0;
    if (!json_is_string(v))
        return wrong_type(c, field, "a string", v);
    const char *s = json_string_value(v);
    for (int i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return 0;
        }
    char list[256] = "";
    size_t used = 0;
    for (int i = 0; names[i]; i++) {
        int n = snprintf(list + used, sizeof list - used, "%s\"%s\"", i ? ", " : "", names[i]);
        if (n < 0 || (size_t)n >= sizeof list - used)
            break;
        used += (size_t)n;
    }
    return sp_fail(c, field, "%s is \"%.64s\" but must be one of %s", field, s, list);
}

int sp_string(spec_ctx *c, const json_t *obj, const char *path, const char *key, int required,
              char *out, size_t maxlen)
{
    char field[SP_PATH];
    json_t *v;
    if (member(c, obj, path, key, required, &v, field))
        return -1;
    if (!v)
        return 0;
    if (!json_is_string(v))
        return wrong_type(c, field, "a string", v);
    size_t n = json_string_length(v);
    if (n + 1 > maxlen)
        return sp_fail(c, field, "%s is %zu bytes long; at most %zu are allowed", field, n,
                       maxlen - 1);
    memcpy(out, json_string_value(v), n + 1);
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
    char field[SP_PATH];
    json_t *v;
    if (member(c, obj, path, key, required, &v, field))
        return -1;
    return v ? sp_value_vec3(c, v, field, out) : 0;
}

json_t *sp_json_vec3(const double v[3])
{
    return json_pack("[fff]", v[0], v[1], v[2]);
}
