/* segy_common.h — small helpers shared by the SEG-Y model writer/reader (model_segy.c)
 * and the receiver gather writer (segy_gather.c). Internal to libfdwave. */
#ifndef FDW_SEGY_COMMON_H
#define FDW_SEGY_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* segyio reads the samples-per-trace field as a signed 16-bit number, so files meant for
 * segyio tools keep it at or below this. */
#define FDW_SEGY_MAX_SAMPLES 32767

/* Coordinates are stored as int32 times a power of ten given by a "scalar" field
 * (bytes 69/71): -100 means "divide by 100", i.e. centimetres. Pick -100 when the
 * largest |coordinate| fits, else coarser steps. Returns the scalar and sets *mult to
 * the factor metres are multiplied by before rounding. */
static inline int fdw_segy_coord_scalar(double maxabs, double *mult)
{
    static const int scalars[] = {-100, -10, 1, 10, 100, 1000, 10000};
    static const double mults[] = {100.0, 10.0, 1.0, 0.1, 0.01, 0.001, 0.0001};
    for (int q = 0; q < 7; q++) {
        if (maxabs * mults[q] <= 2147483000.0) {
            *mult = mults[q];
            return scalars[q];
        }
    }
    *mult = mults[6];
    return scalars[6];
}

/* Round a scaled coordinate into the int32 range (the scalar above keeps it in range). */
static inline int32_t fdw_segy_coord(double metres, double mult)
{
    double v = nearbyint(metres * mult);
    if (v > 2147483647.0)
        v = 2147483647.0;
    if (v < -2147483648.0)
        v = -2147483648.0;
    return (int32_t)v;
}

/* Fill a 3200-byte textual header (ASCII here; segyio writes it as EBCDIC) from up to 40
 * lines; each card is "C nn text" padded with blanks to 80 columns. */
static inline void fdw_segy_text_header(char text[3201], const char *const *lines, int nlines)
{
    memset(text, ' ', 3200);
    text[3200] = '\0';
    for (int l = 0; l < 40; l++) {
        char card[128];
        const char *body = l < nlines && lines[l] ? lines[l] : "";
        if (l == 38)
            body = "SEG Y REV1";
        if (l == 39)
            body = "END TEXTUAL HEADER";
        int n = snprintf(card, sizeof card, "C%2d %s", l + 1, body);
        if (n > 80)
            n = 80;
        memcpy(text + 80 * l, card, (size_t)n);
    }
}

#endif
