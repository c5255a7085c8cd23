/* rsf_header.h — the text header of a Madagascar RSF file, read one way for the engine's
 * model reader (model_rsf.c) and the fdwave CLI's upload (clients/cli/rsf_join.c): the bytes
 * up to the end of the file or up to the marker 0x0c 0x0c 0x04 after which the samples
 * follow in the same file (in="stdin"), the value of a key's last assignment (as in
 * Madagascar, a later one wins), and the file an in= names. libc only, so the CLI gains no
 * engine dependency. */
#ifndef FDW_RSF_HEADER_H
#define FDW_RSF_HEADER_H

#include <stddef.h>

#define RSF_MAX_HEADER (16u << 20) /* a header longer than this is not a header */

typedef enum {
    RSF_OK = 0,
    RSF_OPEN,                  /* cannot open (errno says why) */
    RSF_TOO_LONG,              /* longer than RSF_MAX_HEADER */
    RSF_NOMEM,
    RSF_READ                   /* a read error (errno says why) */
} rsf_status;

typedef struct rsf_header {
    char *text;                /* the header, NUL-terminated (a NUL byte in it reads as a
                                * space); free() it */
    long data_start;           /* where the samples start after the marker, or -1 */
} rsf_header;

/* Read the header of path into h. */
rsf_status rsf_header_read(const char *path, rsf_header *h);
/* The value of key's last key=value assignment in text (quotes stripped; cut to vlen - 1
 * bytes) into val: 1, or 0 when key is not assigned. */
int rsf_header_get(const char *text, const char *key, char *val, size_t vlen);
/* The file an in= value names: itself when absolute, else relative to header's directory.
 * 0, or -1 when it does not fit cap bytes. */
int rsf_header_binary(const char *header, const char *in, char *out, size_t cap);

#endif
