"""report.py — how `python -m fdwave_client` reports a failure: as text on stderr, or with
--json as one line of JSON on stdout,

    {"error":{"code":"invalid_spec","message":"...","field":"sources[0].position"},"http_status":400}

exactly as the C `fdwave` CLI does (clients/cli/report.c). code is the server's error
code, or the CLI's own: "usage", "unreachable", "local_io", "bad_answer", "http_NNN" (an
HTTP error without the API's error body). Each function returns the exit code."""
import json
import sys

from .exit_codes import EXIT_LOCAL_IO, EXIT_SERVER, EXIT_USAGE, exit_for_status


class Reporter:
    """Prints failures in the CLI's text or --json form."""

    def __init__(self, as_json=False):
        self.as_json = as_json

    def _report(self, exit_code, code, message, field=None, http_status=None, text=None):
        if self.as_json:
            obj = {"error": {"code": code, "message": message, "field": field},
                   "http_status": http_status}
            sys.stdout.write(json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n")
            sys.stdout.flush()
        else:
            sys.stderr.write((text if text is not None else message) + "\n")
            sys.stderr.flush()
        return exit_code

    def usage(self, message):
        """A usage error: "fdwave: MESSAGE" and the hint (exit 2)."""
        return self._report(EXIT_USAGE, "usage", message,
                            text="fdwave: %s\n(see fdwave --help)" % message)

    def synopsis(self, synopsis):
        """A command given the wrong arguments: "usage: fdwave SYNOPSIS" (exit 2)."""
        return self._report(EXIT_USAGE, "usage", "usage: fdwave %s" % synopsis)

    def local(self, message):
        """A local file that cannot be read or written (exit 9)."""
        return self._report(EXIT_LOCAL_IO, "local_io", message, text="fdwave: " + message)

    def server(self, e):
        """An FdwaveError: the server's error, or no answer at all."""
        if e.code == "unreachable":
            return self._report(exit_for_status(None), "unreachable", e.message)
        if e.code == "bad_answer":
            return self._report(EXIT_SERVER, "bad_answer", e.message, text="error: " + e.message)
        if e.code.startswith("http_"):
            return self._report(exit_for_status(e.status), e.code, e.message, None, e.status,
                                text="error: " + e.message)
        text = "error: %s: %s%s (HTTP %s)" % (e.code, e.field + ": " if e.field else "",
                                             e.message, e.status)
        return self._report(exit_for_status(e.status), e.code, e.message, e.field, e.status,
                            text=text)
