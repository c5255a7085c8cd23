/* ete_green.c — the homogeneous box against the analytic Green's function (ete_green.h). */
#include "ete_green.h"
#include "physics_util.h"
#include "run/wavelet.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Receivers 10 to 38 points from the source; the box has no absorbing layer and no face
 * reflection reaches a receiver before ETE_GREEN_TMAX (the earliest, off the -x face to the
 * first receiver, at 0.39 s + the wavelet's lead). */
const double ete_green_offsets[ETE_GREEN_NREC] = {100.0, 200.0, 260.0, 320.0, 380.0};
#define BACK 340.0    /* source to the -x face */
#define AHEAD 340.0   /* last receiver to the +x face */
#define SIDE 340.0    /* receiver line to the y and z faces */

double ete_green_error(const char *kind, double f0, double dt, double err[ETE_GREEN_NREC],
                       double *seconds, double *dt_used)
{
    const double ex = BACK + ete_green_offsets[ETE_GREEN_NREC - 1] + AHEAD, eyz = 2.0 * SIDE;
    const int nx = (int)lround(ex / ETE_GREEN_H) + 1, nyz = (int)lround(eyz / ETE_GREEN_H) + 1;
    const double src[3] = {BACK, SIDE, SIDE};
    char recs[512] = "", time[128];
    for (int r = 0; r < ETE_GREEN_NREC; r++) {
        char one[96];
        snprintf(one, sizeof one, "%s[%g,%g,%g]", r ? "," : "",
                 src[0] + ete_green_offsets[r], src[1], src[2]);
        strcat(recs, one);
    }
    if (dt > 0)
        snprintf(time, sizeof time, "{\"nt\":%ld,\"dt\":%.17g}",
                 (long)ceil(ETE_GREEN_TMAX / dt), dt);
    else /* auto: nt from a first parse */
        snprintf(time, sizeof time, "{\"nt\":%%ld,\"dt\":\"auto\"}");
    char json[2048], tmpl[2048];
    snprintf(tmpl, sizeof tmpl,
             "{\"kind\":\"%s\",\"grid\":{\"nx\":%d,\"ny\":%d,\"nz\":%d,\"dx\":%g,\"dy\":%g,"
             "\"dz\":%g},\"order\":8,\"velocity\":{\"type\":\"constant\",\"value\":%g},"
             "\"time\":%s,\"sources\":[{\"position\":[%g,%g,%g],\"wavelet\":{\"type\":"
             "\"ricker\",\"f0\":%g,\"delay\":%.17g}}],\"receivers\":{\"points\":[%s]},"
             "\"boundary\":{\"type\":\"none\"}}",
             kind, nx, nyz, nyz, ETE_GREEN_H, ETE_GREEN_H, ETE_GREEN_H, ETE_GREEN_C0, time,
             src[0], src[1], src[2], f0, 1.2 / f0, recs);
    if (dt > 0) {
        snprintf(json, sizeof json, "%s", tmpl);
    } else {
        snprintf(json, sizeof json, tmpl, 1L);
        fdw_spec *s = NULL;
        fdw_error err;
        if (fdw_spec_parse(json, strlen(json), NULL, &s, &err) != FDW_OK) {
            fprintf(stderr, "%s: %s\n", err.field, err.message);
            return NAN; /* dt auto refused */
        }
        const long nt = (long)ceil(ETE_GREEN_TMAX / fdw_spec_dt(s));
        fdw_spec_free(s);
        snprintf(json, sizeof json, tmpl, nt);
    }
    phys_run run;
    phys_run_spec(json, NULL, 0, &run);
    *seconds = run.result.elapsed_s;
    *dt_used = run.dt;
    fdw_source wav = {.wavelet = FDW_WAVELET_RICKER, .f0 = f0, .delay = 1.2 / f0,
                      .amplitude = 1.0};
    double num = 0.0, den = 0.0;
    for (int r = 0; r < ETE_GREEN_NREC; r++) {
        const float *tr = run.traces + (size_t)r * run.ns;
        double nr = 0.0, dr = 0.0;
        for (long s = 0; s < run.ns; s++) {
            const double o = ete_green_offsets[r], c = ETE_GREEN_C0;
            const double a = fdw_source_value(&wav, s * run.dt - o / c, run.dt) /
                             (4.0 * M_PI * c * c * o);
            nr += (tr[s] - a) * (tr[s] - a);
            dr += a * a;
        }
        err[r] = sqrt(nr / dr);
        if (r >= ETE_GREEN_NEAR) {
            num += nr;
            den += dr;
        }
    }
    phys_run_free(&run);
    return sqrt(num / den);
}

