"""test_web_scale.py — the job page's colour scales and the receiver gather's axes, in
headless Chromium against a real fdwaved (webtest.py).

A point source in a homogeneous medium with an absorbing sponge, seen in two planes off
the source: the wavefront crosses them and leaves the grid, so the last snapshot holds a
weak residue (about a sixth of the job's largest value). Every expected value is computed here
from the files the job wrote (downloaded through the API) and from its spec:

- snapshots, scale "fixed for the whole job" (the default): the colour bar's values are
  ± the largest |value| of all snapshots, and the last snapshot is drawn that faintly
  (its strongest pixel is as far from white as its own maximum is from the job's);
- "per snapshot": ± that snapshot's largest |value|, its strongest pixel fully coloured;
- "clip percentile" 90: ± the 90th percentile of the snapshot's |values|;
- the choice is kept per job: another job opens with the default, this one with its own;
- a job without raw snapshots shows its PNGs and says each is scaled to its own maximum;
- the gather: axis titles time (s), receiver, offset (m); time ticks placed where their
  samples are drawn; the offsets above the receivers those of the receiver line from the
  source; its scale (largest |amplitude|, or a percentile); and the wiggle view.

usage: test_web_scale.py --daemon PATH --web DIR --out SCREENSHOT.png
"""
import math
import struct
import sys

from cdp import CdpError
from webtest import http, js_str, main, set_value, submit, wait_job

SPEC = {
    "kind": "acoustic", "name": "web scale: a pulse that leaves the grid",
    "grid": {"nx": 48, "ny": 48, "nz": 48, "dx": 10, "dy": 10, "dz": 10},
    "order": 4,
    "velocity": {"type": "constant", "value": 2000},
    "time": {"nt": 160, "dt": "auto"},
    "sources": [{"position": [240, 240, 240], "wavelet": {"type": "ricker", "f0": 15}}],
    "receivers": {"lines": [{"from": [40, 240, 120], "to": [440, 240, 120], "count": 21}]},
    "boundary": {"type": "sponge", "width": 10},
    "snapshots": {"every": 40, "slices": [{"plane": "xy", "index": 32},
                                          {"plane": "xz", "index": 12}],
                  "png": True, "raw": True},
}


