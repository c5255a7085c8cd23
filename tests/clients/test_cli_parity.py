"""test_cli_parity.py — the C `fdwave` CLI and `python -m fdwave_client` print the same
things the same way: both run every command against one fdwaved, on the same jobs,
models and devices, in text and in --json mode, and their exit codes, stdout and stderr
are compared (JSON by value, since the two JSON libraries write numbers differently).

What can differ between two runs of one command is made equal before comparing, and only
that: the daemon's uptime, the job id of a command that creates a job, the timing figures
of a job each CLI runs itself, and the reason text of a refused connection (libcurl's and
Python's words). Usage errors the two parsers word differently (none today) would show
here as a failure.

Run by ctest with FDWAVED (the daemon), FDWAVE_CLI (the C CLI) and PYTHONPATH
(clients/python) set.
"""
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import unittest

import job_specs
from fdwave_client import FdwaveClient
from job_specs import small_spec
from fdwaved_proc import Daemon, run_on_pty, screen_lines

DAEMON = os.environ.get("FDWAVED", "")
C_CLI = os.environ.get("FDWAVE_CLI", "")

SMALL = small_spec("parity small")


def long_spec(nt, devices=1):
    return job_specs.long_spec(nt, "parity long", devices)


def json_values(text):
    """The JSON of a --json output: one document (indented), or one per line (watch)."""
    try:
        return [json.loads(text)]
    except ValueError:
        return [json.loads(line) for line in text.splitlines()]


def clean_env():
    return {k: v for k, v in os.environ.items() if not k.startswith("FDWAVE_")}


