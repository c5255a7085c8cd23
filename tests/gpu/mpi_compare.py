#!/usr/bin/env python3
"""mpi_compare.py — output checks for tests/gpu/run.sh's "mpi" stage (standard library only).

  mpi_compare.py exact A B       every file of run A equals B's byte for byte (manifest.json:
                                 equal except the result's elapsed_s, mpts and devices), and
                                 both hold the same files; exit 1 on any difference
  mpi_compare.py close A B TOL   every float32 output (*.f32) of A within relative L2 error
                                 TOL of B's (||a - b|| / ||b||; absolute when ||b|| = 0)
  mpi_compare.py steptime DIR    the run's milliseconds per step from its manifest.json
"""
import array
import json
import math
import os
import sys


def manifest(path):
    with open(path) as f:
        m = json.load(f)
    for k in ("elapsed_s", "mpts", "devices"):
        m.get("result", {}).pop(k, None)
    return m


def exact(a, b):
    fa, fb = sorted(os.listdir(a)), sorted(os.listdir(b))
    bad = []
    if fa != fb:
        bad.append("file lists differ: only in %s: %s; only in %s: %s"
                   % (a, sorted(set(fa) - set(fb)), b, sorted(set(fb) - set(fa))))
    if len(fa) < 2:
        bad.append("%s holds no outputs" % a)
    for name in sorted(set(fa) & set(fb)):
        pa, pb = os.path.join(a, name), os.path.join(b, name)
        if name == "manifest.json":
            ma, mb = manifest(pa), manifest(pb)
            if ma != mb:
                bad.append("manifest.json differs beyond timing")
            if ma.get("result", {}).get("completed") is not True:
                bad.append("%s: the run did not complete" % pa)
            continue
        with open(pa, "rb") as x, open(pb, "rb") as y:
            if x.read() != y.read():
                bad.append("%s differs" % name)
    for line in bad:
        print("   ", line)
    print("    %d files compared, %d differences" % (len(fa), len(bad)))
    return 1 if bad else 0


def floats(path):
    v = array.array("f")
    with open(path, "rb") as f:
        v.frombytes(f.read())
    if sys.byteorder != "little":
        v.byteswap()
    return v


def close(a, b, tol):
    worst, worst_name, n, bad = 0.0, "", 0, 0
    for name in sorted(os.listdir(b)):
        if not name.endswith(".f32"):
            continue
        pa = os.path.join(a, name)
        if not os.path.exists(pa):
            if bad < 5:
                print("    missing in %s: %s" % (a, name))
            bad += 1
            continue
        x, y = floats(pa), floats(os.path.join(b, name))
        if len(x) != len(y):
            print("    %s: %d values against %d" % (name, len(x), len(y)))
            bad += 1
            continue
        d = math.sqrt(sum((p - q) * (p - q) for p, q in zip(x, y)))
        ref = math.sqrt(sum(q * q for q in y))
        err = d / ref if ref > 0 else d
        n += 1
        if err > worst:
            worst, worst_name = err, name
        if not err <= tol:
            print("    %s: relative L2 error %.3e > %.1e" % (name, err, tol))
            bad += 1
    print("    %d float32 files, largest relative L2 error %.3e (%s)" % (n, worst, worst_name))
    return 1 if bad or n == 0 else 0


def steptime(d):
    with open(os.path.join(d, "manifest.json")) as f:
        r = json.load(f)["result"]
    steps = r.get("steps") or 0
    print("%.4f" % (1e3 * r["elapsed_s"] / steps if steps else float("nan")))
    return 0


def main(argv):
    for d in argv[2:4] if argv[1:2] in (["exact"], ["close"], ["steptime"]) else []:
        if not os.path.isdir(d):
            print("    no run directory %s" % d, file=sys.stderr)
            return 1
    if len(argv) == 4 and argv[1] == "exact":
        return exact(argv[2], argv[3])
    if len(argv) == 5 and argv[1] == "close":
        return close(argv[2], argv[3], float(argv[4]))
    if len(argv) == 3 and argv[1] == "steptime":
        return steptime(argv[2])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
