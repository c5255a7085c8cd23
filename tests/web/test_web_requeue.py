"""test_web_requeue.py — a job re-queued by a daemon restart while its page is open, in
headless Chromium against a real fdwaved (webtest.py): the page follows the job across
the restart (the event stream reconnects with Last-Event-ID), says "Re-queued after a
restart" with the progress the job had reached, starts its progress bar again from 0,
and follows the second run to the end.

usage: test_web_requeue.py --daemon PATH --web DIR --out SCREENSHOT.png
"""
import re
import sys

from cdp import CdpError
from webtest import http, main, submit

# About 5 s of work on one CPU thread: caught running, then run again in full.
SPEC = {
    "kind": "acoustic", "name": "web requeue",
    "grid": {"nx": 64, "ny": 64, "nz": 64, "dx": 10, "dy": 10, "dz": 10},
    "order": 8,
    "velocity": {"type": "constant", "value": 2000},
    "time": {"nt": 6000, "dt": "auto"},
    "sources": [{"position": [320, 320, 320], "wavelet": {"type": "ricker", "f0": 10}}],
    "boundary": {"type": "sponge", "width": 8},
}


def percent(page):
    return float(page.eval("document.getElementById('job-progress-text').textContent")
                 .rstrip("%"))


def run(env):
    d = env.daemon()
    page = env.page
    job = submit(d.url, SPEC)
    page.call("Page.navigate", url=d.url + "/#/job/%d" % job)
    page.wait_for("parseFloat(document.getElementById('job-progress-text').textContent) >= 5",
                  60, "the job to reach 5%")
    before = percent(page)
    if not page.eval("document.getElementById('job-notice').hidden"):
        raise CdpError("a notice before any restart")
    # Every value the progress text takes from now on, in order.
    page.eval("window.seen = []; new MutationObserver(() => window.seen.push("
              "document.getElementById('job-progress-text').textContent)).observe("
              "document.getElementById('job-progress-text'), {childList: true,"
              " characterData: true, subtree: true})")
    d.restart()
    notice = page.wait_for("(() => { const n = document.getElementById('job-notice');"
                           " return !n.hidden && n.textContent; })()", 60,
                           "the re-queue notice")
    print("notice: %s" % notice)
    m = re.search(r"it had reached (\d+\.\d)%", notice)
    if not notice.startswith("Re-queued after a restart") or not m or \
            float(m.group(1)) < before:
        raise CdpError("the notice does not say what happened (reached >= %.1f%%): %r"
                       % (before, notice))
    page.wait_for("document.getElementById('job-state').textContent === 'succeeded'", 120,
                  "the job to succeed")
    if percent(page) != 100.0:
        raise CdpError("the job succeeded at %s%%" % percent(page))
    # The log tells the story: progress up to the restart, the re-queue, then progress
    # from the start again up to 100%.
    log = page.eval("[...document.querySelectorAll('#events-log li')].map(l => l.textContent)")
    at = next((i for i, l in enumerate(log) if l.startswith("requeued: ")), None)
    if at is None or not log[at - 1].startswith("state: queued (re-queued"):
        raise CdpError("the event log does not show the re-queue: %r" % log)
    def pct(lines):
        return [float(l.split()[1].rstrip("%")) for l in lines if l.startswith("progress: ")]

    first, second = pct(log[:at]), pct(log[at:])
    print("progress before the restart %s, after %s" % (first, second))
    if not first or not second or second[-1] != 100.0 or second != sorted(second) or \
            "state: running" not in log[at:]:
        raise CdpError("the second run is not followed to its end: %r / %r" % (first, second))
    # On the page the bar went back to 0 at the re-queue, then up again to 100%.
    seen = [float(v.rstrip("%")) for v in page.eval("window.seen")]
    print("progress shown since the restart: %s" % seen)
    if 0.0 not in seen or seen[seen.index(0.0):][-1] != 100.0 or \
            seen[seen.index(0.0):] != sorted(seen[seen.index(0.0):]):
        raise CdpError("the progress bar did not start again from 0: %r" % seen)
    _, j = http(d.url, "GET", "/v1/jobs/%d" % job)
    if j["state"] != "succeeded":
        raise RuntimeError("the API says %r" % j["state"])
    if page.eval("document.getElementById('job-notice').hidden"):
        raise CdpError("the notice went away: it is the job's history")
    env.screenshot()


if __name__ == "__main__":
    sys.exit(main(run, __doc__))
