"""test_watch_requeue.py — a watched job that fdwaved re-queues when it restarts: both
CLIs (the C `fdwave` and `python -m fdwave_client`) follow the job across the restart, say
"re-queued after a restart" where its progress starts again, and end with the result line.
Four watchers at once: each CLI with its output to a pipe (one line per event; the two
must print the same lines) and on a terminal (a pseudo-terminal; the screen must show the
bar the job had reached, the notice, and as its last line "end: succeeded (...)", with no
bar drawn after it).

The order is made by events, not by time: a blocker job holds both devices while the four
watchers start, so the watched job cannot run (nor end) before each watcher has shown its
first event; the restart comes once the job's progress is stored, so every watcher, live
or resuming with Last-Event-ID, gets that progress before the re-queue.

Run by ctest with FDWAVED, FDWAVE_CLI and PYTHONPATH set.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from fdwave_client import FdwaveClient
from fdwaved_proc import Daemon, run_on_pty, screen_lines
from job_specs import long_spec

DAEMON = os.environ.get("FDWAVED", "")
C_CLI = os.environ.get("FDWAVE_CLI", "")

# About 4 s of work on one CPU thread: long enough to be caught running, short enough to
# run twice.
SPEC = long_spec(6000, "requeue")
BLOCKER = long_spec(10 ** 6, "blocker", devices=2)
NOTICE = "re-queued after a restart: it resumes from its last checkpoint (from step 0 if it has none)"
RECONNECT = re.compile(r"(?m)^connection lost; reconnecting \(Last-Event-ID: [^)]*\)\n")


def clean_env():
    return {k: v for k, v in os.environ.items() if not k.startswith("FDWAVE_")}


class Piped:
    """A watcher with its output to pipes, read as it comes; shown is set at its first
    line of output."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=clean_env())
        self.shown = threading.Event()
        self.out, self.err = [], []
        self.readers = [threading.Thread(target=self._read, args=(self.proc.stdout, self.out)),
                        threading.Thread(target=self._read, args=(self.proc.stderr, self.err))]
        for t in self.readers:
            t.start()

    def _read(self, stream, into):
        for line in stream:
            into.append(line)
            if stream is self.proc.stdout:
                self.shown.set()

    def finish(self, timeout):
        """(exit code, stdout, stderr) once it has ended."""
        code = self.proc.wait(timeout)
        for t in self.readers:
            t.join(timeout)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return code, "".join(self.out), "".join(self.err)


@unittest.skipUnless(DAEMON and C_CLI, "FDWAVED and FDWAVE_CLI are not set")
class WatchRequeueTest(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="fdwave-requeue-")
        data = os.path.join(self.tmp, "data")
        os.mkdir(data)
        # Nice 10 rather than SCHED_IDLE for the simulation: on cores another build keeps
        # busy, an idle-class job would get no time at all and never end.
        self.daemon = Daemon(DAEMON, data, extra=["--cpu-job-sched", "nice"])

    def tearDown(self):
        self.daemon.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_both_clis_say_requeued_and_end_with_the_result(self):
        c = FdwaveClient(self.daemon.url)
        # Both devices busy: the watched job stays queued until the blocker is cancelled.
        blocker = c.submit(BLOCKER)["id"]
        job = str(c.submit(SPEC)["id"])
        clis = {"c": [C_CLI], "py": [sys.executable, "-m", "fdwave_client"]}
        piped = {k: Piped(v + ["--url", self.daemon.url, "watch", job]) for k, v in clis.items()}
        on_tty, tty_shown = {}, {k: threading.Event() for k in clis}

        def tty(k):
            def seen(out):
                if b"\n" in out:
                    tty_shown[k].set()
            on_tty[k] = run_on_pty(clis[k] + ["--url", self.daemon.url, "watch", job],
                                   clean_env(), timeout=200, on_output=seen)
            tty_shown[k].set()  # ended: the assertions below say how

        threads = [threading.Thread(target=tty, args=(k,)) for k in clis]
        for t in threads:
            t.start()
        for name, shown in [("piped " + k, p.shown) for k, p in piped.items()] + \
                [("on a terminal " + k, e) for k, e in tty_shown.items()]:
            self.assertTrue(shown.wait(200), "watcher %s showed nothing" % name)
        self.assertEqual(c.get(int(job))["state"], "queued")
        c.cancel(blocker)
        for _ in range(8000):
            j = c.get(int(job))
            if j["state"] == "running" and (j.get("progress") or {}).get("percent", 0) > 1:
                break
            self.assertEqual(j["state"] in ("queued", "running"), True, j)
            time.sleep(0.025)
        else:
            self.fail("the job never ran")
        self.daemon.restart()

        out = {}
        for k, p in piped.items():
            code, stdout, stderr = p.finish(200)
            self.assertEqual(code, 0, "%s: %s%s" % (k, stdout, stderr))
            self.assertRegex(stderr, RECONNECT)
            out[k] = stdout
        for t in threads:
            t.join(200)
            self.assertFalse(t.is_alive())

        # One line per event: the same from both, the notice right after the state line.
        self.assertEqual(out["c"], out["py"])
        lines = out["c"].splitlines()
        i = lines.index(NOTICE)
        self.assertRegex(lines[i - 1], r"^state: queued \(re-queued")
        self.assertTrue(any(l.startswith("progress ") for l in lines[:i - 1]), "no progress "
                        "before the restart")
        self.assertIn("state: running", lines[i + 1:])
        self.assertEqual(lines.count(NOTICE), 1)
        self.assertTrue(lines[-1].startswith("end: succeeded ("), lines[-1])

        # On a terminal: the bar reached before the restart stays as history above the
        # notice, and the screen ends with the result.
        # The reconnect message goes to the same terminal wherever the link dropped
        # (after a bar or after the notice): it is left out of the comparison.
        screens = {}
        for k, (code, raw) in on_tty.items():
            self.assertEqual(code, 0, "%s on a terminal: %r" % (k, raw[-400:]))
            screen = [l for l in screen_lines(raw.replace(b"\r\n", b"\n"))
                      if not RECONNECT.match(l + "\n")]
            i = screen.index(NOTICE)
            self.assertRegex(screen[i - 1], r"^state: queued \(re-queued")
            self.assertRegex(screen[i - 2], r"^\[#*\.+\] +\d+\.\d%  step \d+/6000 ")
            self.assertTrue(screen[-1].startswith("end: succeeded ("), screen[-3:])
            self.assertRegex(screen[-2], r"^\[#{30}\] 100\.0%  step 6000/6000 ")
            screens[k] = screen[i - 1:]
        self.assertEqual(screens["c"], screens["py"])


if __name__ == "__main__":
    unittest.main()
