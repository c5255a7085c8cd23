/* factcache.h — what one read of a shared model file established (fdw_model_inspect:
 * format, geometry, velocity range), kept per file so that specs naming a model file
 * under an --allow-dir directory are checked without reading it at every submission, as
 * uploaded models are checked against their upload record. An entry is keyed by the
 * file's canonical path, format, device, inode, size and modification time, so a file
 * the operator changes is read again. Raw float32 and SEG-Y files only (an RSF header's
 * facts depend on a second file). Bounded: the oldest entries make room. */
#ifndef FDWD_FACTCACHE_H
#define FDWD_FACTCACHE_H

#include "core/app.h"
#include "fdwave/fdwave.h"

/* Fill info with the facts of the model file real_path of format ("raw-f32", "segy"):
 * from the cache, or by reading it once now. Returns 0, or -1 when they cannot be had
 * (another format, an unreadable or invalid file: the engine then reads the file and
 * says what is wrong). */
int factcache_get(struct factcache *fc, const char *real_path, const char *format,
                  fdw_model_info *info);

/* Set up app->facts; once at start. Returns 0, or -1 (out of memory). */
int factcache_init(fdwd_app *app);

#endif
