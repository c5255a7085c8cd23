/* ckpt_image.h — a checkpoint's backend part held in host memory: at a checkpoint step the
 * backend's capture (backend.h) copies its state into a block of host memory it owns (on
 * CUDA through the staging buffers below), listing here, in file order, what the file
 * holds: the frame's head and counts (ckpt_io.h) and the length-prefixed arrays. The
 * checkpoint writer's thread then puts the list into the file while the time loop goes on:
 * the same bytes, in the same order, as the backend's own writes would have been. Internal
 * to libfdwave. */
#ifndef FDW_CKPT_IMAGE_H
#define FDW_CKPT_IMAGE_H

#include "fdwave/fdwave.h"

#include <stddef.h>
#include <stdint.h>

struct fdw_ckpt_io;

/* The CUDA backend's staging buffers between the device and the image (or a checkpoint's
 * file and the device, at a load): FDW_CKPT_STAGES of FDW_CKPT_STAGE_BYTES each, pinned.
 * The host estimate counts them (spec_memory.c). */
#define FDW_CKPT_STAGE_BYTES ((size_t)64 << 20)
#define FDW_CKPT_STAGES 2

typedef struct fdw_ckpt_item {
    int what;                  /* a head, a count or an array (ckpt_image.c) */
    int32_t v[3];              /* head: current buffer, slabs, first slab; count: n */
    const void *data;          /* array: its bytes in the block */
    size_t bytes;
} fdw_ckpt_item;

/* The list, and the block its arrays are taken from (the backend's). */
typedef struct fdw_ckpt_image {
    fdw_ckpt_item *item;
    int n, cap;
    char *block;
    size_t size, used;         /* the block's bytes, and those taken so far */
} fdw_ckpt_image;

/* The bytes of a block that an array of bytes takes (its start is aligned): a backend
 * sizes its block as the sum of its arrays' spans. */
size_t fdw_ckpt_image_span(size_t bytes);
/* The spans of a slab's arrays: its two fields of field_bytes each and n state parts. */
struct fdw_state_part;
size_t fdw_ckpt_image_slab_span(size_t field_bytes, const struct fdw_state_part *parts, int n);

/* Start a new list whose arrays come from block (size bytes); the previous list is
 * forgotten (its item storage is kept for this one). */
void fdw_ckpt_image_begin(fdw_ckpt_image *img, void *block, size_t size);

/* Append the frame's head (fdw_ckpt_put_head) or a count (fdw_ckpt_put_count). */
fdw_status fdw_ckpt_image_head(fdw_ckpt_image *img, int cur, int nslabs, int first,
                               fdw_error *err);
fdw_status fdw_ckpt_image_count(fdw_ckpt_image *img, int n, fdw_error *err);

/* Append an array of bytes (fdw_ckpt_put_array) and return where in the block its bytes
 * go (the caller copies them there), or NULL with err set when the block or the list is
 * full. bytes 0: a valid pointer all the same (nothing to copy). */
void *fdw_ckpt_image_array(fdw_ckpt_image *img, size_t bytes, fdw_error *err);

/* Put the list into a checkpoint file, in order. Reads only the block and the list. */
fdw_status fdw_ckpt_image_put(const fdw_ckpt_image *img, struct fdw_ckpt_io *io,
                              fdw_error *err);

/* Release the list's storage (not the block). */
void fdw_ckpt_image_free(fdw_ckpt_image *img);

#endif
