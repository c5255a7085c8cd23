"""job_specs.py — the job specs the Python-driven client tests submit: a small acoustic job
with snapshots and a receiver line that runs in well under a second on the CPU backend,
and a long one (nt steps on a 64^3 grid) to catch running, cancel or interrupt."""


def small_spec(name):
    return {
        "kind": "acoustic", "name": name,
        "grid": {"nx": 32, "ny": 32, "nz": 32, "dx": 10, "dy": 10, "dz": 10},
        "order": 4,
        "velocity": {"type": "constant", "value": 2000},
        "time": {"nt": 60, "dt": "auto"},
        "sources": [{"position": [160, 160, 160], "wavelet": {"type": "ricker", "f0": 15}}],
        "receivers": {"lines": [{"from": [40, 160, 100], "to": [280, 160, 100], "count": 13}]},
        "boundary": {"type": "sponge", "width": 6},
        "snapshots": {"every": 30, "slices": [{"plane": "xy", "index": 16}], "png": True,
                      "raw": True},
    }


def long_spec(nt, name, devices=1):
    return {
        "kind": "acoustic", "name": name,
        "grid": {"nx": 64, "ny": 64, "nz": 64, "dx": 10, "dy": 10, "dz": 10},
        "order": 8, "velocity": {"type": "constant", "value": 2000},
        "time": {"nt": nt, "dt": "auto"},
        "sources": [{"position": [320, 320, 320], "wavelet": {"type": "ricker", "f0": 10}}],
        "boundary": {"type": "sponge", "width": 8},
        "devices": devices,
    }
