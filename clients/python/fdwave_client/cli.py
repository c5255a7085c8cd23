"""`python -m fdwave_client`: the command-line tool, with the same commands, options,
output and exit codes as the C `fdwave` CLI (clients/cli; tests/clients/test_cli_parity.py
runs both against one daemon and compares what they print). The text formats live in
textfmt.py and watch.py, failures in report.py, exit codes in exit_codes.py."""
import argparse
import json
import os
import re
import sys

from . import local_models
from .client import FdwaveClient, FdwaveError
from .exit_codes import EXIT_BAD_REQUEST, EXIT_CODES_HELP, EXIT_OK, exit_for_status
from .report import Reporter
from .textfmt import (fmt_bytes, fmt_dims, fmt_gib, fmt_range, fmt_rate, fmt_time,
                      print_table, show)
from .watch import follow

STATES = ("queued", "running", "succeeded", "failed", "cancelled")
DEFAULT_URL = "http://127.0.0.1:8080"


class UsageError(Exception):
    """A bad command line; str(e) is the message (printed as "fdwave: MESSAGE")."""


class Synopsis(Exception):
    """A command given the wrong arguments; str(e) is its synopsis."""


def print_json(v):
    print(json.dumps(v, indent=2, ensure_ascii=False))


def job_id(s):
    """A job id argument: a positive integer (else the C CLI's usage message)."""
    try:
        v = int(s, 10)
    except (TypeError, ValueError):
        v = 0
    if v <= 0:
        raise UsageError("job id must be a positive integer, got '%s'" % (s or ""))
    return v


def positional(a, n, synopsis):
    """The command's positional arguments when there are n of them, else its synopsis
    as the usage error (as the C CLI counts them)."""
    if len(a.pos) != n:
        raise Synopsis(synopsis)
    return a.pos


def uploaded_line(name, r):
    """What `models upload` says of an upload the server accepted (r: its answer)."""
    return "model %s uploaded (%s, %s, %s, %s, sha256 %s)" % (
        name, fmt_bytes(r.get("bytes")), r.get("format") or "?", fmt_dims(r), fmt_range(r),
        r.get("sha256") or "?")


def cmd_submit(c, a):
    (a.spec,) = positional(a, 1, "submit JOB.json [--wait] [--priority N] "
                                 "[--idempotency-key K] [--upload-models]")
    priority = 0
    if a.priority is not None:
        try:
            priority = int(a.priority, 10)
        except ValueError:
            raise UsageError("--priority must be an integer, got '%s'" % a.priority) from None
    try:
        if a.spec == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(a.spec, "rb") as f:
                text = f.read()
    except OSError as e:
        return a.report.local("cannot read %s: %s" % (a.spec, e.strerror))
    local = local_models.find(text, a.spec)

    def say_uploaded(r):
        if not a.json:
            print(uploaded_line(local[1], r), file=sys.stderr)

    try:
        if local and a.upload_models:
            try:
                text = local_models.upload(c, local, text, a.json, say_uploaded)
            except OSError as e:
                return a.report.local("cannot read %s: %s" % (local[0], e.strerror))
        r, again = c.submit_status(text, priority=priority, idempotency_key=a.idempotency_key)
    except FdwaveError as e:
        rc = a.report.server(e)
        if getattr(e, "hint", None):
            print(e.hint, file=sys.stderr)
        elif (local and not a.json and e.field == "velocity.path"
              and exit_for_status(e.status) == EXIT_BAD_REQUEST):
            local_models.hint(local)
        return rc
    if not a.wait:
        # With --wait the warnings arrive again as events; print them once.
        for w in r.get("warnings") or []:
            print("warning: %s" % w, file=sys.stderr)
        if a.json:
            print_json(r)
        elif again and not isinstance(r.get("queue_position"), int):
            print("already submitted as job %s (%s)" % (r["id"], r.get("state") or "?"))
        elif again:
            print("already submitted as job %s (%s, queue position %s)"
                  % (r["id"], r.get("state") or "?", show(r.get("queue_position"))))
        else:
            print("job %s submitted (%s, queue position %s)"
                  % (r["id"], r.get("state") or "queued", show(r.get("queue_position"))))
        return EXIT_OK
    if not a.json:
        print("%s %s%s; waiting for it to finish"
              % ("already submitted as job" if again else "job", r["id"],
                 "" if again else " submitted"), file=sys.stderr)
    # Progress goes to stderr (a bar on a terminal); the result goes to stdout.
    rc = follow(c, r["id"], None if a.json else sys.stderr, sys.stderr.isatty(), False)
    job = c.get(r["id"])
    if a.json:
        print_json(job)
    else:
        print("job %s %s%s" % (r["id"], job.get("state") or "?",
                               ": " + job["reason"] if job.get("reason") else ""))
    return rc


