/* spec_print.c — test helper: parses each spec file given and prints its normalised JSON
 * (fdw_spec_to_json), one line per file, so scripts can check it (check_schema.py
 * validates these lines against schema/job.schema.json). Exit 2 on an invalid spec. */
#include <stdio.h>
#include <stdlib.h>

#include "fdwave/fdwave.h"

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        fdw_spec *s = NULL;
        fdw_error err;
        if (fdw_spec_load(argv[i], NULL, &s, &err) != FDW_OK) {
            fprintf(stderr, "%s: %s: %s\n", argv[i], err.field, err.message);
            return 2;
        }
        char *j = fdw_spec_to_json(s);
        if (!j) {
            fdw_spec_free(s);
            return 1;
        }
        printf("%s\n", j);
        free(j);
        fdw_spec_free(s);
    }
    return 0;
}
