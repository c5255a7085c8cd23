#!/usr/bin/env python3
"""depth.py — where an rtm image puts a flat reflector. The image is a perturbation of the
velocity (born's transpose), so a reflector lies where it changes fastest with depth (the
reflectivity, 1/2 d(dv/v)/dz): in each column of the middle inline, the depth of the largest
|d image / dz| below TOP (above it, within two wavelengths of the source and the receivers,
lies their own footprint), refined by a parabola through its neighbours. Exit 1 when a column of the specular
aperture (x 212-417 m: midway between the source at 315 m and the receivers at 110-520 m)
is more than one grid spacing off. Usage: depth.py IMAGE.f32 NX NY NZ H EXPECTED_DEPTH TOP"""
import array
import sys

path = sys.argv[1]
nx, ny, nz = map(int, sys.argv[2:5])
h, want, top = float(sys.argv[5]), float(sys.argv[6]), float(sys.argv[7])
img = array.array("f")
with open(path, "rb") as f:
    img.fromfile(f, nx * ny * nz)
j, bad = ny // 2, 0
k0 = int(top / h) + 1
for i in range(nx):
    x = i * h
    if not 212 <= x <= 417:
        continue
    col = [img[(k * ny + j) * nx + i] for k in range(nz)]
    g = [0.0] * nz
    for k in range(k0, nz - 1):
        g[k] = abs(col[k + 1] - col[k - 1]) / 2
    k = max(range(k0 + 1, nz - 2), key=lambda q: g[q])
    a, b, c = g[k - 1], g[k], g[k + 1]
    z = (k + (0.5 * (a - c) / (a - 2 * b + c) if a - 2 * b + c else 0.0)) * h
    off = abs(z - want) > h
    bad += off
    print("x = %3.0f m: the reflector images at %5.1f m%s" % (x, z, "  <- off" if off else ""))
print("the reflector at %g m: %s" % (want, "imaged within one grid spacing over the aperture"
                                     if not bad else "%d columns off" % bad))
sys.exit(1 if bad else 0)
