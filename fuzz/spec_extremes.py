#!/usr/bin/env python3
"""spec_extremes.py — a hostile-input sweep of the job spec through fdwave-run (a developer
tool, not part of ctest: a full pass runs about 5,000 jobs, 15-20 minutes on 2 cores).

Every member of a small spec of each kind is replaced, one at a time, by extreme numbers
(0, -1, 5e-324, 1e-300, 1e-20, 1e20, 1e300, -1e300, DBL_MAX, 2^31, 2^53 + 1, 0.5) and, with
--shapes, by values of the wrong shape (null, "", a 5,000-character string, [], {}, true,
nested arrays, ...). A job must then either be refused (exit 2 with a message naming its
field) or run; it is reported when it crashes (a signal or an unexpected exit status), hangs
(60 s), fails after being accepted (exit 1), or succeeds with NaN or infinite values in its
outputs (+inf is allowed only in the sweep kind's T, where the front never arrives).

    python3 fuzz/spec_extremes.py build/engine/fdwave-run [--shapes] [KIND ...]

Prints one line per finding and a count per kind; exits 1 when anything was found."""
import array
import copy
import glob
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

NUMBERS = [0, -1, 5e-324, 1e-300, 1e-20, 1e20, 1e300, -1e300, 1.7976931348623157e308,
           2**31, 2**53 + 1, 0.5]
SHAPES = [None, "", "x" * 5000, [], {}, True, [1, 2, 3], [[1, 2, 3]] * 3, {"a": 1}, -0.0,
          "auto", [None], 1e-7]

SMALL = {"nx": 24, "ny": 24, "nz": 24, "dx": 10, "dy": 10, "dz": 10}
BASES = {
    "acoustic": {
        "kind": "acoustic", "grid": dict(SMALL, origin=[0, 0, 0]), "order": 8,
        "velocity": {"type": "gaussian", "background": 2000, "center": [120, 120, 120],
                     "sigma": 50, "dv": 300},
        "time": {"nt": 30, "dt": "auto", "safety": 0.9},
        "sources": [{"position": [120, 120, 120],
                     "wavelet": {"type": "ricker", "f0": 12, "delay": 0.08, "amplitude": 1}}],
        "receivers": {"lines": [{"from": [40, 120, 40], "to": [200, 120, 40], "count": 9}],
                      "interval": 1},
        "boundary": {"type": "sponge", "width": 6},
        "snapshots": {"every": 10, "slices": [{"plane": "xy", "index": 12}], "volume": False,
                      "png": True, "raw": True}},
    "cpml": {
        "kind": "acoustic", "grid": SMALL, "order": 4,
        "velocity": {"type": "layered", "layers": [{"top": 0, "v": 1500}, {"top": 100, "v": 2500}]},
        "time": {"nt": 30, "dt": 0.001},
        "sources": [{"position": [120, 120, 50], "wavelet": {"type": "ricker", "f0": 10}}],
        "receivers": {"points": [[60, 60, 20], [180, 180, 20]]},
        "boundary": {"type": "cpml", "width": 6, "free_surface": True, "reflection": 1e-3}},
    "ete": {
        "kind": "ete", "grid": SMALL,
        "velocity": {"type": "gaussian", "background": 2000, "center": [120, 120, 120],
                     "sigma": 50, "dv": 300},
        "time": {"nt": 20, "dt": "auto"}, "ete": {"fmax": 30},
        "sources": [{"position": [120, 120, 120], "wavelet": {"type": "ricker", "f0": 12}}],
        "receivers": {"points": [[60, 60, 60]]}, "boundary": {"type": "sponge", "width": 6}},
    "survey": {
        "kind": "acoustic", "grid": {"nx": 40, "ny": 16, "nz": 24, "dx": 10, "dy": 10, "dz": 10},
        "order": 8,
        "velocity": {"type": "layered", "layers": [{"top": 0, "v": 1500}, {"top": 100, "v": 2400}]},
        "time": {"nt": 30, "dt": "auto"},
        "survey": {"generate": {"first": [100, 80, 20], "step": [100, 0, 0], "count": 2},
                   "wavelet": {"type": "ricker", "f0": 12},
                   "spread": {"lines": [{"from": [-60, 0, -10], "to": [60, 0, -10], "count": 5}]},
                   "outside": "drop"},
        "receivers": {"interval": 2}, "boundary": {"type": "sponge", "width": 6}},
    "sweep": {
        "kind": "sweep", "grid": {"nx": 16, "ny": 16, "nz": 16, "dx": 0.5, "dy": 0.5, "dz": 0.5},
        "F": 1.1, "psi": 1.0, "a": [-0.34, 0.4, 0.7],
        "initial": {"points": [{"position": [4, 4, 4], "t0": 0}],
                    "planes": [{"point": [1, 1, 1], "normal": [0, 0, 1], "t0": 0.5}],
                    "surface": {"type": "sinusoid", "z0": 3, "amplitude": [0.5, 0.3],
                                "wavelength": [4, 5], "phase": [0, 1], "t0": 0.2}},
        "sweeps": 3,
        "output": {"volume": "f32", "slices": [{"plane": "xy", "index": 8}], "isochrons": 5}},
    "stencil": {
        "kind": "stencil", "grid": {"nx": 24, "ny": 24, "nz": 24, "dx": 1, "dy": 1, "dz": 1},
        "order": 8, "iterations": 5, "seed": 7, "coefficients": [0.5, 0.1, 0.05, 0.02, 0.01]},
    "derivative": {
        "kind": "derivative", "grid": {"nx": 24, "ny": 24, "nz": 24, "dx": 1, "dy": 1, "dz": 1},
        "axis": "x", "iterations": 3, "periods": [1, 2, 1]},
}


