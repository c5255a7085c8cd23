"""test_python_client.py — the Python client (clients/python/fdwave_client) against a real
fdwaved started on an ephemeral loopback port with a temporary data directory.

Run by ctest as `python3 -m unittest test_python_client` with FDWAVED (the daemon binary)
and PYTHONPATH (clients/python) set. Covers every client method, the error object (code,
field path, status), event replay with since=, reconnection with Last-Event-ID across a
daemon restart, and the `python -m fdwave_client` command line with its exit codes.
"""
import copy
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import job_specs
from fdwave_client import FdwaveClient, FdwaveError
from job_specs import small_spec
from fdwaved_proc import Daemon as DaemonProc

DAEMON = os.environ.get("FDWAVED", "")

SMALL = small_spec("py small")


def long_spec(nt, devices=1):
    return job_specs.long_spec(nt, "py long", devices)


def Daemon(data, port=0):
    """fdwaved on loopback (fdwaved_proc.py), on port (0: any free one)."""
    return DaemonProc(DAEMON, data, port)


@unittest.skipUnless(DAEMON, "FDWAVED (path of the fdwaved binary) is not set")
class PythonClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Set but missing is a failure, not a skip: ctest always sets it.
        if not os.access(DAEMON, os.X_OK):
            raise RuntimeError("FDWAVED=%s is not an executable file" % DAEMON)
        cls.tmp = tempfile.mkdtemp(prefix="fdwave-py-")
        cls.data = os.path.join(cls.tmp, "data")
        os.mkdir(cls.data)
        cls.daemon = Daemon(cls.data)
        cls.c = FdwaveClient(cls.daemon.url)

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def cli(self, *args, env=None):
        e = {k: v for k, v in os.environ.items() if not k.startswith("FDWAVE_")}
        e.update(env or {})
        return subprocess.run([sys.executable, "-m", "fdwave_client"] + list(args),
                              capture_output=True, text=True, env=e, timeout=120)

    def wait_running(self, job_id):
        for _ in range(400):
            j = self.c.get(job_id)
            if j["state"] == "running" and j.get("progress"):
                return
            time.sleep(0.025)
        self.fail("job %s never ran" % job_id)

    # ---- library ------------------------------------------------------------------

    def test_submit_events_wait_outputs_download(self):
        r = self.c.submit(SMALL)
        # The scheduler may claim it before the answer is written.
        self.assertIn(r["state"], ("queued", "running", "succeeded"))
        job_id = r["id"]
        events = list(self.c.events(job_id, timeout=60))
        types = [e.type for e in events]
        self.assertEqual(types[-1], "end")
        self.assertEqual(events[-1].data["state"], "succeeded")
        self.assertIn("progress", types)
        self.assertIn("snapshot", types)
        ids = [int(e.id) for e in events]
        self.assertEqual(ids, sorted(set(ids)), "event ids must increase")
        prog = [e.data for e in events if e.type == "progress"]
        self.assertAlmostEqual(prog[-1]["percent"], 100.0)
        snap = next(e.data for e in events if e.type == "snapshot")
        self.assertTrue(all(f["url"].startswith("/v1/jobs/%d/outputs/" % job_id)
                            for f in snap["files"]))

        job = self.c.wait(job_id, timeout=150)
        self.assertEqual(job["state"], "succeeded")
        self.assertEqual(job["name"], "py small")

        # Replay after an event id gives exactly the rest.
        rest = list(self.c.events(job_id, since=events[-3].id))
        self.assertEqual([e.id for e in rest], [e.id for e in events[-2:]])

        m = self.c.outputs(job_id)
        names = {f["name"]: f for f in m["files"]}
        self.assertIn("gather.segy", names)
        self.assertIn("gather.f32", names)
        dims = names["gather.f32"]["dims"]
        self.assertEqual(dims[1], 13)
        dest = os.path.join(self.tmp, "dl")
        os.mkdir(dest)
        p = self.c.download(job_id, "gather.f32", dest)
        self.assertEqual(os.path.getsize(p), dims[0] * dims[1] * 4)
        png = next(n for n in names if n.endswith(".png"))
        p = self.c.download(job_id, png, os.path.join(dest, "snap.png"))
        with open(p, "rb") as f:
            head = f.read(24)
        self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n")
        w, h = struct.unpack(">II", head[16:24])
        self.assertEqual((w, h), (32, 32))
        self.assertEqual([n for n in os.listdir(dest) if n.startswith(".")], [])

        listed = self.c.list(state="succeeded")
        self.assertIn(job_id, [j["id"] for j in listed])

    def test_errors_carry_code_field_status(self):
        bad = copy.deepcopy(SMALL)
        bad["sources"][0]["position"] = [960, 160, 160]
        with self.assertRaises(FdwaveError) as cm:
            self.c.submit(bad)
        e = cm.exception
        self.assertEqual((e.code, e.status, e.field),
                         ("invalid_spec", 400, "sources[0].position"))
        self.assertIn("sources[0].position", str(e))
        with self.assertRaises(FdwaveError) as cm:
            self.c.submit("{not json")
        self.assertEqual((cm.exception.code, cm.exception.status, cm.exception.field),
                         ("invalid_spec", 400, ""))
        with self.assertRaises(FdwaveError) as cm:
            self.c.get(987654)
        self.assertEqual((cm.exception.code, cm.exception.status), ("not_found", 404))
        with self.assertRaises(FdwaveError) as cm:
            FdwaveClient("http://127.0.0.1:1").health()
        self.assertEqual(cm.exception.code, "unreachable")
        self.assertIsNone(cm.exception.status)
        self.assertIn("cannot reach fdwaved at http://127.0.0.1:1", str(cm.exception))

    def test_cancel_queued_or_running_then_conflict(self):
        job_id = self.c.submit(long_spec(20000))["id"]
        self.wait_running(job_id)
        j = self.c.cancel(job_id)
        self.assertIn(j["state"], ("running", "cancelled"))
        job = self.c.wait(job_id, timeout=150)
        self.assertEqual(job["state"], "cancelled")
        with self.assertRaises(FdwaveError) as cm:
            self.c.cancel(job_id)
        self.assertEqual((cm.exception.code, cm.exception.status), ("conflict", 409))

    def test_idempotency_key(self):
        a = self.c.submit(SMALL, priority=3, idempotency_key="py-key-1")
        b = self.c.submit(SMALL, priority=3, idempotency_key="py-key-1")
        self.assertEqual(a["id"], b["id"])
        self.assertEqual(self.c.get(a["id"])["priority"], 3)
        # submit_status tells a retry from a new job; the key with another spec: 422.
        job, existed = self.c.submit_status(json.dumps(SMALL, indent=4), priority=3,
                                            idempotency_key="py-key-1")
        self.assertEqual((job["id"], existed), (a["id"], True))
        job, existed = self.c.submit_status(SMALL, idempotency_key="py-key-2")
        self.assertFalse(existed)
        with self.assertRaises(FdwaveError) as cm:
            self.c.submit(dict(SMALL, name="py other"), idempotency_key="py-key-1")
        self.assertEqual((cm.exception.code, cm.exception.status, cm.exception.field),
                         ("idempotency_key_reused", 422, "Idempotency-Key"))
        self.assertIn("job %d" % a["id"], cm.exception.message)
        self.c.wait(a["id"], timeout=300)
        self.c.wait(job["id"], timeout=300)

    def test_models_devices_health(self):
        path = os.path.join(self.tmp, "m.f32")
        n = 32 * 32 * 32
        with open(path, "wb") as f:
            f.write(struct.pack("<%df" % n, *([2100.0] * n)))
        r = self.c.upload_model(path, "py-model.f32")
        self.assertEqual(r["bytes"], n * 4)
        # A job on it records the model's sha256.
        jid = self.c.submit(dict(SMALL, velocity={"type": "model", "name": "py-model.f32"}))["id"]
        self.assertEqual(self.c.get(jid)["model"], {"name": "py-model.f32", "sha256": r["sha256"]})
        self.c.wait(jid, timeout=300)
        self.assertEqual(len(r["sha256"]), 64)
        self.assertIn("py-model.f32", [m["name"] for m in self.c.models()])
        for bad in ("../escape.f32", ".hidden.f32", "model.rsf"):
            with self.assertRaises(FdwaveError) as cm:
                self.c.upload_model(path, bad)
            self.assertIn(cm.exception.status, (400, 404), bad)
        spec = copy.deepcopy(SMALL)
        spec["velocity"] = {"type": "model", "name": "py-model.f32"}
        job = self.c.wait(self.c.submit(spec)["id"], timeout=60)
        self.assertEqual(job["state"], "succeeded")
        devs = self.c.devices()
        self.assertEqual(len(devs), 2)
        self.assertTrue(all(d["kind"] == "cpu" for d in devs))
        self.assertEqual(self.c.health()["status"], "ok")

    def test_data_put_list_get_delete(self):
        path = os.path.join(self.tmp, "gather.f32")
        with open(path, "wb") as f:
            f.write(struct.pack("<64f", *([0.5] * 64)))
        r = self.c.put_data(path, "py-gather.f32")
        self.assertEqual((r["name"], r["format"], r["bytes"], r["shots"]),
                         ("py-gather.f32", "raw-f32", 256, 0))
        self.assertEqual(self.c.get_data("py-gather.f32"), r)
        self.assertIn(r, self.c.list_data())
        with self.assertRaises(FdwaveError) as cm:  # a name in use
            self.c.put_data(path, "py-gather.f32")
        self.assertEqual((cm.exception.status, cm.exception.field), (409, "name"))
        self.assertEqual(self.c.put_data(path, "py-gather.f32", replace=True)["sha256"],
                         r["sha256"])
        odd = os.path.join(self.tmp, "odd.f32")
        with open(odd, "wb") as f:
            f.write(b"\0" * 6)
        with self.assertRaises(FdwaveError) as cm:
            self.c.put_data(odd, "py-odd.f32")
        self.assertEqual((cm.exception.code, cm.exception.status), ("invalid_data", 400))
        self.assertEqual(self.c.delete_data("py-gather.f32"),
                         {"name": "py-gather.f32", "deleted": True})
        self.assertNotIn("py-gather.f32", [d["name"] for d in self.c.list_data()])
        with self.assertRaises(FdwaveError) as cm:
            self.c.get_data("py-gather.f32")
        self.assertEqual(cm.exception.status, 404)

    # ---- command line ---------------------------------------------------------------

    def test_cli_commands_and_exit_codes(self):
        url = self.daemon.url
        spec_path = os.path.join(self.tmp, "small.json")
        with open(spec_path, "w") as f:
            json.dump(SMALL, f)
        p = self.cli("--url", url, "submit", spec_path, "--wait")
        self.assertEqual(p.returncode, 0, p.stderr)
        job_id = int(re.search(r"job (\d+) succeeded", p.stdout).group(1))
        self.assertIn("end: succeeded", p.stderr)
        p = self.cli("--url", url, "status", str(job_id), "--json")
        self.assertEqual(json.loads(p.stdout)["state"], "succeeded")
        p = self.cli("--url", url, "watch", str(job_id))
        self.assertEqual(p.returncode, 0)
        self.assertIn("progress 100.0%", p.stdout)
        p = self.cli("--url", url, "list", "--state", "succeeded")
        self.assertIn("py small", p.stdout)
        p = self.cli("--url", url, "outputs", str(job_id))
        self.assertIn("gather.segy", p.stdout)
        out = os.path.join(self.tmp, "cli-all")
        p = self.cli("--url", url, "fetch", str(job_id), "--all", "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(os.path.exists(os.path.join(out, "manifest.json")))
        self.assertTrue(os.path.exists(os.path.join(out, "gather.segy")))
        p = self.cli("--url", url, "devices")
        self.assertEqual(p.returncode, 0)

        bad = copy.deepcopy(SMALL)
        bad["sources"][0]["position"] = [960, 160, 160]
        bad_path = os.path.join(self.tmp, "bad.json")
        with open(bad_path, "w") as f:
            json.dump(bad, f)
        p = self.cli("--url", url, "submit", bad_path)
        self.assertEqual(p.returncode, 4)
        self.assertIn("invalid_spec: sources[0].position: ", p.stderr)
        p = self.cli("--url", url, "status", "987654")
        self.assertEqual(p.returncode, 7)
        p = self.cli("status", "1", env={"FDWAVE_URL": "http://127.0.0.1:1"})
        self.assertEqual(p.returncode, 5)
        self.assertIn("cannot reach fdwaved at http://127.0.0.1:1", p.stderr)
        p = self.cli("--url", url, "frobnicate")
        self.assertEqual(p.returncode, 2)

    # ---- reconnect ------------------------------------------------------------------

    def test_zz_events_survive_daemon_restart(self):
        """Runs last (zz): restarts the daemon on the same port mid-stream."""
        job_id = self.c.submit(long_spec(20000))["id"]
        got = []
        errors = []

        def follow():
            try:
                for ev in self.c.events(job_id, timeout=600):
                    got.append(ev)
            except Exception as e:  # reported by the main thread
                errors.append(e)

        t = threading.Thread(target=follow)
        t.start()
        self.wait_running(job_id)
        port = self.daemon.port
        self.daemon.stop()
        time.sleep(1.5)
        type(self).daemon = Daemon(self.data, port)
        t.join(620)
        self.assertFalse(t.is_alive())
        self.assertEqual(errors, [])
        self.assertEqual(got[-1].type, "end")
        self.assertEqual(got[-1].data["state"], "succeeded")
        ids = [int(e.id) for e in got]
        self.assertEqual(ids, sorted(set(ids)), "no event twice, in order")
        self.assertEqual(sum(1 for e in got if e.type == "end"), 1)


if __name__ == "__main__":
    unittest.main()
