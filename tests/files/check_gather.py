"""check_gather.py — reads the SEG-Y gather written by test_outputs.c with segyio (as a
user's Python pipeline would) and checks its numbers. Usage: check_gather.py FILE.
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
print("gather ok")
