"""test_web_imaging.py — an rtm survey's image stacking up on the job page (issue 27), then
a gradient survey's gradient, in headless Chromium against a real fdwaved (webtest.py) with
an allow-dir for the data.

The observed traces of three shots are written here (float32 [shot][receiver][sample]: a
Ricker pulse on a hyperbola per shot, as a flat reflector would give; the numbers need not
be physical), and an rtm survey of them is submitted while a blocking job holds both of the
daemon's devices, so that the page is open before the first shot is added. Then the blocker
is cancelled and the test waits (on the page's DOM, never a fixed sleep) until:

- while the job runs, an image slice figure has shown a partial stack ("stack of k of 3
  shots"), one figure per slice: the newest stack replaces the last;
- once the job has ended, the slider's last position is the final image, and stepping back
  shows "stack of 3 of 3 shots" and "stack of 1 of 3 shots";
- the same after the page is loaded afresh from the finished job;
- a gradient survey of the same traces, its page opened after it ended: "final gradient"
  figures (xz and yz) behind three partial stacks of the gradient, stepping back to
  "stack of 1 of 3 shots";
- each figure has axes in metres from the spec's grid (x (m) or y (m) across, from its
  non-zero origin, depth z (m) down), its tick labels within the grid, a colour bar
  symmetric about 0 whose values are the manifest's max_abs of the slice's float32 file,
  and a canvas that is not blank (red and blue pixels, drawn at that clip).

usage: test_web_imaging.py --daemon PATH --web DIR --out SCREENSHOT.png
"""
import math
import os
import re
import struct

from cdp import CdpError
from webtest import http, js_str, main, set_value, submit, wait_job

NSHOT, NREC, NT, INTERVAL = 3, 16, 500, 2
NS = NT // INTERVAL + 1
ORIGIN = [1000.0, 2000.0, 0.0]
GRID = {"nx": 56, "ny": 32, "nz": 48, "dx": 10, "dy": 10, "dz": 10, "origin": ORIGIN}
DT = 0.0015


def rtm_spec(data):
    """Three shots along x, sixteen fixed receivers; the grid is sized so that a shot takes
    about a second on the CPU backend (the partial stacks come seconds apart)."""
    return {
        "kind": "rtm", "name": "web imaging: a three-shot rtm survey",
        "grid": GRID,
        "velocity": {"type": "constant", "value": 2000},
        "time": {"nt": NT, "dt": DT},
        "boundary": {"type": "sponge", "width": 8},
        "survey": {"generate": {"first": [1150, 2160, 40], "step": [120, 0, 0],
                                "count": NSHOT},
                   "wavelet": {"type": "ricker", "f0": 15}},
        "receivers": {"lines": [{"from": [1080, 2120, 40], "to": [1480, 2120, 40],
                                 "count": NREC}], "interval": INTERVAL},
        "data": {"format": "raw-f32", "path": data},
        "imaging": {"illumination": True},
        "devices": 1,
    }


def gradient_spec(data):
    """The rtm survey's shots and traces as a gradient survey (the residual's image)."""
    spec = rtm_spec(data)
    del spec["imaging"]
    spec.update(kind="gradient", name="web imaging: a three-shot gradient survey")
    return spec


BLOCKER = {
    "kind": "acoustic", "name": "web imaging: holds the devices",
    "grid": {"nx": 64, "ny": 64, "nz": 64, "dx": 10, "dy": 10, "dz": 10},
    "velocity": {"type": "constant", "value": 2000},
    "time": {"nt": 200000, "dt": "auto"},
    "sources": [{"position": [320, 320, 320], "wavelet": {"type": "ricker", "f0": 15}}],
    "devices": 2,
}


