#!/usr/bin/env bash
# demo.sh — the README's demo, run by `deploy/setup.sh demo` with the build directory as
# $1: starts fdwaved on 127.0.0.1 (CPU backend, data in ./fdwave-data), submits
# examples/homogeneous.json with curl, prints the job's progress from its event stream,
# then the snapshot URLs from the manifest and where the files are on disk, and stops the
# daemon. Needs only curl and python3 (for reading JSON) besides the build.
# Environment: FDW_PORT (default 8080; 0 picks a free port).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
DAEMON="$BUILD_DIR/server/fdwaved"
PORT=${FDW_PORT:-8080}
DATA=./fdwave-data
LOG=$DATA/fdwaved-demo.log

if [ ! -x "$DAEMON" ]; then
    echo "demo: $DAEMON not found; build first (deploy/setup.sh demo does)" >&2
    exit 1
fi
mkdir -p "$DATA"

# Start the daemon; its log goes to a file, and we read the bound port from it.
"$DAEMON" --listen "127.0.0.1:$PORT" --data "$DATA" --backend cpu --devices cpu:2 \
    --log-level info 2>"$LOG" &
PID=$!
stop() {
    if kill -0 "$PID" 2>/dev/null; then
        kill -TERM "$PID"
        wait "$PID" 2>/dev/null || true
        echo "demo: fdwaved stopped"
    fi
}
trap stop EXIT

URL=""
for _ in $(seq 1 100); do
    URL=$(sed -n 's/.*listening on \(http:\/\/[0-9.:]*\).*/\1/p' "$LOG" | head -n1)
    [ -n "$URL" ] && break
    if ! kill -0 "$PID" 2>/dev/null; then
        echo "demo: fdwaved exited; its log:" >&2
        cat "$LOG" >&2
        exit 1
    fi
    sleep 0.1
done
if [ -z "$URL" ]; then
    echo "demo: fdwaved did not say where it listens; its log:" >&2
    cat "$LOG" >&2
    exit 1
fi
echo "demo: fdwaved (pid $PID) listening on $URL, data in $DATA, log in $LOG"

json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

echo "demo: submitting examples/homogeneous.json"
ANSWER=$(curl -sS -X POST -H 'Content-Type: application/json' \
    --data-binary @examples/homogeneous.json "$URL/v1/jobs")
ID=$(printf '%s' "$ANSWER" | json 'd.get("id", "")' 2>/dev/null || true)
if [ -z "$ID" ]; then
    echo "demo: submit failed: $ANSWER" >&2
    exit 1
fi
echo "demo: job $ID queued; following $URL/v1/jobs/$ID/events"

# Follow the event stream until its "end" event; print one line per event.
curl -sS -N "$URL/v1/jobs/$ID/events" | python3 -u -c '
import json, sys
kind = None
for line in sys.stdin:
    line = line.rstrip("\r\n")
    if line.startswith("event:"):
        kind = line[6:].strip()
    elif line.startswith("data:") and kind:
        d = json.loads(line[5:])
        if kind == "progress":
            print("  progress %5.1f%%  step %s/%s  %.1f Mpt/s  ETA %.1f s" % (
                d.get("percent", 0), d.get("step"), d.get("nsteps"), d.get("mpts") or 0,
                d.get("eta_s") or 0))
        elif kind == "snapshot":
            print("  snapshot %s at step %s: %s" % (d.get("index"), d.get("step"),
                  " ".join(f.get("url", f.get("name", "")) for f in d.get("files", []))))
        elif kind in ("state", "end"):
            print("  %s: %s%s" % (kind, d.get("state"),
                  " (%s)" % d["reason"] if d.get("reason") else ""))
        elif kind == "warning":
            print("  warning: %s" % d.get("message"))
        if kind == "end":
            break
        kind = None
'

STATE=$(curl -sS "$URL/v1/jobs/$ID" | json 'd["state"]')
echo "demo: job $ID $STATE"
echo "demo: snapshot files (URL, then path on disk):"
curl -sS "$URL/v1/jobs/$ID/outputs" | python3 -c '
import json, os, sys
base, data, job = sys.argv[1], sys.argv[2], sys.argv[3]
m = json.load(sys.stdin)
for f in m.get("files", []):
    if f.get("kind") == "snapshot":
        print("  %s%s" % (base, f.get("url")))
        print("    %s" % os.path.join(data, "jobs", job, "out", f["name"]))
' "$URL" "$DATA" "$ID"
[ "$STATE" = succeeded ]
