/* img_check.h — what the imaging kinds' tests share: float32 files written and read back
 * whole (a short or long file fails the test), a spec that must be refused naming its
 * field, and the check runner of one test case in a temporary directory. */
#ifndef FDW_IMG_CHECK_H
#define FDW_IMG_CHECK_H

#include <check.h>
#include <stddef.h>

void img_write_f32(const char *path, const float *v, size_t n);
/* Exactly n values: the file holds no more. Caller frees. */
float *img_read_f32(const char *path, size_t n);
/* json must fail to parse with the error on field and a message containing needle. */
void img_refused(const char *json, const char *field, const char *needle);
/* Make dir from its template (…XXXXXX), run the suite's one case (its tests added by add,
 * timeout seconds each) without forking, remove dir; the exit status. */
int img_check_main(char *dir, const char *suite, double timeout, void (*add)(TCase *tc));

#endif
