#!/usr/bin/env bash
# ckpt_cost.sh — what a checkpoint costs the time loop: a cubic acoustic order-8 job with a
# CPML (N^3, NT steps, one device) run by fdwave-run on BACKEND without checkpoints and with
# one every CS steps, RUNS times each (alternating). Prints the medians of the loop times
# (manifest's elapsed_s) and their difference per checkpoint, and the engine's own figures
# from its "checkpoint written" lines: how long the loop paused for each checkpoint (the
# copy into host memory, and any wait for the previous write) and how long its file took
# to write while the loop went on; and from its info lines how fast the loop stepped while
# each file was written, against before it. For the pause to be the whole cost, CS steps must take
# longer than one write (else the next checkpoint waits for it: that shows as pause).
#
# Usage: bench/ckpt_cost.sh BUILD_DIR [cpu|cuda]
# Env: N=256 NT=60 CS=20 RUNS=3 THREADS (CPU threads; default all) CKD (checkpoint
# directory; default under $TMPDIR) JSON (write the record there) KEEP (copy the runs'
# JSON and logs into this directory) GPU (the device's name for the record).
# CPU figures (docs/operations.md "Checkpoints"): bench/ckpt_cost.sh build cpu
set -u
BUILD=${1:?usage: bench/ckpt_cost.sh BUILD_DIR [cpu|cuda]}
BACKEND=${2:-cpu}
RUN="$BUILD/engine/fdwave-run"
N=${N:-256}; NT=${NT:-60}; CS=${CS:-20}; RUNS=${RUNS:-3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fdw-ckpt-cost-XXXXXX")
CKD=${CKD:-$WORK/ck}
trap 'rm -rf "$WORK" "$CKD"' EXIT
ARGS=(--backend "$BACKEND" --json)
[ -n "${THREADS:-}" ] && ARGS+=(-t "$THREADS")
C=$((N * 5))
cat > "$WORK/job.json" <<JOB
{"kind":"acoustic","name":"checkpoint cost","grid":{"nx":$N,"ny":$N,"nz":$N,"dx":10,"dy":10,"dz":10},
 "order":8,"velocity":{"type":"constant","value":2500},"time":{"nt":$NT,"dt":"auto"},
 "sources":[{"position":[$C,$C,$C],"wavelet":{"type":"ricker","f0":10}}],
 "boundary":{"type":"cpml","width":16},"devices":1}
JOB
for r in $(seq "$RUNS"); do
  for kind in plain with; do
    rm -rf "$CKD" "$WORK/out"
    extra=()
    [ "$kind" = with ] && extra=(--checkpoint "$CKD" --checkpoint-interval 0 --checkpoint-steps "$CS")
    if ! "$RUN" "$WORK/job.json" "${ARGS[@]}" -o "$WORK/out" "${extra[@]}" \
        > "$WORK/$kind$r.json" 2> "$WORK/$kind$r.err"; then
      echo "ckpt_cost: the run $kind$r failed:"; tail -5 "$WORK/$kind$r.err"
    fi
  done
done
[ -n "${KEEP:-}" ] && mkdir -p "$KEEP" && cp "$WORK"/*.json "$WORK"/*.err "$KEEP"/
/usr/bin/python3 - "$WORK" "$RUNS" "$N" "$NT" "$CS" "$BACKEND" "${JSON:-}" "${GPU:-}" <<'PY'
import json, re, statistics, sys
work, runs, n, nt, cs, backend, out, gpu = sys.argv[1:9]
runs, n, nt, cs = int(runs), int(n), int(nt), int(cs)
def load(name):
    try:
        return json.load(open("%s/%s.json" % (work, name)))
    except Exception as e:
        return {"status": "unreadable: %s" % e}
plain = [load("plain%d" % r) for r in range(1, runs + 1)]
withc = [load("with%d" % r) for r in range(1, runs + 1)]
cks = []  # (MiB, write seconds, loop paused seconds)
paces = []  # (ms a step while a write ran, ms a step before it)
for r in range(1, runs + 1):
    err = open("%s/with%d.err" % (work, r), errors="replace").read()
    # (an fdwave-run that wrote its checkpoints in the loop says no pause: it is the write)
    cks += [(float(m.group(1)), float(m.group(2)), float(m.group(3) or m.group(2))) for m in
            re.finditer(r"checkpoint written at step \d+ of \d+ \(([\d.]+) MiB, ([\d.]+) s"
                        r"(?:; the loop paused ([\d.]+) s)?\)", err)]
    paces += [(float(m.group(1)), float(m.group(2))) for m in
              re.finditer(r"steps at ([\d.]+) ms a step while it was written \(([\d.]+) ms a "
                          r"step before it\)", err)]
rec = {"what": "checkpoint cost, fdwave-run --backend %s (bench/ckpt_cost.sh)" % backend,
       "gpu": gpu, "job": {"kind": "acoustic", "order": 8, "grid": [n, n, n], "nt": nt,
                           "boundary": "cpml 16"},
       "checkpoint_steps": cs, "runs": runs, "plain": plain, "with_checkpoints": withc,
       "checkpoints": [{"mib": m, "write_seconds": w, "loop_paused_seconds": p} for m, w, p in cks]}
for c, (dur, bef) in zip(rec["checkpoints"], paces if len(paces) == len(cks) else []):
    c.update({"ms_per_step_while_written": dur, "ms_per_step_before": bef})
tp = [p["elapsed_s"] for p in plain if "elapsed_s" in p]
tw = [w["elapsed_s"] for w in withc if "elapsed_s" in w]
per_run = len(cks) // runs
if cks and len(tp) == runs and len(tw) == runs and per_run:
    mp, mw = statistics.median(tp), statistics.median(tw)
    paused = statistics.median(p for _, _, p in cks)
    diff = (mw - mp) / per_run
    rec.update({"loop_seconds_plain": mp, "loop_seconds_with": mw, "checkpoint_mib": cks[0][0],
                "loop_paused_seconds": paused, "seconds_per_checkpoint_by_difference": diff,
                "write_seconds": statistics.median(w for _, w, _ in cks),
                "step_seconds": mp / nt})
    worst = max(paused, diff)
    rec["fraction_at_600s"] = worst / (600.0 + worst)
    print("%d^3 on %s, %d steps, a checkpoint every %d steps (%d a run, %.1f MiB); medians of %d runs"
          % (n, backend, nt, cs, per_run, cks[0][0], runs))
    print("loop: %.3f s without checkpoints, %.3f s with (%s / %s)" % (mp, mw,
          " ".join("%.3f" % x for x in tp), " ".join("%.3f" % x for x in tw)))
    print("per checkpoint: the loop paused %.3f s (engine), %.3f s by the loop times' difference; "
          "its file written in %.3f s meanwhile; %.4f s a step; at an interval of 600 s: %.2f%% "
          "of the job's time" % (paused, diff, rec["write_seconds"], rec["step_seconds"],
                                  100 * rec["fraction_at_600s"]))
    if len(paces) == len(cks):
        rec.update({"ms_per_step_while_written": statistics.median(d for d, _ in paces),
                    "ms_per_step_before": statistics.median(b for _, b in paces)})
        print("the loop's steps: %.3f ms while a file was written, %.3f ms before (medians)"
              % (rec["ms_per_step_while_written"], rec["ms_per_step_before"]))
else:
    rec["error"] = "no checkpoint figures: see the runs' logs"
    print(rec["error"], [p.get("status") for p in plain], [w.get("status") for w in withc])
if out:
    json.dump(rec, open(out, "w"), indent=1)
PY
