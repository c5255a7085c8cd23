/* test_plan.c — fdw_plan_slabs: even and uneven splits, device ids, and the errors for
 * slabs thinner than the stencil radius and for device counts out of range. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "run/plan.h"

/* Every split covers [0, nz) contiguously, slabs differ by at most one plane and the
 * first nz % ndev slabs are the thicker ones. */
START_TEST(test_split_sums)
{
    for (int nz = 1; nz <= 70; nz++)
        for (int r = 1; r <= 8; r++)
            for (int ndev = 1; ndev <= 9; ndev++) {
                fdw_plan plan;
                fdw_error err;
                fdw_error_clear(&err);
                fdw_status st = fdw_plan_slabs(nz, r, ndev, NULL, &plan, &err);
                if (nz / ndev < r) {
                    ck_assert_int_eq(st, FDW_ERR_SPEC);
                    ck_assert_str_eq(err.field, nz < r ? "grid.nz" : "devices");
                    continue;
                }
                ck_assert_int_eq(st, FDW_OK);
                ck_assert_int_eq(plan.ndev, ndev);
                ck_assert_int_eq(plan.radius, r);
                int z = 0;
                for (int d = 0; d < ndev; d++) {
                    ck_assert_int_eq(plan.z0[d], z);
                    ck_assert_int_ge(plan.nz[d], r);
                    ck_assert_int_eq(plan.nz[d], nz / ndev + (d < nz % ndev ? 1 : 0));
                    ck_assert_int_eq(plan.device_ids[d], d);
                    z += plan.nz[d];
                }
                ck_assert_int_eq(z, nz);
            }
}
END_TEST

START_TEST(test_uneven_example)
{
    fdw_plan plan;
    fdw_error err;
    ck_assert_int_eq(fdw_plan_slabs(23, 4, 4, NULL, &plan, &err), FDW_OK);
    ck_assert_int_eq(plan.nz[0], 6);
    ck_assert_int_eq(plan.nz[1], 6);
    ck_assert_int_eq(plan.nz[2], 6);
    ck_assert_int_eq(plan.nz[3], 5);
    ck_assert_int_eq(plan.z0[3], 18);
}
END_TEST

START_TEST(test_device_ids)
{
    int ids[3] = {5, 2, 7};
    fdw_plan plan;
    fdw_error err;
    ck_assert_int_eq(fdw_plan_slabs(30, 4, 3, ids, &plan, &err), FDW_OK);
    ck_assert_int_eq(plan.device_ids[0], 5);
    ck_assert_int_eq(plan.device_ids[1], 2);
    ck_assert_int_eq(plan.device_ids[2], 7);
}
END_TEST

/* Exactly radius thick is allowed; one device more is refused, naming "devices" and the
 * largest count that works. */
START_TEST(test_too_many_devices)
{
    fdw_plan plan;
    fdw_error err;
    ck_assert_int_eq(fdw_plan_slabs(32, 8, 4, NULL, &plan, &err), FDW_OK);
    ck_assert_int_eq(plan.nz[3], 8);
    fdw_error_clear(&err);
    ck_assert_int_eq(fdw_plan_slabs(32, 8, 5, NULL, &plan, &err), FDW_ERR_SPEC);
    ck_assert_int_eq(err.code, FDW_ERR_SPEC);
    ck_assert_str_eq(err.field, "devices");
    ck_assert_ptr_nonnull(strstr(err.message, "at most 4 devices"));
    fdw_error_clear(&err);
    ck_assert_int_eq(fdw_plan_slabs(7, 8, 1, NULL, &plan, &err), FDW_ERR_SPEC);
    ck_assert_str_eq(err.field, "grid.nz");
    ck_assert_ptr_nonnull(strstr(err.message, "radius 8"));
}
END_TEST

START_TEST(test_bad_counts)
{
    fdw_plan plan;
    fdw_error err;
    fdw_error_clear(&err);
    ck_assert_int_eq(fdw_plan_slabs(100, 4, 0, NULL, &plan, &err), FDW_ERR_SPEC);
    ck_assert_str_eq(err.field, "devices");
    ck_assert_int_eq(fdw_plan_slabs(100, 4, FDW_MAX_DEVICES + 1, NULL, &plan, &err),
                     FDW_ERR_SPEC);
    ck_assert_str_eq(err.field, "devices");
    ck_assert_int_eq(fdw_plan_slabs(0, 4, 1, NULL, &plan, &err), FDW_ERR_SPEC);
    ck_assert_str_eq(err.field, "grid.nz");
    ck_assert_int_eq(fdw_plan_slabs(10, 9, 1, NULL, &plan, &err), FDW_ERR_INTERNAL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plan");
    TCase *tc = tcase_create("plan");
    tcase_add_test(tc, test_split_sums);
    tcase_add_test(tc, test_uneven_example);
    tcase_add_test(tc, test_device_ids);
    tcase_add_test(tc, test_too_many_devices);
    tcase_add_test(tc, test_bad_counts);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
