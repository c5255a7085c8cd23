/* rsf_join.c — an RSF header and its binary joined into the one-file form as they are
 * read (see rsf_join.h), through a glibc cookie stream so libcurl reads it like a file. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fopencookie */
#endif
#include "rsf_join.h"
#include "rsf_header.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

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
    rsf_header rh;
    char in[4096], bin[8192];
    if (rsf_header_read(path, &rh) != RSF_OK || rh.data_start >= 0 ||
        !rsf_header_get(rh.text, "in", in, sizeof in) || !strcmp(in, "stdin") ||
        rsf_header_binary(path, in, bin, sizeof bin) != 0) {
        free(rh.text); /* one file already, or no header the server would take: as it is */
        return plain(path, size, why, cap);
    }
    char *head = rh.text;
    const size_t hlen = strlen(head);
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
