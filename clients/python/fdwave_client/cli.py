"""`python -m fdwave_client`: the command-line tool, with the same commands, options and
exit codes as the C `fdwave` CLI (see `python -m fdwave_client --help`)."""
import argparse
import json
import os
import sys

from .client import FdwaveClient, FdwaveError

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_CANCELLED = 0, 1, 2, 3
EXIT_BAD_REQUEST, EXIT_UNREACHABLE, EXIT_UNAUTHORIZED, EXIT_NOT_FOUND = 4, 5, 6, 7
EXIT_SERVER, EXIT_LOCAL_IO = 8, 9

EXIT_CODES_HELP = """exit codes:
  0  ok; for submit --wait and watch: the job succeeded
  1  the job failed
  2  usage error
  3  the job was cancelled
  4  bad request (HTTP 4xx, e.g. an invalid spec: the field path is printed)
  5  the server cannot be reached
  6  unauthorized (missing or wrong token)
  7  not found (no such job, output or model)
  8  server error (HTTP 5xx or an answer that is not the API's)
  9  a local file could not be read or written"""


def exit_for_error(e):
    """Exit code for an FdwaveError."""
    if e.status is None:
        return EXIT_UNREACHABLE
    if e.status == 401:
        return EXIT_UNAUTHORIZED
    if e.status == 404:
        return EXIT_NOT_FOUND
    if 400 <= e.status < 500:
        return EXIT_BAD_REQUEST
    return EXIT_SERVER


def exit_for_state(state):
    return {"succeeded": EXIT_OK, "failed": EXIT_FAILED,
            "cancelled": EXIT_CANCELLED}.get(state, EXIT_SERVER)


def fmt_rate(mpts):
    mpts = mpts or 0.0
    return "%.2f Gpt/s" % (mpts / 1000) if mpts >= 1000 else "%.1f Mpt/s" % mpts


