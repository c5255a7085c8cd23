/* png_io.c — snapshot slices as 8-bit RGB PNG images (libpng) with a blue-white-red
 * colour scale symmetric about zero: 0 is white, +clip and above pure red (255,0,0),
 * -clip and below pure blue (0,0,255), linear in between. Non-finite samples are drawn
 * black so a blown-up run is visible. Also images a caller colours row by row
 * (fdw_write_png_rgb: the sweep kind's isochron maps). Written atomically. */
#include "output/outputs.h"
#include "output/atomic_file.h"
#include "core/error.h"

#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/* RGB of value x for clip c > 0. */
static void colour(float x, float c, unsigned char *rgb)
{
    if (!isfinite(x)) {
        rgb[0] = rgb[1] = rgb[2] = 0;
        return;
    }
    double t = x / c;
    if (t > 1)
        t = 1;
    if (t < -1)
        t = -1;
    unsigned char fade = (unsigned char)lround(255.0 * (1.0 - fabs(t)));
    if (t >= 0) {
        rgb[0] = 255;
        rgb[1] = fade;
        rgb[2] = fade;
    } else {
        rgb[0] = fade;
        rgb[1] = fade;
        rgb[2] = 255;
    }
}

/* One image row of w samples as RGB: colour() for clip c > 0; for c == 0 (all zero, or
 * nothing finite) mid grey, black where non-finite. */
static void colour_row(const float *x, int w, float c, unsigned char *rgb)
{
    if (c > 0) {
        for (int q = 0; q < w; q++)
            colour(x[q], c, rgb + 3 * q);
        return;
    }
    for (int q = 0; q < w; q++) {
        unsigned char g = isfinite(x[q]) ? 128 : 0;
        rgb[3 * q] = rgb[3 * q + 1] = rgb[3 * q + 2] = g;
    }
}

/* libpng reports errors by longjmp; keep the message for the fdw_error. */
typedef struct png_failure {
    jmp_buf jmp;
    char msg[256];
} png_failure;

static void on_png_error(png_structp png, png_const_charp msg)
{
    png_failure *f = png_get_error_ptr(png);
    snprintf(f->msg, sizeof f->msg, "%s", msg);
    longjmp(f->jmp, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

/* Rows of a float slice coloured with clip c, for write_png_rows. */
typedef struct float_rows {
    const float *data;
    float c;
} float_rows;

static void float_row(void *user, int y, int w, unsigned char *rgb)
{
    const float_rows *fr = user;
    colour_row(fr->data + (size_t)y * (size_t)w, w, fr->c, rgb);
}

/* The longjmp-sensitive part on its own: has row() fill the one-row buffer rgb for each
 * row y and writes the rows to fp. Returns 0 or -1 with f->msg. */
static int write_png_rows(FILE *fp, void (*row)(void *user, int y, int w, unsigned char *rgb),
                          void *user, unsigned char *rgb, int w, int h, png_failure *f)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, f, on_png_error,
                                              on_png_warning);
    if (!png) {
        snprintf(f->msg, sizeof f->msg, "libpng could not start");
        return -1;
    }
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        snprintf(f->msg, sizeof f->msg, "libpng could not start");
        return -1;
    }
    if (setjmp(f->jmp)) {
        png_destroy_write_struct(&png, &info);
        return -1;
    }
    png_init_io(png, fp);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    /* Snapshots are written during runs, and the last one ends the run: favour speed. zlib
     * level 1 and the Sub filter alone (instead of level 3 and libpng's choice per row)
     * write a 1024x1024 slice in about two thirds of the time, 2% larger. */
    png_set_compression_level(png, 1);
    png_set_filter(png, 0, PNG_FILTER_SUB);
    png_write_info(png, info);
    for (int y = 0; y < h; y++) {
        row(user, y, w, rgb);
        png_write_row(png, rgb);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return 0;
}

/* The PNG file at path, written atomically from rows row() fills. */
static fdw_status write_png_file(const char *path,
                                 void (*row)(void *user, int y, int w, unsigned char *rgb),
                                 void *user, unsigned char *rgb, int w, int h, fdw_error *err)
{
    fdw_atomic_file af;
    fdw_status st = fdw_atomic_open(&af, path, err);
    if (st != FDW_OK)
        return st;
    png_failure fail;
    fail.msg[0] = '\0';
    if (write_png_rows(af.fp, row, user, rgb, w, h, &fail) != 0) {
        fdw_atomic_abort(&af);
        return fdw_fail(err, FDW_ERR_IO, NULL, "cannot write PNG %s: %s", path, fail.msg);
    }
    return fdw_atomic_commit(&af, err);
}

fdw_status fdw_write_png(const char *path, const float *data, int w, int h, float clip,
                         fdw_error *err)
{
    if (!path || !data || w <= 0 || h <= 0)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "fdw_write_png: bad arguments (%d x %d)",
                        w, h);
    if (w > 1000000 || h > 1000000)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, NULL, "PNG of %d x %d pixels is too large",
                        w, h);
    size_t n = (size_t)w * (size_t)h;
    unsigned char *rgb = malloc((size_t)w * 3); /* one row: no image-sized allocation */
    if (!rgb)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cannot allocate a %zu-byte image row",
                        (size_t)w * 3);
    float c = clip;
    if (!(c > 0) || !isfinite(c)) {
        c = 0;
        for (size_t q = 0; q < n; q++) {
            float a = fabsf(data[q]);
            if (isfinite(a) && a > c)
                c = a;
        }
    }

    float_rows fr = {data, c};
    fdw_status st = write_png_file(path, float_row, &fr, rgb, w, h, err);
    free(rgb);
    return st;
}

fdw_status fdw_write_png_rgb(const char *path, int w, int h,
                             void (*row)(void *user, int y, int w, unsigned char *rgb),
                             void *user, fdw_error *err)
{
    if (!path || !row || w <= 0 || h <= 0)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "fdw_write_png_rgb: bad arguments (%d x %d)", w, h);
    if (w > 1000000 || h > 1000000)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, NULL, "PNG of %d x %d pixels is too large",
                        w, h);
    unsigned char *rgb = malloc((size_t)w * 3);
    if (!rgb)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cannot allocate a %zu-byte image row",
                        (size_t)w * 3);
    fdw_status st = write_png_file(path, row, user, rgb, w, h, err);
    free(rgb);
    return st;
}