def members(o, path=(), numeric_only=True):
    """Paths of the members to replace: numeric leaves, or every member."""
    if path and (not numeric_only or
                 (isinstance(o, (int, float)) and not isinstance(o, bool))):
        yield path
    if isinstance(o, dict):
        for k, v in o.items():
            yield from members(v, path + (k,), numeric_only)
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from members(v, path + (i,), numeric_only)


def replaced(spec, path, value):
    s = copy.deepcopy(spec)
    o = s
    for k in path[:-1]:
        o = o[k]
    o[path[-1]] = copy.deepcopy(value)
    return s


def bad_values(path, width):
    """Whether a raw output holds NaN, or infinities where none belong."""
    code = 'f' if width == 4 else 'd'
    a = array.array(code)
    with open(path, 'rb') as f:
        a.frombytes(f.read())
    times = os.path.basename(path).startswith('T.')
    return any(math.isnan(x) or (math.isinf(x) and not (times and x > 0)) for x in a)


def check(run, spec, work):
    """One job: None when it behaved, else what went wrong."""
    job, out = os.path.join(work, 'job.json'), os.path.join(work, 'out')
    shutil.rmtree(out, ignore_errors=True)
    with open(job, 'w') as f:
        json.dump(spec, f)
    try:
        p = subprocess.run([run, job, '-o', out, '-q', '-b', 'cpu', '-t', '1'],
                           capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return 'HANG'
    tail = p.stderr[-240:].replace('\n', ' ')
    if p.returncode == 1:
        return 'FAILED AFTER ACCEPTANCE: ' + tail
    if p.returncode not in (0, 2):
        return 'CRASH (exit %d): %s' % (p.returncode, tail)
    if p.returncode == 2 and ': ' not in p.stderr:
        return 'REFUSED WITHOUT A MESSAGE'
    if p.returncode == 0:
        bad = [os.path.basename(f) for w, pat in ((4, '*.f32'), (8, '*.f64'))
               for f in glob.glob(os.path.join(out, '**', pat), recursive=True)
               if bad_values(f, w)]
        if bad:
            return 'NON-FINITE OUTPUT: ' + ', '.join(bad[:3])
    return None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    if not args:
        print(__doc__)
        return 2
    run, kinds = args[0], args[1:] or list(BASES)
    shapes = '--shapes' in sys.argv
    found = 0
    with tempfile.TemporaryDirectory(prefix='fdw-extremes-') as work:
        for kind in kinds:
            base, n = BASES[kind], 0
            for path in list(members(base, numeric_only=not shapes)):
                for v in SHAPES if shapes else NUMBERS:
                    what = check(run, replaced(base, path, v), work)
                    n += 1
                    if what:
                        found += 1
                        print('%s %s = %r: %s' % (kind, '.'.join(map(str, path)),
                                                   v if not isinstance(v, str) else v[:20], what))
            print('%s: %d jobs' % (kind, n), flush=True)
    print('%d findings' % found)
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
