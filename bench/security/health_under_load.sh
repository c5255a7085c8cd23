#!/usr/bin/env bash
# health_under_load.sh — issue 15's target, measured: GET /v1/health latency while 64
# hostile job submissions are in flight. Starts the fdwaved of BUILD_DIR (CPU backend,
# fresh data directory, a token for the attacker) on a free loopback port; 64 clients
# POST hostile specs in a loop (the issue's 385-byte request for 10^7 receivers on one
# line, and the costliest spec the caps let through to expansion: 90000 receivers on a
# plane, refused on a field parsed after them); meanwhile PROBES health requests, one
# after another on new connections, each timed by curl. Prints p50/p90/p99/max and writes a JSON record to
# bench/security/health-<date>.json.
# Usage: bench/security/health_under_load.sh [BUILD_DIR] [PROBES]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
probes=${2:-2000}
daemon=$build/server/fdwaved
data=$(mktemp -d /tmp/fdw-health-XXXXXX)
work=$(mktemp -d /tmp/fdw-health-work-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; [ -n "${pid:-}" ] && kill $pid 2>/dev/null; rm -rf "$data" "$work"' EXIT
token=$("$daemon" token add mallory --data "$data")
# Attackers and prober all connect from 127.0.0.1: the per-address limit (64) is raised so
# they stand for separate hosts.
flags="--devices cpu:1 --max-connections-per-ip 1000"
"$daemon" --listen 127.0.0.1:0 --data "$data" $flags 2> "$work/log" &
pid=$!
for _ in $(seq 100); do
    port=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$work/log" | grep -o '[0-9]*$' || true)
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { echo "fdwaved did not start" >&2; cat "$work/log" >&2; exit 1; }
base=http://127.0.0.1:$port
printf '%s' '{"grid":{"nx":400,"ny":400,"nz":400,"dx":10,"dy":10,"dz":10},"order":4,"velocity":{"type":"constant","value":1500},"time":{"nt":1000},"sources":[{"position":[80,80,80],"wavelet":{"type":"ricker","f0":1}}],"receivers":{"lines":[{"from":[0,0,0],"to":[3990,3990,3990],"count":10000000}]}}' > "$work/h1.json"
printf '%s' '{"grid":{"nx":300,"ny":300,"nz":300,"dx":10,"dy":10,"dz":10},"order":4,"velocity":{"type":"constant","value":1500},"time":{"nt":1000},"sources":[{"position":[80,80,80],"wavelet":{"type":"ricker","f0":1}}],"receivers":{"planes":[{"axis":"z","position":1000}]},"snapshots":{"every":-1}}' > "$work/h2.json"
# The attackers: two curl processes, 32 transfers in flight each, so 64 submissions are
# in flight at any time (no process is started per request: the load is the daemon's).
# curl config files naming URL n times, each answer to /dev/null (too many for argv)
urls() { for _ in $(seq "$2"); do printf 'url = "%s"\noutput = "/dev/null"\n' "$1"; done; }
urls "$base/v1/jobs" 50000 > "$work/attack.cfg"
urls "$base/v1/health" "$probes" > "$work/probe.cfg"
for i in 1 2; do
    stdbuf -oL curl -s --parallel --parallel-immediate --parallel-max 32 \
         -w '%{http_code}\n' -H "Authorization: Bearer $token" \
         -H 'Content-Type: application/json' --data-binary @"$work/h$i.json" \
         -K "$work/attack.cfg" > "$work/codes.$i" 2>/dev/null &
done
sleep 2 # the submitters are all in flight
# The probes: one after another, each on a new connection (Connection: close), timed by
# curl from the start of the connection to the end of the answer.
curl -s -H 'Connection: close' -w '%{time_total} %{http_code}\n' \
    -K "$work/probe.cfg" > "$work/lat" || true # a failed probe is counted below
kill %2 %3 2>/dev/null || true
wait %2 %3 2>/dev/null || true
submits=$(cat "$work"/codes.* | grep -c . || true)
refused=$(cat "$work"/codes.* | grep -c '^400$' || true)
busy=$(cat "$work"/codes.* | grep -c '^503$' || true)
python3 - "$work/lat" "$submits" "$refused" "$busy" "$probes" "$flags" <<'PY'
import json, subprocess, sys, datetime, os
lat = []
bad = 0
for line in open(sys.argv[1]):
    t, code = line.split()
    lat.append(float(t) * 1000)
    bad += code != "200"
bad += int(sys.argv[5]) - len(lat)  # probes that got no answer at all
lat.sort()
q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
rec = {
    "what": "GET /v1/health latency with 64 hostile POST /v1/jobs clients in flight",
    "date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
    "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True).stdout.strip(),
    "cpus": os.cpu_count(),
    "probes": len(lat), "non_200": bad,
    "p50_ms": round(q(0.50), 2), "p90_ms": round(q(0.90), 2), "p99_ms": round(q(0.99), 2),
    "max_ms": round(lat[-1], 2),
    "hostile_submits": int(sys.argv[2]), "refused_400": int(sys.argv[3]),
    "queue_full_503": int(sys.argv[4]),
    "target_p99_ms": 20,
    "daemon_flags": sys.argv[6],
    "probe": "curl, one after another, each on a new connection (Connection: close)",
    "attack": "2 curl --parallel processes x 32 transfers in flight: the 10^7-receiver line and a 90000-receiver plane refused after expansion",
}
name = "bench/security/health-%s.json" % rec["date"].replace(":", "").replace("-", "")
json.dump(rec, open(name, "w"), indent=1)
print(json.dumps(rec, indent=1))
print("written to", name)
PY
