"""exit_codes.py — the exit codes of `python -m fdwave_client`, the same numbers as the C
`fdwave` CLI's (clients/cli/exit_codes.h): scripts depend on them, never renumber one."""

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_CANCELLED = 0, 1, 2, 3
EXIT_BAD_REQUEST, EXIT_UNREACHABLE, EXIT_UNAUTHORIZED, EXIT_NOT_FOUND = 4, 5, 6, 7
EXIT_SERVER, EXIT_LOCAL_IO = 8, 9

EXIT_CODES_HELP = """exit codes:
  0  ok; for submit --wait and watch: the job succeeded
  1  the job failed
  2  usage error
  3  the job was cancelled
  4  bad request (HTTP 4xx, e.g. an invalid spec: the field path is printed)
  5  the server cannot be reached
  6  unauthorized (missing or wrong token)
  7  not found (no such job, output or model)
  8  server error (HTTP 5xx or an answer that is not the API's)
  9  a local file could not be read or written"""


def exit_for_status(status):
    """Exit code for an HTTP error status (None: no answer at all)."""
    if status is None:
        return EXIT_UNREACHABLE
    if status == 401:
        return EXIT_UNAUTHORIZED
    if status == 404:
        return EXIT_NOT_FOUND
    if 400 <= status < 500:
        return EXIT_BAD_REQUEST
    return EXIT_SERVER


def exit_for_state(state):
    """Exit code for a job's final state."""
    return {"succeeded": EXIT_OK, "failed": EXIT_FAILED,
            "cancelled": EXIT_CANCELLED}.get(state, EXIT_SERVER)
