#!/usr/bin/env bash
# bench_http.sh — HTTP latency of fdwaved under load: 200 SSE watchers stay connected to
# a running job's event stream (each receiving its progress events, ~2/s) while wrk
# drives GET /v1/jobs/{id} and then POST /v1/jobs at 64 connections. Prints wrk's
# rate and latency distribution (p50/p90/p99) for both, the daemon's CPU time per
# request (and the simulation's CPU time) and the load average, then one summary line
# per endpoint (a row for bench/RESULTS.md) and the watchers still connected.
#
# usage: bench/bench_http.sh [BUILD_DIR]   (default: build)
# env:   WATCHERS (200), CONNS (64), DURATION (10s), THREADS (wrk threads, 1),
#        DAEMON_ARGS (more fdwaved flags, after the limits the script sets itself),
#        JSON (a file: one record per endpoint, for bench/results/ and bench/make_results.py)
#
# Setup, so that the POSTed jobs stay queued and the numbers measure the HTTP path and
# the durable (fsync'd) accept, not simulations competing for the CPU: one long 1-device
# job runs (the watchers follow it); a 4-device job waits behind it and, the queue being
# strict head-of-line, every POSTed job waits behind that one.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
FDWAVED=$BUILD/server/fdwaved
WATCHERS=${WATCHERS:-200}
CONNS=${CONNS:-64}
DURATION=${DURATION:-10s}
THREADS=${THREADS:-1}
command -v wrk >/dev/null || { echo "bench_http: wrk is not installed (apt-get install wrk)" >&2; exit 2; }
[ -x "$FDWAVED" ] || { echo "bench_http: $FDWAVED not built" >&2; exit 2; }

