"""Server-Sent Events parsing (text/event-stream, as the WHATWG spec defines it).

SseParser takes the stream line by line and returns complete events; it remembers the
last event id so that a reconnect can send Last-Event-ID.
"""


class SseParser:
    """Incremental parser: feed it lines (without or with their line ends)."""

    def __init__(self, last_id=None):
        self.last_id = last_id
        self._type = ""
        self._data = []
        self._have_data = False

    def reset(self):
        """Forget a half-received event (after a dropped connection), keep last_id."""
        self._type = ""
        self._data = []
        self._have_data = False

    def feed_line(self, line):
        """Feed one line. Returns (id, type, data) when the line completes an event."""
        if isinstance(line, bytes):
            line = line.decode("utf-8", errors="replace")
        line = line.rstrip("\r\n")
        if line == "":
            if not self._have_data:
                self._type = ""
                return None
            ev = (self.last_id, self._type or "message", "\n".join(self._data))
            self.reset()
            return ev
        if line.startswith(":"):
            return None  # comment (keep-alive)
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._have_data = True
        elif name == "event":
            self._type = value
        elif name == "id":
            self.last_id = value
        return None
