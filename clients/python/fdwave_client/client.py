"""FdwaveClient: the HTTP/JSON API of fdwaved (see schema/openapi.yaml) from Python.

Every failure is an FdwaveError carrying the server's error code, message, the JSON path of
the bad spec field (for invalid_spec) and the HTTP status; a server that cannot be reached
gives code "unreachable" and status None.
"""
import http.client
import json
import os
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import namedtuple

from . import rsf_join
from .sse import SseParser

DEFAULT_URL = "http://127.0.0.1:8080"

Event = namedtuple("Event", ["id", "type", "data"])
Event.__doc__ = "One server-sent event: id (str), type (str) and data (parsed JSON)."

TERMINAL_STATES = ("succeeded", "failed", "cancelled")


class FdwaveError(Exception):
    """An error answer from fdwaved, or no answer at all (code "unreachable")."""

    def __init__(self, code, message, field=None, status=None):
        self.code = code
        self.message = message
        self.field = field
        self.status = status
        text = "%s: %s%s" % (code, field + ": " if field else "", message)
        super().__init__(text)


class _Dropped(Exception):
    """The event stream ended or broke before its "end" event."""


class FdwaveClient:
    """A client of one fdwaved server.

    url defaults to $FDWAVE_URL or http://127.0.0.1:8080; token to $FDWAVE_TOKEN.
    timeout is the socket timeout in seconds for ordinary requests.
    """

    def __init__(self, url=None, token=None, timeout=60.0):
        self.url = (url or os.environ.get("FDWAVE_URL") or DEFAULT_URL).rstrip("/")
        if not self.url.startswith(("http://", "https://")):
            raise ValueError("url must start with http:// or https://: %r" % self.url)
        self.token = token if token is not None else os.environ.get("FDWAVE_TOKEN")
        self.timeout = timeout

    # ---- plumbing -------------------------------------------------------------------

    def _open(self, method, path, body=None, headers=None, timeout=None):
        """Sends a request and returns the open response for a 2xx answer."""
        hdrs = {"User-Agent": "fdwave-python/0.1.0", "Accept": "application/json"}
        if self.token:
            hdrs["Authorization"] = "Bearer " + self.token
        hdrs.update(headers or {})
        req = urllib.request.Request(self.url + path, data=body, headers=hdrs, method=method)
        try:
            return urllib.request.urlopen(req, timeout=timeout or self.timeout)
        except urllib.error.HTTPError as e:
            raise self._http_error(e) from None
        except (urllib.error.URLError, ConnectionError, socket.timeout, OSError) as e:
            reason = getattr(e, "reason", e)
            raise FdwaveError("unreachable", "cannot reach fdwaved at %s: %s"
                              % (self.url, reason)) from None

    @staticmethod
    def _http_error(e):
        return FdwaveClient._error_from(e.code, e.read() or b"")

    @staticmethod
    def _error_from(status, raw):
        """FdwaveError from an error answer's status and body."""
        try:
            err = json.loads(raw.decode("utf-8"))["error"]
            return FdwaveError(err.get("code") or "error", err.get("message") or "",
                               err.get("field"), status)
        except (ValueError, KeyError, TypeError, AttributeError):
            text = raw.decode("utf-8", errors="replace").strip().splitlines()
            return FdwaveError("http_%d" % status,
                               "HTTP %d from server%s" % (status, ": " + text[0][:200]
                                                         if text else ""), None, status)

    def _json(self, method, path, payload=None, headers=None):
        """A request whose answer is JSON; returns (status, parsed body)."""
        body = None
        hdrs = dict(headers or {})
        if payload is not None:
            body = payload if isinstance(payload, bytes) else payload.encode("utf-8")
            hdrs.setdefault("Content-Type", "application/json")
        with self._open(method, path, body, hdrs) as r:
            data = r.read()
            status = r.status
        try:
            return status, json.loads(data.decode("utf-8")) if data else None
        except ValueError:
            raise FdwaveError("bad_answer", "the server's answer is not JSON: %r"
                              % data[:200], None, status) from None

    # ---- jobs -----------------------------------------------------------------------

    def submit(self, spec, priority=0, idempotency_key=None):
        """Submits a job spec (a dict, or JSON text). Returns the server's answer:
        {"id", "state", "queue_position", "warnings", "links"}."""
        return self.submit_status(spec, priority, idempotency_key)[0]

    def submit_status(self, spec, priority=0, idempotency_key=None):
        """submit(), and whether the job existed already: (job, existed). existed is True
        when the server answered with the job this idempotency_key made before (the same
        spec: 200); the key with another spec raises FdwaveError idempotency_key_reused
        (422)."""
        if isinstance(spec, (dict, list)):
            payload = json.dumps(spec)
        elif isinstance(spec, (str, bytes)):
            payload = spec
        else:
            raise TypeError("spec must be a dict or JSON text")
        path = "/v1/jobs"
        if priority:
            path += "?priority=%d" % int(priority)
        headers = {}
        if idempotency_key is not None:
            headers["Idempotency-Key"] = str(idempotency_key)
        status, job = self._json("POST", path, payload, headers)
        return job, status == 200

    def get(self, job_id):
        """The job: state, reason, progress, devices, timestamps, warnings, spec."""
        return self._json("GET", "/v1/jobs/%d" % int(job_id))[1]

    def list(self, state=None, limit=None, before=None, name=None):
        """Jobs newest first (one page; limit 1..500, before: a job id for the next page,
        name: only jobs whose name contains this text, ASCII case ignored)."""
        return self.list_page(state, limit, before, name)["jobs"]

    def list_page(self, state=None, limit=None, before=None, name=None):
        """One page of jobs as the server answers it: {"jobs": [...], "next": the next
        page's path with the same filters, or None}."""
        q = {}
        if state is not None:
            q["state"] = state
        if name is not None:
            q["name"] = name
        if limit is not None:
            q["limit"] = int(limit)
        if before is not None:
            q["before"] = int(before)
        path = "/v1/jobs" + ("?" + urllib.parse.urlencode(q, quote_via=urllib.parse.quote)
                             if q else "")
        page = self._json("GET", path)[1]
        if not isinstance(page, dict) or not isinstance(page.get("jobs"), list):
            raise FdwaveError("bad_answer", "unexpected answer from the server: %.200r"
                              % (page,), None, 200)
        return page

    def cancel(self, job_id):
        """Cancels a queued (at once) or running job (stops within about a second).
        Returns the job; a job already finished raises FdwaveError code "conflict"."""
        return self._json("POST", "/v1/jobs/%d/cancel" % int(job_id))[1]

    def events(self, job_id, since=None, timeout=None, on_reconnect=None):
        """Yields the job's events (Event(id, type, data)) up to and including "end".

        A finished job replays its whole history. When the connection drops the stream
        is reopened with Last-Event-ID, so no event is yielded twice or lost. since: start
        after this event id. timeout: give up (TimeoutError) after that many seconds.
        on_reconnect(last_id): called before each reconnect (last_id None before any
        event), e.g. to say so on a terminal."""
        parser = SseParser(last_id=str(since) if since is not None else None)
        deadline = time.monotonic() + timeout if timeout is not None else None
        failures = 0
        received_any = False
        while True:
            headers = {"Accept": "text/event-stream"}
            if parser.last_id:
                headers["Last-Event-ID"] = parser.last_id
            read_timeout = 45.0  # the server sends a keep-alive every 15 s
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("job %s did not finish in time" % job_id)
                read_timeout = min(read_timeout, max(left, 0.05))
            got = 0
            try:
                resp = self._open("GET", "/v1/jobs/%d/events" % int(job_id), None, headers,
                                  timeout=read_timeout)
            except FdwaveError as e:
                if e.code != "unreachable" or not received_any:
                    raise
                resp = None
            if resp is not None:
                try:
                    with resp:
                        for line in resp:
                            ev = parser.feed_line(line)
                            if ev is None:
                                if deadline is not None and time.monotonic() > deadline:
                                    raise TimeoutError("job %s did not finish in time"
                                                       % job_id)
                                continue
                            got += 1
                            received_any = True
                            try:
                                data = json.loads(ev[2])
                            except ValueError:
                                data = ev[2]
                            yield Event(ev[0], ev[1], data)
                            if ev[1] == "end":
                                return
                except (socket.timeout, ConnectionError, OSError, ValueError):
                    pass  # dropped: reconnect below
            parser.reset()
            failures = 0 if got else failures + 1
            if failures > 10:
                raise FdwaveError("unreachable", "cannot reach fdwaved at %s: event stream "
                                  "lost, gave up after 10 reconnects" % self.url)
            if on_reconnect is not None:
                on_reconnect(parser.last_id)
            time.sleep(min(max(failures, 0.2), 5))

    def wait(self, job_id, timeout=None):
        """Waits for the job to finish (following its events) and returns the final job.
        Raises TimeoutError after timeout seconds."""
        for ev in self.events(job_id, timeout=timeout):
            if ev.type == "end":
                break
        return self.get(job_id)

    # ---- outputs --------------------------------------------------------------------

    def outputs(self, job_id):
        """The job's manifest: {"files": [{"name", "kind", "format", "dims", "url"...}]}."""
        return self._json("GET", "/v1/jobs/%d/outputs" % int(job_id))[1]

    def download(self, job_id, name, dest="."):
        """Downloads output file name to dest (a directory, or a file path). The file is
        written under a temporary name and renamed. Returns the path written."""
        if not name or "/" in name or name.startswith("."):
            raise ValueError("bad output name %r" % name)
        path = os.path.join(dest, name) if os.path.isdir(dest) else dest
        tmp = os.path.join(os.path.dirname(path) or ".", "." + os.path.basename(path) + ".part")
        with self._open("GET", "/v1/jobs/%d/outputs/%s"
                        % (int(job_id), urllib.parse.quote(name)),
                        headers={"Accept": "*/*"}) as r:
            try:
                with open(tmp, "wb") as f:
                    while True:
                        chunk = r.read(1 << 20)
                        if not chunk:
                            break
                        f.write(chunk)
                os.replace(tmp, path)
            except BaseException:
                if os.path.exists(tmp):
                    os.remove(tmp)
                raise
        return path

    # ---- models, devices, health ----------------------------------------------------

    def upload_model(self, path, name, replace=False):
        """Uploads a velocity model file (streamed) under name; the format comes from the
        name's extension (.f32/.bin/.raw, .segy/.sgy, or .rsf: sent in the one-file form,
        a header that names its binary joined with it, see rsf_join.py). The server checks it and refuses a file that is not a model of that format
        (FdwaveError invalid_model). Returns {"name", "bytes", "sha256", "format", "owner",
        "created_at", "nvalues", "dims", "spacing", "vmin", "vmax"}.

        Uses http.client directly: a server that rejects the upload (bad name, too large)
        answers before reading the body and closes, and urllib would report that as a
        broken connection instead of the server's error."""
        # OSError for a missing file, before any network work; an RSF header that names
        # its binary is sent joined with it, in the one-file form the server keeps.
        f, size = rsf_join.open_model(path, name)
        return self._put_file(f, size, "/v1/models/", name, replace)

    def _put_file(self, f, size, base, name, replace):
        """PUTs the open file f (size bytes, streamed; closed here) to base + name, with
        ?replace=true when replace; the server's JSON answer, or FdwaveError."""
        u = urllib.parse.urlsplit(self.url)
        cls = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
        conn = cls(u.hostname, u.port, timeout=self.timeout)
        target = u.path.rstrip("/") + base + urllib.parse.quote(name, safe="")
        if replace:  # the explicit replace of a name this user owns (else 409)
            target += "?replace=true"
        try:
            try:
                conn.putrequest("PUT", target)
                conn.putheader("Content-Type", "application/octet-stream")
                conn.putheader("Content-Length", str(size))
                conn.putheader("User-Agent", "fdwave-python/0.1.0")
                if self.token:
                    conn.putheader("Authorization", "Bearer " + self.token)
                conn.endheaders()
                while True:
                    chunk = f.read(1 << 20)
                    if not chunk:
                        break
                    conn.send(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass  # answered early: read the answer below
            resp = conn.getresponse()
            status, raw = resp.status, resp.read()
        except (OSError, http.client.HTTPException) as e:
            raise FdwaveError("unreachable", "cannot reach fdwaved at %s: %s"
                              % (self.url, e)) from None
        finally:
            f.close()
            conn.close()
        if status >= 400:
            raise self._error_from(status, raw)
        return json.loads(raw.decode("utf-8"))

    def models(self):
        """Uploaded models visible to this user."""
        return self.models_page()["models"]

    def models_page(self):
        """GET /v1/models as the server answers it: {"models": [...]}."""
        return self._object("/v1/models", "models")

    # ---- observed data (rtm's and gradient's "data") ------------------------------

    def put_data(self, path, name, replace=False):
        """Uploads observed shot gathers (streamed) under name: .segy/.sgy (SEG-Y, one shot
        or many) or .f32/.bin/.raw (raw float32 traces). The server checks a SEG-Y file's
        headers as a job's reader would and refuses one that breaks them (FdwaveError
        invalid_data naming the trace and the header field). Jobs then use it as "data":
        {"name": name}. Returns {"name", "bytes", "sha256", "format", "owner",
        "created_at", "traces", "samples", "sample_interval", "shots", "ffids"}."""
        f = open(path, "rb")  # OSError for a missing file, before any network work
        size = os.fstat(f.fileno()).st_size
        return self._put_file(f, size, "/v1/data/", name, replace)

    def list_data(self):
        """Uploaded data visible to this user (GET /v1/data's "data")."""
        return self.data_page()["data"]

    def data_page(self):
        """GET /v1/data as the server answers it: {"data": [...]}."""
        return self._object("/v1/data", "data")

    def get_data(self, name):
        """One upload's record (GET /v1/data/{name})."""
        return self._json("GET", "/v1/data/" + urllib.parse.quote(name, safe=""))[1]

    def delete_data(self, name):
        """Removes an upload (its owner or an admin); {"name", "deleted": true}."""
        return self._json("DELETE", "/v1/data/" + urllib.parse.quote(name, safe=""))[1]

    def devices(self):
        """The server's devices: id, name, kind, memory_total, memory_free, busy_job."""
        return self.devices_page()["devices"]

    def devices_page(self):
        """GET /v1/devices as the server answers it: {"devices": [...]}."""
        return self._object("/v1/devices", "devices")

    def _object(self, path, key):
        """GET path, an object holding the list key (else FdwaveError "bad_answer")."""
        answer = self._json("GET", path)[1]
        if not isinstance(answer, dict) or not isinstance(answer.get(key), list):
            raise FdwaveError("bad_answer", "unexpected answer from the server: %.200r"
                              % (answer,), None, 200)
        return answer

    def usage(self, user=None, since=None):
        """GET /v1/usage: {"since", "until", "users": [{"user", "jobs", "runs",
        "device_seconds", "device_hours", "wall_seconds", "peak_host_bytes",
        "peak_device_bytes"}]}; user: an admin's look at another user; since: "30d",
        "12h", "2026-11-01" (default 30d)."""
        from urllib.parse import urlencode
        q = {"since": since or "30d"}
        if user:
            q["user"] = user
        return self._object("/v1/usage?" + urlencode(q), "users")

    def remove(self, job_id):
        """DELETE /v1/jobs/ID: a finished job's outputs are removed and its record kept
        (returns (200, the job)); a queued or running job is cancelled (202, the job)."""
        return self._json("DELETE", "/v1/jobs/%d" % int(job_id))

    def health(self):
        """{"status", "version", "uptime_s", "queue", "running"}."""
        return self._json("GET", "/v1/health")[1]
