#!/usr/bin/env bash
# compare_builds.sh — the same kernel cases timed with an earlier tree's fdwave-bench and
# this tree's, interleaved (old, new, old, new ...) in one session on one GPU, so a
# restructure can show "same performance" with figures from the same run.
#
# usage: bench/compare_builds.sh build OLD_SRC_DIR OUT_DIR      (may run in the background)
#        bench/compare_builds.sh run OLD_SRC_DIR OUT_DIR ROUNDS
#   OLD_SRC_DIR: a checkout of the earlier commit (e.g. git archive REV | tar -x -C DIR);
#   its fdwave-bench takes --case KIND,ORDER,NX,NY,NZ,TILE,ZCHUNK (0,0: the defaults).
#   This tree's fdwave-bench must be built in build-gpu (tests/gpu/run.sh does it).
# "run" writes OUT_DIR/compare-{old,new}-N.json and prints one line per case and build.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODE=$1 OLD=$2 OUTD=$3 ROUNDS=${4:-3}
CASES="acoustic,8,512,512,512 acoustic,8,1024,1024,512"
OLDB=$OLD/build-gpu
if [ "$MODE" = build ]; then
cmake -S "$OLD" -B "$OLDB" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFDW_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DFDW_BUILD_SERVER=OFF -DFDW_BUILD_CLIENTS=OFF -DFDW_MPI=OFF \
  >"$OUTD/compare-old-build.log" 2>&1 &&
  cmake --build "$OLDB" -j"$(nproc)" --target fdwave-bench >>"$OUTD/compare-old-build.log" 2>&1 ||
  { echo "compare: the old tree did not build (see compare-old-build.log)"; exit 1; }
exit 0
fi
oldbench=$(find "$OLDB" -name fdwave-bench -type f -perm -u+x | head -1)
newbench=$ROOT/build-gpu/bench/fdwave-bench
for r in $(seq 1 "$ROUNDS"); do
  oargs=() nargs=()
  for c in $CASES; do oargs+=(--case "$c,0,0"); nargs+=(--case "$c"); done
  "$oldbench" --json "$OUTD/compare-old-$r.json" "${oargs[@]}" 2>&1 | grep -E "Mpts/s" | sed "s/^/old $r: /"
  "$newbench" --json "$OUTD/compare-new-$r.json" "${nargs[@]}" 2>&1 | grep -E "Mpts/s" | sed "s/^/new $r: /"
done
