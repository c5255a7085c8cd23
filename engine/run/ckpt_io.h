/* ckpt_io.h — one checkpoint file as a byte stream: written under a temporary name,
 * checksummed as it goes (a 64-bit hash of every byte, stored last), flushed to the disk
 * and renamed into place; read back with the same hash checked at the end. The backends'
 * save and load hooks (run/backend.h) put and get their arrays through it; the run's own
 * part (header, loop state, manifest) is checkpoint.c's. Internal to libfdwave. */
#ifndef FDW_CKPT_IO_H
#define FDW_CKPT_IO_H

#include "fdwave/fdwave.h"

#include <stddef.h>
#include <stdint.h>

typedef struct fdw_ckpt_io fdw_ckpt_io;

/* Create path's temporary file (path + ".tmp") for writing. */
fdw_status fdw_ckpt_create(fdw_ckpt_io **out, const char *path, fdw_error *err);
/* Open path for reading. */
fdw_status fdw_ckpt_open(fdw_ckpt_io **out, const char *path, fdw_error *err);

/* Append n bytes (a write error names the file and the reason: "disk full" for ENOSPC). */
fdw_status fdw_ckpt_put(fdw_ckpt_io *io, const void *data, size_t n, fdw_error *err);
/* Read the next n bytes; a file that ends early is an error naming the file. */
fdw_status fdw_ckpt_get(fdw_ckpt_io *io, void *data, size_t n, fdw_error *err);
/* A length-prefixed array: put writes n as a u64 then the bytes; get fails (naming what)
 * unless the file holds exactly n bytes there. */
fdw_status fdw_ckpt_put_array(fdw_ckpt_io *io, const void *data, size_t n, fdw_error *err);
fdw_status fdw_ckpt_get_array(fdw_ckpt_io *io, void *data, size_t n, const char *what,
                              fdw_error *err);
/* The length prefix alone (for arrays copied in pieces, e.g. from a GPU): checks it is n. */
fdw_status fdw_ckpt_get_len(fdw_ckpt_io *io, uint64_t n, const char *what, fdw_error *err);

/* The backends' frame (their save and load, backend.h): a head of which field buffer is
 * current (0 or 1), how many slabs follow and the first one's number; get refuses a head
 * that is not this run's and gives back the current buffer. Then per slab, after its
 * fields, the count of the kind's state arrays; get refuses another count than n. */
fdw_status fdw_ckpt_put_head(fdw_ckpt_io *io, int cur, int nslabs, int first, fdw_error *err);
fdw_status fdw_ckpt_get_head(fdw_ckpt_io *io, int nslabs, int first, int *cur,
                             fdw_error *err);
fdw_status fdw_ckpt_put_count(fdw_ckpt_io *io, int n, fdw_error *err);
fdw_status fdw_ckpt_get_count(fdw_ckpt_io *io, int n, int slab, fdw_error *err);

/* Writing: append the hash, flush, fsync, rename over path, fsync the directory. Reading:
 * read the stored hash and compare (and that nothing follows). Closes io either way. */
fdw_status fdw_ckpt_finish(fdw_ckpt_io *io, fdw_error *err);
/* Close without finishing (a writer's temporary file is removed). NULL is fine. */
void fdw_ckpt_abandon(fdw_ckpt_io *io);

/* Read the whole file at path and check its stored hash, without interpreting it: a
 * checkpoint damaged or cut short anywhere is found before any of it is used. */
fdw_status fdw_ckpt_verify(const char *path, fdw_error *err);

/* Write text to path atomically and durably (temporary file, fsync, rename, fsync of the
 * directory). */
fdw_status fdw_ckpt_write_text(const char *path, const char *text, fdw_error *err);

#endif