def cmd_list(c, a):
    positional(a, 0, "list [--state S] [--name TEXT] [--limit N] [--before ID]")
    if a.state is not None and a.state not in STATES:
        raise UsageError("--state must be queued, running, succeeded, failed or cancelled, "
                         "got '%s'" % a.state)
    if a.name is not None and not 1 <= len(a.name) <= 200:
        raise UsageError("--name must be 1 to 200 characters")
    limit = before = None
    if a.limit is not None:
        try:
            limit = int(a.limit, 10)
        except ValueError:
            limit = 0
        if not 1 <= limit <= 500:
            raise UsageError("--limit must be an integer 1..500, got '%s'" % a.limit)
    if a.before is not None:
        try:
            before = int(a.before, 10)
        except ValueError:
            before = 0
        if before < 1:
            raise UsageError("--before must be a positive job id, got '%s'" % a.before)
    page = c.list_page(state=a.state, limit=limit, before=before, name=a.name)
    if a.json:
        print_json(page)
        return EXIT_OK
    rows = [("ID", "STATE", "PRIO", "PROGRESS", "CREATED", "NAME")]
    last = 0
    for j in page["jobs"]:
        p = j.get("progress") if isinstance(j.get("progress"), dict) else {}
        pct = p.get("percent")
        if isinstance(pct, (int, float)) and not isinstance(pct, bool):
            pct = "%.1f%%" % pct
        else:
            pct = "100.0%" if j.get("state") == "succeeded" else "-"
        rows.append((show(j.get("id")), show(j.get("state")), show(j.get("priority")), pct,
                     show(j.get("created_at")), show(j.get("name"))))
        last = j.get("id") or last
    print_table(rows, "rlrrll")
    if isinstance(page.get("next"), str) and last:
        print("(more: the next page is list --before %s)" % last)
    return EXIT_OK


def cmd_status(c, a):
    jid = job_id(positional(a, 1, "status ID")[0])
    j = c.get(jid)
    if a.json:
        print_json(j)
        return EXIT_OK
    print("job %d: %s" % (jid, show(j.get("state"))))
    for key, label in (("name", "name"), ("owner", "owner"), ("kind", "kind"),
                       ("model", "model"), ("reason", "reason"), ("priority", "priority"), ("attempts", "attempts"),
                       ("devices_requested", "devices"), ("devices", "assigned"),
                       ("queue_position", "queue pos"), ("created_at", "created"),
                       ("started_at", "started"), ("finished_at", "finished")):
        if key == "model":
            m = j.get("model")
            if isinstance(m, dict):
                print("  %-13s %s (sha256 %s)" % ("model:", m.get("name") or "?",
                                                 m.get("sha256") or "not recorded"))
            for d in j.get("data") or []:  # uploads it reads (imaging)
                print("  %-13s %s (sha256 %s)" % ("data:", d.get("name"), d.get("sha256")))
            continue
        print("  %-13s %s" % (label + ":", show(j.get(key))))
    p = j.get("progress")
    if isinstance(p, dict):
        shots = ""  # a survey: "shots 3/12, shot 4: " as the C CLI prints it
        if isinstance(p.get("nshots"), int):
            shots = "shots %d/%d, " % (p.get("shots_done") or 0, p["nshots"])
            if (p.get("shot") or 0) > 0:
                shots = shots + "shot %d: " % p["shot"]
        print("  %-13s %.1f%% (%sstep %d/%d, %s, ETA %s)" % (
            "progress:", p.get("percent") or 0.0, shots, p.get("step") or 0,
            p.get("nsteps") or 0,
            fmt_rate(p.get("mpts")), fmt_time(p.get("eta_s") if p.get("eta_s") is not None
                                              else -1)))
    for w in j.get("warnings") or []:
        print("  %-13s %s" % ("warning:", show(w)))
    return EXIT_OK


def cmd_watch(c, a):
    jid = job_id(positional(a, 1, "watch ID [--since EVENT_ID]")[0])
    return follow(c, jid, sys.stdout, sys.stdout.isatty() and not a.json, a.json, a.since)


def cmd_cancel(c, a):
    jid = job_id(positional(a, 1, "cancel ID")[0])
    j = c.cancel(jid)
    if a.json:
        print_json(j)
    elif j.get("cancel_requested"):
        print("job %d: cancel requested; it stops within about a second" % jid)
    else:
        print("job %d: %s" % (jid, show(j.get("state"))))
    return EXIT_OK


