#!/usr/bin/env python3
"""check_schema.py — schema/job.schema.json is a valid draft 2020-12 schema; every example
spec and its normalised form (printed by spec_print) conform to it; and specs the engine
rejects for reasons the schema can express are rejected by the schema too.
Usage: check_schema.py SOURCE_DIR SPEC_PRINT. Exit 77 (skipped) without python3-jsonschema."""
import glob
import json
import os
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed: skipping")
    sys.exit(77)

src, spec_print = sys.argv[1], sys.argv[2]
with open(os.path.join(src, "schema", "job.schema.json")) as f:
    schema = json.load(f)
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
failures = 0


def check(doc, what, valid=True):
    global failures
    errors = [e.message for e in v.iter_errors(doc)]
    if valid and errors:
        print(f"FAIL {what}: {errors[:3]}")
        failures += 1
    elif not valid and not errors:
        print(f"FAIL {what}: accepted by the schema but should not be")
        failures += 1
    else:
        print(f"ok   {what}")


examples = sorted(glob.glob(os.path.join(src, "examples", "*.json")))
if not examples:
    print("FAIL no examples found")
    sys.exit(1)
for path in examples:
    with open(path) as f:
        doc = json.load(f)
    check(doc, os.path.basename(path))
    out = subprocess.run([spec_print, path], capture_output=True, text=True)
    if out.returncode != 0:
        print(f"FAIL {path} does not parse: {out.stderr.strip()}")
        failures += 1
        continue
    check(json.loads(out.stdout), os.path.basename(path) + " (normalised)")

# the demos in folders (examples/imaging: files one step writes for the next): the schema
for path in sorted(glob.glob(os.path.join(src, "examples", "imaging", "*.json"))):
    with open(path) as f:
        check(json.load(f), os.path.relpath(path, os.path.join(src, "examples")))

# rtm of a SEG-Y shot (written here: 3 traces, 1 ms, coordinates in cm): the spec, and the
# normalised form with what it records of the file
import struct
import tempfile
with tempfile.TemporaryDirectory() as tmp:
    shot = os.path.join(tmp, "shot.segy")
    binary = bytearray(400)
    struct.pack_into(">hhh", binary, 16, 1000, 0, 60)  # interval (us), -, samples
    struct.pack_into(">h", binary, 24, 5)               # IEEE float
    struct.pack_into(">h", binary, 54, 1)               # metres
    with open(shot, "wb") as f:
        f.write(b"\x40" * 3200 + bytes(binary))
        for r in range(3):
            h = bytearray(240)
            struct.pack_into(">i", h, 8, 1)                         # FFID
            struct.pack_into(">i", h, 40, -5000)                    # group elevation: 50 m deep
            struct.pack_into(">i", h, 48, 5000)                     # source depth 50 m
            struct.pack_into(">hh", h, 68, -100, -100)              # scalars: cm
            struct.pack_into(">iiii", h, 72, 10000, 10000, 5000 + 5000 * r, 10000)
            struct.pack_into(">hh", h, 114, 60, 1000)
            f.write(bytes(h) + struct.pack(">60f", *([0.0] * 60)))
    rtm = {"kind": "rtm", "grid": {"nx": 24, "ny": 24, "nz": 24, "dx": 10, "dy": 10, "dz": 10},
           "velocity": {"type": "constant", "value": 2000}, "time": {"nt": 50, "dt": 0.001},
           "sources": [{"position": [100, 100, 50], "wavelet": {"type": "ricker", "f0": 10}}],
           "data": {"format": "segy", "path": shot}}
    check(rtm, "rtm of SEG-Y data")
    with open(os.path.join(tmp, "rtm.json"), "w") as f:
        json.dump(rtm, f)
    out = subprocess.run([spec_print, os.path.join(tmp, "rtm.json")], capture_output=True,
                         text=True)
    if out.returncode != 0:
        print(f"FAIL rtm of SEG-Y data does not parse: {out.stderr.strip()}")
        failures += 1
    else:
        check(json.loads(out.stdout), "rtm of SEG-Y data (normalised)")
    segy_bad = [
        ("rtm of SEG-Y data with receivers", dict(rtm, receivers={"points": [[1, 1, 1]]})),
        ("rtm of SEG-Y data with ffid -1", dict(rtm, data=dict(rtm["data"], ffid=-1))),
        ("rtm of raw data with an ffid", dict(rtm, data={"path": "d.f32", "ffid": 1},
                                              receivers={"points": [[1, 1, 1]]})),
        ("rtm of raw data without receivers", dict(rtm, data={"path": "d.f32"})),
        ("rtm asking for snapshots", dict(rtm, snapshots={"every": 5})),
    ]
    for what, doc in segy_bad:
        check(doc, what, valid=False)

# the bad specs below vary an acoustic example (the first in name order)
for path in examples:
    with open(path) as f:
        base = json.load(f)
    if base.get("kind", "acoustic") == "acoustic":
        break
with open(os.path.join(src, "examples", "fold.json")) as f:
    fold = json.load(f)
bad = [
    ("unknown top-level field", dict(base, colour="red")),
    ("missing grid", {k: val for k, val in base.items() if k != "grid"}),
    ("odd order", dict(base, order=7)),
    ("order 18", dict(base, order=18)),
    ("negative spacing", dict(base, grid=dict(base["grid"], dx=-1))),
    ("string velocity", dict(base, velocity={"type": "constant", "value": "fast"})),
    ("stencil with velocity", dict(base, kind="stencil", iterations=3)),
    ("derivative order 4", {"kind": "derivative", "grid": base["grid"], "order": 4,
                            "axis": "x", "iterations": 1}),
    ("acoustic without sources", {k: val for k, val in base.items() if k != "sources"}),
    ("bad slice plane", dict(base, snapshots={"every": 1, "slices": [{"plane": "xx", "index": 0}]})),
    ("boundary type pml", dict(base, boundary={"type": "pml"})),
    ("sponge with a frequency", dict(base, boundary={"type": "sponge", "frequency": 10})),
    ("born without a perturbation", dict(base, kind="born")),
    ("rtm with a perturbation", dict(base, kind="rtm", data={"path": "d.f32"},
                                     perturbation={"type": "layers", "layers": [{"top": 1, "dv": 1}]})),
    ("acoustic with data", dict(base, data={"path": "d.f32"})),
    ("rtm with a cpml", dict(base, kind="rtm", data={"path": "d.f32"}, boundary={"type": "cpml"})),
    ("CPML frequency 0", dict(base, boundary={"type": "cpml", "frequency": 0})),
    ("CPML reflection 1", dict(base, boundary={"type": "cpml", "reflection": 1})),
    ("CPML negative width", dict(base, boundary={"type": "cpml", "width": -3})),
    ("sweep without initial", {k: val for k, val in fold.items() if k != "initial"}),
    ("sweep without F or velocity", {k: val for k, val in fold.items() if k != "F"}),
    ("sweep with F and velocity", dict(fold, velocity={"type": "constant", "value": 2})),
    ("sweep with order 8", dict(fold, order=8)),
    ("sweep with sources", dict(fold, sources=base["sources"])),
    ("sweeps 0", dict(fold, sweeps=0)),
    ("acoustic with psi", dict(base, psi=1)),
    ("sweep surface of unknown type", dict(fold, initial={"surface": {"type": "cone", "z0": 1}})),
]
check(dict(base, boundary={"type": "cpml", "width": {"xmin": 4}, "reflection": 1e-4,
                           "frequency": 12, "free_surface": True}), "CPML with every field")
for what, doc in bad:
    check(doc, what, valid=False)
sys.exit(1 if failures else 0)
