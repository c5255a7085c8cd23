/* rsf_join.h — a model file as the server takes it. The server keeps RSF in its one-file
 * form only (the header says in="stdin" and the samples follow the bytes 0x0c 0x0c 0x04).
 * Madagascar usually writes a header that names a separate binary with in=; such a
 * header is sent as the header, a line in="stdin" (a later assignment wins in RSF), the
 * marker and the binary, joined as they are read, so `models upload` and
 * `submit --upload-models` send, and hash, exactly what the server will keep. The binary
 * is found as the engine finds it: an absolute in=, or one relative to the header's
 * directory. Other files (and RSF already in one file) are sent as they are. */
#ifndef FDC_RSF_JOIN_H
#define FDC_RSF_JOIN_H

#include <stddef.h>
#include <stdio.h>

/* Open path for an upload as model name (its extension says the format). Returns a FILE
 * to read the upload from and its size in *size, or NULL with the reason in why. */
FILE *fdc_model_open(const char *path, const char *name, long long *size, char *why,
                     size_t cap);

#endif
