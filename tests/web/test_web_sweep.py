"""test_web_sweep.py — a sweep job's page (issue 20), in headless Chromium against a real
fdwaved (webtest.py): the convergence plot and table (one point and one row per sweep, the
same numbers as the manifest's convergence record, the caption saying it converged) and
the slice images with isochrons (every PNG of kind "slice" the job wrote, loaded at the
grid's size).

usage: test_web_sweep.py --daemon PATH --web DIR --out SCREENSHOT.png
"""
from cdp import CdpError
from webtest import http, main, submit, wait_job

SPEC = {
    "kind": "sweep", "name": "web sweep: a fold's first arrivals",
    "grid": {"nx": 40, "ny": 36, "nz": 32, "dx": 0.25, "dy": 0.25, "dz": 0.25},
    "F": 1.1, "psi": 1.0, "a": [-0.34, 0.4, 0.7],
    "initial": {"surface": {"type": "sinusoid", "z0": 3.5, "amplitude": [0.8, 0.4],
                            "wavelength": [6, 8]}},
    "sweeps": "auto", "tolerance": 1e-6,
    "output": {"volume": "f32", "slices": [{"plane": "xz", "index": 18},
                                           {"plane": "yz", "index": 20}], "isochrons": 10},
}


def run(env):
    d = env.daemon()
    page = env.page
    job = submit(d.url, SPEC)
    if wait_job(d.url, job)["state"] != "succeeded":
        raise RuntimeError("job %d did not succeed" % job)
    _, man = http(d.url, "GET", "/v1/jobs/%d/outputs" % job)
    conv = man["convergence"]
    sweeps = conv["sweeps"]
    slices = [f["name"] for f in man["files"] if f["kind"] == "slice"]
    print("the job: %d sweeps, converged %s, slices %s" % (sweeps, conv["converged"], slices))
    if not conv["converged"] or sweeps < 2 or len(slices) != 2:
        raise RuntimeError("the job should converge in 2 or more sweeps and write 2 slices: "
                           "%r" % conv)

    page.call("Page.navigate", url=d.url + "/#/job/%d" % job)
    page.wait_for("(() => { const b = document.getElementById('sweep-box'); return !b.hidden"
                  " && document.getElementById('conv-caption').textContent.startsWith("
                  "'converged'); })()", 60, "the convergence view")
    page.wait_for("[...document.querySelectorAll('#sweep-slices img')].length === 2 && "
                  "[...document.querySelectorAll('#sweep-slices img')].every(i => i.complete"
                  " && i.naturalWidth > 0)", 60, "the slice images")
    got = page.eval("""(() => ({
        caption: document.getElementById('conv-caption').textContent,
        points: document.querySelectorAll('#conv-svg circle.conv-point').length,
        rows: [...document.querySelectorAll('#conv-table tr')].slice(1).map(r =>
            [...r.cells].map(c => c.textContent)),
        ylabel: document.querySelector('#conv-svg .axis-left .axis-title').textContent,
        images: [...document.querySelectorAll('#sweep-slices img')].map(i =>
            ({name: i.alt, w: i.naturalWidth, h: i.naturalHeight})),
    }))()""")
    print("page: %s; %d points; images %s" % (got["caption"], got["points"], got["images"]))
    if got["caption"] != "converged after %d sweeps" % sweeps:
        raise CdpError("caption %r" % got["caption"])
    if got["points"] != sweeps or len(got["rows"]) != sweeps:
        raise CdpError("%d points and %d rows for %d sweeps" % (got["points"], len(got["rows"]),
                                                                sweeps))
    for row, rec in zip(got["rows"], conv["per_sweep"]):
        want = [str(rec["sweep"]), "0" if rec["max_change"] == 0 else
                "%.3e" % rec["max_change"], str(rec["changed"]), str(rec["reached"]),
                str(rec["computed"])]
        if float(row[1]) != float(want[1]) or row[0] != want[0] or row[2:] != want[2:]:
            raise CdpError("table row %r, manifest %r" % (row, rec))
    if got["ylabel"] != "largest change":
        raise CdpError("axis title %r" % got["ylabel"])
    sizes = {"T_xz_j18.png": (40, 32), "T_yz_i20.png": (36, 32)}
    for im in got["images"]:
        if (im["w"], im["h"]) != sizes.get(im["name"]):
            raise CdpError("image %s is %dx%d" % (im["name"], im["w"], im["h"]))
    env.screenshot()


if __name__ == "__main__":
    raise SystemExit(main(run, __doc__))
