/* spec_survey.h — a survey: many shots over one model (the spec's "survey" section,
 * parsed by spec_survey.c, run shot by shot by run/survey.c). Each shot has a number (its
 * FFID and shot point), a source position and a wavelet; its receivers are the spec's own
 * (a fixed layout), its own list, or a spread of offsets that moves with the shot. Internal to
 * libfdwave. */
#ifndef FDW_SPEC_SURVEY_H
#define FDW_SPEC_SURVEY_H

#include "spec/spec.h"

#define FDW_SURVEY_MAX_WAVELETS 1024 /* distinct wavelets (the survey's and the shots' own) */

typedef struct fdw_shot {
    int number;                /* FFID and shot point: first_number + index */
    double pos[3];             /* source position, metres, inside the grid */
    int wavelet;               /* index into fdw_survey.wavelets */
    int nreceivers;            /* receivers it records (a spread's, less any dropped) */
    long own;                  /* its own receivers: first index into fdw_survey.own */
} fdw_shot;

typedef struct fdw_survey {
    int nshots;
    fdw_shot *shots;           /* in shot order */
    int nwavelets;
    fdw_source *wavelets;      /* wavelet members only (pos unused); samples owned here */
    int moving;                /* 1: receivers differ from shot to shot (spread or own) */
    int numbered;              /* 1: the shots' numbers were given, not first_number + i */
    double (*own)[3];          /* receivers listed per shot (NULL: none), shot by shot */
    int nspread;
    double (*spread)[3];       /* offsets from the source, metres */
    int drop_outside;          /* 1: spread receivers outside the grid are dropped */
    int max_receivers;         /* most receivers of any one shot */
    long long traces;          /* receivers of all shots together */
} fdw_survey;

/* The receivers of shot i of a survey spec into out (NULL: count only); returns how many.
 * Fixed layout: the spec's receivers; listed per shot: the shot's own; a spread: source +
 * each offset, clamped onto the grid within rounding as the parser does, those outside
 * dropped (the parser has refused them unless the survey drops them). */
int fdw_survey_receivers(const fdw_spec *spec, int i, fdw_receiver *out);

/* Release a survey and everything it owns (NULL is fine). */
void fdw_survey_free(fdw_survey *sv);

#endif