def fmt_eta(s):
    if s is None or s < 0:
        return "-"
    t = int(s + 0.5)
    if t < 60:
        return "%ds" % t
    if t < 3600:
        return "%dm%02ds" % (t // 60, t % 60)
    return "%dh%02dm" % (t // 3600, (t % 3600) // 60)


def show(v):
    if v is None:
        return "-"
    if isinstance(v, (list, dict)):
        return json.dumps(v, separators=(",", ":"))
    return str(v)


def print_json(v):
    print(json.dumps(v, indent=2))


def follow(client, job_id, out, bar, as_json, since=None):
    """Prints a job's events until "end"; returns the exit code of its final state."""
    bar_line = ""
    end_state = None
    for ev in client.events(job_id, since=since):
        if as_json:
            out.write(json.dumps({"id": ev.id, "event": ev.type, "data": ev.data}) + "\n")
            out.flush()
        elif out is not None:
            d = ev.data if isinstance(ev.data, dict) else {}
            if ev.type == "progress":
                pct = d.get("percent") or 0.0
                text = "%5.1f%%  step %s/%s  %s  ETA %s" % (
                    pct, d.get("step"), d.get("nsteps"), fmt_rate(d.get("mpts")),
                    fmt_eta(d.get("eta_s")))
                if bar:
                    fill = max(0, min(30, int(pct / 100 * 30 + 0.5)))
                    bar_line = "[" + "#" * fill + "." * (30 - fill) + "] " + text
                    out.write("\r\033[K" + bar_line)
                else:
                    out.write("progress " + text + "\n")
            else:
                if ev.type in ("state", "end"):
                    line = "%s: %s" % (ev.type, d.get("state"))
                    if d.get("reason"):
                        line += " (%s)" % d["reason"]
                elif ev.type == "snapshot":
                    urls = [f.get("url") or f.get("name") for f in d.get("files", [])]
                    line = "snapshot %s: step %s, t = %.4g s: %s" % (
                        d.get("index"), d.get("step"), d.get("time") or 0.0, " ".join(urls))
                elif ev.type == "warning":
                    line = "warning: %s" % d.get("message")
                else:
                    line = "%s: %s" % (ev.type, json.dumps(ev.data))
                if bar and bar_line:
                    out.write("\r\033[K" + line + "\n" + bar_line)
                else:
                    out.write(line + "\n")
            out.flush()
        if ev.type == "end":
            end_state = ev.data.get("state") if isinstance(ev.data, dict) else None
    if bar and bar_line and out is not None:
        out.write("\n")
    return exit_for_state(end_state)


def cmd_submit(c, a):
    try:
        with (sys.stdin if a.spec == "-" else open(a.spec, "rb")) as f:
            text = f.read()
    except OSError as e:
        print("fdwave: cannot read %s: %s" % (a.spec, e.strerror), file=sys.stderr)
        return EXIT_LOCAL_IO
    r = c.submit(text, priority=a.priority, idempotency_key=a.idempotency_key)
    for w in r.get("warnings") or []:
        print("warning: %s" % w, file=sys.stderr)
    if not a.wait:
        if a.json:
            print_json(r)
        else:
            print("job %s submitted (%s, queue position %s)"
                  % (r["id"], r.get("state", "queued"), show(r.get("queue_position"))))
        return EXIT_OK
    if not a.json:
        print("job %s submitted; waiting for it to finish" % r["id"], file=sys.stderr)
    rc = follow(c, r["id"], None if a.json else sys.stderr, sys.stderr.isatty(), False)
    job = c.get(r["id"])
    if a.json:
        print_json(job)
    else:
        print("job %s %s%s" % (job["id"], job.get("state"),
                               ": " + job["reason"] if job.get("reason") else ""))
    return rc


def cmd_list(c, a):
    jobs = c.list(state=a.state, limit=a.limit)
    if a.json:
        print_json({"jobs": jobs})
        return EXIT_OK
    print("%-7s %-10s %4s %8s  %-20s  %s" % ("ID", "STATE", "PRIO", "PROGRESS", "CREATED", "NAME"))
    for j in jobs:
        p = j.get("progress") or {}
        pct = "%.1f%%" % p["percent"] if p.get("percent") is not None else (
            "100.0%" if j.get("state") == "succeeded" else "-")
        print("%-7s %-10s %4s %8s  %-20s  %s" % (j.get("id"), j.get("state"),
                                                 show(j.get("priority")), pct,
                                                 show(j.get("created_at")), show(j.get("name"))))
    return EXIT_OK


def cmd_status(c, a):
    j = c.get(a.id)
    if a.json:
        print_json(j)
        return EXIT_OK
    print("job %s: %s" % (a.id, j.get("state")))
    for key, label in (("name", "name"), ("owner", "owner"), ("kind", "kind"),
                       ("reason", "reason"), ("priority", "priority"), ("attempts", "attempts"),
                       ("devices_requested", "devices"), ("devices", "assigned"),
                       ("queue_position", "queue pos"), ("created_at", "created"),
                       ("started_at", "started"), ("finished_at", "finished")):
        print("  %-13s %s" % (label + ":", show(j.get(key))))
    p = j.get("progress")
    if p:
        print("  %-13s %.1f%% (step %s/%s, %s, ETA %s)" % (
            "progress:", p.get("percent") or 0.0, p.get("step"), p.get("nsteps"),
            fmt_rate(p.get("mpts")), fmt_eta(p.get("eta_s"))))
    for w in j.get("warnings") or []:
        print("  %-13s %s" % ("warning:", w))
    return EXIT_OK


def cmd_watch(c, a):
    return follow(c, a.id, sys.stdout, sys.stdout.isatty() and not a.json, a.json, a.since)


def cmd_cancel(c, a):
    j = c.cancel(a.id)
    if a.json:
        print_json(j)
    elif j.get("cancel_requested"):
        print("job %s: cancel requested; it stops within about a second" % a.id)
    else:
        print("job %s: %s" % (a.id, j.get("state")))
    return EXIT_OK


def cmd_outputs(c, a):
    m = c.outputs(a.id)
    if a.json:
        print_json(m)
        return EXIT_OK
    files = m.get("files") or []
    if not files:
        print("job %s has no outputs yet" % a.id)
        return EXIT_OK
    print("%-32s %-8s %-9s %-16s %s" % ("NAME", "FORMAT", "KIND", "DIMS", "DESCRIPTION"))
    for f in files:
        print("%-32s %-8s %-9s %-16s %s" % (f.get("name"), show(f.get("format")),
                                           show(f.get("kind")), show(f.get("dims")),
                                           show(f.get("description"))))
    return EXIT_OK


def cmd_fetch(c, a):
    out = a.out or "."
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        print("fdwave: cannot create directory %s: %s" % (out, e.strerror), file=sys.stderr)
        return EXIT_LOCAL_IO
    if a.all == (a.name is not None):
        print("usage: fetch ID NAME|--all [-o DIR]", file=sys.stderr)
        return EXIT_USAGE
    names = [a.name]
    manifest = None
    if a.all:
        manifest = c.outputs(a.id)
        names = [f["name"] for f in manifest.get("files") or []]
    elif "/" in a.name or a.name.startswith("."):
        print("fdwave: output name %r must not contain '/' or start with '.'" % a.name,
              file=sys.stderr)
        return EXIT_USAGE
    written = []
    try:
        for n in names:
            if "/" in n or n.startswith("."):
                print("fdwave: skipping unsafe output name %r" % n, file=sys.stderr)
                continue
            written.append(c.download(a.id, n, os.path.join(out, n)))
        if manifest is not None:
            mpath = os.path.join(out, "manifest.json")
            with open(mpath, "w") as f:
                json.dump(manifest, f, indent=2)
            written.append(mpath)
    except OSError as e:
        print("fdwave: cannot write in %s: %s" % (out, e.strerror or e), file=sys.stderr)
        return EXIT_LOCAL_IO
    if a.json:
        print_json({"job": a.id, "files": written})
    else:
        for w in written:
            print(w)
    return EXIT_OK


def cmd_models(c, a):
    if a.action == "upload":
        if len(a.args) != 2:
            print("usage: models upload FILE NAME", file=sys.stderr)
            return EXIT_USAGE
        try:
            r = c.upload_model(a.args[0], a.args[1])
        except OSError as e:
            print("fdwave: cannot read %s: %s" % (a.args[0], e.strerror), file=sys.stderr)
            return EXIT_LOCAL_IO
        if a.json:
            print_json(r)
        else:
            print("model %s uploaded (%s bytes, %s, sha256 %s)"
                  % (r.get("name"), r.get("bytes"), r.get("format"), r.get("sha256")))
        return EXIT_OK
    if a.args:
        print("usage: models list", file=sys.stderr)
        return EXIT_USAGE
    models = c.models()
    if a.json:
        print_json({"models": models})
        return EXIT_OK
    print("%-32s %-8s %12s  %-12s %s" % ("NAME", "FORMAT", "BYTES", "OWNER", "SHA256"))
    for m in models:
        print("%-32s %-8s %12s  %-12s %s" % (m.get("name"), show(m.get("format")),
                                             show(m.get("bytes")), show(m.get("owner")),
                                             show(m.get("sha256"))))
    return EXIT_OK


def cmd_devices(c, a):
    devs = c.devices()
    if a.json:
        print_json({"devices": devs})
        return EXIT_OK
    print("%-4s %-5s %-32s %14s %14s  %s" % ("ID", "KIND", "NAME", "MEM TOTAL", "MEM FREE",
                                             "BUSY (JOB)"))
    for d in devs:
        print("%-4s %-5s %-32s %14s %14s  %s" % (d.get("id"), show(d.get("kind")),
                                                 show(d.get("name")), show(d.get("memory_total")),
                                                 show(d.get("memory_free")),
                                                 show(d.get("busy_job"))))
    return EXIT_OK


def cmd_health(c, a):
    h = c.health()
    if a.json:
        print_json(h)
    else:
        print("%s: fdwaved %s, up %s s, %s queued, %s running" % (
            h.get("status"), h.get("version"), h.get("uptime_s"), h.get("queue"),
            h.get("running")))
    return EXIT_OK


def build_parser():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--url", default=argparse.SUPPRESS,
                        help="server URL (default $FDWAVE_URL, else http://127.0.0.1:8080)")
    common.add_argument("--token", default=argparse.SUPPRESS,
                        help="bearer token (default $FDWAVE_TOKEN)")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="machine-readable JSON output")
    p = argparse.ArgumentParser(prog="python -m fdwave_client", parents=[common],
                                description="Client of the fdwaved simulation service.",
                                epilog=EXIT_CODES_HELP,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def add(name, fn, help_text):
        s = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        s.set_defaults(func=fn)
        return s

    s = add("submit", cmd_submit, "submit a job spec (- reads stdin)")
    s.add_argument("spec")
    s.add_argument("--wait", action="store_true", help="follow the job to its end")
    s.add_argument("--priority", type=int, default=0, help="-10..10 (default 0)")
    s.add_argument("--idempotency-key", help="a retried submit with the same key returns "
                                             "the first job")
    s = add("list", cmd_list, "jobs, newest first")
    s.add_argument("--state", choices=["queued", "running", "succeeded", "failed", "cancelled"])
    s.add_argument("--limit", type=int)
    s = add("status", cmd_status, "one job")
    s.add_argument("id", type=int)
    s = add("watch", cmd_watch, "follow a job's events to the end")
    s.add_argument("id", type=int)
    s.add_argument("--since", help="replay only events after this event id")
    s = add("cancel", cmd_cancel, "cancel a queued or running job")
    s.add_argument("id", type=int)
    s = add("outputs", cmd_outputs, "list a job's output files")
    s.add_argument("id", type=int)
    s = add("fetch", cmd_fetch, "download output files")
    s.add_argument("id", type=int)
    s.add_argument("name", nargs="?")
    s.add_argument("--all", action="store_true", help="every file and the manifest")
    s.add_argument("-o", "--out", help="directory (default .)")
    s = add("models", cmd_models, "upload or list velocity models")
    s.add_argument("action", choices=["upload", "list"])
    s.add_argument("args", nargs="*", help="upload: FILE NAME")
    add("devices", cmd_devices, "the server's devices")
    add("health", cmd_health, "server status")
    return p


def main(argv=None):
    a = build_parser().parse_args(argv)
    for k, v in (("url", None), ("token", None), ("json", False)):
        if not hasattr(a, k):
            setattr(a, k, v)
    try:
        c = FdwaveClient(a.url, a.token)
    except ValueError as e:
        print("fdwave: %s" % e, file=sys.stderr)
        return EXIT_USAGE
    try:
        return a.func(c, a)
    except FdwaveError as e:
        if e.code == "unreachable":
            print(e.message, file=sys.stderr)
        else:
            print("error: %s (HTTP %s)" % (e, e.status), file=sys.stderr)
        return exit_for_error(e)
    except TimeoutError as e:
        print("fdwave: %s" % e, file=sys.stderr)
        return EXIT_UNREACHABLE
    except KeyboardInterrupt:
        return 130
