/* rsf_join.c — an RSF header and its binary joined into the one-file form as they are
 * read (see rsf_join.h), through a glibc cookie stream so libcurl reads it like a file. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fopencookie */
#endif
#include "rsf_join.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define RSF_MAX_HEADER (16u << 20) /* as the engine: a longer "header" is none */

typedef struct joined {
    char *head;                /* header + in="stdin" line + marker */
    size_t hlen, hpos;
    FILE *bin;
} joined;

static ssize_t joined_read(void *cookie, char *buf, size_t n)
{
    joined *j = cookie;
    size_t got = 0;
    if (j->hpos < j->hlen) {
        got = j->hlen - j->hpos < n ? j->hlen - j->hpos : n;
        memcpy(buf, j->head + j->hpos, got);
        j->hpos += got;
    }
    if (got < n) {
        size_t r = fread(buf + got, 1, n - got, j->bin);
        if (r == 0 && ferror(j->bin) && got == 0)
            return -1;
        got += r;
    }
    return (ssize_t)got;
}

static int joined_close(void *cookie)
{
    joined *j = cookie;
    int rc = fclose(j->bin);
    free(j->head);
    free(j);
    return rc;
}

/* The value of the last in= assignment of an RSF header (quoted or bare), into out; 0
 * when there is none. */
static int last_in(const char *text, char *out, size_t cap)
{
    int found = 0;
    for (const char *p = text; (p = strstr(p, "in=")); p += 3) {
        if (p != text && !(p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n'))
            continue;
        const char *v = p + 3, *e;
        if (*v == '"') {
            e = strchr(++v, '"');
            if (!e)
                continue;
        } else {
            e = v + strcspn(v, " \t\r\n");
        }
        snprintf(out, cap, "%.*s", (int)(e - v), v);
        found = 1;
    }
    return found;
}

/* The header of path (up to its marker, or all of it), NUL-terminated; *marker set when
 * the samples follow it in the same file. NULL when it is too long or unreadable. */
static char *read_header(const char *path, size_t *len, int *marker)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *t = malloc(cap + 1);
    int c;
    *marker = 0;
    while (t && (c = fgetc(f)) != EOF) {
        if (n == cap) {
            char *nt = cap < RSF_MAX_HEADER ? realloc(t, 2 * cap + 1) : NULL;
            if (!nt) {
                free(t);
                t = NULL;
                break;
            }
            t = nt;
            cap *= 2;
        }
        t[n++] = (char)c;
        if (n >= 3 && !memcmp(t + n - 3, "\014\014\004", 3)) {
            *marker = 1;
            break;
        }
    }
    fclose(f);
    if (t) {
        t[n] = '\0';
        *len = n;
    }
    return t;
}

/* The file as it is. */
static FILE *plain(const char *path, long long *size, char *why, size_t cap)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, cap, "cannot read %s: %s", path, f ? "not a regular file" : strerror(errno));
        if (f)
            fclose(f);
        return NULL;
    }
    *size = (long long)st.st_size;
    return f;
}

FILE *fdc_model_open(const char *path, const char *name, long long *size, char *why,
                     size_t cap)
{
    const char *dot = strrchr(name, '.');
    if (!dot || strcasecmp(dot, ".rsf") != 0)
        return plain(path, size, why, cap);
    size_t hlen = 0;
    int marker = 0;
    char *head = read_header(path, &hlen, &marker);
    char in[4096];
    if (!head || marker || strlen(head) != hlen || !last_in(head, in, sizeof in) ||
        !strcmp(in, "stdin")) {
        free(head); /* one file already, or no header the server would take: as it is */
        return plain(path, size, why, cap);
    }
    char bin[8192];
    const char *slash = strrchr(path, '/');
    if (in[0] == '/' || !slash)
        snprintf(bin, sizeof bin, "%s", in);
    else
        snprintf(bin, sizeof bin, "%.*s/%s", (int)(slash - path), path, in);
    long long bsize;
    FILE *b = plain(bin, &bsize, why, cap);
    joined *j = b ? calloc(1, sizeof *j) : NULL;
    static const char tail[] = "\n\tin=\"stdin\"\n\014\014\004";
    char *h = j ? realloc(head, hlen + sizeof tail) : NULL;
    if (!h) {
        if (b && !j)
            snprintf(why, cap, "out of memory");
        free(head);
        free(j);
        if (b)
            fclose(b);
        return NULL;
    }
    memcpy(h + hlen, tail, sizeof tail - 1);
    *j = (joined){.head = h, .hlen = hlen + sizeof tail - 1, .bin = b};
    cookie_io_functions_t io = {.read = joined_read, .close = joined_close};
    FILE *f = fopencookie(j, "rb", io);
    if (!f) {
        snprintf(why, cap, "cannot join %s and %s: %s", path, bin, strerror(errno));
        joined_close(j);
        return NULL;
    }
    *size = (long long)j->hlen + bsize;
    return f;
}