def cmd_outputs(c, a):
    jid = job_id(positional(a, 1, "outputs ID")[0])
    m = c.outputs(jid)
    if not isinstance(m, dict) or not isinstance(m.get("files"), list):
        raise FdwaveError("bad_answer", "the server's manifest has no \"files\" list: %.200s"
                          % json.dumps(m))
    if a.json:
        print_json(m)
        return EXIT_OK
    files = m["files"]
    if not files:
        print("job %d has no outputs yet" % jid)
        return EXIT_OK
    print("%-32s %-8s %-9s %-16s %s" % ("NAME", "FORMAT", "KIND", "DIMS", "DESCRIPTION"))
    for f in files:
        print("%-32s %-8s %-9s %-16s %s" % (show(f.get("name")), show(f.get("format")),
                                           show(f.get("kind")), show(f.get("dims")),
                                           show(f.get("description"))))
    return EXIT_OK


def safe_name(n):
    return bool(n) and not n.startswith(".") and "/" not in n and "\\" not in n and len(n) < 256


def cmd_fetch(c, a):
    args = positional(a, 1 if a.all else 2, "fetch ID NAME|--all [-o DIR]")
    jid = job_id(args[0])
    a.name = None if a.all else args[1]
    out = a.out or "."
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        return a.report.local("cannot create directory %s: %s" % (out, e.strerror))
    if not a.all:
        if not safe_name(a.name):
            raise UsageError("output name '%s' must not contain '/' or start with '.'"
                             % a.name)
        names, manifest = [a.name], None
    else:
        manifest = c.outputs(jid)
        names = [f.get("name") for f in manifest.get("files") or []]
    written = []
    for n in names:
        if not safe_name(n):
            print("fdwave: skipping unsafe output name '%s'" % (n or ""), file=sys.stderr)
            continue
        dest = os.path.join(out, n)
        try:
            c.download(jid, n, dest)
        except OSError as e:
            return a.report.local("cannot write %s: %s" % (dest, e.strerror or e))
        written.append(dest)
        if not a.json:
            print(dest)
    if manifest is not None:
        mpath = os.path.join(out, "manifest.json")
        try:
            with open(mpath, "w") as f:
                json.dump(manifest, f, indent=2, ensure_ascii=False)
        except OSError:
            return a.report.local("cannot write %s" % mpath)
        written.append(mpath)
        if not a.json:
            print(mpath)
    if a.json:
        print_json({"job": jid, "files": written})
    return EXIT_OK


def upload_and_say(a, path, upload, line):
    """Runs upload() (of the file at path) and prints its answer: JSON with --json, else
    line(answer). A file that cannot be read is a local error naming it."""
    try:
        r = upload()
    except OSError as e:
        return a.report.local("cannot read %s: %s" % (path, e.strerror))
    print_json(r) if a.json else print(line(r))
    return EXIT_OK


def cmd_models(c, a):
    if len(a.pos) == 3 and a.pos[0] == "upload":
        path, name = a.pos[1:]
        return upload_and_say(a, path, lambda: c.upload_model(path, name, replace=a.replace),
                              lambda r: uploaded_line(name, r))
    positional(a, 1, "models upload [--replace] FILE NAME | fdwave models list")
    if a.pos[0] != "list":
        raise Synopsis("models upload [--replace] FILE NAME | fdwave models list")
    page = c.models_page()
    if a.json:
        print_json(page)
        return EXIT_OK
    row = "%-32s %-8s %10s  %-16s %-18s %-12s %-24s  %s"
    print(row % ("NAME", "FORMAT", "SIZE", "DIMS", "VELOCITY", "OWNER", "CREATED", "SHA256"))
    for m in page.get("models") or []:
        print(row % (show(m.get("name")), show(m.get("format")), fmt_bytes(m.get("bytes")),
                     fmt_dims(m), fmt_range(m), show(m.get("owner")), show(m.get("created_at")),
                     show(m.get("sha256"))))
    return EXIT_OK


def fmt_layout(d):
    """"12 traces x 70 at 3 ms, 1 shot" of an upload's record (data.c's fmt_layout)."""
    if not isinstance(d.get("traces"), int) or isinstance(d.get("traces"), bool):
        return "-"
    shots = d.get("shots") or 0
    return "%d traces x %d at %.6g ms, %d shot%s" % (
        d["traces"], d.get("samples") or 0, (d.get("sample_interval") or 0) * 1e3, shots,
        "" if shots == 1 else "s")


DATA_SYNOPSIS = "data put [--replace] NAME FILE | fdwave data ls | fdwave data rm NAME"