def floats(raw):
    return list(struct.unpack("<%df" % (len(raw) // 4), raw))


def max_abs(vals):
    return max(abs(v) for v in vals if math.isfinite(v))


def percentile_abs(arrays, p):
    """The page's definition (scale.js percentileAbs): nearest rank over finite |v|."""
    mags = sorted(abs(v) for a in arrays for v in a if math.isfinite(v))
    rank = min(len(mags), max(1, math.ceil((p / 100) * len(mags))))
    return mags[rank - 1]


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b))


def label_value(text):
    return float(text.replace("\u2212", "-").lstrip("+"))


def snapshot_state(page):
    """What the snapshots show: the colour bar's values and, per canvas, its name, the
    clip it was drawn with and its strongest pixel (255 - the smallest green, which is
    0 for full red or blue and 255 for white)."""
    return page.eval("""(() => {
        const c = document.getElementById('snap-control');
        return {
          mode: c.querySelector('.scale-mode').value,
          max: c.querySelector('.scale-max').textContent,
          min: c.querySelector('.scale-min').textContent,
          barHidden: c.querySelector('.scalebar').hidden,
          caption: c.querySelector('.scale-caption').textContent,
          shown: document.getElementById('snapshots').dataset.shown,
          canvases: [...document.querySelectorAll('#snapshots canvas')].map(cv => {
            const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
            let g = 255;
            for (let i = 0; i < d.length; i += 4) g = Math.min(g, d[i + 1]);
            return {name: cv.dataset.name, clip: Number(cv.dataset.clip), strength: 255 - g};
          }),
        };
    })()""")


def wait_clip(page, want, what):
    page.wait_for("(() => { const cs = [...document.querySelectorAll('#snapshots canvas')];"
                  " return cs.length > 0 && cs.every(c => Math.abs(Number(c.dataset.clip) - %r)"
                  " <= %r); })()" % (want, want * 1e-6), 30, what)


def check_strength(state, data, clip, what):
    for cv in state["canvases"]:
        want = 255 - round(255 * (1 - min(1.0, max_abs(data[cv["name"]]) / clip)))
        if abs(cv["strength"] - want) > 1:
            raise CdpError("%s: %s drawn with strength %d, expected %d"
                           % (what, cv["name"], cv["strength"], want))


def run(env):
    d = env.daemon()
    page = env.page
    job = submit(d.url, SPEC)
    other = submit(d.url, dict(SPEC, name="web scale: another job"))
    png_only = submit(d.url, dict(SPEC, name="web scale: PNG only", snapshots=dict(
        SPEC["snapshots"], raw=False)))
    for j in (job, other, png_only):
        if wait_job(d.url, j)["state"] != "succeeded":
            raise RuntimeError("job %d did not succeed" % j)

    # What the job wrote, read through the API.
    _, man = http(d.url, "GET", "/v1/jobs/%d/outputs" % job)
    raws = [f for f in man["files"] if f["kind"] == "snapshot" and f["format"] == "raw-f32"]
    data = {f["name"]: floats(http(d.url, "GET", f["url"])[1]) for f in raws}
    steps = sorted({f["step"] for f in raws})
    by_step = {s: [f["name"] for f in raws if f["step"] == s] for s in steps}
    job_max = max(max_abs(v) for v in data.values())
    last = by_step[steps[-1]]
    last_max = max(max_abs(data[n]) for n in last)
    first_max = max(max_abs(data[n]) for n in by_step[steps[0]])
    print("%d snapshots; largest |value| of the job %.4g, of the last snapshot %.4g"
          % (len(steps), job_max, last_max))
    if not last_max < job_max / 4:
        raise RuntimeError("the test needs a last snapshot much weaker than the job's "
                           "largest: %g vs %g" % (last_max, job_max))

    # Fixed for the whole job (the default): the last snapshot, drawn faintly.
    page.call("Page.navigate", url=d.url + "/#/job/%d" % job)
    page.wait_for("document.getElementById('snapshots').dataset.shown === %s"
                  % js_str(str(len(steps) - 1)), 60, "the last snapshot to be drawn")
    wait_clip(page, job_max, "the job's scale on the last snapshot")
    st = snapshot_state(page)
    print("fixed for the job: %s .. %s, %s; strengths %s" % (
        st["min"], st["max"], st["caption"], [c["strength"] for c in st["canvases"]]))
    if st["mode"] != "job" or st["barHidden"] or len(st["canvases"]) != 2:
        raise CdpError("the default view is not the job's fixed scale: %r" % st)
    if not close(label_value(st["max"]), job_max, 5e-3) or label_value(st["min"]) != \
            -label_value(st["max"]):
        raise CdpError("colour bar %s .. %s, the job's largest |value| is %g"
                       % (st["min"], st["max"], job_max))
    if "all %d snapshots" % len(steps) not in st["caption"]:
        raise CdpError("the caption does not say what the scale was taken from: %r"
                       % st["caption"])
    check_strength(st, data, job_max, "fixed scale, last snapshot")
    if max(c["strength"] for c in st["canvases"]) > 128:
        raise CdpError("late residue drawn as strong as the wavefront: %r" % st["canvases"])
    env.screenshot()

    # Back to the first snapshot with the slider: the same scale, a stronger picture.
    set_value(page, "#snap-index", "0", "input")
    page.wait_for("document.getElementById('snapshots').dataset.shown === '0'", 30,
                  "the first snapshot")
    wait_clip(page, job_max, "the job's scale on the first snapshot")
    st0 = snapshot_state(page)
    check_strength(st0, data, job_max, "fixed scale, first snapshot")
    if not close(first_max, job_max, 1e-6) and max(c["strength"] for c in st0["canvases"]) \
            <= max(c["strength"] for c in st["canvases"]):
        raise CdpError("the first snapshot is not drawn stronger than the last")
    page.eval("(() => { const s = document.getElementById('snap-index'); s.value = s.max;"
              " s.dispatchEvent(new Event('input')); })()")
    page.wait_for("document.getElementById('snapshots').dataset.shown === %s"
                  % js_str(str(len(steps) - 1)), 30, "the last snapshot again")

    # Per snapshot: its own largest |value|, fully coloured.
    set_value(page, "#snap-control .scale-mode", "snapshot")
    wait_clip(page, last_max, "the last snapshot's own scale")
    st = snapshot_state(page)
    if not close(label_value(st["max"]), last_max, 5e-3):
        raise CdpError("per snapshot: bar %s, expected %g" % (st["max"], last_max))
    check_strength(st, data, last_max, "per snapshot")
    if max(c["strength"] for c in st["canvases"]) != 255:
        raise CdpError("per snapshot: no fully coloured pixel: %r" % st["canvases"])

    # Clip percentile 90 of this snapshot's |values|.
    set_value(page, "#snap-control .scale-mode", "percentile")
    set_value(page, "#snap-control .scale-pct", "90")
    p90 = percentile_abs([data[n] for n in last], 90)
    wait_clip(page, p90, "the 90th percentile")
    st = snapshot_state(page)
    print("percentile 90: %s (expected %.4g): %s" % (st["max"], p90, st["caption"]))
    if not close(label_value(st["max"]), p90, 5e-3) or "90th percentile" not in st["caption"]:
        raise CdpError("percentile: bar %s / %r, expected %g" % (st["max"], st["caption"], p90))
    check_strength(st, data, p90, "percentile 90")
    env.screenshot("percentile")

    # The choice belongs to this job: another job opens with the default.
    page.eval("location.hash = '#/job/%d'" % other)
    page.wait_for("document.getElementById('snapshots').dataset.shown !== undefined && "
                  "document.querySelector('#snap-control .scale-mode').value", 60,
                  "the other job's snapshots")
    mode = page.eval("document.querySelector('#snap-control .scale-mode').value")
    if mode != "job":
        raise CdpError("another job opened with scale %r, not the default" % mode)
    page.eval("location.hash = '#/job/%d'" % job)
    page.wait_for("document.getElementById('snapshots').dataset.shown === %s"
                  % js_str(str(len(steps) - 1)), 60, "this job again")
    kept = page.eval("[document.querySelector('#snap-control .scale-mode').value,"
                     " document.querySelector('#snap-control .scale-pct').value]")
    if kept != ["percentile", "90"]:
        raise CdpError("this job's scale was not kept: %r" % kept)

    # A job without raw snapshots: its PNGs as the engine drew them, and the page says
    # each is scaled to its own maximum.
    page.eval("location.hash = '#/job/%d'" % png_only)
    page.wait_for("document.getElementById('snapshots').dataset.mode === 'png' &&"
                  " [...document.querySelectorAll('#snapshots img')]"
                  ".some(i => i.complete && i.naturalWidth === 48)", 60, "the PNG snapshots")
    note = page.eval("document.querySelector('#snap-control .scale-caption').textContent")
    if "each scaled to its own largest |value|" not in note or \
            not page.eval("document.querySelector('#snap-control .scalebar').hidden"):
        raise CdpError("PNG-only snapshots without the note: %r" % note)
    page.eval("location.hash = '#/job/%d'" % job)
    page.wait_for("document.getElementById('snapshots').dataset.shown === %s"
                  % js_str(str(len(steps) - 1)), 60, "back to the first job")

    # The gather: axes and scale.
    page.wait_for("document.getElementById('gather-canvas').dataset.drawn === '1'", 60,
                  "the gather")
    gf = next(f for f in man["files"] if f["kind"] == "gather" and f["format"] == "raw-f32")
    ns, nrec = gf["dims"]
    g = floats(http(d.url, "GET", gf["url"])[1])
    dt = gf["sample_interval"]
    axes = page.eval("""(() => {
        const svg = document.getElementById('gather-svg');
        const side = (s) => {
          const g = svg.querySelector('.axis-' + s);
          return g ? {title: g.querySelector('.axis-title').textContent,
                      ticks: [...g.querySelectorAll('.tick-label')].map(t => [t.textContent,
                        Number(t.getAttribute(s === 'left' ? 'y' : 'x'))])} : null;
        };
        const f = svg.querySelector('.axis-frame');
        return {left: side('left'), bottom: side('bottom'), top: side('top'),
                frame: ['x', 'y', 'width', 'height'].map(a => Number(f.getAttribute(a)))};
    })()""")
    print("gather axes: %s %s, %s %s, %s %s" % (
        axes["left"]["title"], [t[0] for t in axes["left"]["ticks"]],
        axes["bottom"]["title"], [t[0] for t in axes["bottom"]["ticks"]],
        axes["top"]["title"], [t[0] for t in axes["top"]["ticks"]]))
    if (axes["left"]["title"], axes["bottom"]["title"], axes["top"]["title"]) != \
            ("time (s)", "receiver", "offset (m)"):
        raise CdpError("gather axis titles: %r" % axes)
    fx, fy, fw, fh = axes["frame"]
    times = axes["left"]["ticks"]
    if len(times) < 3:
        raise CdpError("too few time ticks: %r" % times)
    for label, y in times:
        t = float(label)
        if not 0 <= t <= (ns - 1) * dt + 1e-9:
            raise CdpError("time tick %s outside 0..%g s" % (label, (ns - 1) * dt))
        want_y = fy + (t / dt + 0.5) / ns * fh  # sample t/dt is drawn in row t/dt
        if abs(y - want_y) > 0.5:
            raise CdpError("time tick %s at y %g, its sample is drawn at %g" % (label, y, want_y))
    line = SPEC["receivers"]["lines"][0]
    src = SPEC["sources"][0]["position"]
    for (k, x), (off, x2) in zip(axes["bottom"]["ticks"], axes["top"]["ticks"]):
        r = int(k) - 1
        rx = line["from"][0] + r * (line["to"][0] - line["from"][0]) / (line["count"] - 1)
        if not 0 <= r < nrec or int(off) != round(rx - src[0]) or x != x2:
            raise CdpError("receiver %s: offset label %s, expected %d" % (k, off, round(rx - src[0])))
        if abs(x - (fx + (r + 0.5) / nrec * fw)) > 0.5:
            raise CdpError("receiver %s's tick is not over its column" % k)
    gclip = page.eval("Number(document.getElementById('gather-control').dataset.clip)")
    if not close(gclip, max_abs(g)):
        raise CdpError("gather scale %g, its largest |amplitude| is %g" % (gclip, max_abs(g)))
    set_value(page, "#gather-control .scale-mode", "percentile")
    set_value(page, "#gather-control .scale-pct", "95")
    want = percentile_abs([g], 95)
    page.wait_for("Math.abs(Number(document.getElementById('gather-control').dataset.clip)"
                  " - %r) <= %r" % (want, want * 1e-6), 30, "the gather's 95th percentile")

    # Wiggles: black traces, no colour, no colour ramp.
    set_value(page, "#gather-style", "wiggle")
    page.wait_for("document.getElementById('gather-canvas').dataset.style === 'wiggle'", 30,
                  "the wiggle view")
    px = page.eval("""(() => {
        const c = document.getElementById('gather-canvas');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let dark = 0, red = 0;
        for (let i = 0; i < d.length; i += 4) {
          if (d[i] < 80 && d[i + 1] < 80 && d[i + 2] < 80) dark++;
          if (d[i] > 200 && d[i + 1] < 120) red++;
        }
        return [dark, red, document.querySelector('#gather-control .scale-ramp').hidden];
    })()""")
    print("wiggles: %d dark pixels, %d red, ramp hidden %s" % tuple(px))
    if px[0] < 1000 or px[1] != 0 or not px[2]:
        raise CdpError("the wiggle view is not black traces without colour: %r" % px)
    page.eval("document.getElementById('gather-plot').scrollIntoView()")
    env.screenshot("wiggle")


if __name__ == "__main__":
    sys.exit(main(run, __doc__))