def write_traces(path):
    """A Ricker pulse (15 Hz) at the two-way time of a reflector 300 m below the line."""
    out = bytearray()
    for s in range(NSHOT):
        sx = 1150 + 120 * s
        for r in range(NREC):
            rx = 1080 + r * (400 / (NREC - 1))
            t0 = 2 * math.hypot((rx - sx) / 2, 300) / 2000
            for k in range(NS):
                a = (math.pi * 15 * (k * INTERVAL * DT - t0)) ** 2
                out += struct.pack("<f", (1 - 2 * a) * math.exp(-a))
    with open(path, "wb") as f:
        f.write(out)


# Every image slice figure on the page: its caption, axes, colour bar and pixels.
FIGURES = """[...document.querySelectorAll('#snapshots figure.image-slice')].map((f) => {
  const cv = f.querySelector('canvas');
  let red = 0, blue = 0, other = 0;
  if (cv) {
    const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i] === 255 && d[i + 2] < 255) red++;
      else if (d[i + 2] === 255 && d[i] < 255) blue++;
      else if (!(d[i] === 255 && d[i + 1] === 255 && d[i + 2] === 255)) other++;
    }
  }
  const texts = (sel) => [...f.querySelectorAll(sel)].map((t) => t.textContent);
  return {
    name: f.dataset.name, plane: f.dataset.plane, volume: f.dataset.volume,
    stack: f.querySelector('.image-stack').textContent,
    caption: f.querySelector('figcaption').textContent,
    canvas: cv ? [cv.width, cv.height] : null, clip: cv ? Number(cv.dataset.clip) : null,
    red, blue, other,
    left: texts('.axis-left .axis-title'), bottom: texts('.axis-bottom .axis-title'),
    leftTicks: texts('.axis-left .tick-label'), bottomTicks: texts('.axis-bottom .tick-label'),
    max: texts('.scale-max'), min: texts('.scale-min'), mid: texts('.scale-mid'),
    units: texts('.image-units'),
  };
})"""

BOX = "document.getElementById('snapshots')"


def label_value(text):
    return float(text.replace("\u2212", "-").lstrip("+"))


def check_figures(figs, want_stack, entries, volumes=("image", "illumination")):
    """The figures of one position of the slider: each volume's xz and yz slices;
    want_stack None: the final volumes ("final image", "final illumination")."""
    if len(figs) != 2 * len(volumes) or {f["volume"] for f in figs} != set(volumes):
        raise CdpError("%d image figures (want %s, xz and yz): %r"
                       % (len(figs), " and ".join(volumes), figs))
    for f in figs:
        want = want_stack or "final " + f["volume"]
        if f["stack"] != want:
            raise CdpError("caption %r, want %r" % (f["stack"], want))
        e = entries.get(f["name"])
        if not e or e["format"] != "raw-f32":
            raise CdpError("figure %s is not drawn from a raw-f32 file of the manifest"
                           % f["name"])
        across = "x" if f["plane"] == "xz" else "y"
        if f["bottom"] != ["%s (m)" % across] or f["left"] != ["depth z (m)"]:
            raise CdpError("%s: axis titles %r %r" % (f["name"], f["bottom"], f["left"]))
        n = GRID["nx"] if across == "x" else GRID["ny"]
        lo = ORIGIN[0] if across == "x" else ORIGIN[1]
        ticks = [float(t) for t in f["bottomTicks"]]
        if len(ticks) < 3 or min(ticks) < lo or max(ticks) > lo + (n - 1) * 10:
            raise CdpError("%s: %s ticks %r outside the grid [%g, %g] m"
                           % (f["name"], across, ticks, lo, lo + (n - 1) * 10))
        depths = [float(t) for t in f["leftTicks"]]
        if len(depths) < 3 or min(depths) < 0 or max(depths) > (GRID["nz"] - 1) * 10:
            raise CdpError("%s: depth ticks %r" % (f["name"], depths))
        if f["canvas"] != [n, GRID["nz"]]:
            raise CdpError("%s: canvas %r" % (f["name"], f["canvas"]))
        m = e["max_abs"]
        if not (m > 0) or not math.isclose(f["clip"], m, rel_tol=1e-6):
            raise CdpError("%s: drawn at clip %r, manifest max_abs %r" % (f["name"], f["clip"], m))
        if len(f["max"]) != 1 or not math.isclose(label_value(f["max"][0]), m, rel_tol=6e-3) \
                or not math.isclose(label_value(f["min"][0]), -m, rel_tol=6e-3) \
                or f["mid"] != ["0"]:
            raise CdpError("%s: colour bar %r %r %r, max_abs %r"
                           % (f["name"], f["min"], f["mid"], f["max"], m))
        if f["volume"] in ("image", "gradient") and (f["red"] == 0 or f["blue"] == 0):
            raise CdpError("%s: the image is blank or one-signed: %d red, %d blue"
                           % (f["name"], f["red"], f["blue"]))
        if f["red"] + f["blue"] + f["other"] == 0:
            raise CdpError("%s: the canvas is blank" % f["name"])
        if f["other"]:
            raise CdpError("%s: %d pixels off the blue-white-red map" % (f["name"], f["other"]))


