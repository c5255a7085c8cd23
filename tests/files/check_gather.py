"""check_gather.py — reads the SEG-Y gathers written by test_outputs.c with segyio (as a
user's Python pipeline would) and checks their numbers: the 3-trace gather and the shot
gather whose every header field is known. Usage: check_gather.py GATHER SHOT_GATHER.
Exit status 0 when every check holds; the failing check is printed otherwise."""
import sys

import segyio

with segyio.open(sys.argv[1], ignore_geometry=True) as f:
    assert f.tracecount == 3, f.tracecount
    assert len(f.samples) == 50, len(f.samples)
    assert f.bin[segyio.BinField.Interval] == 2000, f.bin[segyio.BinField.Interval]
    assert f.bin[segyio.BinField.Format] == 5, f.bin[segyio.BinField.Format]
    assert abs(segyio.tools.dt(f) - 2000.0) < 1e-9, segyio.tools.dt(f)
    want_gx = [10025, 20050, 30075]
    for r in range(3):
        h = f.header[r]
        assert h[segyio.TraceField.TRACE_SEQUENCE_FILE] == r + 1
        assert h[segyio.TraceField.SourceGroupScalar] == -100
        assert h[segyio.TraceField.ElevationScalar] == -100
        assert h[segyio.TraceField.GroupX] == want_gx[r], h[segyio.TraceField.GroupX]
        assert h[segyio.TraceField.GroupY] == 5000, h[segyio.TraceField.GroupY]
        assert h[segyio.TraceField.ReceiverGroupElevation] == -(3000 + 100 * r)
        assert h[segyio.TraceField.SourceX] == 1000
        assert h[segyio.TraceField.SourceY] == 2000
        assert h[segyio.TraceField.SourceDepth] == 550
        assert h[segyio.TraceField.TRACE_SAMPLE_COUNT] == 50
        assert h[segyio.TraceField.TRACE_SAMPLE_INTERVAL] == 2000
        tr = f.trace[r]
        for s in range(50):
            want = (r + 1) * 0.5 * s - 3.0
            assert tr[s] == want, (r, s, tr[s], want)

TF = segyio.TraceField
with segyio.open(sys.argv[2], ignore_geometry=True) as f:
    assert f.tracecount == 5, f.tracecount
    assert len(f.samples) == 40, len(f.samples)
    assert f.bin[segyio.BinField.Interval] == 1500
    assert f.bin[segyio.BinField.Samples] == 40
    assert f.bin[segyio.BinField.Format] == 5
    assert f.bin[segyio.BinField.SEGYRevision] == 0x0100, f.bin[segyio.BinField.SEGYRevision]
    assert abs(segyio.tools.dt(f) - 1500.0) < 1e-9, segyio.tools.dt(f)
    offsets = [-150, -51, 52, 151, 251]
    for r in range(5):
        h = f.header[r]
        want = {
            TF.TRACE_SEQUENCE_LINE: r + 1, TF.TRACE_SEQUENCE_FILE: r + 1,
            TF.FieldRecord: 12, TF.TraceNumber: r + 1, TF.EnergySourcePoint: 12,
            TF.TraceIdentificationCode: 1, TF.offset: offsets[r],
            TF.ReceiverGroupElevation: -1250, TF.SourceDepth: 775,
            TF.ElevationScalar: -100, TF.SourceGroupScalar: -100,
            TF.SourceX: 25050, TF.SourceY: 6050,
            TF.GroupX: 40000 - 10000 * r, TF.GroupY: 5000, TF.CoordinateUnits: 1,
            TF.CDP_X: 32525 - 5000 * r, TF.CDP_Y: 5525,
            TF.INLINE_3D: 3, TF.CROSSLINE_3D: r + 1,
            TF.ShotPoint: 12, TF.ShotPointScalar: 1,
            TF.TRACE_SAMPLE_COUNT: 40, TF.TRACE_SAMPLE_INTERVAL: 1500,
        }
        for key, value in want.items():
            assert h[key] == value, (r, str(key), h[key], value)
        tr = f.trace[r]
        for s in range(40):
            assert tr[s] == r - s / 8.0, (r, s, tr[s])
print("gather ok")