def cmd_data(c, a):
    """Observed shot gathers uploaded for rtm and gradient jobs (the C CLI's data.c)."""
    sub = a.pos[0] if a.pos else ""
    if sub == "put" and len(a.pos) == 3:
        name, path = a.pos[1:]
        return upload_and_say(
            a, path, lambda: c.put_data(path, name, replace=a.replace),
            lambda r: "data %s uploaded (%s, %s, %s, sha256 %s); use it as \"data\": "
                      "{\"name\": \"%s\"}" % (name, fmt_bytes(r.get("bytes")),
                                              r.get("format") or "?", fmt_layout(r),
                                              r.get("sha256") or "?", name))
    if sub == "ls" and len(a.pos) == 1:
        page = c.data_page()
        if a.json:
            print_json(page)
            return EXIT_OK
        rows = page["data"]
        row = "%-32s %-8s %10s  %-36s %-12s %-24s  %s"
        print(row % ("NAME", "FORMAT", "SIZE", "TRACES", "OWNER", "CREATED", "SHA256"))
        for d in rows:
            print(row % (show(d.get("name")), show(d.get("format")), fmt_bytes(d.get("bytes")),
                         fmt_layout(d), show(d.get("owner")), show(d.get("created_at")),
                         show(d.get("sha256"))))
        return EXIT_OK
    if sub == "rm" and len(a.pos) == 2:
        r = c.delete_data(a.pos[1])
        if a.json:
            print_json(r)
        else:
            print("data %s removed" % a.pos[1])
        return EXIT_OK
    raise Synopsis(DATA_SYNOPSIS)


def cmd_devices(c, a):
    positional(a, 0, "devices")
    page = c.devices_page()
    if a.json:
        print_json(page)
        return EXIT_OK
    row = "%-4s %-5s %-32s %12s %12s  %s"
    print(row % ("ID", "KIND", "NAME", "MEM TOTAL", "MEM FREE", "BUSY (JOB)"))
    for d in page.get("devices") or []:
        mem = [fmt_gib(d[k]) if isinstance(d.get(k), (int, float)) else "-"
               for k in ("memory_total", "memory_free")]
        print(row % (show(d.get("id")), show(d.get("kind")), show(d.get("name")), mem[0],
                     mem[1], show(d.get("busy_job"))))
    return EXIT_OK


def cmd_health(c, a):
    positional(a, 0, "health")
    h = c.health()
    if a.json:
        print_json(h)
    else:
        print("%s: fdwaved %s, up %s s, %s queued, %s running" % (
            show(h.get("status")), show(h.get("version")), show(h.get("uptime_s")),
            show(h.get("queue")), show(h.get("running"))))
    return EXIT_OK


def cmd_usage(c, a):
    if len(a.pos) > 1:
        raise Synopsis("usage [USER] [--since WHEN]")
    rep = c.usage(a.pos[0] if a.pos else None, a.since)
    if a.json:
        print_json(rep)
        return EXIT_OK
    print("usage from %s to %s" % (show(rep.get("since")), show(rep.get("until"))))
    print("%-20s %6s %6s %14s %12s %12s %12s" % ("USER", "JOBS", "RUNS", "DEVICE-HOURS",
                                                 "WALL HOURS", "PEAK HOST", "PEAK DEVICE"))
    for u in rep.get("users") or []:
        print("%-20s %6s %6s %14.4f %12.4f %12s %12s" % (
            show(u.get("user")), show(u.get("jobs")), show(u.get("runs")),
            u.get("device_hours") or 0.0, (u.get("wall_seconds") or 0.0) / 3600.0,
            fmt_bytes(u.get("peak_host_bytes") or 0), fmt_bytes(u.get("peak_device_bytes") or 0)))
    return EXIT_OK


def cmd_rm(c, a):
    jid = job_id(positional(a, 1, "rm ID")[0])
    status, j = c.remove(jid)
    if a.json:
        print_json(j)
    elif status == 202:
        print("job %d: still running, cancel requested; rm it again once it has ended" % jid)
    else:
        print("job %d: outputs removed (its record is kept)" % jid)
    return EXIT_OK


class Parser(argparse.ArgumentParser):
    """argparse that raises UsageError instead of printing and exiting, so that errors
    are reported in the CLI's own form (text, or JSON with --json), worded as the C CLI
    words them where argparse's own words differ."""

    def error(self, message):
        m = re.match(r"unrecognized arguments: (\S+)", message)
        if m:
            arg = m.group(1).split("=")[0]
            raise UsageError("unknown option %s" % arg if arg.startswith("-")
                             else "too many arguments (at %s)" % arg)
        m = re.match(r"argument (\S+?)(/\S+)?: expected one argument", message)
        if m:
            raise UsageError("option %s needs a value" % m.group(2)[1:] if m.group(2)
                             else "option %s needs a value" % m.group(1))
        m = re.match(r"argument COMMAND: invalid choice: '([^']*)'", message)
        if m:
            raise UsageError("unknown command '%s'" % m.group(1))
        raise UsageError(message)