def run(env):
    allow = os.path.join(env.tmp, "allow")
    os.makedirs(allow)
    data = os.path.join(allow, "shots.f32")
    write_traces(data)
    d = env.daemon(extra=["--allow-dir", allow])
    page = env.page
    blocker = submit(d.url, BLOCKER)
    wait_job(d.url, blocker, states=("running",), timeout=60)
    job = submit(d.url, rtm_spec(data))
    page.call("Page.navigate", url=d.url + "/#/job/%d" % job)
    page.wait_for("document.getElementById('job-state').textContent === 'queued'", 30,
                  "the rtm job's page, queued behind the blocker")
    # Every stack caption the page shows, with the job's state at the time.
    page.eval("""(() => {
      window.seen = [];
      const box = document.getElementById('snapshots');
      new MutationObserver(() => {
        for (const f of box.querySelectorAll('figure.image-slice')) {
          const s = f.querySelector('.image-stack').textContent;
          const st = document.getElementById('job-state').textContent;
          const n = box.querySelectorAll('figure.image-slice').length;
          const last = window.seen[window.seen.length - 1];
          if (!last || last.stack !== s || last.n !== n) window.seen.push({stack: s, state: st, n});
        }
      }).observe(box, {childList: true, subtree: true});
      return 1;
    })()""")
    status, _ = http(d.url, "POST", "/v1/jobs/%d/cancel" % blocker)
    if status not in (200, 202):
        raise RuntimeError("cancelling the blocker answered %s" % status)
    live = ("window.seen.some((s) => /^stack of \\d of 3 shots$/.test(s.stack) && "
            "s.state === 'running')")
    page.wait_for("%s || ['succeeded', 'failed', 'cancelled'].includes("
                  "document.getElementById('job-state').textContent)" % live, 120,
                  "a partial stack shown while the job runs, or the job's end")
    if not page.eval(live):
        raise CdpError("no partial stack was shown while the job ran: %r"
                       % page.eval("window.seen"))
    j = wait_job(d.url, job, timeout=180)
    if j["state"] != "succeeded":
        raise RuntimeError("rtm job %d: %s (%s)" % (job, j["state"], j.get("reason")))
    page.wait_for("%s.dataset.image === 'final image'" % BOX, 60, "the final image")
    seen = page.eval("window.seen")
    print("captions seen: %s" % [(s["stack"], s["state"], s["n"]) for s in seen])
    if any(s["n"] != 4 for s in seen):
        raise CdpError("figures piled up instead of the newest replacing the last: %r" % seen)
    stacks = [int(s["stack"].split()[2]) for s in seen if s["stack"].startswith("stack of")]
    if stacks != sorted(stacks):
        raise CdpError("stacks shown out of order: %r" % stacks)

    _, man = http(d.url, "GET", "/v1/jobs/%d/outputs" % job)
    entries = {f["name"]: f for f in man["files"]}
    final = page.eval(FIGURES)
    print("final: %s" % [(f["name"], f["stack"], f["max"]) for f in final])
    check_figures(final, None, entries)
    if sorted(f["name"] for f in final) != sorted(
            n for n in entries if re.match(r"^(image|illumination)_(xz|yz)_[ij]\d+\.f32$", n)):
        raise CdpError("final figures %r" % [f["name"] for f in final])
    nev = int(page.eval("document.getElementById('snap-index').max")) + 1
    if nev != NSHOT + 1:
        raise CdpError("the slider has %d positions, want %d partial stacks and the final "
                       "image" % (nev, NSHOT + 1))
    for pos, k in ((NSHOT - 1, 3), (0, 1)):
        set_value(page, "#snap-index", str(pos), "input")
        want = "stack of %d of 3 shots" % k
        page.wait_for("%s.dataset.image === %s" % (BOX, js_str(want)), 30, want)
        figs = page.eval(FIGURES)
        print("%s: %s" % (want, [(f["name"], f["max"], f["red"], f["blue"]) for f in figs]))
        check_figures(figs, want, entries)
        if not all(f["name"].startswith("stack_") and "_%04d_" % k in f["name"] for f in figs):
            raise CdpError("%s shows %r" % (want, [f["name"] for f in figs]))
        cap = page.eval("document.getElementById('snapshot-caption').textContent")
        if not cap.startswith(want):
            raise CdpError("slider caption %r" % cap)
    # the page loaded afresh, from the finished job: the stacks and the final image again
    open_final(d, page, job, "final image")
    check_figures(page.eval(FIGURES), None, entries)
    set_value(page, "#snap-index", str(NSHOT - 1), "input")
    page.wait_for("%s.dataset.image === 'stack of 3 of 3 shots'" % BOX, 30, "the last stack")
    env.screenshot()
    check_gradient(d, page, data)


