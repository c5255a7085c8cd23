"""test_error_examples.py — every error example in the documentation is what fdwaved and
the CLIs really answer.

The pages read: README.md, every docs/*.md and examples/README.md. An error example is a
shell session in a fenced code block: lines that start with "$ " are commands, the lines
after each command (up to the next "$ " line or the end of the block) are what it prints,
stdout and stderr together. A session is checked when what it prints holds an error: a
line that starts with "error: CODE: ", with {"error": or with "cannot reach fdwaved".

Each command runs in bash from the repository root against a fresh fdwaved (CPU backend),
with `fdwave` and `fdwave-run` of this build first on PATH, FDWAVE_URL pointing at the
daemon and http://127.0.0.1:8080 in a command replaced by the daemon's address. The
output must have as many lines as the example, each equal to its line, where "..."
stands for any text; a line of JSON is compared as JSON (key order aside), "..." inside
its strings likewise.

An error shown anywhere else in these pages (in prose, or in a block without its
command) cannot be checked: the test fails and names the line, so every documented error
stays runnable.

usage: test_error_examples.py --daemon FDWAVED --cli FDWAVE --run FDWAVE_RUN --root REPO
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients"))
from fdwaved_proc import Daemon  # noqa: E402

ERROR_LINE = re.compile(r'^(error: [a-z_0-9]+: |\{"error":|cannot reach fdwaved)')
# An error in prose or in a block without a command: inline code or a quoted answer.
ERROR_ELSEWHERE = re.compile(r'(`error: [a-z_0-9]+: |"error": ?\{|^error: [a-z_0-9]+: )')
DOC_URL = "http://127.0.0.1:8080"


def pages(root):
    found = [os.path.join(root, "README.md"), os.path.join(root, "examples", "README.md")]
    found += sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    return [p for p in found if os.path.exists(p)]


def sessions(path):
    """(sessions, stray): each session is [(line number, command, [output lines])] of one
    block; stray lists (line number, text) of errors shown outside a session."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, stray = [], []
    i = 0
    while i < len(lines):
        if not lines[i].lstrip().startswith("```"):
            if ERROR_ELSEWHERE.search(lines[i]):
                stray.append((i + 1, lines[i].strip()))
            i += 1
            continue
        indent = len(lines[i]) - len(lines[i].lstrip())
        start = i + 1
        i += 1
        while i < len(lines) and not lines[i].lstrip().startswith("```"):
            i += 1
        block = [(n + 1, l[indent:] if l[:indent].strip() == "" else l)
                 for n, l in enumerate(lines[start:i], start)]
        i += 1
        steps = []
        for n, l in block:
            if l.startswith("$ "):
                steps.append((n, l[2:], []))
            elif steps:
                steps[-1][2].append(l)
        for s in steps:
            while s[2] and not s[2][-1].strip():
                s[2].pop()
        shows_error = any(ERROR_LINE.match(o) for s in steps for o in s[2])
        if steps and shows_error:
            out.append(steps)
        else:
            stray += [(n, l.strip()) for n, l in block if ERROR_ELSEWHERE.search(l)]
    return out, stray


def text_matches(want, got):
    return re.fullmatch(".*".join(re.escape(p) for p in want.split("...")), got,
                        re.S) is not None


def json_matches(want, got):
    if isinstance(want, str) and isinstance(got, str):
        return text_matches(want, got)
    if isinstance(want, dict) and isinstance(got, dict):
        return set(want) == set(got) and all(json_matches(want[k], got[k]) for k in want)
    if isinstance(want, list) and isinstance(got, list):
        return len(want) == len(got) and all(json_matches(a, b) for a, b in zip(want, got))
    return type(want) is type(got) and want == got


def line_matches(want, got):
    if want.startswith("{"):
        try:
            return json_matches(json.loads(want), json.loads(got))
        except ValueError:
            return False
    return text_matches(want, got)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--daemon", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--run", required=True)
    ap.add_argument("--root", required=True)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="fdwave-docs-")
    bindir = os.path.join(tmp, "bin")
    os.mkdir(bindir)
    os.symlink(os.path.abspath(a.cli), os.path.join(bindir, "fdwave"))
    os.symlink(os.path.abspath(a.run), os.path.join(bindir, "fdwave-run"))
    data = os.path.join(tmp, "data")
    os.mkdir(data)
    daemon = Daemon(a.daemon, data)
    env = {k: v for k, v in os.environ.items() if not k.startswith("FDWAVE_")}
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env["FDWAVE_URL"] = daemon.url
    failures, checked = [], 0
    try:
        for page in pages(a.root):
            rel = os.path.relpath(page, a.root)
            found, stray = sessions(page)
            for n, text in stray:
                failures.append("%s:%d: an error shown without the command that gives it "
                                "(make it a \"$ \" session in a code block): %s"
                                % (rel, n, text))
            for steps in found:
                for n, cmd, want in steps:
                    p = subprocess.run(["bash", "-c", cmd.replace(DOC_URL, daemon.url)],
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       text=True, cwd=a.root, env=env, timeout=120)
                    got = p.stdout.rstrip("\n").split("\n") if p.stdout.strip() else []
                    checked += 1
                    ok = len(got) == len(want) and all(
                        line_matches(w, g) for w, g in zip(want, got))
                    print("%s %s:%d: $ %s" % ("ok  " if ok else "FAIL", rel, n, cmd))
                    if not ok:
                        failures.append("%s:%d: $ %s\n  documented:\n    %s\n  got:\n    %s"
                                        % (rel, n, cmd, "\n    ".join(want),
                                           "\n    ".join(got)))
    finally:
        daemon.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL " + f)
    if checked == 0:
        print("FAIL: no error example found in %s" % ", ".join(pages(a.root)))
        return 1
    print("%d documented commands checked, %d failures" % (checked, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
