#!/usr/bin/env python3
"""test_data.py — observed data uploaded to a real fdwaved (PUT/GET/DELETE /v1/data,
server/data/datasets.c on the shared upload store) and used by name in rtm jobs: the
upload's facts (sha256, traces, samples, interval, FFIDs); an rtm job on "data": {"name"}
gives the same image bit for bit as the same file read from an --allow-dir; another user
can neither see, replace, remove nor read the data, by name or by path; a file over
--max-data-bytes (413), a SEG-Y file whose headers disagree (400 naming the trace and the
header field), a raw file of no whole float32, names that leave the store, a name in use,
an upload cut off midway (nothing kept) and the disk quota are refused; data a queued job
reads are not removed; all of it stays after a restart.

Usage: test_data.py FDWAVED (PYTHONPATH: tests/clients for fdwaved_proc). Exit 77
(skipped) without python3-segyio or numpy."""
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

try:
    import numpy as np
    import segyio
except ImportError as e:
    print("skipped: %s (install python3-segyio and python3-numpy)" % e)
    sys.exit(77)

from fdwaved_proc import Daemon

FDWAVED = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("FDWAVED", "")
NREC, NS, DT_US = 12, 70, 3000


def write_segy(path, ffid=1, patch=None, ffids=None):
    """One shot at (155, 155, 100) m, 12 receivers at x = 90 + 11.25 r, y = 155.5,
    z = 100 m (as tests/imaging/test_imaging_segy.c writes it); patch: {trace: {field:
    value}} overwritten after; ffids: trace r's FFID is ffids[r % len(ffids)] (several
    shots of one source position, their traces interleaved)."""
    spec = segyio.spec()
    spec.format, spec.samples, spec.tracecount = 5, list(range(NS)), NREC
    with segyio.create(path, spec) as f:
        f.bin.update({segyio.BinField.Interval: DT_US, segyio.BinField.Samples: NS,
                      segyio.BinField.MeasurementSystem: 1})
        for r in range(NREC):
            f.header[r] = {
                segyio.TraceField.TRACE_SEQUENCE_FILE: r + 1,
                segyio.TraceField.FieldRecord: ffids[r % len(ffids)] if ffids else ffid,
                segyio.TraceField.SourceX: 15500, segyio.TraceField.SourceY: 15500,
                segyio.TraceField.SourceDepth: 1000,
                segyio.TraceField.GroupX: 9000 + 1125 * r, segyio.TraceField.GroupY: 15550,
                segyio.TraceField.ReceiverGroupElevation: -1000,
                segyio.TraceField.ElevationScalar: -10,
                segyio.TraceField.SourceGroupScalar: -100,
                segyio.TraceField.CoordinateUnits: 1,
                segyio.TraceField.TRACE_SAMPLE_COUNT: NS,
                segyio.TraceField.TRACE_SAMPLE_INTERVAL: DT_US}
            f.trace[r] = np.sin(np.arange(NS, dtype=np.float32) * 0.37 + r).astype(np.float32)
        for t, fields in (patch or {}).items():
            f.header[t].update(fields)


def rtm_spec(data, survey=False):
    spec = {
        "kind": "rtm", "name": "rtm on uploaded data",
        "grid": {"nx": 32, "ny": 32, "nz": 32, "dx": 10, "dy": 10, "dz": 10},
        "velocity": {"type": "gaussian", "background": 2000, "center": [160, 150, 200],
                     "sigma": 60, "dv": 300},
        "boundary": {"type": "sponge", "width": 8},
        "sources": [{"position": [155, 155, 100], "wavelet": {"type": "ricker", "f0": 15}}],
        "time": {"nt": 120, "dt": 0.0015}, "data": data}
    if survey:  # every FFID of the file a shot
        spec["survey"] = {"wavelet": spec.pop("sources")[0]["wavelet"]}
    return json.dumps(spec).encode()


def read(path):
    with open(path, "rb") as f:
        return f.read()


def token_add(data, name, admin=False):
    args = [FDWAVED, "token", "add", name, "--data", data] + (["--admin"] if admin else [])
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout.split()[-1]


class DataTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="fdwave-data-")
        cls.data = os.path.join(cls.tmp, "data")
        cls.shared = os.path.join(cls.tmp, "shared")
        os.mkdir(cls.data)
        os.mkdir(cls.shared)
        cls.tok = {u: token_add(cls.data, u, u == "root") for u in ("root", "alice", "bob", "carol")}
        cls.shot = os.path.join(cls.shared, "shot.segy")
        write_segy(cls.shot)
        cls.daemon = Daemon(FDWAVED, cls.data, extra=[
            "--max-data-bytes", "64K", "--allow-dir", cls.shared,
            "--user-quota", "carol: disk=40K"])

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def call(self, method, path, user, body=None, ctype=None):
        """(status, parsed JSON body) of one request as user."""
        h = {"Authorization": "Bearer " + self.tok[user]}
        if ctype:
            h["Content-Type"] = ctype
        req = urllib.request.Request(self.daemon.url + path, data=body, method=method, headers=h)
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def put(self, user, name, body):
        return self.call("PUT", "/v1/data/" + urllib.parse.quote(name, safe=""), user, body,
                         "application/octet-stream")

    def submit_wait(self, user, spec):
        st, j = self.call("POST", "/v1/jobs", user, spec, "application/json")
        self.assertEqual(st, 201, j)
        for _ in range(2400):  # waits on the job's state, bounded at 10 minutes
            st, j = self.call("GET", "/v1/jobs/%d" % j["id"], user)
            if j["state"] in ("succeeded", "failed", "cancelled"):
                return j
            time.sleep(0.25)
        self.fail("job %d never ended" % j["id"])

    def image(self, user, job):
        req = urllib.request.Request(self.daemon.url + "/v1/jobs/%d/outputs/image.f32" % job,
                                     headers={"Authorization": "Bearer " + self.tok[user]})
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.read()

    def partials(self):
        return [n for n in os.listdir(os.path.join(self.data, "datasets"))
                if n.startswith(".upload-")]

    def test_a_upload_facts_and_rtm_by_name(self):
        raw = read(self.shot)
        st, d = self.put("alice", "shot.segy", raw)
        self.assertEqual(st, 201, d)
        self.assertEqual((d["format"], d["bytes"], d["sha256"], d["owner"]),
                         ("segy", len(raw), hashlib.sha256(raw).hexdigest(), "alice"))
        self.assertEqual((d["traces"], d["samples"], d["sample_interval"], d["shots"],
                          d["ffids"]), (NREC, NS, DT_US * 1e-6, 1, [1]))
        self.assertEqual(self.call("GET", "/v1/data/shot.segy", "alice"), (200, d))
        self.assertEqual(self.call("GET", "/v1/data", "alice"), (200, {"data": [d]}))
        # The job on the upload by name is the job on the same file by path, bit for bit.
        named = self.submit_wait("alice", rtm_spec({"name": "shot.segy", "datum": 0}))
        self.assertEqual(named["state"], "succeeded", named)
        by_path = self.submit_wait("alice", rtm_spec({"format": "segy", "path": self.shot,
                                                      "datum": 0}))
        self.assertEqual(by_path["state"], "succeeded", by_path)
        self.assertEqual(self.image("alice", named["id"]), self.image("alice", by_path["id"]))
        # The job keeps the upload it read with the content's SHA-256 at submission (the
        # file by path is not an upload: none); a later re-upload does not change it.
        sha = hashlib.sha256(raw).hexdigest()
        self.assertEqual(named["data"], [{"name": "shot.segy", "sha256": sha}])
        self.assertEqual(by_path["data"], [])
        # A format that is not the upload's is refused naming data.format.
        st, e = self.call("POST", "/v1/jobs", "alice",
                          rtm_spec({"name": "shot.segy", "format": "raw-f32"}), "application/json")
        self.assertEqual((st, e["error"]["field"]), (400, "data.format"), e)

    def test_ab_survey_of_an_uploaded_file(self):
        two = os.path.join(self.shared, "two.segy")
        write_segy(two, ffids=[5, 3])
        st, d = self.put("alice", "two.segy", read(two))
        self.assertEqual((st, d["shots"], d["ffids"], d["traces"]), (201, 2, [3, 5], NREC), d)
        named = self.submit_wait("alice", rtm_spec({"name": "two.segy"}, survey=True))
        self.assertEqual(named["state"], "succeeded", named)
        by_path = self.submit_wait("alice", rtm_spec({"format": "segy", "path": two}, survey=True))
        self.assertEqual(by_path["state"], "succeeded", by_path)
        self.assertEqual(self.image("alice", named["id"]), self.image("alice", by_path["id"]))
        # A survey whose listed shots each name their file: by upload name, and by path.
        def shots(*datas):
            spec = json.loads(rtm_spec({}, survey=True))
            del spec["data"]
            spec["survey"]["shots"] = [{"data": dict(d, datum=0)} for d in datas]
            return json.dumps(spec).encode()
        named = self.submit_wait("alice", shots({"name": "shot.segy"}, {"name": "two.segy", "ffid": 5}))
        self.assertEqual(named["state"], "succeeded", named)
        self.assertEqual(named["data"], [
            {"name": "shot.segy", "sha256": hashlib.sha256(read(self.shot)).hexdigest()},
            {"name": "two.segy", "sha256": hashlib.sha256(read(two)).hexdigest()}])
        by_path = self.submit_wait("alice", shots({"path": self.shot}, {"path": two, "ffid": 5}))
        self.assertEqual(by_path["state"], "succeeded", by_path)
        self.assertEqual(self.image("alice", named["id"]), self.image("alice", by_path["id"]))
        st, e = self.call("POST", "/v1/jobs", "bob", shots({"name": "shot.segy"}), "application/json")
        self.assertEqual((st, e["error"]["field"]), (400, "survey.shots[0].data.name"), e)

    def test_ac_in_use_not_removed(self):
        """Data a queued job reads are not removed (409 naming the job) until it has ended."""
        write_segy(os.path.join(self.tmp, "used.segy"))
        self.assertEqual(self.put("alice", "used.segy", read(os.path.join(self.tmp, "used.segy")))[0], 201)
        blocker = json.loads(rtm_spec({"name": "used.segy"}))
        blocker.update(kind="acoustic", devices=2, time={"nt": 10000000, "dt": 0.0005})
        del blocker["data"]
        st, b = self.call("POST", "/v1/jobs", "alice", json.dumps(blocker).encode(),
                          "application/json")
        self.assertEqual(st, 201, b)
        st, j = self.call("POST", "/v1/jobs", "alice", rtm_spec({"name": "used.segy"}),
                          "application/json")
        self.assertEqual(st, 201, j)
        st, e = self.call("DELETE", "/v1/data/used.segy", "alice")
        self.assertEqual((st, e["error"]["field"]), (409, "name"), e)
        self.assertIn("input of job %d" % j["id"], e["error"]["message"])
        for job in (j["id"], b["id"]):
            self.assertIn(self.call("POST", "/v1/jobs/%d/cancel" % job, "alice")[0], (200, 202))
        for job in (j["id"], b["id"]):  # waits on the states, bounded at 10 minutes
            for _ in range(2400):
                if self.call("GET", "/v1/jobs/%d" % job, "alice")[1]["state"] == "cancelled":
                    break
                time.sleep(0.25)
        self.assertEqual(self.call("DELETE", "/v1/data/used.segy", "alice")[0], 200)

    def test_b_other_users_see_nothing(self):
        write_segy(os.path.join(self.tmp, "b.segy"))
        raw = read(os.path.join(self.tmp, "b.segy"))
        self.assertEqual(self.put("alice", "private.segy", raw)[0], 201)
        self.assertEqual(self.call("GET", "/v1/data/private.segy", "bob")[0], 404)
        self.assertEqual(self.call("DELETE", "/v1/data/private.segy", "bob")[0], 404)
        self.assertNotIn("private.segy",
                         [x["name"] for x in self.call("GET", "/v1/data", "bob")[1]["data"]])
        st, e = self.put("bob", "private.segy", raw)
        self.assertEqual((st, e["error"]["field"]), (409, "name"), e)
        # Neither by name nor by any path to its file.
        st, e = self.call("POST", "/v1/jobs", "bob", rtm_spec({"name": "private.segy"}),
                          "application/json")
        self.assertEqual((st, e["error"]["field"]), (400, "data.name"), e)
        self.assertIn("no uploaded data named", e["error"]["message"])
        for p in ("../datasets/private.segy", os.path.join(self.data, "datasets", "private.segy")):
            st, e = self.call("POST", "/v1/jobs", "bob",
                              rtm_spec({"format": "segy", "path": p}), "application/json")
            self.assertEqual((st, e["error"]["field"]), (400, "data.path"), e)
        # The admin sees it; its owner removes it, and then it is gone for everyone.
        self.assertEqual(self.call("GET", "/v1/data/private.segy", "root")[0], 200)
        self.assertEqual(self.call("DELETE", "/v1/data/private.segy", "alice"),
                         (200, {"name": "private.segy", "deleted": True}))
        self.assertEqual(self.call("GET", "/v1/data/private.segy", "alice")[0], 404)
        self.assertFalse(os.path.exists(os.path.join(self.data, "datasets", "private.segy")))

    def test_c_hostile_uploads(self):
        raw = read(self.shot)
        before = self.call("GET", "/v1/data", "alice")[1]
        # Over --max-data-bytes (64K): 413 naming the body and the limit.
        st, e = self.put("alice", "big.f32", b"\0" * (65 * 1024))
        self.assertEqual((st, e["error"]["field"]), (413, "body"), e)
        self.assertIn("max-data-bytes", e["error"]["message"])
        # Headers that disagree: trace 5 shorter than the file's traces.
        bad = os.path.join(self.tmp, "bad.segy")
        write_segy(bad, patch={4: {segyio.TraceField.TRACE_SAMPLE_COUNT: NS - 1}})
        st, e = self.put("alice", "bad.segy", read(bad))
        self.assertEqual((st, e["error"]["code"], e["error"]["field"]),
                         (400, "invalid_data", "body"), e)
        for word in ("bad.segy", "trace 5", "TRACE_SAMPLE_COUNT"):
            self.assertIn(word, e["error"]["message"])
        self.assertNotIn(self.data, e["error"]["message"])
        st, e = self.put("alice", "odd.f32", b"\0" * 6)
        self.assertEqual((st, e["error"]["code"]), (400, "invalid_data"), e)
        # Names that leave the store or say no format.
        for name in ("../escape.segy", ".hidden.segy", "a/b.segy", "noext", "m.rsf", "x" * 130 + ".f32"):
            st, e = self.put("alice", name, raw)
            self.assertIn(st, (400, 404), name)
        # A name in use, without ?replace=true.
        self.assertEqual(self.put("alice", "once.segy", raw)[0], 201)
        st, e = self.put("alice", "once.segy", raw)
        self.assertEqual((st, e["error"]["field"]), (409, "name"), e)
        self.assertEqual(self.call("DELETE", "/v1/data/once.segy", "alice")[0], 200)
        self.assertEqual(self.call("GET", "/v1/data", "alice")[1], before)
        self.assertEqual(self.partials(), [])

    def test_d_cut_off_upload_leaves_nothing(self):
        u = urllib.parse.urlparse(self.daemon.url)
        s = socket.create_connection((u.hostname, u.port), timeout=30)
        s.sendall(b"PUT /v1/data/cut.segy HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                  b"Content-Length: 50000\r\n\r\n" % self.tok["alice"].encode() + b"\0" * 20000)
        # The upload's temporary file exists while the body arrives...
        deadline = time.monotonic() + 60
        while not self.partials() and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertEqual(len(self.partials()), 1)
        s.close()
        # ...and is gone once the daemon sees the connection closed.
        deadline = time.monotonic() + 60
        while self.partials() and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertEqual(self.partials(), [])
        self.assertEqual(self.call("GET", "/v1/data/cut.segy", "alice")[0], 404)

    def test_e_quota(self):
        st, d = self.put("carol", "q1.f32", b"\0" * (30 * 1024))
        self.assertEqual(st, 201, d)
        st, e = self.put("carol", "q2.f32", b"\0" * (20 * 1024))
        self.assertEqual((st, e["error"]["code"], e["error"]["field"]),
                         (429, "quota_exceeded", "disk"), e)
        self.assertEqual(self.call("GET", "/v1/users/me", "carol")[1]["standing"]["disk_bytes"],
                         30 * 1024)
        self.assertEqual(self.call("DELETE", "/v1/data/q1.f32", "carol")[0], 200)
        self.assertEqual(self.put("carol", "q2.f32", b"\0" * (20 * 1024))[0], 201)

    def test_z_persists_across_restart(self):
        raw = read(self.shot)
        st, d = self.put("alice", "kept.segy", raw)
        self.assertIn(st, (201,), d)
        self.daemon.restart()
        self.assertEqual(self.call("GET", "/v1/data/kept.segy", "alice"), (200, d))
        self.assertEqual(self.call("GET", "/v1/data/kept.segy", "bob")[0], 404)
        job = self.submit_wait("alice", rtm_spec({"name": "kept.segy"}))
        self.assertEqual(job["state"], "succeeded", job)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
