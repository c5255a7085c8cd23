"""test_web_survey.py — a survey job's page (issue 14), in headless Chromium against a real
fdwaved (webtest.py): while it runs, its progress line says how many shots are done of how
many and which shot the steps are of ("shots 1/6 · shot 2 step ..."); once it has
succeeded, "shots 6/6"; the gather view lists the six shots (number and source position),
draws the first shot's SEG-Y and another shot's when it is picked. The grid is sized so that a shot
takes seconds on a loaded 2-core CI machine: with 0.4 s shots the job could end before Chromium
had drawn the page, and the live line was never seen.

usage: test_web_survey.py --daemon PATH --web DIR --out SCREENSHOT.png
"""
from cdp import CdpError
from webtest import http, main, submit, wait_job

SPEC = {
    "kind": "acoustic", "name": "web survey: six shots along a line",
    "grid": {"nx": 64, "ny": 96, "nz": 32, "dx": 10, "dy": 10, "dz": 10},
    "velocity": {"type": "layered", "layers": [{"top": 0, "v": 1500}, {"top": 160, "v": 2200}]},
    "time": {"nt": 600, "dt": "auto"},
    "boundary": {"type": "cpml", "width": 5, "free_surface": True},
    "survey": {"generate": {"first": [80, 60, 20], "step": [90, 0, 0], "count": 6},
               "wavelet": {"type": "ricker", "f0": 12}, "outside": "drop",
               "spread": {"lines": [{"from": [-70, 0, -10], "to": [70, 0, -10], "count": 15}]}},
    "receivers": {"interval": 2},
    "devices": 1,
}

DETAIL = "document.getElementById('job-progress-detail').textContent"
GATHER_CAPTION = "document.getElementById('gather-caption').textContent"


def run(env):
    d = env.daemon()
    page = env.page
    job = submit(d.url, SPEC)
    page.call("Page.navigate", url=d.url + "/#/job/%d" % job)
    page.wait_for("/^shots \\d+\\/6 · shot \\d+ step \\d+\\/600/.test(%s)" % DETAIL, 90,
                  "the survey's live progress")
    live = page.eval(DETAIL)
    print("live: %s" % live)
    if wait_job(d.url, job)["state"] != "succeeded":
        raise RuntimeError("job %d did not succeed" % job)
    _, man = http(d.url, "GET", "/v1/jobs/%d/outputs" % job)
    if man["survey"]["shots_done"] != 6 or man["survey"]["all_shots"] != "all_shots.sgy":
        raise RuntimeError("manifest survey %r" % man["survey"])
    page.call("Page.navigate", url="about:blank")  # the page loaded afresh, from the job
    page.wait_for("document.location.href === 'about:blank'", 10, "a blank page")
    page.call("Page.navigate", url=d.url + "/#/job/%d" % job)
    page.wait_for("%s.startsWith('shots 6/6')" % DETAIL, 60, "the finished survey's progress")
    done = page.eval(DETAIL)
    print("finished: %s" % done)
    if "shots 6/6" not in done:
        raise CdpError("progress line %r" % done)
    # the gather chooser: one entry per shot, the first drawn, another drawn when picked
    page.wait_for("document.getElementById('gather-canvas').dataset.drawn === '1'", 60,
                  "the first shot's gather")
    opts = page.eval("[...document.getElementById('gather-file').options]"
                     ".map((o) => o.textContent)")
    print("gathers: %s" % opts)
    if len(opts) != 6 or not opts[2].startswith("shot 3 (source 260, 60, 20 m)"):
        raise CdpError("gather chooser %r" % opts)
    if page.eval("document.getElementById('gather-pick').hidden"):
        raise CdpError("the gather chooser is hidden")
    cap = page.eval(GATHER_CAPTION)
    if not cap.startswith("shot_0001.sgy"):
        raise CdpError("first gather caption %r" % cap)
    page.eval("(() => { const s = document.getElementById('gather-file'); s.value = '2'; "
              "s.dispatchEvent(new Event('change')); return 1; })()")
    page.wait_for("%s.startsWith('shot_0003.sgy')" % GATHER_CAPTION, 30, "shot 3's gather")
    print("picked: %s" % page.eval(GATHER_CAPTION))
    env.screenshot()


if __name__ == "__main__":
    raise SystemExit(main(run, __doc__))
