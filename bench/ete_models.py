#!/usr/bin/env python3
"""ete_models.py — the models of docs/ete.md's stability table as ETE jobs: on 64^3 (h 10 m,
Ricker 13.3 Hz in the middle, sponge 15, dt auto) an 8^3 cube of 3000 m/s in 2000, a flat
2000 / 3000 interface, a quadrant edge, an octant corner, 8^3 blocks of 1500-4500, of 2000 or
3000 and of 1500-1800 m/s, point-wise random 1500-4500 m/s; and a salt-like model on 192^3
(a gradient of 1500-2600 m/s, three layers, two salt bodies of 4500 m/s with sharp faces).
Pure Python (no numpy), so it runs on the GPU machines as they are.

Usage: ete_models.py OUTDIR [NT]   (writes NAME.f32 and NAME.json per model; NT default 10000)
"""
import json
import os
import random
import struct
import sys


def write(out, name, n, vel, nt, f0=13.3, sponge=15):
    path = os.path.join(out, name + ".f32")
    with open(path, "wb") as f:
        row = struct.Struct("<%df" % n)
        for k in range(n):
            for j in range(n):
                f.write(row.pack(*[vel(i, j, k) for i in range(n)]))
    c = 10.0 * (n // 2) - 5.0
    spec = {"kind": "ete", "name": "ete stability: " + name,
            "grid": {"nx": n, "ny": n, "nz": n, "dx": 10, "dy": 10, "dz": 10},
            "velocity": {"type": "file", "format": "raw-f32", "path": os.path.abspath(path)},
            "time": {"nt": nt, "dt": "auto"},
            "sources": [{"position": [c, c, c], "wavelet": {"type": "ricker", "f0": f0}}],
            "receivers": {"lines": [{"from": [10.0 * sponge + 5, c, c],
                                     "to": [10.0 * (n - sponge) - 15, c, c], "count": 16}]},
            "boundary": {"type": "sponge", "width": sponge}}
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(spec, f, indent=1)


def blocks(lo, hi, choice=None, seed=1):
    rnd = random.Random(seed)
    table = {}
    for b in range(8 * 8 * 8):
        table[b] = rnd.choice(choice) if choice else rnd.uniform(lo, hi)
    return lambda i, j, k: table[(k // 8) * 64 + (j // 8) * 8 + i // 8]


def salt(i, j, k):
    """Depth gradient and layers; two bodies of salt: an ellipsoid and a tilted slab."""
    z = k * 10.0
    v = 1500.0 + 0.6 * z
    if z > 900:
        v = 2300.0
    if z > 1400:
        v = 2600.0
    x, y = i * 10.0, j * 10.0
    if ((x - 800) / 450) ** 2 + ((y - 900) / 380) ** 2 + ((z - 1000) / 260) ** 2 < 1:
        v = 4500.0
    if 1200 < x + 0.5 * z < 1500 and 300 < y < 1500 and 400 < z < 1300:
        v = 4500.0
    return v


def main():
    out = sys.argv[1]
    nt = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    os.makedirs(out, exist_ok=True)
    n = 64
    write(out, "cube", n, lambda i, j, k: 3000.0 if all(28 <= a < 36 for a in (i, j, k)) else 2000.0, nt)
    write(out, "flat", n, lambda i, j, k: 3000.0 if k >= 32 else 2000.0, nt)
    write(out, "edge", n, lambda i, j, k: 3000.0 if j >= 32 and k >= 32 else 2000.0, nt)
    write(out, "corner", n, lambda i, j, k: 3000.0 if i >= 32 and j >= 32 and k >= 32 else 2000.0, nt)
    write(out, "blocks", n, blocks(1500.0, 4500.0), nt)
    write(out, "blocks2", n, blocks(0, 0, [2000.0, 3000.0]), nt)
    write(out, "blocks_narrow", n, blocks(1500.0, 1800.0), nt)
    rnd = random.Random(7)
    point = [rnd.uniform(1500.0, 4500.0) for _ in range(n * n * n)]
    write(out, "pointwise", n, lambda i, j, k: point[(k * n + j) * n + i], nt)
    write(out, "salt", 192, salt, nt, f0=8.0, sponge=20)


if __name__ == "__main__":
    main()
