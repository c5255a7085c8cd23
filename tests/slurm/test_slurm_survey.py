"""test_slurm_survey.py — surveys under fdwaved's Slurm back end against a real one-node
Slurm (slurm_cluster.py), driven through the HTTP API, each against the same spec on the
local back end (CPU):

- a 12-shot acoustic survey runs as a Slurm job array of 4 tasks (slurm-survey-tasks 4:
  3 shots each) then a combining Slurm job; the job's events name each task
  (fdwave-<job>-1-shots, tasks 0-3), Slurm shows them and the combining job COMPLETED, and
  every output file is the local back end's byte for byte;
- an rtm survey of 4 shots likewise: its image, summed in shot order, the local one's bits;
- DELETE through the API while the parts run (a running job is cancelled): the job ends
  cancelled, and no Slurm job of it is left (squeue empty);
- scancel from outside of one array task while it runs: the other tasks finish, the job is
  re-queued by the attempt rules (attempt 2) as an array of that one task, resumes it and
  succeeds with the local outputs;
- the daemon SIGKILLed while the parts run, then started again: it follows the same array
  (no second one), every shot is run exactly once (each shot's "done" line once in the
  tasks' protocol files) and the outputs are the local ones;
- the daemon SIGKILLed between sbatch's answer and the record of the array's id (an sbatch
  on its PATH that submits, prints the id, then kills its parent): started again, it
  adopts the array by its name instead of submitting another, and the survey completes.

Everything waits for states or files (polling the API, scontrol and the tasks' files with
generous bounds), never for fixed times. Exit 77 (ctest: skipped) with the reason where
Slurm cannot start. Run by ctest with FDWAVED and PYTHONPATH (tests/clients) set."""
import json
import math
import os
import re
import shutil
import signal
import stat
import struct
import sys

import slurm_pair
from fdwaved_proc import Daemon
from slurm_pair import BOUND, DAEMON, ENDED, DaemonPair, call, out_files, slurm_records, wait_for

TASKS = 4  # slurm-survey-tasks: 12 shots make 4 parts of 3


