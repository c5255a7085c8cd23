/* specs.c — the daemon's fdw_spec_parse options, and the two fields it reads back from
 * the normalised spec (see specs.h). */
#include "specs.h"
#include "app.h"
#include "models.h"

#include <stdlib.h>
#include <string.h>

fdw_status specs_parse(const identity *who, const char *body, size_t len, fdw_spec **out,
                       fdw_error *err)
{
    fdw_parse_opts o = {0};
    o.base_dir = g_app.models_dir;
    o.allowed_dirs = g_app.allowed_ptrs;
    o.resolve_model = models_resolve;
    o.resolve_user = (void *)who;
    o.max_points = 0;
    o.max_devices = 0; /* checked by the caller against the device list */
    return fdw_spec_parse(body, len, &o, out, err);
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* p at a string's opening quote: the character after its closing quote, or NULL. */
static const char *skip_string(const char *p)
{
    for (p++; *p; p++) {
        if (*p == '\\') {
            if (!*++p)
                return NULL;
        } else if (*p == '"') {
            return p + 1;
        }
    }
    return NULL;
}

/* p at a value: the character after it, or NULL. Only finds where the value ends;
 * whoever wants the value parses that span with jansson. */
static const char *skip_value(const char *p)
{
    if (*p == '"')
        return skip_string(p);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        while (*p) {
            if (*p == '"') {
                if (!(p = skip_string(p)))
                    return NULL;
                continue;
            }
            if (*p == '{' || *p == '[')
                depth++;
            else if ((*p == '}' || *p == ']') && --depth == 0)
                return p + 1;
            p++;
        }
        return NULL;
    }
    const char *q = p;
    while (*q && *q != ',' && *q != '}' && *q != ']' && *q != ' ' && *q != '\n' &&
           *q != '\t' && *q != '\r')
        q++;
    return q > p ? q : NULL;
}

/* The top-level values of "name" and "devices" as spans of text. Returns 0, or -1 when
 * the text is not a JSON object of the expected shape (the caller then parses it all). */
static int find_fields(const char *p, const char *span[2][2])
{
    static const char *const keys[2] = {"\"name\"", "\"devices\""};
    span[0][0] = span[1][0] = NULL;
    p = skip_ws(p);
    if (*p++ != '{')
        return -1;
    p = skip_ws(p);
    if (*p == '}')
        return 0;
    for (;;) {
        if (*p != '"')
            return -1;
        const char *k = p;
        if (!(p = skip_string(p)))
            return -1;
        size_t kl = (size_t)(p - k);
        p = skip_ws(p);
        if (*p++ != ':')
            return -1;
        p = skip_ws(p);
        const char *v = p;
        if (!(p = skip_value(p)))
            return -1;
        for (int i = 0; i < 2; i++)
            if (kl == strlen(keys[i]) && memcmp(k, keys[i], kl) == 0) {
                span[i][0] = v;
                span[i][1] = p;
            }
        p = skip_ws(p);
        if (*p == '}')
            return 0;
        if (*p++ != ',')
            return -1;
        p = skip_ws(p);
    }
}

int specs_norm_fields(const char *norm, char **name, json_t **devices)
{
    *name = NULL;
    *devices = NULL;
    const char *span[2][2];
    json_t *nv = NULL, *dv = NULL;
    int fast = find_fields(norm, span) == 0;
    if (fast && span[0][0] &&
        !(nv = json_loadb(span[0][0], (size_t)(span[0][1] - span[0][0]), JSON_DECODE_ANY,
                          NULL)))
        fast = 0;
    if (fast && span[1][0] &&
        !(dv = json_loadb(span[1][0], (size_t)(span[1][1] - span[1][0]), 0, NULL)))
        fast = 0;
    if (!fast) { /* not the shape expected: parse it all */
        json_decref(nv);
        json_decref(dv);
        json_t *all = json_loads(norm, 0, NULL);
        if (!all)
            return -1;
        nv = json_incref(json_object_get(all, "name"));
        dv = json_incref(json_object_get(all, "devices"));
        json_decref(all);
    }
    const char *s = json_string_value(nv);
    *name = strdup(s ? s : "");
    json_decref(nv);
    if (!*name) {
        json_decref(dv);
        return -1;
    }
    *devices = dv;
    return 0;
}
