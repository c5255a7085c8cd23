/* option_refused.c — classify the option getopt_long refused (see option_refused.h). */
#include "option_refused.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

option_problem option_refused(char *const *argv, int c, char *name, size_t cap)
{
    const char *arg = argv[optind - 1];
    const int is_long = strncmp(arg, "--", 2) == 0;
    if (is_long) {
        const int n = (int)strcspn(arg, "=");
        snprintf(name, cap, "%.*s", n < 100 ? n : 100, arg);
    } else {
        snprintf(name, cap, "-%c", optopt ? optopt : '?');
    }
    if (c == ':')
        return OPTION_NEEDS_VALUE;
    /* glibc sets optopt to a known long option's value when it refuses "--flag=VALUE" */
    if (is_long && optopt && strchr(arg, '='))
        return OPTION_TAKES_NO_VALUE;
    return OPTION_UNKNOWN;
}