def open_final(d, page, job, caption):
    """The finished job's page loaded afresh: its final volume shown (caption), behind the
    survey's partial stacks."""
    page.call("Page.navigate", url="about:blank")
    page.wait_for("document.location.href === 'about:blank'", 10, "a blank page")
    page.call("Page.navigate", url=d.url + "/#/job/%d" % job)
    page.wait_for("%s.dataset.image === %s && document.getElementById('snap-index').max "
                  "=== '%d'" % (BOX, js_str(caption), NSHOT), 60,
                  "%s after a reload, behind the three stacks" % caption)


def check_gradient(d, page, data):
    """A gradient survey of the same traces, its page opened once it has ended: the final
    gradient's slices behind its three partial stacks."""
    job = submit(d.url, gradient_spec(data))
    j = wait_job(d.url, job, timeout=180)
    if j["state"] != "succeeded":
        raise RuntimeError("gradient job %d: %s (%s)" % (job, j["state"], j.get("reason")))
    _, man = http(d.url, "GET", "/v1/jobs/%d/outputs" % job)
    entries = {f["name"]: f for f in man["files"]}
    open_final(d, page, job, "final gradient")
    figs = page.eval(FIGURES)
    print("final gradient: %s" % [(f["name"], f["max"], f["units"]) for f in figs])
    check_figures(figs, None, entries, ("gradient",))
    set_value(page, "#snap-index", "0", "input")
    page.wait_for("%s.dataset.image === 'stack of 1 of 3 shots'" % BOX, 30,
                  "the gradient's first stack")
    figs = page.eval(FIGURES)
    check_figures(figs, "stack of 1 of 3 shots", entries, ("gradient",))
    if not all(f["name"].startswith("stack_gradient_0001_") for f in figs):
        raise CdpError("the gradient's first stack shows %r" % [f["name"] for f in figs])


if __name__ == "__main__":
    raise SystemExit(main(run, __doc__))
