#!/usr/bin/env bash
# run.sh — the imaging demo (docs/imaging.md): born models the traces a flat reflector at
# 500 m depth scatters back to a line of receivers, rtm migrates them, and depth.py reports
# where the image puts the reflector under each part of the line. Under a minute on a
# laptop's CPU. Usage: examples/imaging/run.sh [path/to/fdwave-run] (default: build/engine).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
run=${1:-$here/../../build/engine/fdwave-run}
cd "$here"
rm -rf out
"$run" born.json --out out/born --quiet
"$run" rtm.json --out out/rtm --quiet
python3 depth.py out/rtm/image.f32 64 24 72 10 500 380
echo "image: $here/out/rtm/image.f32 (and .segy, the PNG slices image_xz_j12.png, image_yz_i32.png)"
