"""webtest.py — what the browser tests of the web page share: finding Debian's chromium,
a real fdwaved (tests/clients/fdwaved_proc.py: CPU backend, ephemeral loopback port,
temporary data directory; here with the page's files from --web) that can be restarted
on its port, tokens, API calls, and a harness that
runs one test function with a daemon and a headless browser, saves the failure
screenshot and the daemon's log tail on failure, and cleans up. Exit codes: 0 pass,
1 fail, 77 skip (no chromium)."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients"))
import fdwaved_proc  # noqa: E402
from cdp import Browser, CdpError  # noqa: E402

SKIP = 77


def find_chromium():
    for c in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if c and shutil.which(c):
            return shutil.which(c)
    return None


def js_str(s):
    return json.dumps(s)


def set_value(page, selector, value, event="change"):
    """Sets a form element's value as a user would, firing event ("change", "input")."""
    page.eval("(() => { const e = document.querySelector(%s); e.value = %s;"
              " e.dispatchEvent(new Event(%s)); })()" % (js_str(selector), js_str(value),
                                                         js_str(event)))


def http(url, method="GET", path="/", body=None, token=None):
    """One API request; returns (status, parsed JSON or raw bytes)."""
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = "Bearer " + token
    data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
    req = urllib.request.Request(url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            raw, status, ctype = r.read(), r.status, r.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        raw, status, ctype = e.read(), e.code, e.headers.get("Content-Type", "")
    return status, json.loads(raw) if ctype.startswith("application/json") else raw


def wait_job(url, job_id, states=("succeeded", "failed", "cancelled"), timeout=120):
    """Polls the job until its state is one of states; returns the job."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, j = http(url, "GET", "/v1/jobs/%d" % job_id)
        if j["state"] in states:
            return j
        time.sleep(0.05)
    raise RuntimeError("job %d did not reach %s in %s s" % (job_id, states, timeout))


def submit(url, spec):
    status, j = http(url, "POST", "/v1/jobs", spec)
    if status != 201:
        raise RuntimeError("submit answered %s: %r" % (status, j))
    return j["id"]


class Daemon(fdwaved_proc.Daemon):
    """fdwaved serving the page's files from web, and data; url is http://127.0.0.1:PORT;
    extra: more command-line arguments (e.g. --allow-dir DIR)."""

    def __init__(self, exe, data, web, port=0, extra=()):
        super().__init__(exe, data, port, ["--web", web] + list(extra))


def add_token(exe, data, name):
    p = subprocess.run([exe, "token", "add", name, "--data", data], capture_output=True,
                       text=True, timeout=30)
    if p.returncode != 0:
        raise RuntimeError("fdwaved token add failed: %s" % p.stderr)
    return p.stdout.strip()


class Env:
    """What a test function gets: the daemon binary and web directory, a temporary
    directory, the browser's page, where screenshots go, and daemons it started."""

    def __init__(self, args, tmp, page):
        self.exe, self.web, self.tmp, self.page = args.daemon, args.web, tmp, page
        self.shot = os.path.abspath(args.out)
        self.daemons = []

    def daemon(self, name="data", token_user=None, extra=()):
        """A daemon on a data directory of its own; with token_user, tokens are on and
        d.token is that user's; extra: more fdwaved arguments."""
        data = os.path.join(self.tmp, name)
        os.makedirs(data, exist_ok=True)
        token = add_token(self.exe, data, token_user) if token_user else None
        d = Daemon(self.exe, data, self.web, extra=extra)
        d.token = token
        self.daemons.append(d)
        return d

    def screenshot(self, suffix=""):
        """Saves the page; suffix "" is the test's main screenshot (--out)."""
        path = self.shot if not suffix else self.shot.replace(".png", "-%s.png" % suffix)
        time.sleep(0.3)  # let the last paint land
        self.page.screenshot(path)
        print("screenshot: %s" % path)
        return path

    def uncaught(self):
        """Fails on JavaScript exceptions the page did not catch."""
        thrown = [e for e in self.page.events if e.get("method") == "Runtime.exceptionThrown"]
        if thrown:
            raise CdpError("uncaught JavaScript exceptions: %r" % thrown[:3])


def main(test, doc):
    """Runs test(env) with --daemon, --web and --out from the command line."""
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--daemon", required=True)
    ap.add_argument("--web", required=True)
    ap.add_argument("--out", required=True, help="screenshot path")
    args = ap.parse_args()
    chromium = find_chromium()
    if not chromium:
        print("SKIP: chromium is not installed (apt-get install chromium)")
        return SKIP
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="fdwave-web-")
    browser = env = None
    try:
        browser = Browser.launch(chromium, os.path.join(tmp, "profile"))
        page = browser.page()
        page.call("Page.enable")
        page.call("Runtime.enable")
        env = Env(args, tmp, page)
        test(env)
        env.uncaught()
        print("PASS")
        return 0
    except (CdpError, RuntimeError, OSError, AssertionError) as e:
        traceback.print_exc()
        print("FAIL: %s" % e)
        try:
            if browser:
                browser.page().screenshot(os.path.abspath(args.out) + ".failed.png")
        except Exception:
            pass
        for d in env.daemons if env else []:
            print("--- %s (tail) ---\n%s" % (d.log_path, d.log_tail()))
        return 1
    finally:
        if browser:
            browser.close()
        for d in env.daemons if env else []:
            d.stop()
        shutil.rmtree(tmp, ignore_errors=True)
