"""fdwaved_proc.py — a real fdwaved as a child process for the Python-driven client tests
(test_python_client.py, test_cli_parity.py, test_watch_requeue.py, and tests/web and
tests/docs through their helpers): CPU backend, two
virtual devices, loopback, an ephemeral port (or a given one, to restart on the same
port), its log in DATA/daemon.log; and a pseudo-terminal runner with a small screen model
for what a terminal would finally show."""
import os
import pty
import re
import select
import signal
import subprocess
import time


class Daemon:
    """fdwaved (exe) serving data on 127.0.0.1:port (0: any free port); extra: more
    command-line arguments (e.g. --web DIR)."""

    def __init__(self, exe, data, port=0, extra=()):
        self.exe = exe
        self.data = data
        self.extra = list(extra)
        self.log_path = os.path.join(data, "daemon.log")
        log = open(self.log_path, "ab")
        start = os.path.getsize(self.log_path)
        self.proc = subprocess.Popen(
            [exe, "--listen", "127.0.0.1:%d" % port, "--data", data, "--devices", "cpu:2",
             "--backend", "cpu"] + self.extra, stdin=subprocess.DEVNULL, stdout=log,
            stderr=log)
        log.close()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with open(self.log_path, "rb") as f:
                f.seek(start)
                m = re.search(rb"listening on (http://127\.0\.0\.1:(\d+))", f.read())
            if m:
                self.url = m.group(1).decode()
                self.port = int(m.group(2))
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        self.stop()
        raise RuntimeError("fdwaved did not start; log in %s" % self.log_path)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def restart(self):
        """Stops and starts again on the same port and data directory."""
        self.stop()
        time.sleep(0.5)
        again = Daemon(self.exe, self.data, self.port, self.extra)
        self.proc, self.url = again.proc, again.url

    def log_tail(self, n=30):
        with open(self.log_path) as f:
            return "".join(f.readlines()[-n:])


def run_on_pty(argv, env=None, timeout=120, on_output=None):
    """Runs argv with stdout and stderr on a pseudo-terminal; returns (exit code, the
    bytes it wrote). on_output, if given, is called with all the bytes written so far
    each time more arrive (a test waits on it for what the program has shown)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    out = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the other side is closed
                chunk = b""
            if not chunk:
                break
            out += chunk
            if on_output:
                on_output(out)
        elif p.poll() is not None:
            break
    os.close(master)
    try:
        code = p.wait(max(1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        p.kill()
        code = p.wait()
    return code, out


def screen_lines(raw):
    """The lines a terminal shows after raw was written to it: carriage return goes to
    column 0, ESC [ K erases to the end of the line, newline starts a new line, other
    characters overwrite. Empty lines at the end are dropped."""
    text = raw.decode("utf-8", errors="replace")
    lines, cur, col, i = [], [], 0, 0
    while i < len(text):
        ch = text[i]
        if text.startswith("\033[K", i):
            del cur[col:]
            i += 3
            continue
        if ch == "\r":
            col = 0
        elif ch == "\n":
            lines.append("".join(cur))
            cur, col = [], 0
        else:
            if col < len(cur):
                cur[col] = ch
            else:
                cur.append(ch)
            col += 1
        i += 1
    lines.append("".join(cur))
    while lines and not lines[-1].strip():
        lines.pop()
    return lines
