#!/usr/bin/env python3
"""check_openapi_answers.py — the daemon's answers against schema/openapi.yaml, so the
description cannot drift from the code: a real fdwaved (CPU devices, two users with
tokens) is driven through every documented operation, its success answers and its error
answers (400, 401, 403, 404, 409, 413, 415, 416, 422), models and data uploaded, each event of a finished job's
stream, and each answer is checked: its status is documented for that operation, its
Content-Type is one the operation lists, and a JSON body validates against the schema
the description gives (OpenAPI 3.0 schemas turned into JSON Schema: nullable becomes
"or null"; the schemas list every member and forbid others, so a member added, removed
or renamed on either side fails). Every operation of the description must be driven.
GET /v1/openapi.yaml must be the file itself.

Usage: check_openapi_answers.py OPENAPI_YAML FDWAVED (PYTHONPATH: tests/clients for
fdwaved_proc). Exit 77 (skipped) without python3-yaml or python3-jsonschema."""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

try:
    import jsonschema
    import yaml
except ImportError as e:
    print("skipped: %s (install python3-yaml and python3-jsonschema)" % e)
    sys.exit(77)

from fdwaved_proc import Daemon

OPENAPI, FDWAVED = sys.argv[1], sys.argv[2]
with open(OPENAPI, "rb") as f:
    RAW = f.read()
DOC = yaml.safe_load(RAW)
failures = []
driven = set()


def to_json_schema(s):
    """An OpenAPI 3.0 schema object as JSON Schema (2020-12)."""
    if isinstance(s, list):
        return [to_json_schema(x) for x in s]
    if not isinstance(s, dict):
        return s
    out = {}
    for k, v in s.items():
        if k == "$ref":
            out[k] = v.replace("#/components/schemas/", "#/$defs/")
        elif k == "properties":
            out[k] = {name: to_json_schema(x) for name, x in v.items()}
        elif k in ("nullable", "example", "xml", "externalDocs", "deprecated"):
            continue
        else:
            out[k] = to_json_schema(v)
    return {"anyOf": [{"type": "null"}, out]} if s.get("nullable") else out


DEFS = {name: to_json_schema(s) for name, s in DOC["components"]["schemas"].items()}


def check_schema(what, schema, value):
    v = jsonschema.Draft202012Validator(dict(schema, **{"$defs": DEFS}))
    errors = sorted(v.iter_errors(value), key=lambda e: list(e.absolute_path))
    for e in errors[:5]:
        failures.append("%s: at %s: %s" % (what, "/".join(map(str, e.absolute_path)) or "(top)",
                                           e.message[:300]))
    return not errors


def documented(path, method, status):
    """The response object the description gives (path, method, status), or None."""
    op = DOC["paths"].get(path, {}).get(method)
    if op is None:
        return None
    r = op["responses"].get(str(status))
    if r and "$ref" in r:
        r = DOC["components"]["responses"][r["$ref"].rsplit("/", 1)[1]]
    return r


class Api:
    def __init__(self, url):
        self.url = url

    def call(self, op, method, token=None, body=None, headers=None, real_path=None,
             expect=None):
        """One request of operation (op path, method) to real_path (default: op path);
        checks status and content against the description. Returns (status, headers,
        body bytes, parsed JSON or None)."""
        driven.add((op, method))
        h = dict(headers or {})
        if token:
            h["Authorization"] = "Bearer " + token
        req = urllib.request.Request(self.url + (real_path or op), data=body, method=method.upper(),
                                     headers=h)
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                status, hdrs, data = resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as e:
            status, hdrs, data = e.code, e.headers, e.read()
        what = "%s %s (%s %s) -> %d" % (method.upper(), real_path or op, method, op, status)
        before = len(failures)
        if expect is not None and status != expect:
            failures.append("%s: expected %d: %s" % (what, expect, data[:300]))
        r = documented(op, method, status)
        if r is None:
            failures.append("%s: status not documented for this operation" % what)
            print("FAIL %s" % what)
            return status, hdrs, data, None
        ctype = (hdrs.get("Content-Type") or "").split(";")[0].strip()
        content = r.get("content", {})
        if data and content and ctype not in content:
            failures.append("%s: Content-Type %s, documented %s" % (what, ctype, list(content)))
        parsed = None
        if ctype == "application/json" and data:
            parsed = json.loads(data)
            schema = content.get("application/json", {}).get("schema")
            if schema is not None:
                check_schema(what, to_json_schema(schema), parsed)
        print("%s %s" % ("ok  " if len(failures) == before else "FAIL", what))
        return status, hdrs, data, parsed


