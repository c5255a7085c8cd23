/* ckpt_image.c — a checkpoint's backend part as a list over a block of host memory (see
 * ckpt_image.h). Arrays are taken from the block 64-byte aligned, so the copies into it
 * (memcpy, cudaMemcpyAsync) run at full speed. */
#include "run/ckpt_image.h"
#include "core/error.h"
#include "run/backend.h"
#include "run/ckpt_io.h"

#include <stdlib.h>
#include <string.h>

enum { ITEM_HEAD, ITEM_COUNT, ITEM_ARRAY };

#define ALIGN 64u

size_t fdw_ckpt_image_span(size_t bytes)
{
    return (bytes + ALIGN - 1) / ALIGN * ALIGN;
}

size_t fdw_ckpt_image_slab_span(size_t field_bytes, const fdw_state_part *parts, int n)
{
    size_t span = 2 * fdw_ckpt_image_span(field_bytes);
    for (int q = 0; q < n; q++)
        span += fdw_ckpt_image_span(parts[q].bytes);
    return span;
}

void fdw_ckpt_image_begin(fdw_ckpt_image *img, void *block, size_t size)
{
    img->n = 0;
    img->block = block;
    img->size = size;
    img->used = 0;
}

static fdw_ckpt_item *append(fdw_ckpt_image *img, int what, fdw_error *err)
{
    if (img->n == img->cap) {
        const int cap = img->cap ? 2 * img->cap : 64;
        fdw_ckpt_item *p = realloc(img->item, (size_t)cap * sizeof *p);
        if (!p) {
            fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for a checkpoint's list");
            return NULL;
        }
        img->item = p;
        img->cap = cap;
    }
    fdw_ckpt_item *it = &img->item[img->n++];
    memset(it, 0, sizeof *it);
    it->what = what;
    return it;
}

fdw_status fdw_ckpt_image_head(fdw_ckpt_image *img, int cur, int nslabs, int first,
                               fdw_error *err)
{
    fdw_ckpt_item *it = append(img, ITEM_HEAD, err);
    if (!it)
        return FDW_ERR_NOMEM;
    it->v[0] = cur;
    it->v[1] = nslabs;
    it->v[2] = first;
    return FDW_OK;
}

fdw_status fdw_ckpt_image_count(fdw_ckpt_image *img, int n, fdw_error *err)
{
    fdw_ckpt_item *it = append(img, ITEM_COUNT, err);
    if (!it)
        return FDW_ERR_NOMEM;
    it->v[0] = n;
    return FDW_OK;
}

void *fdw_ckpt_image_array(fdw_ckpt_image *img, size_t bytes, fdw_error *err)
{
    const size_t at = fdw_ckpt_image_span(img->used);
    if (!img->block || at > img->size || bytes > img->size - at) {
        fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                 "a checkpoint's image holds %zu bytes; the state needs more", img->size);
        return NULL;
    }
    fdw_ckpt_item *it = append(img, ITEM_ARRAY, err);
    if (!it)
        return NULL;
    it->data = img->block + at;
    it->bytes = bytes;
    img->used = at + bytes;
    return img->block + at;
}

fdw_status fdw_ckpt_image_put(const fdw_ckpt_image *img, fdw_ckpt_io *io, fdw_error *err)
{
    fdw_status st = FDW_OK;
    for (int i = 0; i < img->n && st == FDW_OK; i++) {
        const fdw_ckpt_item *it = &img->item[i];
        switch (it->what) {
        case ITEM_HEAD: st = fdw_ckpt_put_head(io, it->v[0], it->v[1], it->v[2], err); break;
        case ITEM_COUNT: st = fdw_ckpt_put_count(io, it->v[0], err); break;
        default: st = fdw_ckpt_put_array(io, it->data, it->bytes, err); break;
        }
    }
    return st;
}

void fdw_ckpt_image_free(fdw_ckpt_image *img)
{
    free(img->item);
    memset(img, 0, sizeof *img);
}