def build_parser():
    common = Parser(add_help=False)
    common.add_argument("--url", default=argparse.SUPPRESS,
                        help="server URL (default $FDWAVE_URL, else http://127.0.0.1:8080)")
    common.add_argument("--token", default=argparse.SUPPRESS,
                        help="bearer token (default $FDWAVE_TOKEN)")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="machine-readable JSON on stdout, errors included")
    p = Parser(prog="python -m fdwave_client", parents=[common],
               description="Client of the fdwaved simulation service.",
               epilog=EXIT_CODES_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True

    def add(name, fn, help_text):
        s = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        s.set_defaults(func=fn)
        s.add_argument("pos", nargs="*", metavar="ARG")  # counted by the command itself
        return s

    s = add("submit", cmd_submit, "submit a job spec (- reads stdin)")
    s.add_argument("--wait", action="store_true", help="follow the job to its end")
    s.add_argument("--priority", help="-10..10 (default 0)")
    s.add_argument("--idempotency-key", help="a retried submit with the same key and spec "
                                             "returns the first job (another spec: 422)")
    s.add_argument("--upload-models", action="store_true",
                   help="upload the model file the spec names on this machine first")
    s = add("list", cmd_list, "jobs, newest first")
    s.add_argument("--state", help="queued, running, succeeded, failed or cancelled")
    s.add_argument("--name", help="only jobs whose name contains this text")
    s.add_argument("--limit", help="1..500 (default 50)")
    s.add_argument("--before", help="the page after this job id")
    add("status", cmd_status, "one job")
    add("cancel", cmd_cancel, "cancel a queued or running job")
    add("outputs", cmd_outputs, "list a job's output files")
    s = add("watch", cmd_watch, "follow a job's events to the end")
    s.add_argument("--since", help="replay only events after this event id")
    s = add("fetch", cmd_fetch, "download output files")
    s.add_argument("--all", action="store_true", help="every file and the manifest")
    s.add_argument("-o", "--out", help="directory (default .)")
    s = add("models", cmd_models, "upload [--replace] FILE NAME, or list, velocity models")
    s.add_argument("--replace", action="store_true",
                   help="upload: replace a model of yours of that name (else 409)")
    s = add("data", cmd_data, "put [--replace] NAME FILE, ls, or rm NAME: observed shot "
                              "gathers for rtm and gradient jobs")
    s.add_argument("--replace", action="store_true",
                   help="put: replace data of yours of that name (else 409)")
    add("devices", cmd_devices, "the server's devices")
    add("health", cmd_health, "server status")
    s = add("usage", cmd_usage, "device-hours, wall time and peak memory of the runs")
    s.add_argument("--since", help="30d, 12h or 2026-11-01 (default 30d)")
    add("rm", cmd_rm, "remove a finished job's outputs (its record is kept)")
    return p


def wants_json(argv):
    """--json among the options (before a "--"), looked at first so that even a usage
    error is reported as JSON."""
    for arg in argv:
        if arg == "--":
            return False
        if arg == "--json":
            return True
    return False


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    report = Reporter(wants_json(argv))
    try:
        # Options may come between positional arguments, as with getopt_long: what the
        # command's parser left over is more of its positional arguments, or an unknown
        # option.
        a, extra = build_parser().parse_known_args(argv)
        for arg in extra:
            if arg.startswith("-") and arg != "-":
                raise UsageError("unknown option %s" % arg.split("=")[0])
            a.pos.append(arg)
    except UsageError as e:
        return report.usage(str(e))
    for k, v in (("url", None), ("token", None), ("json", False)):
        if not hasattr(a, k):
            setattr(a, k, v)
    a.report = report
    url = (a.url or os.environ.get("FDWAVE_URL") or DEFAULT_URL).rstrip("/")
    if not url.startswith(("http://", "https://")):
        return report.usage("--url must start with http:// or https://, got '%s'" % url)
    c = FdwaveClient(url, a.token)
    try:
        return a.func(c, a)
    except UsageError as e:
        return report.usage(str(e))
    except Synopsis as e:
        return report.synopsis(str(e))
    except FdwaveError as e:
        return report.server(e)
    except TimeoutError as e:
        return report.server(FdwaveError("unreachable", str(e)))
    except KeyboardInterrupt:
        return 130
