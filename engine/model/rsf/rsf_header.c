/* rsf_header.c — the RSF header reader of rsf_header.h. */
#include "rsf_header.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rsf_status rsf_header_read(const char *path, rsf_header *h)
{
    h->text = NULL;
    h->data_start = -1;
    FILE *f = fopen(path, "rb");
    if (!f)
        return RSF_OPEN;
    size_t cap = 4096, len = 0;
    char *t = malloc(cap + 1);
    rsf_status st = t ? RSF_OK : RSF_NOMEM;
    int c;
    while (st == RSF_OK && (c = fgetc(f)) != EOF) {
        if (len == cap) {
            char *nt = cap < RSF_MAX_HEADER ? realloc(t, 2 * cap + 1) : NULL;
            if (!nt) {
                st = cap < RSF_MAX_HEADER ? RSF_NOMEM : RSF_TOO_LONG;
                break;
            }
            t = nt;
            cap *= 2;
        }
        t[len++] = (char)c;
        if (len >= 3 && memcmp(t + len - 3, "\014\014\004", 3) == 0) {
            len -= 3;
            h->data_start = ftell(f);
            break;
        }
    }
    if (st == RSF_OK && ferror(f))
        st = RSF_READ;
    const int e = errno;
    fclose(f);
    if (st != RSF_OK) {
        free(t);
        h->data_start = -1;
        errno = e;
        return st;
    }
    t[len] = '\0';
    for (size_t q = 0; q < len; q++)
        if (t[q] == '\0')
            t[q] = ' '; /* binary junk in a header must not end the string early */
    h->text = t;
    return RSF_OK;
}

int rsf_header_get(const char *text, const char *key, char *val, size_t vlen)
{
    const size_t klen = strlen(key);
    int found = 0;
    const char *p = text;
    while (*p) {
        while (*p && isspace((unsigned char)*p))
            p++;
        const char *tok = p;
        while (*p && !isspace((unsigned char)*p) && *p != '=')
            p++;
        if (*p != '=') {
            while (*p && !isspace((unsigned char)*p))
                p++;
            continue;
        }
        const size_t tl = (size_t)(p - tok);
        p++; /* '=' */
        const char *vs = p, *ve;
        if (*p == '"') {
            vs = ++p;
            while (*p && *p != '"')
                p++;
            ve = p;
            if (*p == '"')
                p++;
        } else {
            while (*p && !isspace((unsigned char)*p))
                p++;
            ve = p;
        }
        if (tl == klen && strncmp(tok, key, klen) == 0) {
            size_t n = (size_t)(ve - vs);
            if (n >= vlen)
                n = vlen - 1;
            memcpy(val, vs, n);
            val[n] = '\0';
            found = 1;
        }
    }
    return found;
}

int rsf_header_binary(const char *header, const char *in, char *out, size_t cap)
{
    const char *slash = strrchr(header, '/');
    const int n = in[0] == '/' || !slash
                      ? snprintf(out, cap, "%s", in)
                      : snprintf(out, cap, "%.*s/%s", (int)(slash - header), header, in);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}
