/* option_refused.h — what was wrong with the option getopt_long just refused, for
 * fdwave-run and the fdwave CLI to say in their own words. Both parse with opterr = 0
 * and an optstring that starts with ':' (after any '-' or '+'), so a missing value comes
 * back as ':' and anything else wrong as '?'. */
#ifndef FDW_OPTION_REFUSED_H
#define FDW_OPTION_REFUSED_H

#include <stddef.h>

typedef enum {
    OPTION_UNKNOWN,         /* no such option (or an ambiguous abbreviation) */
    OPTION_NEEDS_VALUE,     /* a value-taking option at the end of the line */
    OPTION_TAKES_NO_VALUE,  /* --flag=VALUE for a flag */
} option_problem;

/* c: what getopt_long returned ('?' or ':'); argv: the array it scanned. Writes the
 * option as typed, without any "=VALUE" ("--out", "-o"), into name. */
option_problem option_refused(char *const *argv, int c, char *name, size_t cap);

#endif
