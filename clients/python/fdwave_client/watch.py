"""watch.py — `watch ID` and the waiting part of `submit --wait` in `python -m
fdwave_client`: follows a job's events and prints them as the C `fdwave` CLI does
(clients/cli/watch.c): a progress bar redrawn in place on a terminal, one line per event
otherwise, one JSON object per line with --json. A job that goes back from running to
queued (fdwaved restarted under it) is said to be "re-queued after a restart"; the "end:"
line is the last one on screen."""
import json
import sys

from .exit_codes import exit_for_state
from .textfmt import fmt_rate, fmt_shots, fmt_time

BAR_WIDTH = 30


class ProgressBar:
    """The terminal progress display fdwave-run and the C CLI share
    (engine/tools/progress_bar.c), line for line."""

    def __init__(self, out, tty):
        self.out, self.tty = out, tty
        self.line = ""
        self.shown = False

    def show(self, d):
        pct = _num(d, "percent", 0.0)
        step, nsteps = _int(d, "step"), _int(d, "nsteps")
        rate = fmt_rate(_num(d, "mpts", 0.0))
        eta = fmt_time(_num(d, "eta_s", -1.0))
        shots = fmt_shots(d)
        if not self.tty:
            elapsed = _num(d, "elapsed_s", -1.0)
            el = " elapsed %s" % fmt_time(elapsed) if elapsed >= 0 else ""
            self.out.write("progress %5.1f%% %sstep %d/%d %s%s ETA %s\n"
                           % (pct, shots, step, nsteps, rate, el, eta))
            self.out.flush()
            return
        fill = max(0, min(BAR_WIDTH, int(pct / 100.0 * BAR_WIDTH + 0.5)))
        bar = "#" * fill + "." * (BAR_WIDTH - fill)
        self.line = "[%s] %5.1f%%  %sstep %d/%d  %s  ETA %s" % (bar, pct, shots, step, nsteps,
                                                                rate, eta)
        self.out.write("\r\033[K" + self.line)
        self.shown = True
        self.out.flush()

    def hide(self):
        if self.tty and self.shown:
            self.out.write("\r\033[K")
            self.shown = False

    def redraw(self):
        if self.tty and self.line and not self.shown:
            self.out.write(self.line)
            self.shown = True
            self.out.flush()

    def finish(self):
        if self.tty and self.line:
            self.hide()
            self.out.write(self.line + "\n")
            self.out.flush()
        self.line = ""
        self.shown = False


def _num(d, key, fallback):
    v = d.get(key)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else fallback


def _int(d, key):
    v = d.get(key)
    return int(v) if isinstance(v, int) and not isinstance(v, bool) else 0


def event_line(etype, d, raw):
    """One line of text for an event other than progress."""
    reason = d.get("reason") if isinstance(d.get("reason"), str) else ""
    if etype in ("state", "end"):
        st = d.get("state") if isinstance(d.get("state"), str) else "?"
        return "%s: %s%s" % (etype, st, " (%s)" % reason if reason else "")
    if etype == "snapshot":
        line = "snapshot %d: step %d, t = %.4g s:" % (_int(d, "index"), _int(d, "step"),
                                                      _num(d, "time", 0.0))
        for f in d.get("files") or []:
            u = f.get("url") or f.get("name")
            if u:
                line += " " + u
        return line
    if etype == "warning":
        return "warning: %s" % (d["message"] if isinstance(d.get("message"), str) else raw)
    if etype == "log":
        lv = d.get("level") if isinstance(d.get("level"), str) else "info"
        return "log %s: %s" % (lv, d["message"] if isinstance(d.get("message"), str) else raw)
    return "%s: %s" % (etype, raw)


def follow(client, job_id, out, bar, as_json, since=None):
    """Prints a job's events until "end" (to out; None: silently); returns the exit code
    of its final state."""
    pb = ProgressBar(out, bar and not as_json) if out is not None else None
    ran = False
    end_state = None

    def on_reconnect(last_id):
        if pb:
            pb.hide()
        sys.stderr.write("connection lost; reconnecting (Last-Event-ID: %s)\n"
                         % (last_id or "none"))
        sys.stderr.flush()
        if pb:
            pb.redraw()

    for ev in client.events(job_id, since=since, on_reconnect=on_reconnect):
        d = ev.data if isinstance(ev.data, dict) else {}
        if ev.type == "end":
            end_state = d.get("state")
        if out is None:
            continue
        if as_json:
            out.write(json.dumps({"id": ev.id, "event": ev.type, "data": ev.data},
                                 separators=(",", ":"), ensure_ascii=False) + "\n")
            out.flush()
            continue
        if ev.type == "progress" and isinstance(ev.data, dict):
            ran = True
            pb.show(d)
            continue
        raw = ev.data if isinstance(ev.data, str) else json.dumps(
            ev.data, separators=(",", ":"), ensure_ascii=False)
        line = event_line(ev.type, d, raw)
        state = d.get("state") if ev.type == "state" else None
        requeued = state == "queued" and ran
        if state is not None:
            ran = not requeued and (ran or state == "running")
        if ev.type == "end":
            pb.finish()
            out.write(line + "\n")
        elif requeued:
            pb.finish()
            out.write(line + "\nre-queued after a restart: it resumes from its last checkpoint (from step 0 if it has none)\n")
        else:
            pb.hide()
            out.write(line + "\n")
            pb.redraw()
        out.flush()
    if pb:
        pb.finish()
    return exit_for_state(end_state)
