"""test_slurm_backend.py — fdwaved with job-backend = slurm against a real one-node Slurm
(slurm_cluster.py), driven through its HTTP API:

- a job runs as a Slurm job (scontrol shows fdwave-<id>-1 COMPLETED) and its outputs are
  bit for bit those of the same spec on the local back end (CPU backend);
- cancel through the API scancels the Slurm job: the job ends cancelled, Slurm's job
  CANCELLED;
- scancel from outside counts as a killed runner: the job is re-queued (attempt 2) as a new
  Slurm job, resumes from its checkpoint and succeeds;
- the daemon SIGKILLed while a Slurm job runs, then started again: it follows the same
  Slurm job to its end (one Slurm job for the fdwave job, nothing submitted twice), and
  the outputs are the local back end's;
- Slurm's time limit ending the job (TIMEOUT) fails it, naming the limit, with no second
  attempt.

Everything waits for states (polling the API and scontrol with generous bounds), never
for fixed times. Exit 77 (ctest: skipped) with the reason where Slurm cannot start.
Run by ctest with FDWAVED and PYTHONPATH (tests/clients for fdwaved_proc) set."""
import signal
import sys

import slurm_pair
from job_specs import long_spec, small_spec
from slurm_pair import DaemonPair, call, out_files, slurm_records, wait_for


def slurm_jobs_of(job_id):
    """(id, state) of every Slurm job of fdwave job job_id that Slurm still knows, by id."""
    return sorted((int(r["JobId"]), r["JobState"]) for r in slurm_records(job_id))


class SlurmBackend(DaemonPair):
    def wait_step(self, daemon, job_id, step=1):
        """Until the job runs and has reported progress at or past step."""
        def check():
            j = self.job(daemon, job_id)
            self.assertIn(j["state"], ("queued", "running"), j.get("reason"))
            p = j.get("progress") or {}
            return j if j["state"] == "running" and p.get("step", 0) >= step else None
        return wait_for("job %d to make progress" % job_id, check)

    def test_1_same_outputs_as_local(self):
        spec = small_spec("slurm-parity")
        a = self.submit(self.local, spec)
        b = self.submit(self.slurm, spec)
        ja = self.wait_state(self.local, a, ("succeeded", "failed", "cancelled"))
        jb = self.wait_state(self.slurm, b, ("succeeded", "failed", "cancelled"))
        self.assertEqual(ja["state"], "succeeded", ja["reason"])
        self.assertEqual(jb["state"], "succeeded", jb["reason"] + self.slurm.log_tail())
        # The daemon settles on the runner's result line; Slurm ends the job just after.
        wait_for("Slurm's job to end COMPLETED",
                 lambda: [s for _, s in slurm_jobs_of(b)] == ["COMPLETED"])
        fa, fb = out_files(self.local_data, a), out_files(self.slurm_data, b)
        self.assertTrue(fa)
        self.assertEqual(sorted(fa), sorted(fb))
        for name in fa:
            self.assertEqual(fa[name], fb[name], name + " differs")

    def test_2_cancel_scancels(self):
        j = self.submit(self.slurm, long_spec(10 ** 6, "slurm-cancel"))
        self.wait_step(self.slurm, j)
        call("%s/v1/jobs/%d/cancel" % (self.slurm.url, j), "POST")
        end = self.wait_state(self.slurm, j, ("succeeded", "failed", "cancelled"))
        self.assertEqual(end["state"], "cancelled", end["reason"])
        self.assertIn("scancelled", end["reason"])
        wait_for("Slurm's job to end CANCELLED",
                 lambda: [s for _, s in slurm_jobs_of(j)] == ["CANCELLED"])

    def test_3_scancel_from_outside_requeues(self):
        j = self.submit(self.slurm, long_spec(20000, "slurm-scancel"))
        self.wait_step(self.slurm, j, 200)
        [(first, _)] = slurm_jobs_of(j)
        self.assertEqual(slurm_pair.CLUSTER.run("scancel", str(first)).returncode, 0)
        end = self.wait_state(self.slurm, j, ("succeeded", "failed", "cancelled"))
        self.assertEqual(end["state"], "succeeded", end["reason"] + self.slurm.log_tail())
        self.assertEqual(end["attempts"], 2, end)
        ran = wait_for("Slurm's second job to end", lambda: (lambda r: r if [
            s for _, s in r] == ["CANCELLED", "COMPLETED"] else None)(slurm_jobs_of(j)))
        self.assertEqual(ran[0][0], first)
        self.assertIn("ended CANCELLED", self.events(j))

    def test_4_daemon_sigkill_then_restart(self):
        spec = long_spec(20000, "slurm-restart")
        ref = self.submit(self.local, spec)
        j = self.submit(self.slurm, spec)
        self.wait_step(self.slurm, j, 100)
        [(sid, _)] = slurm_jobs_of(j)
        self.slurm.proc.send_signal(signal.SIGKILL)
        self.slurm.proc.wait()
        # The Slurm job goes on without the daemon.
        self.assertIn(slurm_pair.CLUSTER.job_state(sid), ("RUNNING", "COMPLETING", "COMPLETED"))
        self.restart_slurm()
        end = self.wait_state(self.slurm, j, ("succeeded", "failed", "cancelled"))
        self.assertEqual(end["state"], "succeeded", end["reason"] + self.slurm.log_tail())
        self.assertIn("following Slurm job %d again" % sid, self.events(j))
        # One Slurm job for it, the one followed again: nothing submitted twice.
        wait_for("Slurm's job to end", lambda: [s for _, s in slurm_jobs_of(j)] not in (
            ["RUNNING"], ["COMPLETING"]))
        self.assertEqual(slurm_jobs_of(j), [(sid, "COMPLETED")])
        self.assertEqual(self.wait_state(self.local, ref, ("succeeded",))["state"], "succeeded")
        fa, fb = out_files(self.local_data, ref), out_files(self.slurm_data, j)
        self.assertEqual(sorted(fa), sorted(fb))
        for name in fa:
            self.assertEqual(fa[name], fb[name], name + " differs")

    def test_5_slurm_time_limit_fails(self):
        """Slurm's own time limit (here lowered to its least, a minute, under a running
        job) ends the job TIMEOUT: the job fails naming it, and is not run again."""
        j = self.submit(self.slurm, long_spec(10 ** 6, "slurm-timeout"))
        self.wait_step(self.slurm, j)
        [(sid, _)] = slurm_jobs_of(j)
        r = slurm_pair.CLUSTER.run("scontrol", "update", "JobId=%d" % sid, "TimeLimit=1")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        end = self.wait_state(self.slurm, j, ("succeeded", "failed", "cancelled"))
        self.assertEqual(end["state"], "failed", end["reason"])
        self.assertIn("Slurm's time limit ended Slurm job %d" % sid, end["reason"])
        self.assertEqual(end["attempts"], 1, end)
        self.assertEqual(slurm_jobs_of(j), [(sid, "TIMEOUT")])


if __name__ == "__main__":
    sys.exit(slurm_pair.main())