@unittest.skipUnless(DAEMON and C_CLI, "FDWAVED and FDWAVE_CLI are not set")
class CliParityTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        for exe in (DAEMON, C_CLI):
            if not os.access(exe, os.X_OK):
                raise RuntimeError("%s is not an executable file" % exe)
        cls.tmp = tempfile.mkdtemp(prefix="fdwave-parity-")
        data = os.path.join(cls.tmp, "data")
        os.mkdir(data)
        cls.daemon = Daemon(DAEMON, data)
        cls.c = FdwaveClient(cls.daemon.url)
        # One finished job with snapshots and a gather, one cancelled while running, one
        # model: every command below has something to show.
        cls.done = cls.c.submit(SMALL)["id"]
        cls.c.wait(cls.done, timeout=600)
        cls.cancelled = cls.c.submit(long_spec(20000))["id"]
        for _ in range(400):
            j = cls.c.get(cls.cancelled)
            if j["state"] == "running" and j.get("progress"):
                break
            time.sleep(0.025)
        cls.c.cancel(cls.cancelled)
        cls.c.wait(cls.cancelled, timeout=300)
        n = 16 * 16 * 16
        cls.model_file = os.path.join(cls.tmp, "model.f32")
        with open(cls.model_file, "wb") as f:
            f.write(struct.pack("<%df" % n, *([1800.0 + i % 7 for i in range(n)])))
        cls.c.upload_model(cls.model_file, "parity-shared.f32")
        # A model file on "this machine" that the server does not have, beside a spec that
        # names it by a relative path (issue 14: the hint, --upload-models).
        n = 32 * 32 * 32
        with open(os.path.join(cls.tmp, "local-vel.f32"), "wb") as f:
            f.write(struct.pack("<%df" % n, *([1900.0 + i % 5 for i in range(n)])))
        cls.files = {}
        for name, text in (("small.json", json.dumps(SMALL)),
                           ("other.json", json.dumps(dict(SMALL, name="parity other"))),
                           ("local.json", json.dumps(dict(SMALL, name="parity local", velocity={
                               "type": "file", "format": "raw-f32", "path": "local-vel.f32"}))),
                           ("junk.json", '{"grid": '),
                           ("bad.json", json.dumps(dict(SMALL, sources=[
                               {"position": [960, 160, 160],
                                "wavelet": {"type": "ricker", "f0": 15}}])))):
            cls.files[name] = os.path.join(cls.tmp, name)
            with open(cls.files[name], "w") as f:
                f.write(text)

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    # ---- running both -----------------------------------------------------------------

    def run_both(self, args, url=None, cwd=None, before=None):
        """(C result, Python result) of the same command line; before(), when given, is
        called before each."""
        url = url or self.daemon.url
        res = []
        for argv in ([C_CLI], [sys.executable, "-m", "fdwave_client"]):
            if before:
                before()
            res.append(subprocess.run(argv + ["--url", url] + list(args), capture_output=True,
                                      text=True, env=clean_env(), cwd=cwd, timeout=120))
        return res

    def assert_same(self, args, normalise=lambda s: s, url=None, cwd=None, before=None):
        """Both CLIs give the same exit code and, after normalise, the same stdout and
        stderr; with --json stdout is compared as JSON values, line by line. Returns the
        C CLI's result."""
        c, py = self.run_both(args, url, cwd, before)
        what = " ".join(args)
        self.assertEqual(c.returncode, py.returncode,
                         "%s: exit codes differ\nC:  %s%s\nPy: %s%s"
                         % (what, c.stdout, c.stderr, py.stdout, py.stderr))
        if "--json" in args:
            self.assertEqual(json_values(normalise(c.stdout)), json_values(normalise(py.stdout)),
                             what)
        else:
            self.assertEqual(normalise(c.stdout), normalise(py.stdout), what)
        self.assertEqual(normalise(c.stderr), normalise(py.stderr), what)
        return c

    # ---- the commands -----------------------------------------------------------------

    def test_reading_commands(self):
        done, cancelled = str(self.done), str(self.cancelled)
        commands = [
            ["list"], ["list", "--state", "succeeded"], ["list", "--name", "PARITY small"],
            ["list", "--limit", "1"], ["list", "--before", cancelled],
            ["status", done], ["status", cancelled], ["outputs", done], ["outputs", cancelled],
            ["watch", done], ["watch", cancelled], ["watch", done, "--since", "3"],
            ["models", "list"], ["devices"],
        ]
        for args in commands:
            for mode in ([], ["--json"]):
                c = self.assert_same(mode + args)
                self.assertEqual(c.returncode, 3 if args[:2] == ["watch", cancelled] else 0,
                                 c.stderr)
        # What each shows, so that "the same" is not "the same nothing".
        c = self.assert_same(["watch", done])
        self.assertRegex(c.stdout, r"(?m)^log info: ")
        self.assertEqual(c.stdout.splitlines()[-1][:14], "end: succeeded")
        c = self.assert_same(["devices"])
        self.assertRegex(c.stdout, r"(?m)^0 +cpu .* GiB +\d+\.\d GiB  -$")
        c = self.assert_same(["models", "list"])
        self.assertRegex(c.stdout.splitlines()[0], r"^NAME +FORMAT +SIZE +DIMS +VELOCITY +OWNER")
        self.assertIn("16.0 KiB  4096 values      1800-1806 m/s", c.stdout)
        c = self.assert_same(["list", "--limit", "1"])
        self.assertIn("(more: the next page is list --before %s)" % self.c.list(limit=1)[0]["id"],
                      c.stdout)

    def test_health(self):
        up = re.compile(r"up \d+ s|\"uptime_s\": ?\d+")
        free = re.compile(r"\"free_bytes\": ?\d+")  # jobs write meanwhile
        self.assert_same(["health"], lambda s: up.sub("up", s))
        self.assert_same(["--json", "health"],
                         lambda s: free.sub('"free_bytes":0', up.sub('"uptime_s":0', s)))

    def test_usage_and_rm(self):
        # issue 16: the figures move while a job runs; the layout and the words must not.
        num = re.compile(r"\d+(\.\d+)?(e[-+]?\d+)?")
        def figures(t):
            return num.sub("0", t)
        for mode in ([], ["--json"]):
            c = self.assert_same(mode + ["usage"], figures)
            self.assertEqual(c.returncode, 0, c.stderr)
            c = self.assert_same(mode + ["usage", "--since", "2h"], figures)
        self.assertRegex(c.stdout, r'"device_seconds"')
        c = self.assert_same(["usage"], figures)
        self.assertRegex(c.stdout, r"(?m)^USER +JOBS +RUNS +DEVICE-HOURS +WALL HOURS")
        self.assertRegex(c.stdout, r"(?m)^local +\d+ +\d+ ")
        # rm: the C CLI removes a finished job's outputs, the Python one finds them gone
        # (the same answer); both refuse a missing id alike.
        gone = self.c.submit(SMALL)["id"]
        self.c.wait(gone, timeout=600)
        c = self.assert_same(["rm", str(gone)])
        self.assertEqual(c.stdout, "job %d: outputs removed (its record is kept)\n" % gone)
        self.assertTrue(self.c.get(gone).get("outputs_removed"))
        self.assert_same(["--json", "rm", str(gone)])
        c = self.assert_same(["rm"])
        self.assertEqual(c.returncode, 2)
        c = self.assert_same(["rm", "987654"])
        self.assertEqual(c.returncode, 7)

    def test_errors(self):
        done = str(self.done)
        commands = [
            ["status", "987654"], ["watch", "987654"], ["cancel", done],
            ["submit", self.files["bad.json"]], ["submit", self.files["junk.json"]],
            ["submit", os.path.join(self.tmp, "missing.json")],
            ["fetch", done, "no-such-file.f32", "-o", os.path.join(self.tmp, "nothing")],
            ["list", "--state", "sleeping"], ["list", "--limit", "0"], ["list", "--before", "x"],
            ["status", "abc"], ["status"], ["status", "1", "2"], ["fetch", done, "../x"],
            ["models", "frob"], ["list", "--bogus"], ["list", "--limit"], ["frobnicate"],
            ["submit", self.files["small.json"], "--priority", "high"],
        ]
        for args in commands:
            for mode in ([], ["--json"]):
                c = self.assert_same(mode + args)
                self.assertNotEqual(c.returncode, 0, args)
                if mode:
                    err = json.loads(c.stdout)
                    self.assertEqual(set(err), {"error", "http_status"})
                    self.assertEqual(c.stderr, "")
        c = self.assert_same(["--json", "submit", self.files["bad.json"]])
        self.assertEqual(json.loads(c.stdout)["error"]["field"], "sources[0].position")
        # No server: the reason is libcurl's or Python's own words, the rest the same.
        why = re.compile(r"(cannot reach fdwaved at http://127\.0\.0\.1:1): [^\n\"]*")
        for mode in ([], ["--json"]):
            c = self.assert_same(mode + ["status", "1"], lambda s: why.sub(r"\1: ...", s),
                                 url="http://127.0.0.1:1")
            self.assertEqual(c.returncode, 5)

    def test_fetch(self):
        done = str(self.done)
        for args in (["fetch", done, "gather.f32", "-o", "out"], ["fetch", done, "--all"],
                     ["--json", "fetch", done, "--all", "-o", "all"],
                     ["fetch", done, "gather.f32", "-o", "results/shot42/a"],
                     ["--json", "fetch", done, "--all", "-o", "deep/er/still"]):
            dirs = [os.path.join(self.tmp, "fetch-" + who) for who in ("c", "py")]
            for d in dirs:
                shutil.rmtree(d, ignore_errors=True)
                os.mkdir(d)
            c, py = [subprocess.run(argv + ["--url", self.daemon.url] + args,
                                    capture_output=True, text=True, env=clean_env(), cwd=d,
                                    timeout=120)
                     for argv, d in zip(([C_CLI], [sys.executable, "-m", "fdwave_client"]),
                                        dirs)]
            self.assertEqual((c.returncode, c.stdout, c.stderr),
                             (py.returncode, py.stdout, py.stderr), args)
            trees = []
            for d in dirs:
                tree = {}
                for root, _, names in os.walk(d):
                    for n in names:
                        with open(os.path.join(root, n), "rb") as f:
                            tree[os.path.relpath(os.path.join(root, n), d)] = f.read()
                trees.append(tree)
            self.assertTrue(trees[0], "nothing fetched")
            self.assertEqual(sorted(trees[0]), sorted(trees[1]))
            for name in trees[0]:
                if name.endswith("manifest.json"):  # written by each: compare as JSON
                    self.assertEqual(json.loads(trees[0][name]), json.loads(trees[1][name]))
                else:
                    self.assertEqual(trees[0][name], trees[1][name], name)

    def test_submit_and_cancel(self):
        # A job on both devices keeps what follows queued, so each CLI sees the same state.
        blocker = self.c.submit(long_spec(40000, devices=2))["id"]
        try:
            # Each submits a new job under a key of its own: the same line but for the
            # numbers.
            outs = []
            for argv, key in (([C_CLI], "parity-new-c"),
                              ([sys.executable, "-m", "fdwave_client"], "parity-new-py")):
                p = subprocess.run(argv + ["--url", self.daemon.url, "submit",
                                           self.files["small.json"], "--idempotency-key", key],
                                   capture_output=True, text=True, env=clean_env(), timeout=60)
                outs.append((p.returncode, re.sub(r"\d+", "#", p.stdout), p.stderr))
            self.assertEqual(outs[0], outs[1])
            self.assertEqual(outs[0][1], "job # submitted (queued, queue position #)\n")
            with open(self.files["small.json"]) as f:
                small_text = f.read()
            for mode, key in (([], "parity-text"), (["--json"], "parity-json")):
                # A key already used with this spec: both answer that job, which the text
                # names; the key with another spec: 422, naming that job.
                jid = self.c.submit(small_text, idempotency_key=key)["id"]
                c = self.assert_same(mode + ["submit", self.files["small.json"],
                                             "--idempotency-key", key])
                self.assertEqual(c.returncode, 0, c.stderr)
                if mode:
                    self.assertEqual(json.loads(c.stdout)["id"], jid)
                else:
                    self.assertRegex(c.stdout, r"^already submitted as job %d \(queued, "
                                               r"queue position \d+\)\n$" % jid)
                other = self.assert_same(mode + ["submit", self.files["other.json"],
                                                 "--idempotency-key", key])
                self.assertEqual(other.returncode, 4)
                self.assertIn("already used for job %d with a different spec" % jid,
                              other.stdout if mode else other.stderr)
            # Each cancels a queued job of its own: the same line but for the id.
            ids = [self.c.submit(SMALL)["id"] for _ in range(2)]
            outs = []
            for argv, jid in zip(([C_CLI], [sys.executable, "-m", "fdwave_client"]), ids):
                p = subprocess.run(argv + ["--url", self.daemon.url, "cancel", str(jid)],
                                   capture_output=True, text=True, env=clean_env(), timeout=60)
                outs.append((p.returncode, p.stdout.replace(str(jid), "ID"), p.stderr))
            self.assertEqual(outs[0], outs[1])
            self.assertEqual(outs[0][1], "job ID: cancelled\n")
        finally:
            # The queued jobs first: while the blocker holds both devices none of them can
            # start, so none is left running for the tests after this one (cancelling the
            # blocker first let two of them start: CI saw test_submit_wait's job wait).
            for j in self.c.list(state="queued"):
                self.c.cancel(j["id"])
            self.c.cancel(blocker)
            self.c.wait(blocker, timeout=300)
            self.wait_devices_free()

    def wait_devices_free(self):
        """Until no device is busy: a job's end is announced before the scheduler's next
        pass frees its devices, and a job submitted in between waits for them, which puts
        a line of its own into its CLI's output (CI saw test_submit_wait differ so)."""
        for _ in range(6000):
            if all(d["busy_job"] is None for d in self.c.devices()):
                return
            time.sleep(0.05)
        self.fail("the devices stay busy: %s" % self.c.devices())

    def test_list_pages_and_columns(self):
        """The columns line up whatever the widths of ids, states and names, and following
        the "(more: ...)" hints pages through every job once, newest first."""
        # Ids of one and two digits, names short and long.
        jids = [self.c.submit(dict(SMALL, name="p" * (1 + 7 * i)))["id"] for i in range(9)]
        for jid in jids:  # every one: they run side by side and end in any order
            self.c.wait(jid, timeout=600)
        c = self.assert_same(["list"])
        lines = c.stdout.splitlines()
        head = lines[0]
        self.assertRegex(head, r"^ *ID  STATE +PRIO  PROGRESS  CREATED +NAME$")
        created, name = head.index("CREATED"), head.index("NAME")
        rows = [line for line in lines[1:] if not line.startswith("(more")]
        self.assertTrue(len(rows) > 9 and len({len(r.split()[0]) for r in rows}) > 1, rows)
        for row in rows:
            self.assertRegex(row[created:], r"^\d{4}-\d\d-\d\dT[\d:.]+Z  \S", row)
            self.assertEqual(row[name - 2:name], "  ", row)
            self.assertNotEqual(row[name], " ", row)
        seen, args = [], ["list", "--limit", "3"]
        while True:
            c = self.assert_same(args)
            page = [int(r.split()[0]) for r in c.stdout.splitlines()[1:]
                    if not r.startswith("(more")]
            self.assertTrue(0 < len(page) <= 3, c.stdout)
            seen += page
            m = re.search(r"\(more: the next page is list --before (\d+)\)\n$", c.stdout)
            if not m:
                break
            args = ["list", "--limit", "3", "--before", m.group(1)]
        self.assertEqual(seen, [j["id"] for j in self.c.list(limit=500)])

    def test_local_model_file(self):
        """A spec naming a model file of this machine: refused by the server, and both say
        how to upload it; --upload-models uploads it (or finds it there with the same
        sha256) and submits the spec naming the upload; the job shows the model's sha256."""
        spec = self.files["local.json"]
        path = os.path.join(self.tmp, "local-vel.f32")
        for mode in ([], ["--json"]):
            c = self.assert_same(mode + ["submit", spec])
            self.assertEqual(c.returncode, 4)
        c = self.assert_same(["submit", spec])
        self.assertEqual(c.stderr.splitlines()[1],
                         "hint: velocity.path names %s, a file on this machine, which the "
                         "server cannot read: upload it first (`fdwave models upload %s "
                         "local-vel.f32`, then name it in the spec as \"velocity\": "
                         "{\"type\": \"model\", \"name\": \"local-vel.f32\"}), or submit with "
                         "--upload-models to do both" % (path, path))
        args = ["submit", spec, "--upload-models", "--idempotency-key", "parity-local"]
        c, py = self.run_both(args)
        self.assertEqual((c.returncode, py.returncode), (0, 0), c.stderr + py.stderr)
        self.assertRegex(c.stderr, r"^model local-vel\.f32 uploaded \(128\.0 KiB, raw-f32, "
                                   r"32768 values, 1900-1904 m/s, sha256 ([0-9a-f]{64})\)\n")
        sha = re.search(r"sha256 ([0-9a-f]{64})", c.stderr).group(1)
        self.assertTrue(py.stderr.startswith(
            "model local-vel.f32 is on the server already (sha256 %s)\n" % sha), py.stderr)
        jid = int(re.match(r"^job (\d+) submitted", c.stdout).group(1))
        self.assertRegex(py.stdout, r"^already submitted as job %d \(" % jid)
        self.c.wait(jid, timeout=600)
        c = self.assert_same(args)
        self.assertEqual(c.stdout, "already submitted as job %d (succeeded)\n" % jid)
        c = self.assert_same(["status", str(jid)])
        self.assertIn("\n  model:        local-vel.f32 (sha256 %s)\n" % sha, c.stdout)
        self.assertEqual(self.c.get(jid)["model"], {"name": "local-vel.f32", "sha256": sha})
        self.assert_same(["--json"] + args)

    def test_submit_wait(self):
        """Each CLI runs a job of its own: the same lines, but for ids and timings, and the
        progress reports, whose number and place among the other events depend on how
        fast the run went (their form is compared on the replays above)."""
        def shape(s):
            s = re.sub(r"(?m)^progress .*\n", "", s)
            return re.sub(r"\d+(\.\d+)?", "#", s)

        # Each job starts on free devices: the C CLI's job's end is announced before the
        # scheduler frees its devices, and the Python CLI's job, submitted at once, could
        # otherwise wait for them with a line of its own.
        c = self.assert_same(["submit", self.files["small.json"], "--wait"], shape,
                             before=self.wait_devices_free)
        self.assertEqual(c.returncode, 0, c.stderr)
        self.assertRegex(c.stdout, r"^job \d+ succeeded: completed 60 steps in ")
        self.assertIn("\nend: succeeded (", c.stderr)

    def test_models_upload_rsf(self):
        """An RSF header that names its binary (Madagascar's usual form) is uploaded joined
        with it in the one-file form the server keeps: both CLIs send the same bytes."""
        n = 8 * 8 * 8
        with open(os.path.join(self.tmp, "vel.rsf@"), "wb") as f:
            f.write(struct.pack("<%df" % n, *([1950.0 + i % 3 for i in range(n)])))
        header = os.path.join(self.tmp, "vel.rsf")
        with open(header, "w") as f:
            f.write('sfmath\n\tn1=8 d1=10 n2=8 d2=10 n3=8 d3=10\n'
                    '\tesize=4 data_format="native_float" in="vel.rsf@"\n')
        outs = []
        for argv, name in (([C_CLI], "rsf-c.rsf"),
                           ([sys.executable, "-m", "fdwave_client"], "rsf-py.rsf")):
            p = subprocess.run(argv + ["--url", self.daemon.url, "models", "upload", header,
                                       name],
                               capture_output=True, text=True, env=clean_env(), timeout=60)
            outs.append((p.returncode, p.stdout.replace(name, "NAME"), p.stderr))
        self.assertEqual(outs[0], outs[1])
        self.assertRegex(outs[0][1], r"^model NAME uploaded \(2\.\d KiB, rsf, 8x8x8, 1950-1952 "
                                     r"m/s, sha256 [0-9a-f]{64}\)\n$")
        # The binary alone under an .rsf name is no RSF: refused, naming the reason.
        c = self.assert_same(["models", "upload", header + "@", "rsf-bad.rsf"])
        self.assertEqual(c.returncode, 4)
        self.assertIn("error: invalid_model: body: rsf-bad.rsf is not a valid rsf model", c.stderr)

    def test_models_upload(self):
        outs = []
        for argv, name in (([C_CLI], "up-c.f32"),
                           ([sys.executable, "-m", "fdwave_client"], "up-py.f32")):
            p = subprocess.run(argv + ["--url", self.daemon.url, "models", "upload",
                                       self.model_file, name],
                               capture_output=True, text=True, env=clean_env(), timeout=60)
            outs.append((p.returncode, p.stdout.replace(name, "NAME"), p.stderr))
        self.assertEqual(outs[0], outs[1])
        self.assertRegex(outs[0][1], r"^model NAME uploaded \(16\.0 KiB, raw-f32, 4096 values, "
                                     r"1800-1806 m/s, sha256 [0-9a-f]{64}\)\n$")

    def test_data_commands(self):
        """data put (each CLI its own name), ls, rm and a bad synopsis: the same output."""
        gather = os.path.join(self.tmp, "gather.f32")
        with open(gather, "wb") as f:
            f.write(b"\0" * 4 * 64)
        outs = []
        for argv, name in (([C_CLI], "d-c.f32"), ([sys.executable, "-m", "fdwave_client"], "d-py.f32")):
            p = subprocess.run(argv + ["--url", self.daemon.url, "data", "put", name, gather],
                               capture_output=True, text=True, env=clean_env(), timeout=60)
            outs.append((p.returncode, p.stdout.replace(name, "NAME"), p.stderr))
        self.assertEqual(outs[0], outs[1])
        self.assertRegex(outs[0][1], r'^data NAME uploaded \(256 B, raw-f32, -, sha256 '
                                     r'[0-9a-f]{64}\); use it as "data": \{"name": "NAME"\}\n$')
        for mode in ([], ["--json"]):
            c = self.assert_same(mode + ["data", "ls"])
            self.assertEqual(c.returncode, 0, c.stderr)
            self.assertIn("d-py.f32", c.stdout)
        # A job reading the upload: status shows it with its SHA-256, recorded at
        # submission. 4 receivers x 16 samples.
        rtm = {"kind": "rtm", "grid": {"nx": 24, "ny": 24, "nz": 24, "dx": 10, "dy": 10, "dz": 10},
               "velocity": {"type": "constant", "value": 2000},
               "sources": [{"position": [110, 110, 50], "wavelet": {"type": "ricker", "f0": 15}}],
               "receivers": {"points": [[50 + 30 * i, 110, 30] for i in range(4)]},
               "time": {"nt": 15, "dt": 0.001}, "data": {"name": "d-c.f32"}}
        jid = self.c.submit(dict(rtm, name="rtm-on-data"))["id"]
        self.c.wait(jid, timeout=600)  # ended: both CLIs see one state; rm below may go on
        c = self.assert_same(["status", str(jid)])
        self.assertIn("\n  data:         d-c.f32 (sha256 %s)\n"
                      % hashlib.sha256(b"\0" * 4 * 64).hexdigest(), c.stdout)
        c = self.assert_same(["data", "frob"])
        self.assertEqual(c.returncode, 2)
        self.assertIn("data put [--replace] NAME FILE", c.stderr)
        c = self.assert_same(["data", "rm", "none.f32"])
        self.assertEqual(c.returncode, 7, c.stderr)  # not found
        self.assertIn('no data named "none.f32"', c.stderr)
        for argv, name in (([C_CLI], "d-c.f32"), ([sys.executable, "-m", "fdwave_client"], "d-py.f32")):
            p = subprocess.run(argv + ["--url", self.daemon.url, "data", "rm", name],
                               capture_output=True, text=True, env=clean_env(), timeout=60)
            self.assertEqual((p.returncode, p.stdout), (0, "data %s removed\n" % name), p.stderr)

    def test_watch_on_a_terminal(self):
        """On a terminal both draw the same bars, and the last line on the screen is the
        result: no bar is drawn again after "end:"."""
        argv_c = [C_CLI, "--url", self.daemon.url, "watch", str(self.done)]
        argv_py = [sys.executable, "-m", "fdwave_client", "--url", self.daemon.url, "watch",
                   str(self.done)]
        code_c, raw_c = run_on_pty(argv_c, clean_env())
        code_py, raw_py = run_on_pty(argv_py, clean_env())
        self.assertEqual((code_c, code_py), (0, 0))
        self.assertEqual(raw_c, raw_py)
        self.assertIn(b"\r\033[K[", raw_c)
        lines = screen_lines(raw_c)
        self.assertTrue(lines[-1].startswith("end: succeeded ("), lines[-3:])
        self.assertTrue(lines[-2].startswith("[" + "#" * 30 + "] 100.0%"), lines[-3:])
        self.assertNotIn("[", lines[-1])


if __name__ == "__main__":
    unittest.main()
