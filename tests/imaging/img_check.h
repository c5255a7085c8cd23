/* img_check.h — what the imaging kinds' tests share: float32 files written and read back
 * whole (a short or long file fails the test), a spec that must be refused naming its
 * field, a spec run on the CPU and its misfit, random deviates and inner products, and
 * the check runner of one test case in a temporary directory. */
#ifndef FDW_IMG_CHECK_H
#define FDW_IMG_CHECK_H

#include "fdwave/fdwave.h"

#include <check.h>
#include <stddef.h>

void img_write_f32(const char *path, const float *v, size_t n);
/* Exactly n values: the file holds no more. Caller frees. */
float *img_read_f32(const char *path, size_t n);
/* json must fail to parse with the error on field and a message containing needle. */
void img_refused(const char *json, const char *field, const char *needle);
/* Parse json (a printf format) and run it on the CPU into dir/out; the result. */
fdw_result img_run(const char *dir, const char *out, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* result.misfit of dir/out's manifest. */
double img_misfit(const char *dir, const char *out);
/* The manifest's result.time_s of run out in dir: t[0] forward, t[1] backward, t[2] image,
 * and t[3] the result's elapsed_s (the loop's seconds). */
void img_times(const char *dir, const char *out, double t[4]);
/* A deterministic normal deviate stream (Box-Muller on a counter hash). */
double img_normal(unsigned *state);
/* sum a b in double. */
double img_dot(const float *a, const float *b, size_t n);
/* Make dir from its template (…XXXXXX), run the suite's one case (its tests added by add,
 * timeout seconds each) without forking, remove dir; the exit status. */
int img_check_main(char *dir, const char *suite, double timeout, void (*add)(TCase *tc));

#endif
