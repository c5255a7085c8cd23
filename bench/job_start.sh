#!/bin/bash
# bench/job_start.sh — where a GPU job's time goes outside its time loop (issue 26's
# job-start goal): fdwave-run on the 512^3 job of fdwave-bench's job section (sponge 36,
# 1000 receivers, snapshots every 100 steps, 1000 steps), its log's set-up line (devices,
# problem, outputs, backend), the loop's seconds and the process's whole wall time, three
# times (the first pays the driver's start). Usage: bench/job_start.sh BUILD_DIR OUT_DIR
set -euo pipefail
B=$1; O=$2; mkdir -p "$O"
cat > "$O/job_start.json" <<JSON
{"kind":"acoustic","grid":{"nx":512,"ny":512,"nz":512,"dx":10,"dy":10,"dz":10},"order":8,
 "velocity":{"type":"gaussian","background":2500,"center":[2560,2560,2560],"sigma":600,"dv":-500},
 "time":{"nt":1000,"dt":"auto"},
 "sources":[{"position":[2555,2565,1000],"wavelet":{"type":"ricker","f0":15}}],
 "receivers":{"lines":[{"from":[200,2560,200],"to":[4900,2560,200],"count":1000}]},
 "boundary":{"type":"sponge","width":36,"reflection":0.01},
 "snapshots":{"every":100,"slices":[{"plane":"xy","index":256},{"plane":"xz","index":256}],"png":true,"raw":true}}
JSON
for i in 1 2 3; do
  rm -rf "$O/js_out"
  t0=$(date +%s.%N)
  "$B/engine/fdwave-run" "$O/job_start.json" --backend cuda --out "$O/js_out" > "$O/js_$i.log" 2>&1
  t1=$(date +%s.%N)
  loop=$(python3 -c "import json; print(json.load(open('$O/js_out/manifest.json'))['result']['elapsed_s'])")
  echo "run $i: process $(python3 -c "print('%.3f' % ($t1 - $t0))") s, loop $loop s"
  grep -E 'set-up|memory:' "$O/js_$i.log" | sed 's/^/  /'
done
rm -rf "$O/js_out"
