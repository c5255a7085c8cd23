"""test_web.py — end-to-end test of the web page (clients/web) in headless Chromium.

Against a real fdwaved (webtest.py) driven through the DevTools protocol (cdp.py): submits
a bad spec and checks the server's error with its field path is shown, submits the page's
example job, waits for the live progress to reach 100%, a snapshot to be drawn and the
receiver gather to be drawn, checks the job list, and saves a screenshot of the job page.
Then, against a second daemon that has a token: the page is refused until the token is
entered, after which a job is followed to its end the same way (event stream and files
authenticate with ?access_token= or the header).

usage: test_web.py --daemon PATH --web DIR --out SCREENSHOT.png
Exit 0 pass, 1 fail, 77 skip (no chromium).
"""
import sys

from cdp import CdpError
from webtest import js_str, main

SNAPSHOT_DRAWN = ("[...document.querySelectorAll('#snapshots canvas')]"
                  ".some(c => c.width > 1) && document.getElementById('snapshots')"
                  ".dataset.shown !== undefined")


def follow_example_job(page, what):
    """Submits the form's example; waits for 100%, a drawn snapshot and the gather."""
    page.eval("location.hash = '#/submit'")
    page.wait_for("document.getElementById('submit-spec').value.length > 100", 30,
                  "the submit form")
    page.eval("document.getElementById('submit-reset').click();"
              "document.getElementById('submit-button').click()")
    job = page.wait_for("(location.hash.match(/^#\\/job\\/(\\d+)$/) || [])[1]", 30,
                        "the job page after submitting (%s)" % what)
    page.wait_for("document.getElementById('job-progress-text').textContent === '100.0%'",
                  120, "progress to reach 100%% (%s)" % what)
    page.wait_for(SNAPSHOT_DRAWN, 60, "a snapshot to be drawn (%s)" % what)
    page.wait_for("document.getElementById('gather-canvas').dataset.drawn === '1'", 60,
                  "the receiver gather to be drawn (%s)" % what)
    return job


def run(env):
    d = env.daemon()
    page = env.page
    page.call("Page.navigate", url=d.url + "/#/submit")
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

    # 2. The example job, followed live to its end.
    job = follow_example_job(page, "no token")
    n_progress = page.eval("document.querySelectorAll('#events-log .ev-progress').length")
    if not n_progress:
        raise CdpError("100% shown but no progress event was received")
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
    shown = page.eval("[...document.querySelectorAll('#snapshots canvas')]"
                      ".map(c => c.dataset.name + ' ' + c.width + 'x' + c.height)")
    print("snapshots drawn: %s; %d progress events; state %s" % (shown, n_progress, state))
    env.screenshot()

    # 3. The job list shows it with its state.
    page.eval("location.hash = '#/'")
    page.wait_for("[...document.querySelectorAll('#jobs-table tbody tr')]"
                  ".some(r => r.dataset.id === %s && r.textContent.includes('succeeded'))"
                  % js_str(job), 30, "the job in the list as succeeded")
    env.screenshot("list")
    env.uncaught()

    # 4. A daemon with a token: the page is refused until the token is saved; then the
    # event stream and the files work with it.
    d2 = env.daemon("data-auth", token_user="webuser")
    page.call("Page.navigate", url=d2.url + "/#/")
    err = page.wait_for("(() => { const e = document.getElementById('jobs-error');"
                        " return !e.hidden && e.textContent; })()", 30,
                        "the job list to be refused without a token")
    print("without a token: %s" % err)
    if not err.startswith("unauthorized"):
        raise CdpError("expected an unauthorized error, got %r" % err)
    page.eval("document.getElementById('token-input').value = %s;"
              "document.getElementById('token-save').click()" % js_str(d2.token))
    page.wait_for("document.getElementById('jobs-error').hidden", 30,
                  "the job list to load with the token")
    job = follow_example_job(page, "with a token")
    print("with a token: job %s followed to 100%%, snapshot and gather shown" % job)
    page.eval("localStorage.clear()")


if __name__ == "__main__":
    sys.exit(main(run, __doc__))