TMP=$(mktemp -d /tmp/fdwd-bench-XXXXXX)
DPID=""
WPIDS=()
cleanup() {
    for p in "${WPIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    [ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT

# The limits this run needs: every watcher, every wrk connection and the script's own
# requests come from 127.0.0.1, beyond the per-address default (64). DAEMON_ARGS come
# last and win.
PER_IP=$((WATCHERS + CONNS + 16))
MAXCONN=$((PER_IP > 1024 ? PER_IP : 1024))
"$FDWAVED" --listen 127.0.0.1:0 --data "$TMP/data" --devices cpu:4 --log-level warn \
    --max-connections "$MAXCONN" --max-connections-per-ip "$PER_IP" \
    ${DAEMON_ARGS:-} 2>"$TMP/daemon.log" &
DPID=$!
# The port is printed at info level; ask /proc for the listening socket instead.
PORT=""
for _ in $(seq 100); do
    PORT=$(ss -ltnpH 2>/dev/null | grep "pid=$DPID," | awk '{print $4}' | sed 's/.*://' | head -1 || true)
    [ -n "$PORT" ] && break
    sleep 0.1
done
[ -n "$PORT" ] || { echo "bench_http: fdwaved did not start"; cat "$TMP/daemon.log"; exit 1; }
BASE=http://127.0.0.1:$PORT

spec() { # n nt devices
    printf '{"name":"bench","grid":{"nx":%d,"ny":%d,"nz":%d,"dx":10,"dy":10,"dz":10},"order":4,' "$1" "$1" "$1"
    printf '"velocity":{"type":"constant","value":2000},"time":{"nt":%d},' "$2"
    printf '"sources":[{"position":[80,80,80],"wavelet":{"type":"ricker","f0":10}}],"devices":%d}' "$3"
}
post() { curl -sf -H 'Content-Type: application/json' --data "$1" "$BASE/v1/jobs"; }
RUNNING=$(post "$(spec 48 1000000 1)" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
GATE=$(post "$(spec 24 10 4)" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')

for _ in $(seq "$WATCHERS"); do
    curl -sN "$BASE/v1/jobs/$RUNNING/events" >/dev/null 2>&1 &
    WPIDS+=($!)
done
for _ in $(seq 100); do
    n=$(curl -s "$BASE/metrics" | awk '/^fdwave_event_streams/ {print $2}')
    [ "$n" -ge "$WATCHERS" ] && break
    sleep 0.1
done
echo "watchers connected: $n (following job $RUNNING, which runs); GET target: job $GATE (queued)"

cat >"$TMP/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '$(spec 16 10 1)'
LUA

# CPU time of the daemon's threads in clock ticks: "sim" sums the simulation threads
# (SCHED_IDLE, policy 5, or niced: --cpu-job-sched), "http" all the others (HTTP,
# accept, events, scheduler). With the request count, http gives a cost per request
# that, unlike the latencies, hardly depends on what else the machine runs.
cpu_ticks() { # http|sim
    cat /proc/"$DPID"/task/*/stat 2>/dev/null |
        awk -v w="$1" '{sub(/^.*\) /, ""); t = $12 + $13; sim = $17 != 0 || $39 == 5
                        if (sim == (w == "sim")) s += t}
                       END {print s + 0}'
}
SUMMARY=()
RECORDS=()
run_wrk() { # label, wrk args...
    local label=$1 h0 h1 s0 s1 out n line
    shift
    h0=$(cpu_ticks http) s0=$(cpu_ticks sim)
    out=$(wrk "$@")
    h1=$(cpu_ticks http) s1=$(cpu_ticks sim)
    echo "$out"
    n=$(echo "$out" | awk '/requests in/ {print $1}')
    awk -v h=$((h1 - h0)) -v s=$((s1 - s0)) -v hz="$(getconf CLK_TCK)" -v n="${n:-0}" \
        -v l="$label" -v la="$(cut -d' ' -f1-3 /proc/loadavg)" \
        'BEGIN {printf "%s: daemon CPU %.2f s (%.0f us per request) + simulation %.2f s; load average %s\n",
                l, h / hz, (n > 0 ? 1e6 * h / hz / n : 0), s / hz, la}'
    # | date | endpoint | req/s | p50 | p90 | p99 | daemon CPU/request | errors | load avg |
    line=$(echo "$out" | awk -v h=$((h1 - h0)) -v hz="$(getconf CLK_TCK)" -v n="${n:-0}" \
        -v l="$label" -v d="$(date -u +'%Y-%m-%d %H:%M')" -v la="$(cut -d' ' -f1 /proc/loadavg)" '
        /^ +50%/ {p50 = $2} /^ +90%/ {p90 = $2} /^ +99%/ {p99 = $2}
        /^Requests\/sec/ {rps = $2}
        /Socket errors|Non-2xx/ {err = err $0 " "}
        END {printf "| %s | %s | %.0f | %s | %s | %s | %.0f us | %s | %s |", d, l, rps, p50, p90,
                    p99, (n > 0 ? 1e6 * h / hz / n : 0), (err == "" ? "none" : err), la}')
    SUMMARY+=("$line")
    # The same as a JSON record (latencies in ms whatever unit wrk printed).
    RECORDS+=("$(echo "$out" | awk -v h=$((h1 - h0)) -v hz="$(getconf CLK_TCK)" -v n="${n:-0}" \
        -v l="$label" -v d="$(date -u +%Y-%m-%dT%H:%M:%SZ)" -v la="$(cut -d' ' -f1 /proc/loadavg)" \
        -v c="$CONNS" -v w="$WATCHERS" -v dev="cpu ($(nproc) cores)" '
        function ms(v) { return v ~ /us$/ ? v / 1000 : v ~ /ms$/ ? v + 0 : v ~ /s$/ ? v * 1000 : v + 0 }
        /^ +50%/ {p50 = ms($2)} /^ +90%/ {p90 = ms($2)} /^ +99%/ {p99 = ms($2)}
        /^Requests\/sec/ {rps = $2}
        /Socket errors|Non-2xx/ {err = err $0 " "}
        END {printf "{\"kind\": \"http\", \"endpoint\": \"%s\", \"conns\": %d, \"watchers\": %d, " \
                    "\"req_s\": %.0f, \"p50_ms\": %.3f, \"p90_ms\": %.3f, \"p99_ms\": %.3f, " \
                    "\"cpu_us_per_request\": %.0f, \"errors\": \"%s\", \"loadavg\": %s, " \
                    "\"device\": \"%s\", \"gpus\": 0, \"date\": \"%s\", " \
                    "\"command\": \"bench/bench_http.sh\"}",
                    l, c, w, rps, p50, p90, p99, (n > 0 ? 1e6 * h / hz / n : 0),
                    (err == "" ? "none" : err), la, dev, d}')")
}

echo "== GET /v1/jobs/$GATE: wrk -t$THREADS -c$CONNS -d$DURATION --latency"
run_wrk "GET /v1/jobs/{id}" -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency "$BASE/v1/jobs/$GATE"
echo "== POST /v1/jobs: wrk -t$THREADS -c$CONNS -d$DURATION --latency -s post.lua"
run_wrk "POST /v1/jobs" -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -s "$TMP/post.lua" "$BASE/v1/jobs"

curl -s "$BASE/metrics" | grep -E '^fdwave_(event_streams|queue_length|http_responses_total)'
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  host: $(nproc) cores"
echo "| date (UTC) | endpoint | req/s | p50 | p90 | p99 | daemon CPU/request | wrk errors | load avg |"
printf '%s\n' "${SUMMARY[@]}"
if [ -n "${JSON:-}" ]; then
    { echo "["; (IFS=','; echo "${RECORDS[*]}"); echo "]"; } >"$JSON"
    python3 -m json.tool "$JSON" >/dev/null && echo "records written to $JSON"
fi
