/* bench_survey.h — fdwave-bench's "survey" section (bench_survey.c): a 16-shot acoustic
 * survey through fdw_run on the CUDA backend, on 1, 2, 4 ... GPUs (one shot per GPU),
 * the whole job's wall time and its speedup (issue 17's survey run). */
#ifndef FDW_BENCH_SURVEY_H
#define FDW_BENCH_SURVEY_H

#include <jansson.h>

/* records: where the section's records go; device, date, command: in every record; quick:
 * fewer steps; gpus: the most GPUs to use. */
void bench_survey(json_t *records, const char *device, const char *date, const char *command,
                  int quick, int gpus);

#endif
