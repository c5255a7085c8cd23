"""test_watch_requeue.py — a watched job that fdwaved re-queues when it restarts: both
CLIs (the C `fdwave` and `python -m fdwave_client`) follow the job across the restart, say
"re-queued after a restart" where its progress starts again, and end with the result line.
Four watchers at once: each CLI with its output to a pipe (one line per event; the two
must print the same lines) and on a terminal (a pseudo-terminal; the screen must show the
bar the job had reached, the notice, and as its last line "end: succeeded (...)", with no
bar drawn after it).

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
NOTICE = "re-queued after a restart: it resumes from its last checkpoint (from step 0 if it has none)"
RECONNECT = re.compile(r"(?m)^connection lost; reconnecting \(Last-Event-ID: [^)]*\)\n")


def clean_env():
    return {k: v for k, v in os.environ.items() if not k.startswith("FDWAVE_")}


@unittest.skipUnless(DAEMON and C_CLI, "FDWAVED and FDWAVE_CLI are not set")
class WatchRequeueTest(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="fdwave-requeue-")
        data = os.path.join(self.tmp, "data")
        os.mkdir(data)
        self.daemon = Daemon(DAEMON, data)

    def tearDown(self):
        self.daemon.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_both_clis_say_requeued_and_end_with_the_result(self):
        c = FdwaveClient(self.daemon.url)
        job = str(c.submit(SPEC)["id"])
        clis = {"c": [C_CLI], "py": [sys.executable, "-m", "fdwave_client"]}
        piped = {k: subprocess.Popen(v + ["--url", self.daemon.url, "watch", job],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=clean_env())
                 for k, v in clis.items()}
        on_tty = {}

        def tty(k):
            on_tty[k] = run_on_pty(clis[k] + ["--url", self.daemon.url, "watch", job],
                                   clean_env(), timeout=200)

        threads = [threading.Thread(target=tty, args=(k,)) for k in clis]
        for t in threads:
            t.start()
        for _ in range(800):
            j = c.get(int(job))
            if j["state"] == "running" and (j.get("progress") or {}).get("percent", 0) > 1:
                break
            time.sleep(0.025)
        else:
            self.fail("the job never ran")
        self.daemon.restart()

        out = {}
        for k, p in piped.items():
            stdout, stderr = p.communicate(timeout=200)
            self.assertEqual(p.returncode, 0, "%s: %s%s" % (k, stdout, stderr))
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
        screens = {}
        for k, (code, raw) in on_tty.items():
            self.assertEqual(code, 0, "%s on a terminal: %r" % (k, raw[-400:]))
            screen = screen_lines(RECONNECT.sub("", raw.decode("utf-8", "replace")
                                                .replace("\r\n", "\n")).encode())
            i = screen.index(NOTICE)
            self.assertRegex(screen[i - 1], r"^state: queued \(re-queued")
            self.assertRegex(screen[i - 2], r"^\[#*\.+\] +\d+\.\d%  step \d+/6000 ")
            self.assertTrue(screen[-1].startswith("end: succeeded ("), screen[-3:])
            self.assertRegex(screen[-2], r"^\[#{30}\] 100\.0%  step 6000/6000 ")
            screens[k] = screen
        self.assertEqual(screens["c"][i - 1:], screens["py"][i - 1:])


if __name__ == "__main__":
    unittest.main()
