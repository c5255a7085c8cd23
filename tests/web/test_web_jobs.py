"""test_web_jobs.py — the job list's pages and filters, and the health line following the
events the page receives, in headless Chromium against a real fdwaved (webtest.py).

- 13 small jobs named alpha-N / beta-N, one of them cancelled: with 10 a page the list
  shows the 10 newest, Older shows the rest, Newer goes back; the name filter (any part
  of the name, ASCII case ignored) and the state filter show exactly the jobs the API
  holds that match, pages included. Every expectation comes from what the API lists.
- The health line: a job waits behind a job that holds both devices, with its page
  open; when the blocker is cancelled the job starts, and the health line says
  "1 running" at once, updated by the job's own state event (data-reason "event"), not
  by the slow fallback timer; when the job is cancelled from the page it says
  "0 running" the same way.

usage: test_web_jobs.py --daemon PATH --web DIR --out SCREENSHOT.png
"""
import sys
import time

from cdp import CdpError
from webtest import http, js_str, main, set_value, submit, wait_job

TINY = {
    "kind": "acoustic",
    "grid": {"nx": 16, "ny": 16, "nz": 16, "dx": 10, "dy": 10, "dz": 10},
    "order": 4,
    "velocity": {"type": "constant", "value": 2000},
    "time": {"nt": 10, "dt": "auto"},
    "sources": [{"position": [80, 80, 80], "wavelet": {"type": "ricker", "f0": 25}}],
    "boundary": {"type": "sponge", "width": 3},
}


def long_job(name, nt, devices=1):
    return dict(TINY, name=name, devices=devices,
                grid={"nx": 64, "ny": 64, "nz": 64, "dx": 10, "dy": 10, "dz": 10},
                time={"nt": nt, "dt": "auto"},
                sources=[{"position": [320, 320, 320],
                          "wavelet": {"type": "ricker", "f0": 10}}])


def rows(page):
    return page.eval("[...document.querySelectorAll('#jobs-table tbody tr')]"
                     ".map(r => Number(r.dataset.id))")


def api_ids(url, query):
    """Every job id the API lists for query, following its pages."""
    out, path = [], "/v1/jobs?limit=500" + query
    while path:
        _, page = http(url, "GET", path)
        out += [j["id"] for j in page["jobs"]]
        path = page["next"]
    return out


def wait_rows(page, ids, what):
    page.wait_for("JSON.stringify([...document.querySelectorAll('#jobs-table tbody tr')]"
                  ".map(r => Number(r.dataset.id))) === %s" % js_str(str(ids).replace(" ", "")),
                  30, "%s: rows %s" % (what, ids))


def run(env):
    d = env.daemon()
    page = env.page
    names = ["%s-%d" % ("alpha" if i % 2 else "beta", i) for i in range(1, 13)]
    for n in names:
        wait_job(d.url, submit(d.url, dict(TINY, name=n)))
    cancelled = submit(d.url, long_job("beta-cancelled", 100000))
    http(d.url, "POST", "/v1/jobs/%d/cancel" % cancelled)
    wait_job(d.url, cancelled)
    every = api_ids(d.url, "")
    if len(every) != 13:
        raise RuntimeError("expected 13 jobs, the API lists %r" % every)

    page.call("Page.navigate", url=d.url + "/#/")
    page.wait_for("document.querySelectorAll('#jobs-table tbody tr').length > 0", 30,
                  "the job list")
    set_value(page, "#jobs-limit", "10", "change")
    wait_rows(page, every[:10], "first page of 10")
    if page.eval("document.getElementById('jobs-newer').disabled") is not True or \
            page.eval("document.getElementById('jobs-older').disabled") is not False:
        raise CdpError("on the first page Newer must be off and Older on")
    page.eval("document.getElementById('jobs-older').click()")
    wait_rows(page, every[10:], "second page")
    if page.eval("document.getElementById('jobs-older').disabled") is not True:
        raise CdpError("Older is on while there is no older job")
    print("pages of 10: %s / %s (%s)" % (every[:10], every[10:],
                                         page.eval("document.getElementById('jobs-page')"
                                                   ".textContent")))
    page.eval("document.getElementById('jobs-newer').click()")
    wait_rows(page, every[:10], "back to the first page")

    # Name filter: any part of the name, case aside; pages kept within the filter.
    set_value(page, "#jobs-name", "BETA", "input")
    betas = api_ids(d.url, "&name=BETA")
    if not betas or any("beta" not in http(d.url, "GET", "/v1/jobs/%d" % i)[1]["name"]
                        for i in betas):
        raise RuntimeError("the API's name filter: %r" % betas)
    wait_rows(page, betas[:10], "name filter BETA")
    set_value(page, "#jobs-name", "a-1", "input")
    a1 = api_ids(d.url, "&name=a-1")
    by_id = dict(zip(range(1, 14), names + ["beta-cancelled"]))
    if sorted(a1) != sorted(i for i in every if "a-1" in by_id[i]):
        raise RuntimeError("the API's name filter a-1: %r" % a1)
    wait_rows(page, a1, "name filter a-1")
    # State filter, with and without the name.
    set_value(page, "#jobs-name", "", "input")
    set_value(page, "#jobs-state", "cancelled", "change")
    wait_rows(page, [cancelled], "state cancelled")
    set_value(page, "#jobs-state", "succeeded", "change")
    set_value(page, "#jobs-name", "alpha", "input")
    wait_rows(page, api_ids(d.url, "&state=succeeded&name=alpha"), "succeeded alpha jobs")
    set_value(page, "#jobs-name", "gamma", "input")
    page.wait_for("!document.getElementById('jobs-empty').hidden && document.getElementById("
                  "'jobs-empty-text').textContent === 'No jobs match.'", 30,
                  "no match for gamma")
    set_value(page, "#jobs-name", "", "input")
    set_value(page, "#jobs-state", "", "change")
    wait_rows(page, every[:10], "filters cleared")
    env.screenshot("list")

    # Health line: follows the job's state events.
    blocker = submit(d.url, long_job("blocker", 400000, devices=2))
    wait_job(d.url, blocker, states=("running",))
    job = submit(d.url, long_job("health watch", 400000))
    page.eval("location.hash = '#/job/%d'" % job)
    page.wait_for("document.getElementById('job-state').textContent === 'queued'", 30,
                  "the job page, queued")
    page.wait_for("document.getElementById('health').textContent.includes('1 running') &&"
                  " document.getElementById('health').textContent.includes('1 queued')",
                  30, "the health line with the blocker running and the job queued")
    t0 = time.monotonic()
    http(d.url, "POST", "/v1/jobs/%d/cancel" % blocker)
    page.wait_for("document.getElementById('job-state').textContent === 'running'", 30,
                  "the job to start")
    health = page.wait_for(
        "(() => { const h = document.getElementById('health');"
        " return h.dataset.reason === 'event' && h.textContent.includes('0 queued') &&"
        " h.textContent.includes('1 running') && h.textContent; })()", 10,
        "the health line to show the job running, from its event")
    print("health after the job started (%.1f s): %s" % (time.monotonic() - t0, health))
    env.screenshot()
    page.eval("document.getElementById('job-cancel').click()")
    health = page.wait_for(
        "(() => { const h = document.getElementById('health');"
        " return document.getElementById('job-state').textContent === 'cancelled' &&"
        " h.dataset.reason === 'event' && h.textContent.includes('0 running') &&"
        " h.textContent; })()", 30, "the health line after the job was cancelled")
    print("health after cancelling it: %s" % health)


if __name__ == "__main__":
    sys.exit(main(run, __doc__))