def small_spec(name, nt=40, devices=1, n=24):
    c = (n - 1) * 5.0
    return json.dumps({
        "kind": "acoustic", "name": name,
        "grid": {"nx": n, "ny": n, "nz": n, "dx": 10, "dy": 10, "dz": 10},
        "order": 4, "velocity": {"type": "constant", "value": 2000},
        "time": {"nt": nt, "dt": "auto"},
        "sources": [{"position": [c, c, c], "wavelet": {"type": "ricker", "f0": 12}}],
        "receivers": {"lines": [{"from": [60, c, c], "to": [n * 10 - 70, c, c], "count": 5}]},
        "boundary": {"type": "sponge", "width": 6},
        "snapshots": {"every": max(20, nt // 2), "slices": [{"plane": "xy", "index": n // 2}], "png": True,
                      "raw": True},
        "devices": devices}).encode()


def wait_state(api, token, job, states, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, _, _, j = api.call("/v1/jobs/{id}", "get", token=token, real_path="/v1/jobs/%d" % job)
        if j and j.get("state") in states:
            return j
        time.sleep(0.1)
    failures.append("job %d never reached %s" % (job, states))
    return {}


def token_add(data, name, admin):
    args = [FDWAVED, "token", "add", name, "--data", data] + (["--admin"] if admin else [])
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout.split()[-1]


def main():
    tmp = tempfile.mkdtemp(prefix="fdwave-openapi-")
    data = os.path.join(tmp, "data")
    os.mkdir(data)
    root, alice = token_add(data, "root", True), token_add(data, "alice", False)
    daemon = Daemon(FDWAVED, data, extra=["--max-body", "64K", "--max-data-bytes", "1K"])
    try:
        drive(Api(daemon.url), root, alice)
    finally:
        daemon.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    missing = sorted({(p, m) for p, ops in DOC["paths"].items() for m in ops
                      if m in ("get", "put", "post", "delete", "patch")} - driven)
    for p, m in missing:
        failures.append("operation %s %s is never driven by this test" % (m.upper(), p))
    for f in failures:
        print("FAIL " + f)
    print("%d failures" % len(failures))
    return 1 if failures else 0


def drive(api, root, alice):
    json_ct = {"Content-Type": "application/json"}
    # The public routes, and the description served is this file.
    api.call("/v1/health", "get", expect=200)
    _, _, body, _ = api.call("/v1/openapi.yaml", "get", expect=200)
    if body != RAW:
        failures.append("GET /v1/openapi.yaml is not schema/openapi.yaml")
    api.call("/metrics", "get", expect=200)
    api.call("/", "get", expect=200)
    api.call("/v1/users/me", "get", expect=401)
    api.call("/v1/users/me", "get", alice, expect=200)
    api.call("/v1/devices", "get", alice, expect=200)

    # A job that runs to the end, and the ways a submission is refused.
    _, _, _, a = api.call("/v1/jobs", "post", alice, small_spec("openapi a"),
                          dict(json_ct, **{"Idempotency-Key": "k1"}), expect=201)
    api.call("/v1/jobs", "post", alice, small_spec("openapi a"),
             dict(json_ct, **{"Idempotency-Key": "k1"}), expect=200)
    api.call("/v1/jobs", "post", alice, small_spec("openapi other"),
             dict(json_ct, **{"Idempotency-Key": "k1"}), expect=422)
    api.call("/v1/jobs", "post", alice, b'{"kind": "acoustic", "grid": 3}', json_ct, expect=400)
    api.call("/v1/jobs", "post", alice, small_spec("x"), {"Content-Type": "text/plain"},
             expect=415)
    api.call("/v1/jobs", "post", alice, small_spec("x"), json_ct,
             real_path="/v1/jobs?priority=5", expect=403)
    api.call("/v1/jobs", "post", alice, b" " * (65 << 10), json_ct, expect=413)
    api.call("/v1/jobs", "post", None, small_spec("x"), json_ct, expect=401)
    aid = a["id"]
    wait_state(api, alice, aid, ("succeeded",))
    ja = "/v1/jobs/%d" % aid
    api.call("/v1/jobs/{id}", "get", alice, real_path=ja, expect=200)
    api.call("/v1/jobs/{id}", "get", alice, real_path="/v1/jobs/999999", expect=404)
    api.call("/v1/jobs", "get", alice, real_path="/v1/jobs?limit=1", expect=200)
    api.call("/v1/jobs", "get", alice, real_path="/v1/jobs?limit=0", expect=400)

    # Its event stream: every event's data against its type's schema.
    _, _, body, _ = api.call("/v1/jobs/{id}/events", "get", alice, real_path=ja + "/events",
                             expect=200)
    events = parse_sse(body.decode())
    if not events or events[-1]["event"] != "end":
        failures.append("the stream of job %d does not end with end: %r" % (aid, events[-3:]))
    event_schema = to_json_schema(DOC["components"]["schemas"]["Event"])
    by_type = {"state": "StateEvent", "end": "StateEvent", "progress": "Progress",
               "snapshot": "SnapshotEvent", "warning": "WarningEvent", "log": "LogEvent"}
    for e in events:
        what = "event %d (%s) of job %d" % (e["id"], e["event"], aid)
        if check_schema(what, event_schema, e) and e["event"] in by_type:
            check_schema(what, {"$ref": "#/$defs/" + by_type[e["event"]]}, e["data"])
    print("ok   %d events checked" % len(events))
    api.call("/v1/jobs/{id}/events", "get", alice, real_path=ja + "/events?since=x", expect=400)

    # Its outputs.
    _, _, _, m = api.call("/v1/jobs/{id}/outputs", "get", alice, real_path=ja + "/outputs",
                          expect=200)
    f = "/v1/jobs/{id}/outputs/{name}"
    for entry in (m or {}).get("files", [])[:3]:
        api.call(f, "get", alice, real_path=entry["url"], expect=200)
    api.call(f, "get", alice, real_path=ja + "/outputs/gather.segy",
             headers={"Range": "bytes=0-9"}, expect=206)
    api.call(f, "get", alice, real_path=ja + "/outputs/gather.segy",
             headers={"Range": "bytes=999999999-"}, expect=416)
    api.call(f, "get", alice, real_path=ja + "/outputs/none.png", expect=404)
    api.call(f, "get", alice, real_path=ja + "/outputs/.hidden", expect=400)
    api.call("/v1/jobs/{id}/outputs", "get", alice, real_path="/v1/jobs/999999/outputs",
             expect=404)

    # Queued, running, cancelled: root's two-device job holds both devices.
    _, _, _, b = api.call("/v1/jobs", "post", root, small_spec("openapi b", 200000, 2), json_ct,
                          expect=201)
    bid, jb = b["id"], "/v1/jobs/%d" % b["id"]
    wait_state(api, root, bid, ("running",))
    _, _, _, c = api.call("/v1/jobs", "post", alice, small_spec("openapi c"), json_ct,
                          expect=201)
    jc = "/v1/jobs/%d" % c["id"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # the scheduler's finding: waits for devices
        _, _, _, j = api.call("/v1/jobs/{id}", "get", alice, real_path=jc, expect=200)
        if j and (j.get("reason") or "").startswith("waits for devices"):
            break
        time.sleep(0.05)
    else:
        failures.append("job %d never said it waits for devices" % c["id"])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # a running job with progress
        _, _, _, j = api.call("/v1/jobs/{id}", "get", root, real_path=jb, expect=200)
        if j and j.get("progress"):
            break
        time.sleep(0.05)
    api.call("/v1/devices", "get", root, expect=200)
    api.call("/v1/jobs/{id}/cancel", "post", alice, real_path=jc + "/cancel", expect=200)
    api.call("/v1/jobs/{id}/cancel", "post", alice, real_path=jb + "/cancel", expect=404)
    api.call("/v1/jobs/{id}/cancel", "post", root, real_path=jb + "/cancel", expect=202)
    wait_state(api, root, bid, ("cancelled",))
    api.call("/v1/jobs/{id}/cancel", "post", root, real_path=jb + "/cancel", expect=409)

    # Models.
    model = struct.pack("<8f", *[2000.0] * 8)
    mp = "/v1/models/{name}"
    api.call(mp, "put", alice, model, {"Content-Type": "application/octet-stream"},
             real_path="/v1/models/m.f32", expect=201)
    api.call(mp, "put", alice, model, {"Content-Type": "application/octet-stream"},
             real_path="/v1/models/m.f32", expect=409)
    api.call(mp, "put", alice, b"\x00\x00\x80\xbf", {"Content-Type": "application/octet-stream"},
             real_path="/v1/models/neg.f32", expect=400)
    api.call(mp, "put", alice, model, {"Content-Type": "application/octet-stream"},
             real_path="/v1/models/o.f32?owner=bob", expect=403)
    api.call("/v1/models", "get", alice, expect=200)

    # Observed data (the daemon runs with --max-data-bytes 1K).
    dp, octet = "/v1/data/{name}", {"Content-Type": "application/octet-stream"}
    api.call(dp, "put", alice, model, octet, real_path="/v1/data/d.f32", expect=201)
    api.call(dp, "put", alice, model, octet, real_path="/v1/data/d.f32", expect=409)
    api.call(dp, "put", alice, b"\0" * 6, octet, real_path="/v1/data/odd.f32", expect=400)
    api.call(dp, "put", alice, model, octet, real_path="/v1/data/o.f32?owner=bob", expect=403)
    api.call(dp, "put", alice, b"\0" * 2048, octet, real_path="/v1/data/big.f32", expect=413)
    api.call("/v1/data", "get", alice, expect=200)
    api.call(dp, "get", alice, real_path="/v1/data/d.f32", expect=200)
    api.call(dp, "get", alice, real_path="/v1/data/none.f32", expect=404)
    api.call(dp, "delete", alice, real_path="/v1/data/none.f32", expect=404)
    api.call(dp, "delete", alice, real_path="/v1/data/d.f32", expect=200)

    # Accounting, and removal of the outputs.
    api.call("/v1/usage", "get", alice, expect=200)
    api.call("/v1/usage", "get", root, real_path="/v1/usage?user=alice", expect=200)
    api.call("/v1/usage", "get", alice, real_path="/v1/usage?user=root", expect=403)
    api.call("/v1/usage", "get", alice, real_path="/v1/usage?since=yesterday-ish", expect=400)
    api.call("/v1/jobs/{id}", "delete", alice, real_path=jb, expect=404)
    _, _, _, gone = api.call("/v1/jobs/{id}", "delete", alice, real_path=ja, expect=200)
    if gone and not gone.get("outputs_removed"):
        failures.append("DELETE %s: outputs_removed not set" % ja)
    _, _, _, d = api.call("/v1/jobs", "post", root, small_spec("openapi d", 200000), json_ct,
                          expect=201)
    wait_state(api, root, d["id"], ("running",))
    api.call("/v1/jobs/{id}", "delete", root, real_path="/v1/jobs/%d" % d["id"], expect=202)
    wait_state(api, root, d["id"], ("cancelled",))


def parse_sse(text):
    """The events of a whole stream: [{"id": int, "event": str, "data": parsed JSON}]."""
    events = []
    for block in text.split("\n\n"):
        fields = {}
        for line in block.split("\n"):
            if line and not line.startswith(":") and ":" in line:
                k, v = line.split(":", 1)
                fields[k] = v[1:] if v.startswith(" ") else v
        if "event" in fields:
            events.append({"id": int(fields.get("id", "0")), "event": fields["event"],
                           "data": json.loads(fields.get("data", "null"))})
    return events


if __name__ == "__main__":
    sys.exit(main())