def survey_spec(name, nt, kind="acoustic", shots=12, n=32, extra=None):
    """A survey of shots along x over an n^3 grid, 13 fixed receivers, nt steps."""
    h = 10 * (n - 1)
    spec = {
        "kind": kind, "name": name,
        "grid": {"nx": n, "ny": n, "nz": n, "dx": 10, "dy": 10, "dz": 10},
        "velocity": {"type": "constant", "value": 2000},
        "time": {"nt": nt, "dt": "auto"},
        "survey": {"generate": {"first": [60, h // 2, 100], "step": [(h - 120) // shots, 0, 0],
                                "count": shots},
                   "wavelet": {"type": "ricker", "f0": 15}},
        "receivers": {"lines": [{"from": [40, h // 2, 60], "to": [h - 40, h // 2, 60],
                                 "count": 13}]},
        "boundary": {"type": "sponge", "width": 6},
        "devices": 1,
    }
    if kind == "acoustic":
        spec["order"] = 4
    spec.update(extra or {})
    return spec


def manifest(data, job_id):
    with open(os.path.join(data, "jobs", str(job_id), "out", "manifest.json")) as f:
        return json.load(f)


def slurm_jobs_of(job_id):
    """(JobName, ArrayTaskId or None, JobState, array job id or job id) of every Slurm job
    (or array task) of fdwave job job_id that Slurm still knows."""
    return sorted(((r["JobName"], r.get("ArrayTaskId"), r["JobState"],
                    int(r.get("ArrayJobId", r["JobId"]))) for r in slurm_records(job_id)),
                  key=lambda j: (j[0], j[1] or ""))


def queued_or_running(job_id):
    """squeue's lines (pending or running) of fdwave job job_id's Slurm jobs."""
    r = slurm_pair.CLUSTER.run("squeue", "-h", "-o", "%j %i %T")
    return [l for l in r.stdout.splitlines() if l.startswith("fdwave-%d-" % job_id)]


def shots_done_lines(data, job_id):
    """Shot number -> how many "shot N (k of M) done" lines the job's array tasks wrote."""
    d = os.path.join(data, "jobs", str(job_id))
    count = {}
    for name in os.listdir(d):
        if re.fullmatch(r"part_\d+\.proto", name):
            with open(os.path.join(d, name)) as f:
                for line in f:
                    m = re.search(r'"shot (\d+) \(\d+ of \d+\) done', line)
                    if m:
                        count[int(m.group(1))] = count.get(int(m.group(1)), 0) + 1
    return count


def part_running(data, job_id, k, strict=False):
    """Whether array task k of the job runs and its runner has reported progress (strict:
    an AssertionError once the task has ended, when waiting for it would be in vain)."""
    path = os.path.join(data, "jobs", str(job_id), "part_%d.proto" % k)
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        return False
    if strict and '"t":"result"' in text:
        raise AssertionError("task %d ended before the test caught it running" % k)
    states = [s for _, t, s, _ in slurm_jobs_of(job_id) if t == str(k)]
    return states == ["RUNNING"] and '"t":"progress"' in text


def long_spec():
    """A survey whose array tasks run for seconds (3 shots of 10000 steps of 40^3 each),
    for a test to act while they run."""
    return survey_spec("slurm-survey-long", 10000, n=40)


class SlurmSurvey(DaemonPair):
    SLURM_EXTRA = ["--slurm-survey-tasks", str(TASKS)]
    refs = {}

    def reference(self, spec):
        """spec on the local back end (submitted once per spec name), its job id."""
        if spec["name"] not in self.refs:
            self.refs[spec["name"]] = self.submit(self.local, spec)
        return self.refs[spec["name"]]

    def assert_same_outputs(self, spec, job_id):
        ref = self.reference(spec)
        end = self.wait_state(self.local, ref, ENDED)
        self.assertEqual(end["state"], "succeeded", end["reason"])
        files, man = out_files(self.local_data, ref), manifest(self.local_data, ref)
        mine = out_files(self.slurm_data, job_id)
        self.assertTrue(files)
        self.assertEqual(sorted(files), sorted(mine))
        for name in files:
            self.assertEqual(files[name], mine[name], name + " differs")
        got = manifest(self.slurm_data, job_id)
        self.assertEqual(got["survey"], man["survey"])
        self.assertEqual(sorted(f["name"] for f in got["files"]),
                         sorted(f["name"] for f in man["files"]))

    def wait_succeeded(self, job_id):
        end = self.wait_state(self.slurm, job_id, ENDED)
        self.assertEqual(end["state"], "succeeded", end["reason"] + self.slurm.log_tail())
        return end

    def test_1_survey_as_array_tasks(self):
        spec = survey_spec("slurm-survey", 60)
        self.reference(spec)
        j = self.submit(self.slurm, spec)
        end = self.wait_succeeded(j)
        self.assertIn("completed 12 shots", end["reason"])
        jobs = wait_for("Slurm's jobs to end", lambda: (lambda r: r if all(
            s == "COMPLETED" for _, _, s, _ in r) and len(r) == TASKS + 1 else None)(
                slurm_jobs_of(j)))
        array = [(n, t) for n, t, _, _ in jobs if n.endswith("-shots")]
        self.assertEqual(array, [("fdwave-%d-1-shots" % j, str(k)) for k in range(TASKS)])
        self.assertEqual([n for n, t, _, _ in jobs if t is None], ["fdwave-%d-1-combine" % j])
        text = self.events(j)
        array_id = jobs[-1][3]
        for k in range(TASKS):
            self.assertIn("Slurm job %d_%d, finished: 3 shots" % (array_id, k), text)
        self.assertEqual(shots_done_lines(self.slurm_data, j), {s: 1 for s in range(1, 13)})
        self.assert_same_outputs(spec, j)

    def test_2_rtm_survey(self):
        nshot, nrec, nt = 4, 13, 60
        data = os.path.join(self.allow, "obs.f32")
        with open(data, "wb") as f:  # any traces do: both back ends migrate the same
            f.write(struct.pack("<%df" % (nshot * nrec * (nt + 1)), *[
                math.sin(0.05 * i) * math.exp(-((i % (nt + 1)) - 30) ** 2 / 50.0)
                for i in range(nshot * nrec * (nt + 1))]))
        spec = survey_spec("slurm-rtm", nt, kind="rtm", shots=nshot, n=24,
                           extra={"data": {"path": data}})
        spec["survey"]["generate"]["first"] = [40, 115, 100]
        spec["receivers"]["lines"][0].update({"from": [20, 115, 60], "to": [210, 115, 60]})
        self.reference(spec)
        j = self.submit(self.slurm, spec)
        self.wait_succeeded(j)
        names = {n for n, _, _, _ in slurm_jobs_of(j)}
        self.assertEqual(names, {"fdwave-%d-1-shots" % j, "fdwave-%d-1-combine" % j})
        self.assert_same_outputs(spec, j)

    def test_3_cancel_while_parts_run(self):
        j = self.submit(self.slurm, long_spec())
        wait_for("a task to run", lambda: any(
            part_running(self.slurm_data, j, k) for k in range(TASKS)))
        call("%s/v1/jobs/%d" % (self.slurm.url, j), "DELETE")  # a running job: cancelled
        end = self.wait_state(self.slurm, j, ENDED)
        self.assertEqual(end["state"], "cancelled", end["reason"])
        self.assertIn("scancelled", end["reason"])
        wait_for("no Slurm job of it left", lambda: not queued_or_running(j))
        self.assertIn("CANCELLED", [s for n, _, s, _ in slurm_jobs_of(j)
                                    if n.endswith("-shots")], slurm_jobs_of(j))

    def test_4_scancel_one_task_from_outside(self):
        spec = long_spec()
        self.reference(spec)
        j = self.submit(self.slurm, spec)
        wait_for("task 1 to run", lambda: part_running(self.slurm_data, j, 1, True))
        array_id = [a for n, _, _, a in slurm_jobs_of(j) if n.endswith("-1-shots")][0]
        self.assertEqual(slurm_pair.CLUSTER.run("scancel", "%d_1" % array_id).returncode, 0)
        end = self.wait_succeeded(j)
        text = self.events(j)
        self.assertEqual(end["attempts"], 2, "%s\nevents:\n%s" % (end["reason"], text))
        self.assertIn("Slurm job %d_1, ended CANCELLED" % array_id, text)
        again = [(n, t) for n, t, _, _ in slurm_jobs_of(j) if n == "fdwave-%d-2-shots" % j]
        self.assertEqual(again, [("fdwave-%d-2-shots" % j, "1")])  # that task alone
        # The other tasks' shots ran once; task 1's second run resumed its own (its first
        # run's lines went with it), ran the rest and wrote its result.
        done = shots_done_lines(self.slurm_data, j)
        self.assertEqual({s: n for s, n in done.items() if s not in (4, 5, 6)},
                         {s: 1 for s in (1, 2, 3, 7, 8, 9, 10, 11, 12)})
        self.assertTrue(all(done.get(s, 0) <= 1 for s in (4, 5, 6)), done)
        self.assertIn("survey part 2 of 4 (its shots 4-6 of 12), Slurm job %d_1, finished"
                      % slurm_jobs_of(j)[-1][3], text)
        self.assert_same_outputs(spec, j)

    def test_5_daemon_sigkill_then_restart(self):
        spec = long_spec()
        self.reference(spec)
        j = self.submit(self.slurm, spec)
        wait_for("a task to run", lambda: any(
            part_running(self.slurm_data, j, k) for k in range(TASKS)))
        self.slurm.proc.send_signal(signal.SIGKILL)
        self.slurm.proc.wait()
        self.restart_slurm()
        self.wait_succeeded(j)
        self.assertIn("again (the daemon restarted)", self.events(j))
        arrays = {n for n, _, _, _ in slurm_jobs_of(j) if n.endswith("-shots")}
        self.assertEqual(arrays, {"fdwave-%d-1-shots" % j})  # nothing submitted twice
        self.assertEqual(shots_done_lines(self.slurm_data, j), {s: 1 for s in range(1, 13)})
        self.assert_same_outputs(spec, j)

    def test_6_sigkill_between_sbatch_and_record(self):
        spec = survey_spec("slurm-survey-window", 600)
        self.reference(spec)
        bin_dir = os.path.join(self.tmp, "bin")
        os.makedirs(bin_dir, exist_ok=True)
        mark = os.path.join(self.tmp, "killed-once")
        wrapper = os.path.join(bin_dir, "sbatch")
        with open(wrapper, "w") as f:  # the array's sbatch answers, then fdwaved dies
            f.write("#!/bin/sh\nout=$(%s \"$@\"); rc=$?\necho \"$out\"\n"
                    "case \"$*\" in *--array=*) [ -e %s ] || { touch %s; kill -9 $PPID; };; "
                    "esac\nexit $rc\n" % (shutil.which("sbatch"), mark, mark))
        os.chmod(wrapper, os.stat(wrapper).st_mode | stat.S_IXUSR)
        self.slurm.stop()
        path = os.environ["PATH"]
        os.environ["PATH"] = bin_dir + os.pathsep + path
        try:
            dying = Daemon(DAEMON, self.slurm_data, extra=self.extra)
        finally:
            os.environ["PATH"] = path
        j = self.submit(dying, spec)
        dying.proc.wait(BOUND)
        self.assertTrue(os.path.exists(mark))
        self.assertEqual(dying.proc.returncode, -signal.SIGKILL)
        self.restart_slurm()
        self.wait_succeeded(j)
        self.assertIn("submitted before the daemon stopped, not yet recorded", self.events(j))
        arrays = {n for n, _, _, _ in slurm_jobs_of(j) if n.endswith("-shots")}
        self.assertEqual(arrays, {"fdwave-%d-1-shots" % j})  # adopted, not submitted again
        self.assertEqual(shots_done_lines(self.slurm_data, j), {s: 1 for s in range(1, 13)})
        self.assert_same_outputs(spec, j)


if __name__ == "__main__":
    sys.exit(slurm_pair.main())
