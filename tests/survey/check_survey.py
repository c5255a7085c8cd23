"""check_survey.py — reads a survey's SEG-Y files with segyio (as a processing pipeline
would) and checks them against its manifest.json: each shot_NNNN.sgy has the shot's
receivers as traces, FFID = shot number on every trace, the source position (with the
coordinate scalar) and the traces of shot_NNNN.f32; all_shots.sgy holds every shot's
traces in shot order with trace sequence numbers running through the file.
Usage: check_survey.py OUTPUT_DIR. Exit status 0 when every check holds."""
import json
import os
import sys

import numpy as np
import segyio

out = sys.argv[1]
manifest = json.load(open(os.path.join(out, "manifest.json")))
survey = manifest["survey"]
assert survey["shots_done"] == survey["nshots"] == len(survey["shots"]), survey
assert survey["all_shots"] == "all_shots.sgy", survey
names = [f["name"] for f in manifest["files"]]


def scaled(value, scalar):
    """A coordinate from its header value and the SEG-Y scalar (negative: divide)."""
    if scalar < 0:
        return value / -scalar
    return value * (scalar if scalar > 0 else 1)


all_traces = []
ffids = []
for entry in survey["shots"]:
    number, src = entry["shot"], entry["source"]
    assert entry["file"] in names and entry["raw"] in names, entry
    raw = np.fromfile(os.path.join(out, entry["raw"]), dtype="<f4")
    with segyio.open(os.path.join(out, entry["file"]), ignore_geometry=True) as f:
        assert f.tracecount == entry["receivers"], (f.tracecount, entry)
        ns = len(f.samples)
        assert raw.size == ns * f.tracecount, (raw.size, ns, f.tracecount)
        for t in range(f.tracecount):
            h = f.header[t]
            assert h[segyio.TraceField.FieldRecord] == number, (t, h[segyio.TraceField.FieldRecord])
            assert h[segyio.TraceField.EnergySourcePoint] == number
            sc = h[segyio.TraceField.SourceGroupScalar]
            assert abs(scaled(h[segyio.TraceField.SourceX], sc) - src[0]) < 0.02, (t, src)
            assert abs(scaled(h[segyio.TraceField.SourceY], sc) - src[1]) < 0.02, (t, src)
            tr = f.trace[t]
            assert np.array_equal(tr, raw[t * ns:(t + 1) * ns]), (number, t)
            all_traces.append(np.array(tr))
            ffids.append(number)

with segyio.open(os.path.join(out, "all_shots.sgy"), ignore_geometry=True) as f:
    assert f.tracecount == len(all_traces), (f.tracecount, len(all_traces))
    for t in range(f.tracecount):
        h = f.header[t]
        assert h[segyio.TraceField.FieldRecord] == ffids[t], (t, ffids[t])
        assert h[segyio.TraceField.TRACE_SEQUENCE_FILE] == t + 1
        assert h[segyio.TraceField.TRACE_SEQUENCE_LINE] == t + 1
        assert np.array_equal(f.trace[t], all_traces[t]), t
print("survey SEG-Y ok: %d shots, %d traces" % (len(survey["shots"]), len(all_traces)))
