"""slurm_pair.py — what the Slurm back end's tests share (test_slurm_backend.py,
test_slurm_survey.py): two fdwaved, one on the local back end and one with job-backend =
slurm against the one-node cluster (slurm_cluster.py), driven through the HTTP API; waits
that poll for a state with a generous bound (never a fixed time); the output files of a
job; the Slurm jobs of an fdwave job as scontrol shows them; and main(), which starts the
cluster and runs the tests (exit 77 with the reason where Slurm cannot start)."""
import json
import os
import shutil
import sys
import tempfile
import time
import unittest
import urllib.request

from fdwaved_proc import Daemon
from slurm_cluster import SlurmCluster, Unavailable

DAEMON = os.environ.get("FDWAVED", "")
BOUND = 600  # seconds any one wait may take on a loaded 2-core machine
ENDED = ("succeeded", "failed", "cancelled")
CLUSTER = None  # the running cluster (main)


def call(url, method="GET", body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read() or b"null")


def wait_for(what, check, bound=BOUND):
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        v = check()
        if v:
            return v
        time.sleep(0.2)
    raise AssertionError("timed out waiting for " + what)


def out_files(data, job_id):
    """The job's output files but its manifest (which records times), name -> bytes."""
    d = os.path.join(data, "jobs", str(job_id), "out")
    files = {}
    for name in sorted(os.listdir(d)):
        if name != "manifest.json":
            with open(os.path.join(d, name), "rb") as f:
                files[name] = f.read()
    return files


def slurm_records(job_id):
    """scontrol's records (dicts of its words) of every Slurm job, or array task, of fdwave
    job job_id (named fdwave-<job>-<attempt>[-<role>]) that Slurm still knows
    (MinJobAge=600)."""
    r = CLUSTER.run("scontrol", "show", "job", "-o")
    records = []
    for line in r.stdout.splitlines():
        words = dict(w.split("=", 1) for w in line.split() if "=" in w)
        if words.get("JobName", "").startswith("fdwave-%d-" % job_id):
            records.append(words)
    return records


class DaemonPair(unittest.TestCase):
    """setUpClass starts cls.local and cls.slurm (job-backend = slurm, checkpoints every
    second, and cls.SLURM_EXTRA) on data directories of their own; cls.allow is a directory
    both may read specs' files from."""
    SLURM_EXTRA = []

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="fdw-slurm-test-")
        cls.local_data = os.path.join(cls.tmp, "local")
        cls.slurm_data = os.path.join(cls.tmp, "slurm")
        cls.allow = os.path.join(cls.tmp, "allow")
        for d in (cls.local_data, cls.slurm_data, cls.allow):
            os.makedirs(d)
        cls.local = Daemon(DAEMON, cls.local_data, extra=["--allow-dir", cls.allow])
        cls.extra = ["--job-backend", "slurm", "--checkpoint-interval", "1s",
                     "--allow-dir", cls.allow] + cls.SLURM_EXTRA
        cls.slurm = Daemon(DAEMON, cls.slurm_data, extra=cls.extra)

    @classmethod
    def tearDownClass(cls):
        cls.local.stop()
        cls.slurm.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def submit(self, daemon, spec):
        return call(daemon.url + "/v1/jobs", "POST", spec)["id"]

    def job(self, daemon, job_id):
        return call("%s/v1/jobs/%d" % (daemon.url, job_id))

    def events(self, job_id):
        """The slurm daemon's stored events of the job, as text."""
        return urllib.request.urlopen("%s/v1/jobs/%d/events?follow=false" % (
            self.slurm.url, job_id), timeout=60).read().decode()

    def wait_state(self, daemon, job_id, states):
        return wait_for("job %d to be %s" % (job_id, states),
                        lambda: (lambda j: j if j["state"] in states else None)(
                            self.job(daemon, job_id)))

    def restart_slurm(self):
        """A new slurm daemon on the same data directory (the old one is gone)."""
        type(self).slurm = Daemon(DAEMON, self.slurm_data, extra=self.extra)


def main():
    """Run the calling module's tests against a one-node cluster."""
    global CLUSTER
    if not DAEMON:
        print("SKIP: FDWAVED is not set")
        return 77
    try:
        with SlurmCluster() as cluster:
            CLUSTER = cluster
            os.environ["SLURM_CONF"] = cluster.conf  # the daemon's sbatch, scontrol, ...
            result = unittest.main(module="__main__", argv=[sys.argv[0], "-v"],
                                   exit=False).result
            return 0 if result.wasSuccessful() else 1
    except Unavailable as e:
        print("SKIP: Slurm cannot start here: %s" % e)
        return 77
