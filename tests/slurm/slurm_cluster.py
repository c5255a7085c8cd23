"""slurm_cluster.py — a one-node Slurm cluster on localhost for the Slurm back end's tests,
started without systemd: munged with a fresh key and its own socket, slurmctld -D and
slurmd -D as children of the test, a generated slurm.conf (SlurmUser: whoever runs the
test; state, spool, logs and the munge socket in one temporary directory; cons_tres, the
machine's CPUs and memory, no cgroups, no accounting). docs/operations.md ("Jobs on a
Slurm cluster") shows the same configuration. Use it as a context manager:

    with SlurmCluster() as sc:        # raises Unavailable (the test skips) when it cannot
        sc.env                        # the environment Slurm's commands need (SLURM_CONF)

Run directly, it starts the cluster, runs one job with srun and tears it down (exit 77 when
Slurm is not installed or cannot start here)."""
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time

SBIN = ("/usr/sbin", "/usr/bin", "/sbin", "/bin")
NODE = "fdwnode"


class Unavailable(Exception):
    """Slurm (or munge) is not installed, or cannot start here: the test skips."""


def find(prog):
    path = shutil.which(prog) or next(
        (os.path.join(d, prog) for d in SBIN if os.access(os.path.join(d, prog), os.X_OK)),
        None)
    if not path:
        raise Unavailable("%s is not installed (Debian: slurmctld slurmd slurm-client munge)"
                          % prog)
    return path


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def machine():
    """CPUs and memory (MiB) to declare for the node: what slurmd itself detects."""
    cpus = os.cpu_count() or 1
    with open("/proc/meminfo") as f:
        kib = int(next(l for l in f if l.startswith("MemTotal:")).split()[1])
    return cpus, max(256, kib // 1024 - 512)


CONF = """\
ClusterName=fdwtest
SlurmctldHost={host}(127.0.0.1)
SlurmUser={user}
SlurmdUser={user}
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={dir}/munge/munge.socket
StateSaveLocation={dir}/state
SlurmdSpoolDir={dir}/spool/%n
SlurmctldPidFile={dir}/slurmctld.pid
SlurmdPidFile={dir}/slurmd.pid
SlurmctldLogFile={dir}/slurmctld.log
SlurmdLogFile={dir}/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
KillWait=5
MinJobAge=600
SlurmdTimeout=60
NodeName={node} NodeAddr=127.0.0.1 NodeHostname={host} CPUs={cpus} RealMemory={mem} State=UNKNOWN
PartitionName=debug Nodes={node} Default=YES MaxTime=INFINITE State=UP
"""


class SlurmCluster:
    def __init__(self, keep=False):
        self.keep = keep
        self.procs = []
        self.dir = None

    # -- start --------------------------------------------------------------------------
    def __enter__(self):
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()

    def _start(self):
        progs = {p: find(p) for p in ("munged", "slurmctld", "slurmd", "sinfo", "sbatch")}
        self.dir = tempfile.mkdtemp(prefix="fdw-slurm-")
        os.chmod(self.dir, 0o755)  # slurmd (SlurmdUser) and jobs read the conf below it
        for sub in ("munge", "state", "spool"):
            os.makedirs(os.path.join(self.dir, sub), mode=0o700)
        key = os.path.join(self.dir, "munge", "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        self.munge_socket = os.path.join(self.dir, "munge", "munge.socket")
        self._spawn([progs["munged"], "-F", "--force", "--socket", self.munge_socket,
                     "--key-file", key, "--pid-file", os.path.join(self.dir, "munge", "pid"),
                     "--log-file", os.path.join(self.dir, "munge", "log"),
                     "--seed-file", os.path.join(self.dir, "munge", "seed")], "munged")
        self._wait(lambda: os.path.exists(self.munge_socket), 20, "munged's socket")
        cpus, mem = machine()
        self.cpus, self.mem = cpus, mem
        self.conf = os.path.join(self.dir, "slurm.conf")
        with open(self.conf, "w") as f:
            f.write(CONF.format(host=socket.gethostname().split(".")[0],
                                user=pwd.getpwuid(os.getuid()).pw_name, dir=self.dir,
                                ctld_port=free_port(), slurmd_port=free_port(), node=NODE,
                                cpus=cpus, mem=mem))
        os.chmod(self.conf, 0o644)
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        self._spawn([progs["slurmctld"], "-D", "-i", "-f", self.conf], "slurmctld")
        self._spawn([progs["slurmd"], "-D", "-N", NODE, "-f", self.conf], "slurmd")
        self._wait(self._node_idle, 60, "the node to be idle in sinfo")

    def _spawn(self, argv, name):
        log = open(os.path.join(self.dir, name + ".out"), "ab")
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                             env=getattr(self, "env", None), start_new_session=True)
        log.close()
        self.procs.append((name, p))

    def _dead(self):
        return [n for n, p in self.procs if p.poll() is not None]

    def _wait(self, ready, seconds, what):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if ready():
                return
            dead = self._dead()
            if dead:
                raise Unavailable("%s exited while waiting for %s (cannot start here?): %s"
                                  % (", ".join(dead), what, self.log_tail(dead[0])))
            time.sleep(0.1)
        raise Unavailable("no %s within %d s: %s" % (what, seconds, self.log_tail("slurmctld")))

    def _node_idle(self):
        r = subprocess.run(["sinfo", "-h", "-N", "-o", "%T"], env=self.env,
                           capture_output=True, text=True)
        return r.returncode == 0 and r.stdout.strip() == "idle"

    def log_tail(self, name, n=15):
        text = ""
        for path in (os.path.join(self.dir, name + ".log"), os.path.join(self.dir, name + ".out"),
                     os.path.join(self.dir, "munge", "log")):
            if os.path.exists(path) and (name in path or name == "munged"):
                with open(path, errors="replace") as f:
                    text += "".join(f.readlines()[-n:])
        return text.strip() or "(no log)"

    # -- what tests ask -----------------------------------------------------------------
    def run(self, *argv):
        """A Slurm command (squeue, scancel, ...) with the cluster's environment."""
        return subprocess.run(list(argv), env=self.env, capture_output=True, text=True)

    def job_state(self, slurm_id):
        """The job's state as scontrol shows it (e.g. RUNNING, COMPLETED), or None."""
        r = self.run("scontrol", "show", "job", "-o", str(slurm_id))
        for word in r.stdout.split():
            if word.startswith("JobState="):
                return word.split("=", 1)[1]
        return None

    # -- stop ---------------------------------------------------------------------------
    def stop(self):
        """scancel every job, then stop slurmd, slurmctld and munged (SIGTERM, then
        SIGKILL), and remove the directory."""
        if self.procs and getattr(self, "env", None):
            subprocess.run(["scancel", "--full", "-u", pwd.getpwuid(os.getuid()).pw_name],
                           env=self.env, capture_output=True)
        for name, p in reversed(self.procs):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, 15)
                except ProcessLookupError:
                    pass
                try:
                    p.wait(15)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, 9)
                    p.wait()
        self.procs = []
        if self.dir and not self.keep:
            shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None


def main():
    try:
        with SlurmCluster() as sc:
            r = sc.run("srun", "-N1", "-n1", "hostname")
            if r.returncode != 0:
                print("srun failed: %s\n%s" % (r.stderr, sc.log_tail("slurmd")))
                return 1
            print("one-node Slurm cluster on localhost: %d CPUs, %d MiB; srun ran on %s"
                  % (sc.cpus, sc.mem, r.stdout.strip()))
            return 0
    except Unavailable as e:
        print("SKIP: Slurm cannot start here: %s" % e)
        return 77


if __name__ == "__main__":
    sys.exit(main())
