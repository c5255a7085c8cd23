/* progress_bar.h — the progress display that fdwave-run and the fdwave CLI share: on a
 * terminal one line redrawn in place,
 *     [##########....................]  33.3%  step 40/120  123.4 Mpt/s  ETA 1m05s
 * otherwise one plain line per report,
 *     progress  33.3% step 40/120 123.4 Mpt/s elapsed 32s ETA 1m05s
 * plus the two formatters it uses (rate, time), which the CLI's status command shares.
 * A tiny static library (engine/tools/CMakeLists.txt) with nothing but libc. */
#ifndef FDW_PROGRESS_BAR_H
#define FDW_PROGRESS_BAR_H

#include <stddef.h>
#include <stdio.h>

typedef struct progress_bar {
    FILE *out;
    int tty;          /* redraw one line in place (else plain lines) */
    char line[256];   /* the bar last drawn; "" when none */
    int shown;        /* the bar is on screen now */
} progress_bar;

typedef struct progress_report {
    double percent;   /* 0..100 */
    long step, nsteps;
    double mpts;      /* grid points per second / 1e6 */
    double elapsed_s; /* < 0: unknown (left out of the plain line) */
    double eta_s;     /* < 0: unknown ("-") */
    /* A survey: "shots 3/12" before the steps, which are then those of shot number shot;
     * nshots 0: a single shot. */
    int nshots, shots_done, shot;
} progress_report;

void progress_bar_init(progress_bar *b, FILE *out, int tty);
/* Show one report: redraw the bar, or print one plain line. Flushes out. */
void progress_bar_show(progress_bar *b, const progress_report *p);
/* Take the bar off the screen, before other lines go to the same stream. */
void progress_bar_hide(progress_bar *b);
/* Put the last bar back (after those lines). */
void progress_bar_redraw(progress_bar *b);
/* The end: leave the last bar on screen, ended with a newline. */
void progress_bar_finish(progress_bar *b);

/* "123.4 Mpt/s" or, from 1000 Mpt/s, "12.35 Gpt/s". */
void progress_fmt_rate(char *out, size_t cap, double mpts);
/* "45s", "3m07s", "2h05m"; "-" when unknown (negative or NaN). */
void progress_fmt_time(char *out, size_t cap, double seconds);

#endif
