/* exit_codes.h — the fdwave CLI's exit codes. Scripts depend on these numbers: never
 * renumber one, only add new ones. `fdwave --help` prints this table. */
#ifndef FDC_EXIT_CODES_H
#define FDC_EXIT_CODES_H

enum {
    FDC_EXIT_OK = 0,           /* command succeeded; for --wait/watch: the job succeeded */
    FDC_EXIT_JOB_FAILED = 1,   /* the job ended in state "failed" */
    FDC_EXIT_USAGE = 2,        /* bad command line (unknown command/option, missing argument) */
    FDC_EXIT_CANCELLED = 3,    /* the job ended in state "cancelled" */
    FDC_EXIT_BAD_REQUEST = 4,  /* the server answered 4xx (invalid spec, conflict, ...) */
    FDC_EXIT_UNREACHABLE = 5,  /* no answer from the server (connection refused, timeout) */
    FDC_EXIT_UNAUTHORIZED = 6, /* 401: missing or wrong token */
    FDC_EXIT_NOT_FOUND = 7,    /* 404: no such job, model or output (or not yours) */
    FDC_EXIT_SERVER = 8,       /* the server answered 5xx or something that is not the API */
    FDC_EXIT_LOCAL_IO = 9      /* a local file could not be read or written */
};

#endif
