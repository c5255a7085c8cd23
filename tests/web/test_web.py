"""test_web.py — end-to-end test of the web page (clients/web) in headless Chromium.

Starts a real fdwaved (CPU backend, ephemeral loopback port, temporary data directory)
serving clients/web, drives Debian's chromium through the DevTools protocol (cdp.py,
standard library only, no network needed): submits a bad spec and checks the server's
error with its field path is shown, submits the page's example job, waits for the live
progress to reach 100%, a snapshot <img> to load and the receiver gather to be drawn on
its canvas, checks the job list, and saves a screenshot of the job page. Then, against a
second daemon that has a token: the page is refused until the token is entered, after
which a job is followed to its end the same way (event stream and images authenticate
with ?access_token=).

usage: test_web.py --daemon PATH --web DIR --out SCREENSHOT.png
Exit 0 pass, 1 fail, 77 skip (no chromium).
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, CdpError  # noqa: E402

SKIP = 77


def find_chromium():
    for c in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if c and shutil.which(c):
            return shutil.which(c)
    return None


def add_token(exe, data, name):
    p = subprocess.run([exe, "token", "add", name, "--data", data], capture_output=True,
                       text=True, timeout=30)
    if p.returncode != 0:
        raise RuntimeError("fdwaved token add failed: %s" % p.stderr)
    return p.stdout.strip()


def start_daemon(exe, data, web):
    log_path = os.path.join(data, "daemon.log")
    log = open(log_path, "wb")
    proc = subprocess.Popen([exe, "--listen", "127.0.0.1:0", "--data", data, "--devices",
                             "cpu:2", "--backend", "cpu", "--web", web],
                            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    log.close()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with open(log_path, "rb") as f:
            m = re.search(rb"listening on (http://127\.0\.0\.1:\d+)", f.read())
        if m:
            return proc, m.group(1).decode()
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    with open(log_path) as f:
        raise RuntimeError("fdwaved did not start:\n" + f.read())


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def js_str(s):
    import json
    return json.dumps(s)


def run(page, url, shot):
    page.call("Page.enable")
    page.call("Runtime.enable")
    page.call("Page.navigate", url=url + "/#/submit")
    page.wait_for("document.readyState === 'complete' && "
                  "document.getElementById('submit-spec').value.length > 100",
                  30, "the submit form with the example spec")

    # 1. A bad spec: the server's error, with the field path, is shown on the page.
    page.eval("""(() => {
        const t = document.getElementById('submit-spec');
        const spec = JSON.parse(t.value);
        spec.sources[0].position = [5000, 320, 200];
        t.value = JSON.stringify(spec, null, 2);
        document.getElementById('submit-button').click();
    })()""")
    err = page.wait_for("(() => { const e = document.getElementById('submit-error');"
                        " return !e.hidden && e.textContent; })()", 30, "the submit error")
    print("bad spec error shown: %s" % err)
    if "invalid_spec: sources[0].position:" not in err:
        raise CdpError("error text lacks the code and field path: %r" % err)
    if not page.eval("location.hash === '#/submit'"):
        raise CdpError("a rejected submit left the form")

    # 2. The example job: submit, follow it live to 100%.
    page.eval("document.getElementById('submit-reset').click();"
              "document.getElementById('submit-button').click()")
    job = page.wait_for("(location.hash.match(/^#\\/job\\/(\\d+)$/) || [])[1]", 30,
                        "the job page after submitting")
    print("submitted job %s" % job)
    page.wait_for("document.getElementById('job-progress-text').textContent === '100.0%'",
                  120, "progress to reach 100%")
    n_progress = page.eval("document.querySelectorAll('#events-log .ev-progress').length")
    if not n_progress:
        raise CdpError("100% shown but no progress event was received")
    page.wait_for("[...document.querySelectorAll('#snapshots img')]"
                  ".some(i => i.complete && i.naturalWidth > 0)", 60,
                  "a snapshot image to load")
    page.wait_for("document.getElementById('gather-canvas').dataset.drawn === '1'", 60,
                  "the receiver gather to be drawn")
    state = page.wait_for("document.getElementById('job-state').textContent === 'succeeded'"
                          " && 'succeeded'", 30, "the job state to show succeeded")
    # The gather image is not blank: both polarities of the symmetric scale appear.
    colours = page.eval("""(() => {
        const c = document.getElementById('gather-canvas');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let red = 0, blue = 0;
        for (let i = 0; i < d.length; i += 4) {
            if (d[i] > 200 && d[i + 2] < 150) red++;
            if (d[i + 2] > 200 && d[i] < 150) blue++;
        }
        return [c.width, c.height, red, blue];
    })()""")
    print("gather canvas %dx%d, %d red and %d blue pixels" % tuple(colours))
    if colours[2] == 0 or colours[3] == 0:
        raise CdpError("the gather canvas has no red/blue pixels: %r" % colours)
    imgs = page.eval("[...document.querySelectorAll('#snapshots img')]"
                     ".map(i => i.alt + ' ' + i.naturalWidth + 'x' + i.naturalHeight)")
    print("snapshot images: %s; %d progress events; state %s" % (imgs, n_progress, state))
    time.sleep(0.3)  # let the last paint land
    page.screenshot(shot)
    print("screenshot: %s" % shot)

    # 3. The job list shows it with its state.
    page.eval("location.hash = '#/'")
    page.wait_for("[...document.querySelectorAll('#jobs-table tbody tr')]"
                  ".some(r => r.dataset.id === %s && r.textContent.includes('succeeded'))"
                  % js_str(job), 30, "the job in the list as succeeded")
    page.screenshot(os.path.join(os.path.dirname(shot), "screenshot-list.png"))

    thrown = [e for e in page.events if e.get("method") == "Runtime.exceptionThrown"]
    if thrown:
        raise CdpError("uncaught JavaScript exceptions: %r" % thrown[:3])


def run_with_token(page, url, token):
    """A daemon with a token: the page is refused until the token is saved; then the
    event stream and snapshot images (which cannot send headers) work through
    ?access_token=."""
    page.call("Page.navigate", url=url + "/#/")
    err = page.wait_for("(() => { const e = document.getElementById('jobs-error');"
                        " return !e.hidden && e.textContent; })()", 30,
                        "the job list to be refused without a token")
    print("without a token: %s" % err)
    if not err.startswith("unauthorized"):
        raise CdpError("expected an unauthorized error, got %r" % err)
    page.eval("document.getElementById('token-input').value = %s;"
              "document.getElementById('token-save').click()" % js_str(token))
    page.wait_for("document.getElementById('jobs-error').hidden", 30,
                  "the job list to load with the token")
    page.eval("location.hash = '#/submit'")
    page.wait_for("document.getElementById('submit-spec').value.length > 100", 30,
                  "the submit form")
    page.eval("document.getElementById('submit-reset').click();"
              "document.getElementById('submit-button').click()")
    job = page.wait_for("(location.hash.match(/^#\\/job\\/(\\d+)$/) || [])[1]", 30,
                        "the job page (with a token)")
    page.wait_for("document.getElementById('job-progress-text').textContent === '100.0%'",
                  120, "progress to reach 100% (with a token)")
    page.wait_for("[...document.querySelectorAll('#snapshots img')]"
                  ".some(i => i.complete && i.naturalWidth > 0)", 60,
                  "a snapshot image to load through ?access_token=")
    page.wait_for("document.getElementById('gather-canvas').dataset.drawn === '1'", 60,
                  "the gather (with a token)")
    print("with a token: job %s followed to 100%%, snapshot and gather shown" % job)
    page.eval("localStorage.clear()")
    thrown = [e for e in page.events if e.get("method") == "Runtime.exceptionThrown"]
    if thrown:
        raise CdpError("uncaught JavaScript exceptions: %r" % thrown[:3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--daemon", required=True)
    ap.add_argument("--web", required=True)
    ap.add_argument("--out", required=True, help="screenshot path")
    a = ap.parse_args()
    chromium = find_chromium()
    if not chromium:
        print("SKIP: chromium is not installed (apt-get install chromium)")
        return SKIP
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="fdwave-web-")
    data = os.path.join(tmp, "data")
    os.mkdir(data)
    data2 = os.path.join(tmp, "data-auth")
    os.mkdir(data2)
    daemon = daemon2 = browser = None
    try:
        daemon, url = start_daemon(a.daemon, data, a.web)
        print("fdwaved at %s, chromium %s" % (url, chromium))
        browser = Browser.launch(chromium, os.path.join(tmp, "profile"))
        page = browser.page()
        run(page, url, os.path.abspath(a.out))
        stop(daemon)
        daemon = None
        token = add_token(a.daemon, data2, "webuser")
        daemon2, url2 = start_daemon(a.daemon, data2, a.web)
        run_with_token(page, url2, token)
        print("PASS")
        return 0
    except (CdpError, RuntimeError, OSError) as e:
        print("FAIL: %s" % e)
        try:
            if browser:
                browser.page().screenshot(os.path.abspath(a.out) + ".failed.png")
        except Exception:
            pass
        for dd in (data, data2):
            log = os.path.join(dd, "daemon.log")
            if os.path.exists(log):
                with open(log) as f:
                    print("--- %s (tail) ---\n%s" % (log, "".join(f.readlines()[-30:])))
        return 1
    finally:
        if browser:
            browser.close()
        for d in (daemon, daemon2):
            if d:
                stop(d)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
