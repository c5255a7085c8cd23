/* progress_bar.c — the shared progress display (see progress_bar.h). */
#include "progress_bar.h"

#include <string.h>

enum { BAR_WIDTH = 30 };

void progress_fmt_rate(char *out, size_t cap, double mpts)
{
    if (mpts >= 1000.0)
        snprintf(out, cap, "%.2f Gpt/s", mpts / 1000.0);
    else
        snprintf(out, cap, "%.1f Mpt/s", mpts);
}

void progress_fmt_time(char *out, size_t cap, double s)
{
    if (s < 0 || s != s || s > 1e9) {
        snprintf(out, cap, "-");
        return;
    }
    long t = (long)(s + 0.5);
    if (t < 60)
        snprintf(out, cap, "%lds", t);
    else if (t < 3600)
        snprintf(out, cap, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(out, cap, "%ldh%02ldm", t / 3600, (t % 3600) / 60);
}

void progress_bar_init(progress_bar *b, FILE *out, int tty)
{
    memset(b, 0, sizeof *b);
    b->out = out;
    b->tty = tty;
}

/* "shots 3/12, shot 5 " for a survey (the steps that follow are that shot's), else "". */
static void fmt_shots(char *out, size_t cap, const progress_report *p)
{
    out[0] = '\0';
    if (p->nshots <= 0)
        return;
    if (p->shot > 0)
        snprintf(out, cap, "shots %d/%d, shot %d ", p->shots_done, p->nshots, p->shot);
    else
        snprintf(out, cap, "shots %d/%d ", p->shots_done, p->nshots);
}

void progress_bar_show(progress_bar *b, const progress_report *p)
{
    char rate[32], eta[32], shots[64];
    progress_fmt_rate(rate, sizeof rate, p->mpts);
    progress_fmt_time(eta, sizeof eta, p->eta_s);
    fmt_shots(shots, sizeof shots, p);
    if (!b->tty) {
        char elapsed[48] = "";
        if (p->elapsed_s >= 0) {
            char t[32];
            progress_fmt_time(t, sizeof t, p->elapsed_s);
            snprintf(elapsed, sizeof elapsed, " elapsed %s", t);
        }
        fprintf(b->out, "progress %5.1f%% %sstep %ld/%ld %s%s ETA %s\n", p->percent, shots,
                p->step, p->nsteps, rate, elapsed, eta);
        fflush(b->out);
        return;
    }
    int fill = (int)(p->percent / 100.0 * BAR_WIDTH + 0.5);
    if (fill < 0)
        fill = 0;
    if (fill > BAR_WIDTH)
        fill = BAR_WIDTH;
    char bar[BAR_WIDTH + 1];
    memset(bar, '#', (size_t)fill);
    memset(bar + fill, '.', (size_t)(BAR_WIDTH - fill));
    bar[BAR_WIDTH] = '\0';
    snprintf(b->line, sizeof b->line, "[%s] %5.1f%%  %sstep %ld/%ld  %s  ETA %s", bar,
             p->percent, shots, p->step, p->nsteps, rate, eta);
    fputs("\r\033[K", b->out);
    fputs(b->line, b->out);
    b->shown = 1;
    fflush(b->out);
}

void progress_bar_hide(progress_bar *b)
{
    if (b->tty && b->shown) {
        fputs("\r\033[K", b->out);
        b->shown = 0;
    }
}

void progress_bar_redraw(progress_bar *b)
{
    if (b->tty && b->line[0] && !b->shown) {
        fputs(b->line, b->out);
        b->shown = 1;
        fflush(b->out);
    }
}

void progress_bar_finish(progress_bar *b)
{
    if (b->tty && b->line[0]) {
        progress_bar_hide(b);
        fputs(b->line, b->out);
        fputc('\n', b->out);
        fflush(b->out);
    }
    b->line[0] = '\0';
    b->shown = 0;
}
