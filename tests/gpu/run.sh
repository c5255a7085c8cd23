#!/usr/bin/env bash
# tests/gpu/run.sh — everything the GPU machine does in one call: report the environment,
# unpack the carried .deb libraries (.carry/debs: jansson, libpng, segyio, check, pkgconf, and
# GLPK with the libraries it links: `apt-get download libglpk40 libglpk-dev libamd2
# libcolamd2 libsuitesparseconfig5 libltdl7` on Debian 12; for the server stage
# libmicrohttpd12 libmicrohttpd-dev libsqlite3-dev nettle-dev, but not libnettle8 or
# libhogweed6: the machine's gnutls needs its own newer nettle) when the machine lacks them, build
# the engine with the CUDA backend for sm_90, dump the SASS of the main kernels, run the GPU
# tests, compute-sanitizer memcheck and racecheck on a small job, and the benchmark. Logs
# and the JSON records go to $OUT (or ./gpu-out).
# Stage "mpi" (not part of "all"): the CUDA backend under Open MPI, with Debian 12's Open
# MPI carried in .carry/mpi (tests/gpu/mpi_carry.sh): tests/mpi's acoustic and stencil
# specs on 1, 2 and 3 ranks on the GPUs present (several ranks share a GPU when there are
# fewer) against one process on one GPU, bit for bit, and against the CPU backend; then the
# time per step and the exchange not hidden.
#
# Stage "server": fdwaved (libmicrohttpd and sqlite3 headers carried in .carry/debs) on the
# GPU, and the daemon-level test of a job too large for it.
#
# Stage "nsys" (only when named): per-kernel GPU times of a CPML job (Nsight Compute).
#
# Stage "sweep" (only when named): the sweep kind's GPU test, memcheck, SASS and benchmark.
#
# Stage "ete" (only when named): the ETE kind's GPU test, memcheck and benchmark.
#
# Stage "checkpoint" (only when named): checkpoints on the GPU (bit identity after suspend
# and kill -9) and the cost of one on a 1024^3 job.
#
# Stage "survey" (only when named): a survey's shots on the GPUs, one after another and in
# parallel (two host threads, one shot each), against the CPU backend bit for bit.
#
# Stage "positioning" (only when named): windowed-sinc sources and receivers on the GPU, 1 and
# 2 slabs, against the CPU backend bit for bit.
#
# Stage "scaling" (only when named): issue 17's runs on a machine of several GPUs (below).
#
# Shorter calls: GPU_TARGETS (what the build step makes first; default every stage's
# common targets), IMAGING_MEMCHECK=0 and IMAGING_BENCH=0 (the imaging stage's test only),
# CKPT_COST=0 (the checkpoint stage's tests only).
#
# PACK=1 packs the logs into $OUT/logs.tgz at the end (JSON records stay beside it).
#
# Run it from the working tree (`bash tests/gpu/run.sh ...` with .carry in the device
# tool's carry list); a `git archive HEAD` copy there may come from a stale .git.
#
# Usage: tests/gpu/run.sh [all|test|bench|sanitize|sass|server|mpi|ncu|imgncu|nsys|jobstart|ete|stability|imaging|sweep|checkpoint|survey|positioning|scaling]... [-- bench arguments]
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$ROOT/gpu-out}
mkdir -p "$OUT"
LOG=$OUT/run.log
STAGES=()
BENCH_ARGS=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; BENCH_ARGS=("$@"); break; fi
  STAGES+=("$1"); shift
done
[ ${#STAGES[@]} -eq 0 ] && STAGES=(all)
has() { for s in "${STAGES[@]}"; do { [ "$s" = all ] && [ "$1" != ncu ]; } || [ "$s" = "$1" ] && return 0; done; return 1; }
say() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$LOG"; }
export NCCL_NVLS_ENABLE=0

say "environment $(date -u +%FT%TZ)"
{
  nvidia-smi --query-gpu=index,name,memory.total,memory.used,driver_version --format=csv
  nvidia-smi topo -m 2>/dev/null | head -8
  nvcc --version | tail -2; cmake --version | head -1; gcc --version | head -1
  . /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"
  nproc; free -g | head -2
  for p in pkg-config pkgconf compute-sanitizer cuobjdump ninja; do printf '%s: ' $p; command -v $p || echo missing; done
  for m in jansson libpng check; do printf 'pkg %s: ' $m; pkg-config --modversion $m 2>/dev/null || echo missing; done
  ls /usr/include/segyio/segy.h 2>/dev/null || echo "segyio headers missing"
  ls /usr/include/glpk.h 2>/dev/null || echo "glpk headers missing"
  dpkg -l 2>/dev/null | awk '/^ii/ && /microhttpd|libcurl|sqlite3|gnutls|^ii +curl /{print $2, $3}' 
} 2>&1 | tee -a "$LOG"

# Carried libraries: unpack into a private prefix and point pkg-config/CMake at it.
PREFIX=/tmp/fdwroot
if [ -d "$ROOT/.carry/debs" ]; then
  mkdir -p $PREFIX
  for d in "$ROOT"/.carry/debs/*.deb; do dpkg -x "$d" $PREFIX; done
  for pc in $(find $PREFIX -name '*.pc'); do sed -i "s|^prefix=.*|prefix=$PREFIX/usr|" "$pc"; done
  # libmicrohttpd's private gnutls dependency has no .pc here (only needed for static links).
  find $PREFIX -name 'libmicrohttpd.pc' -exec sed -i '/^Requires.private/d' {} +
  # Development symlinks whose library is not carried (sqlite3: the machine has its own
  # runtime) point at the machine's library of the same soname.
  for l in $(find $PREFIX/usr/lib -xtype l -name '*.so' 2>/dev/null); do
    for sys in /usr/lib/x86_64-linux-gnu/$(basename "$l").[0-9]*; do
      [ -e "$sys" ] && ln -sf "$sys" "$l" && break
    done
  done
  export PKG_CONFIG_PATH=$PREFIX/usr/lib/x86_64-linux-gnu/pkgconfig:$PREFIX/usr/share/pkgconfig:${PKG_CONFIG_PATH:-}
  export LD_LIBRARY_PATH=$PREFIX/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
  export CMAKE_PREFIX_PATH=$PREFIX/usr
  if ! command -v pkg-config >/dev/null; then
    ln -sf $PREFIX/usr/bin/pkgconf $PREFIX/usr/bin/pkg-config
    export PATH=$PREFIX/usr/bin:$PATH
  fi
fi

# Stage "compare" (only when named): an earlier tree carried in .carry/old is built in the
# background meanwhile, and its kernels are timed against this tree's, interleaved.
named() { printf '%s\n' "${STAGES[@]}" | grep -qx "$1"; }
if named compare; then
  bash "$ROOT/bench/compare_builds.sh" build "$ROOT/.carry/old" "$OUT" &
  COMPARE_BUILD=$!
fi

BUILD=$ROOT/build-gpu
say "build"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFDW_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DFDW_BUILD_SERVER=OFF -DFDW_BUILD_CLIENTS=OFF -DFDW_MPI=OFF \
  >>"$LOG" 2>&1 || { say "cmake failed"; tail -40 "$LOG"; exit 1; }
TARGETS=${GPU_TARGETS:-fdwave test_gpu gpu_small_job fdwave-bench}
cmake --build "$BUILD" -j"$(nproc)" --target $TARGETS >>"$LOG" 2>&1 \
  || { say "build failed"; grep -E "error" "$LOG" | head -40; exit 1; }
say "built $TARGETS"

if has sass; then
  say "SASS of the 2.5D kernel's defaults: acoustic order 8, stencil orders 6 and 12"
  for o in acoustic_step stencil_step; do
    cuobjdump -sass "$(find "$BUILD/kernels" -name "$o.cu.o" | head -1)" 2>&1
  done > "$OUT/sass_fd25.txt"
  # SASS_KERNELS: substrings of the mangled names to histogram (fd25_kernel<R, TXV, BY, L,
  # acoustic, NB>; default: the acoustic order-8 default V1, the stencil's at orders 6 and 12).
  python3 - "$OUT/sass_fd25.txt" "${SASS_KERNELS:-fd25_kernelILi4ELi16ELi16ELi1ELb1ELi1E fd25_kernelILi3ELi32ELi16ELi1ELb0ELi1E fd25_kernelILi6ELi16ELi16ELi2ELb0ELi2E}" <<'EOF' | tee -a "$LOG"
import re, sys
txt = open(sys.argv[1]).read()
funcs = re.split(r"\n\s+Function : ", txt)
for f in funcs[1:]:
    name = f.split("\n", 1)[0]
    if not any(p in name for p in sys.argv[2].split()):
        continue
    ops = re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\d\s+)?([A-Z0-9_.]+)", f)
    cnt = {}
    for o in ops:
        k = o.split(".")[0] if not o.startswith("LDG") and not o.startswith("STG") else o
        cnt[k] = cnt.get(k, 0) + 1
    keys = [k for k in sorted(cnt) if k.startswith(("LDG", "STG", "LDS", "STS", "LDL", "STL", "FFMA", "FMUL", "FADD", "BAR", "UTMALDG", "SYNCS"))]
    print(name[:72], "total", len(ops), {k: cnt[k] for k in keys}, "MOV", cnt.get("MOV", 0), "IMAD", cnt.get("IMAD", 0))
EOF
fi

if has test; then
  say "GPU tests"
  (cd "$BUILD" && timeout ${TEST_TIMEOUT:-500} ./tests/gpu/test_gpu) 2>&1 | tee "$OUT/test_gpu.log" | tail -60 | tee -a "$LOG"
  echo "test_gpu exit ${PIPESTATUS[0]}" | tee -a "$LOG"
fi

if has sanitize; then
  say "compute-sanitizer on the small job"
  for tool in memcheck racecheck; do
    timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 "$BUILD/tests/gpu/gpu_small_job" \
      > "$OUT/sanitizer_$tool.log" 2>&1
    echo "$tool exit $? : $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer_$tool.log" | tail -1)" | tee -a "$LOG"
  done
fi

if has ncu; then
  say "Nsight Compute on single kernels"
  # NCU_CASES: fdwave-bench arguments of each profile, profiles separated by ';'
  # (e.g. NCU_CASES="--zchunk 64 --case acoustic,8,512,512,512;--case stencil,8,512,512,512").
  IFS=';' read -ra CASES <<<"${NCU_CASES:---case acoustic,8,512,512,512;--case stencil,8,512,512,512;--case stencil,12,512,512,512;--case derivative,8,512,512,512,z}"
  for c in "${CASES[@]}"; do
    echo "--- $c" >> "$OUT/ncu.txt"
    # shellcheck disable=SC2086
    timeout 120 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
      --section WarpStateStats --section LaunchStats -k 'regex:fd25|dwalk|dtile|dx' -s 3 -c 1 \
      "$BUILD/bench/fdwave-bench" $c >> "$OUT/ncu.txt" 2>&1
  done
  grep -E "^---|DRAM Throughput|Memory Throughput|Compute \(SM\) Throughput|Issue Slots Busy|Issued Ipc|Achieved Occupancy|Registers Per|L2 Hit|Duration|Warp Cycles Per Issued" "$OUT/ncu.txt" | head -80 | tee -a "$LOG"
fi

# Stage "imgncu" (only when named): Nsight Compute on the boundary scheme's fused backward
# kernel (back25_kernel) and the forward step's (fd25_kernel) of a 512^3 rtm job, order 8,
# sponge 20: throughput, memory, occupancy and warp stall reasons. Log: img_ncu.txt.
if printf '%s\n' "${STAGES[@]}" | grep -qx imgncu; then
  say "imgncu: Nsight Compute on the fused backward kernel of a 512^3 rtm job"
  cmake --build "$BUILD" -j"$(nproc)" --target fdwave-run >>"$LOG" 2>&1
  python3 -c "import array,sys; array.array('f',[0.0]*(21*41)).tofile(open(sys.argv[1],'wb'))" "$OUT/zero.f32"
  cat >"$OUT/img_ncu.json" <<JSON
{"kind": "rtm", "grid": {"nx": 512, "ny": 512, "nz": 512, "dx": 10, "dy": 10, "dz": 10}, "order": 8,
 "velocity": {"type": "constant", "value": 2500}, "time": {"nt": 40, "dt": 0.0015},
 "sources": [{"position": [2560, 2560, 300], "wavelet": {"type": "ricker", "f0": 15}}],
 "receivers": {"lines": [{"from": [300, 2560, 250], "to": [4800, 2560, 250], "count": 21}]},
 "boundary": {"type": "sponge", "width": 20}, "data": {"path": "$OUT/zero.f32"},
 "reconstruction": "boundary"}
JSON
  (cd "$OUT" && timeout 300 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis \
     --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats --section SourceCounters \
     -k 'regex:back25_kernel' -s 5 -c 1 \
     "$BUILD/engine/fdwave-run" img_ncu.json --backend cuda --quiet --out img_ncu_out > img_ncu.txt 2>&1)
  grep -E "back25_kernel|fd25_kernel|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Issue Slots|Achieved Occupancy|Theoretical Occupancy|Registers Per|L2 Hit|Warp Cycles Per Issued|Stall|No Eligible|One or More" \
    "$OUT/img_ncu.txt" | sed 's/(fdwk_.*//' | cut -c1-160 | head -80 | tee -a "$LOG"
  # Every kernel of two forward steps (after 20) and two backward steps (after 20 of the
  # 40): what a step costs besides its main kernel (the band's copies, the injections).
  for skip in 60 200; do
    (cd "$OUT" && timeout 200 ncu --section SpeedOfLight -s $skip -c 8 \
       "$BUILD/engine/fdwave-run" img_ncu.json --backend cuda --quiet --out img_ncu_out2 > img_ncu_all_$skip.txt 2>&1)
    grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput" "$OUT/img_ncu_all_$skip.txt" | sed 's/(fdwk_.*//; s/(float \*.*//' | cut -c1-120 | tee -a "$LOG"
  done
fi

if printf '%s\n' "${STAGES[@]}" | grep -qx nsys; then
  say "nsys: kernel times of a CPML job (NSYS_N^3, default 512; NSYS_B cpml or sponge, width NSYS_W, default 20)"
  cmake --build "$BUILD" -j"$(nproc)" --target fdwave-run >>"$LOG" 2>&1
  N=${NSYS_N:-512}; W=${NSYS_W:-20}; B=${NSYS_B:-cpml}; C=$((N * 5))
  cat >"$OUT/nsys_job.json" <<JSON
{"kind": "acoustic", "grid": {"nx": $N, "ny": $N, "nz": $N, "dx": 10, "dy": 10, "dz": 10}, "order": 8,
 "velocity": {"type": "constant", "value": 2500}, "time": {"nt": 200, "dt": "auto"},
 "sources": [{"position": [$C, $C, 1000], "wavelet": {"type": "ricker", "f0": 15}}],
 "boundary": {"type": "$B", "width": $W}}
JSON
  # Nsight Systems is not on the lent machines: Nsight Compute times one step's kernels
  # (the update and the CPML passes) after 20 steps.
  # NSYS_NCU: more ncu arguments (sections), NSYS_C: kernels profiled (default 5)
  (cd "$OUT" && timeout 240 ncu --section SpeedOfLight ${NSYS_NCU:-} -k 'regex:psi_kernel|zeta_kernel|walk_kernel|fd25_kernel' -s 100 -c ${NSYS_C:-5} \
     "$BUILD/engine/fdwave-run" nsys_job.json --backend cuda --quiet --out pml_out > "pml_ncu_${B}_${N}_${W}.txt" 2>&1)
  grep -E "psi_kernel|zeta_kernel|walk_kernel|fd25_kernel|Duration|DRAM Throughput" "$OUT/pml_ncu_${B}_${N}_${W}.txt" | sed 's/(fdwk_fd_args.*//; s/(<unnamed>::Pml)//' | cut -c1-150 | tee -a "$LOG"
  rm -rf "$OUT/pml_out"
fi
# Stage "jobstart" (only when named): bench/job_start.sh, where a GPU job's time goes outside
# its loop (issue 26). Log: job_start.log.
if printf '%s\n' "${STAGES[@]}" | grep -qx jobstart; then
  say "jobstart: fdwave-run's set-up, loop and process time on the 512^3 job"
  cmake --build "$BUILD" -j"$(nproc)" --target fdwave-run >>"$LOG" 2>&1
  bash "$ROOT/bench/job_start.sh" "$BUILD" "$OUT/jobstart" 2>&1 | tee "$OUT/job_start.log" | tee -a "$LOG"
  rm -f "$OUT"/jobstart/js_*.log
fi
if has bench; then
  say "benchmark ${BENCH_ARGS[*]}"
  (cd "$BUILD" && timeout ${BENCH_TIMEOUT:-560} ./bench/fdwave-bench --json "$OUT/bench.json" "${BENCH_ARGS[@]}") \
    2>&1 | tee "$OUT/bench.log" | tee -a "$LOG" | tail -80
fi
if named compare; then
  say "compare: this tree's kernels against .carry/old's, interleaved"
  wait "$COMPARE_BUILD" && bash "$ROOT/bench/compare_builds.sh" run "$ROOT/.carry/old" "$OUT" "${COMPARE_ROUNDS:-3}" 2>&1 | tee "$OUT/compare.log" | tee -a "$LOG"
fi
if has server; then
  say "server: fdwaved scheduling onto the GPU (tests/gpu/test_daemon_gpu.c, test_daemon_rtm_survey.c)"
  if cmake -S "$ROOT" -B "$BUILD" -DFDW_BUILD_SERVER=ON >>"$LOG" 2>&1 &&
     cmake --build "$BUILD" -j"$(nproc)" --target fdwaved test_daemon_gpu test_daemon_rtm_survey >>"$LOG" 2>&1; then
    (cd "$BUILD" && timeout 300 ./tests/gpu/test_daemon_gpu) 2>&1 | tee "$OUT/test_daemon_gpu.log" | tail -30 | tee -a "$LOG"
    echo "test_daemon_gpu exit ${PIPESTATUS[0]}" | tee -a "$LOG"
    # issue 27: a 16-shot rtm survey through the daemon on GPU 0; record rtm_survey_daemon.json
    (cd "$BUILD" && timeout 400 ./tests/gpu/test_daemon_rtm_survey) 2>&1 | tee "$OUT/test_daemon_rtm_survey.log" | tail -8 | tee -a "$LOG"
    echo "test_daemon_rtm_survey exit ${PIPESTATUS[0]}" | tee -a "$LOG"
    grep '^{' "$OUT/test_daemon_rtm_survey.log" | python3 -c "import json,sys,subprocess,datetime; r=json.loads(sys.stdin.read()); r['device']=subprocess.run(['nvidia-smi','--query-gpu=name','--format=csv,noheader'],capture_output=True,text=True).stdout.strip().splitlines()[0]; r['date']=datetime.datetime.now(datetime.timezone.utc).isoformat(); r['command']='bash tests/gpu/run.sh server'; json.dump(r,open('$OUT/rtm_survey_daemon.json','w'),indent=1)" 2>/dev/null
  else
    say "server build failed"; grep -E "error|Could not|not found|No package" "$LOG" | tail -20
  fi
fi
# Only when named: "all" leaves the mpi stage out.
if printf '%s\n' "${STAGES[@]}" | grep -qx mpi; then
  say "mpi: CUDA backend across Open MPI ranks"
  # shellcheck source=tests/gpu/mpi_carry.sh
  . "$ROOT/tests/gpu/mpi_carry.sh"
  MPIDIR=$OUT/mpi
  rm -rf "$MPIDIR" && mkdir -p "$MPIDIR"
  mpi_stage() {
    fdw_mpi_setup /tmp/fdw-mpi || { echo "FAIL mpi: no usable Open MPI (.carry/mpi)"; return 1; }
    echo "Open MPI: $(mpirun --version 2>&1 | head -1) from $OPAL_PREFIX"
    # shellcheck disable=SC2086
    cmake -S "$ROOT" -B "$BUILD" -DFDW_MPI=ON $FDW_MPI_CMAKE_ARGS >"$MPIDIR/cmake.log" 2>&1 &&
      cmake --build "$BUILD" -j"$(nproc)" --target fdwave-run >"$MPIDIR/build.log" 2>&1 ||
      { echo "FAIL mpi: building fdwave-run with MPI"; grep -E "error|MPI" "$MPIDIR/cmake.log" "$MPIDIR/build.log" | head -20; return 1; }
    local run=$BUILD/engine/fdwave-run cmp=$ROOT/tests/gpu/mpi_compare.py fails=0 spec np o
    ldd "$run" | grep -q "/tmp/fdw-mpi/.*libmpi" || { echo "FAIL mpi: fdwave-run is not linked to the carried libmpi"; return 1; }
    local ngpu; ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
    echo "GPUs: $ngpu (ranks beyond that share them)"
    [ "$ngpu" -ge 1 ] || { echo "FAIL mpi: no GPU visible"; return 1; }
    verdict() { if [ "$1" = 0 ]; then echo "PASS $2"; else echo "FAIL $2 (exit $1)"; fails=$((fails + 1)); fi; }
    # every acoustic and stencil spec of tests/mpi (the derivative kind is refused below)
    for spec in $(cd "$ROOT/tests/mpi" && ls acoustic*.json stencil*.json | sed 's/\.json$//'); do
      o=$MPIDIR/$spec
      timeout -k 5 120 "$run" "$ROOT/tests/mpi/$spec.json" --backend cuda --quiet --out "$o-gpu" >"$o-gpu.log" 2>&1
      verdict $? "$spec: one process, one GPU"
      # The CPU's portable kernel evaluates the GPU's operations in the GPU's order (the
      # default AVX-512 kernel fuses multiply-adds: within 1e-5, see test_gpu), so the two
      # backends must agree bit for bit.
      timeout -k 5 120 "$run" "$ROOT/tests/mpi/$spec.json" --backend cpu --cpu-portable \
        --quiet --out "$o-cpu" >"$o-cpu.log" 2>&1
      verdict $? "$spec: one process, cpu backend (portable kernel)"
      python3 "$cmp" close "$o-gpu" "$o-cpu" 0
      verdict $? "$spec: cuda against the cpu backend's portable kernel, bit for bit"
      for np in 1 2 3; do
        timeout -k 5 120 mpirun -np $np --oversubscribe --allow-run-as-root "$run" \
          "$ROOT/tests/mpi/$spec.json" --backend cuda --mpi-stats --out "$o-np$np" >"$o-np$np.log" 2>&1
        verdict $? "$spec: mpirun -np $np fdwave-run --backend cuda"
        grep -E "backend cuda|slab [0-9]+: rank|cuda-mpi|error" "$o-np$np.log" | sed 's/^/    /'
        python3 "$cmp" exact "$o-np$np" "$o-gpu"
        verdict $? "$spec: $np rank(s) == one process on one GPU, bit for bit"
      done
    done
    # The derivative kind is refused across ranks on the cuda backend, at once and clearly.
    timeout -k 5 60 mpirun -np 2 --oversubscribe --allow-run-as-root "$run" "$ROOT/tests/mpi/derivative.json" \
      --backend cuda --quiet --out "$MPIDIR/derivative-np2" >"$MPIDIR/derivative-np2.log" 2>&1
    rc=$?
    [ $rc = 1 ] && grep -q "does not run across MPI ranks" "$MPIDIR/derivative-np2.log"
    verdict $? "derivative: refused across ranks on the cuda backend (exit $rc)"

    # Time per step and the exchange not hidden, on a larger job (no outputs but the gather).
    cat >"$MPIDIR/timing.json" <<'JSON'
{"kind": "acoustic", "name": "MPI timing", "grid": {"nx": 384, "ny": 384, "nz": 384, "dx": 10, "dy": 10, "dz": 10},
 "order": 8, "velocity": {"type": "constant", "value": 2000}, "time": {"nt": 300, "dt": "auto"},
 "sources": [{"position": [1920, 1920, 1920], "wavelet": {"type": "ricker", "f0": 10, "delay": 0.1}}],
 "receivers": {"points": [[1000, 1000, 1000], [1920, 1920, 1925]]}, "boundary": {"type": "sponge", "width": 16}}
JSON
    echo "time per step, 384^3 order 8, 300 steps:"
    timeout -k 5 120 "$run" "$MPIDIR/timing.json" --backend cuda --quiet --out "$MPIDIR/timing-one" >"$MPIDIR/timing-one.log" 2>&1
    verdict $? "timing: one process, one GPU: $(python3 "$cmp" steptime "$MPIDIR/timing-one" 2>/dev/null) ms per step"
    for np in 2 4; do
      timeout -k 5 150 mpirun -np $np --oversubscribe --allow-run-as-root "$run" \
        "$MPIDIR/timing.json" --backend cuda --mpi-stats --quiet --out "$MPIDIR/timing-np$np" >"$MPIDIR/timing-np$np.log" 2>&1
      verdict $? "timing: $np ranks on $((ngpu < np ? ngpu : np)) GPU(s): $(python3 "$cmp" steptime "$MPIDIR/timing-np$np" 2>/dev/null) ms per step"
      grep -E "cuda-mpi|error" "$MPIDIR/timing-np$np.log" | sed 's/^/    /'
      cmp -s "$MPIDIR/timing-np$np/gather.f32" "$MPIDIR/timing-one/gather.f32"
      verdict $? "timing: $np ranks == one process (gather.f32)"
    done
    echo "mpi stage: $fails failure(s)"
    return $((fails > 0))
  }
  mpi_stage 2>&1 | tee "$OUT/mpi.log" | tee -a "$LOG"
  echo "mpi exit ${PIPESTATUS[0]}" | tee -a "$LOG"
fi
# Stage "ete" (only when named): the ETE kind: tests/gpu/test_gpu_ete (GPU against the CPU
# backend bit for bit, the default kernel and its fallback, slabs, its time against FD at a
# fifth of its dt), compute-sanitizer memcheck on its small job (test_gpu_ete --small), and fdwave-bench
# --only ete (kernels at 512^3 and 1024x1024x512, the seed's three kernels, the whole job,
# the seed's Table 3 case). Logs: ete.log; records: bench_ete.json.
if printf '%s\n' "${STAGES[@]}" | grep -qx ete; then
  say "ete: test_gpu_ete, memcheck of its small job, fdwave-bench --only ete"
  if cmake --build "$BUILD" -j"$(nproc)" --target test_gpu_ete >>"$LOG" 2>&1; then
    (cd "$BUILD" && timeout 300 ./tests/gpu/test_gpu_ete) 2>&1 | tee "$OUT/ete.log" | tail -40 | tee -a "$LOG"
    echo "test_gpu_ete exit ${PIPESTATUS[0]}" | tee -a "$LOG"
    timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 "$BUILD/tests/gpu/test_gpu_ete" --small \
      > "$OUT/ete_memcheck.log" 2>&1
    echo "ete memcheck exit $? : $(grep -E 'ERROR SUMMARY' "$OUT/ete_memcheck.log" | tail -1)" | tee -a "$LOG"
  else
    say "ete: building test_gpu_ete failed"; grep -E "error" "$LOG" | tail -20
  fi
  (cd "$BUILD" && timeout 300 ./bench/fdwave-bench --only ete --json "$OUT/bench_ete.json") 2>&1 \
    | tee -a "$OUT/ete.log" | tail -20 | tee -a "$LOG"
fi
# Stage "sweep" (only when named): the sweep kind (issue 20): tests/gpu/test_gpu_sweep (the
# upload, GPU against the CPU engine bit for bit, one F-field sweep computing all / skipping /
# twice, slabs on one GPU and several GPUs with reach 1 and the default 8, exact skipping;
# every difference described on a DIFF line), compute-sanitizer memcheck of a small sweep job
# on one slab and on three slabs of one GPU, the instruction mix of its sub-sweep kernel, and
# fdwave-bench --only sweep (512^3 and 640^3, 8 sweeps, float64 and float32, the seed's case
# and every plane computed; with several GPUs also on 1, 2, 4 ... of them with the default
# reach and reach 1, issue 17's scaling runs, and memcheck with a slab per GPU). Logs:
# sweep_test.log, sweep_memcheck.log, sweep_sass.txt, sweep_bench.log; records:
# sweep_bench.json.
if printf '%s\n' "${STAGES[@]}" | grep -qx sweep; then
  say "sweep: test_gpu_sweep, memcheck of a small job, SASS, fdwave-bench --only sweep"
  if cmake --build "$BUILD" -j"$(nproc)" --target test_gpu_sweep fdwave-run >>"$LOG" 2>&1; then
    (cd "$BUILD" && timeout 300 ./tests/gpu/test_gpu_sweep) 2>&1 | tee "$OUT/sweep_test.log" | tail -30 | tee -a "$LOG"
    echo "test_gpu_sweep exit ${PIPESTATUS[0]}" | tee -a "$LOG"
    grep -E "^DIFF" "$OUT/sweep_test.log" | head -40 | tee -a "$LOG"
    NGPU=$(nvidia-smi -L 2>/dev/null | wc -l)
    DEVLISTS="0 0,0,0"; [ "$NGPU" -gt 1 ] && DEVLISTS="0 0,0,0 $(seq -s, 0 $((NGPU - 1)))"
    for devs in $DEVLISTS; do
      rm -rf /tmp/fdw-sweep-memcheck
      echo "--- fdwave-run tests/gpu/sweep_small.json --devices $devs" >> "$OUT/sweep_memcheck.log"
      timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 "$BUILD/engine/fdwave-run" \
        "$ROOT/tests/gpu/sweep_small.json" --backend cuda --devices $devs --quiet \
        --out /tmp/fdw-sweep-memcheck >> "$OUT/sweep_memcheck.log" 2>&1
      echo "sweep memcheck ($devs) exit $? : $(grep -E 'ERROR SUMMARY' "$OUT/sweep_memcheck.log" | tail -1)" | tee -a "$LOG"
    done
    o=$(find "$BUILD/kernels" -name "sweep.cu.o" | head -1)
    cuobjdump -sass "$o" 2>/dev/null | python3 -c '
import re, sys
funcs = re.split(r"\n\s+Function : ", sys.stdin.read())
for f in funcs[1:]:
    name = f.split("\n", 1)[0]
    if "subsweep_kernel" not in name:
        continue
    ops = re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_]+)", f)
    cnt = {}
    for o in ops:
        cnt[o] = cnt.get(o, 0) + 1
    dp = sum(v for k, v in cnt.items() if k.startswith("D") or k == "MUFU")
    print(name[:90], "instructions", len(ops), "DP pipe (D*, MUFU)", dp, sorted(cnt.items(), key=lambda x: -x[1])[:16])
' > "$OUT/sweep_sass.txt" 2>&1
    head -c 1500 "$OUT/sweep_sass.txt" | tee -a "$LOG"
  else
    say "sweep: building test_gpu_sweep failed"; grep -E "error" "$LOG" | tail -20
  fi
  (cd "$BUILD" && timeout 300 ./bench/fdwave-bench --only sweep --gpus "$(nvidia-smi -L 2>/dev/null | wc -l)" --json "$OUT/sweep_bench.json") 2>&1 \
    | tee "$OUT/sweep_bench.log" | tail -60 | tee -a "$LOG"
fi
# Stage "checkpoint" (only when named; issues 16 and 26): tests/gpu/test_gpu_checkpoint
# (every kind suspended at random steps and resumed on the CUDA backend == an uninterrupted
# GPU run, bit for bit, 1 to 3 slabs on GPU 0, every periodic checkpoint's write held in
# flight while the GPU steps on); tests/checkpoint's kill -9 test with fdwave-run on the
# GPU (FDW_CKPT_RUN_ARGS="--backend cuda --devices 0,0"); and the cost of a checkpoint
# (bench/ckpt_cost.sh): a 1024^3 acoustic order-8 job with a CPML (CKPT_N, CKPT_NT steps)
# run by fdwave-run --backend cuda without checkpoints and with one every CKPT_STEPS steps
# (CKPT_RUNS times each): how long the loop paused for each checkpoint (the engine's
# figure: the copy into pinned memory, issue 26's goal <= 1.5 s), the two runs' loop-time
# difference per checkpoint, the write's time meanwhile, the size, and the share of the
# job's time at the default interval of 600 s. Logs: checkpoint.log, checkpoint_runs/;
# record: checkpoint_cost.json.
if printf '%s\n' "${STAGES[@]}" | grep -qx checkpoint; then
  say "checkpoint: test_gpu_checkpoint, kill -9 on the GPU, the cost of a 1024^3 checkpoint"
  CLOG=$OUT/checkpoint.log
  if cmake --build "$BUILD" -j"$(nproc)" --target test_gpu_checkpoint test_checkpoint_kill fdwave-run >>"$LOG" 2>&1; then
    (cd "$BUILD" && timeout 300 ./tests/gpu/test_gpu_checkpoint) 2>&1 | tee "$CLOG" | tail -24 | tee -a "$LOG"
    echo "test_gpu_checkpoint exit ${PIPESTATUS[0]}" | tee -a "$LOG"
    (cd "$BUILD" && FDW_CKPT_RUN_ARGS="--backend cuda --devices 0,0" timeout 240 ./tests/checkpoint/test_checkpoint_kill) 2>&1 \
      | tee -a "$CLOG" | tail -12 | tee -a "$LOG"
    echo "test_checkpoint_kill on the GPU exit ${PIPESTATUS[0]}" | tee -a "$LOG"
    # the cost of a checkpoint of 9.6 GiB: one every CKPT_STEPS steps, far enough apart
    # that a write ends before the next checkpoint is due
    CKD=${CKPT_DIR:-/tmp/fdw-ckpt-cost}
    if [ "${CKPT_COST:-1}" = 1 ]; then
    say "checkpoint: the cost of a ${CKPT_N:-1024}^3 checkpoint (bench/ckpt_cost.sh on cuda)"
    N=${CKPT_N:-1024} NT=${CKPT_NT:-7500} CS=${CKPT_STEPS:-2500} RUNS=${CKPT_RUNS:-1} CKD="$CKD" \
      JSON="$OUT/checkpoint_cost.json" KEEP="$OUT/checkpoint_runs" \
      GPU="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" \
      timeout 540 bash "$ROOT/bench/ckpt_cost.sh" "$BUILD" cuda 2>&1 | tee -a "$CLOG" | tail -4 | tee -a "$LOG"
    df -h "$(dirname "$CKD")" 2>&1 | tail -1 | tee -a "$LOG"
    fi
  else
    say "checkpoint: building test_gpu_checkpoint failed"; grep -E "error" "$LOG" | tail -20
  fi
fi
# Stage "survey" (only when named; issue 14): tests/gpu/test_gpu_survey, then the example
# survey on the GPU (fdwave-run, its log). Logs: survey.log.
if printf '%s\n' "${STAGES[@]}" | grep -qx survey; then
  say "survey: test_gpu_survey, examples/survey.json on the GPU"
  SLOG=$OUT/survey.log
  if cmake --build "$BUILD" -j"$(nproc)" --target test_gpu_survey fdwave-run >>"$LOG" 2>&1; then
    (cd "$BUILD" && timeout 300 ./tests/gpu/test_gpu_survey) 2>&1 | tee "$SLOG" | tail -12 | tee -a "$LOG"
    echo "test_gpu_survey exit ${PIPESTATUS[0]}" | tee -a "$LOG"
    SDEVS=0,0; [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -ge 2 ] && SDEVS=0,1
    timeout 120 "$BUILD/engine/fdwave-run" "$ROOT/examples/survey.json" --backend cuda \
      --devices $SDEVS --out /tmp/fdw-survey-out 2>&1 | tee -a "$SLOG" | tail -6 | tee -a "$LOG"
    rm -rf /tmp/fdw-survey-out
  else
    say "survey: building test_gpu_survey failed"; grep -E "error" "$LOG" | tail -20
  fi
fi
# Stage "positioning" (only when named; issue 14): tests/gpu/test_gpu_positioning, an
# off-grid windowed-sinc job on 1 and 2 slabs against the CPU's portable kernel, bit for
# bit. Log: positioning.log.
if printf '%s\n' "${STAGES[@]}" | grep -qx positioning; then
  say "positioning: test_gpu_positioning"
  if cmake --build "$BUILD" -j"$(nproc)" --target test_gpu_positioning >>"$LOG" 2>&1; then
    (cd "$BUILD" && CK_FORK=no timeout 300 ./tests/gpu/test_gpu_positioning) 2>&1 |
      tee "$OUT/positioning.log" | tail -12 | tee -a "$LOG"
    echo "test_gpu_positioning exit ${PIPESTATUS[0]}" | tee -a "$LOG"
  else
    say "positioning: building test_gpu_positioning failed"; grep -E "error" "$LOG" | tail -20
  fi
fi
# Stage "scaling" (only when named; issue 17, on a machine of several GPUs): fdwave-bench
# --gpus N --only multi,huge,sweep,survey (acoustic order 8 at 512^3 and 1024^3 on 1, 2, 4 ...
# GPUs, the largest grid they hold, the sweep kind at 512^3 and 640^3 on 1, 2, 4 ... GPUs
# with its shuffle and exchange times, a 16-shot survey on 1, 2, 4 ... GPUs), the sweep
# kind's GPU test (several_gpus: slabs spread over the GPUs, bit for bit one), and
# compute-sanitizer memcheck of a small acoustic job and a sweep job with a slab per GPU.
# Logs: scaling.log; records: scaling.json.
if printf '%s\n' "${STAGES[@]}" | grep -qx scaling; then
  NGPU=$(nvidia-smi -L 2>/dev/null | wc -l)
  say "scaling: $NGPU GPUs"
  SC=$OUT/scaling.log
  if cmake --build "$BUILD" -j"$(nproc)" --target test_gpu_sweep fdwave-run >>"$LOG" 2>&1; then
    (cd "$BUILD" && timeout ${SCALING_TIMEOUT:-420} ./bench/fdwave-bench --gpus "$NGPU" \
       --only multi,huge,sweep,survey --json "$OUT/scaling.json") 2>&1 | tee "$SC" | \
       grep -E "GPUs|speedup|for 8 sweeps|shots|section" | tail -60 | tee -a "$LOG"
    (cd "$BUILD" && timeout 300 ./tests/gpu/test_gpu_sweep) 2>&1 | tee -a "$SC" | tail -8 | tee -a "$LOG"
    DEVS=$(seq -s, 0 $((NGPU - 1)))
    cat > "$OUT/scaling_small.json" <<'JSON'
{"kind": "acoustic", "grid": {"nx": 64, "ny": 48, "nz": 96, "dx": 10, "dy": 10, "dz": 10},
 "order": 8, "velocity": {"type": "layered", "layers": [{"top": 0, "v": 1800}, {"top": 400, "v": 2600}]},
 "time": {"nt": 30, "dt": "auto"}, "sources": [{"position": [320, 240, 300], "wavelet": {"type": "ricker", "f0": 20}}],
 "receivers": {"lines": [{"from": [20, 240, 10], "to": [620, 240, 10], "count": 9}]},
 "boundary": {"type": "cpml", "width": 8}}
JSON
    for spec in "$OUT/scaling_small.json" "$ROOT/tests/gpu/sweep_small.json"; do
      rm -rf /tmp/fdw-scaling-memcheck
      timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$BUILD/engine/fdwave-run" \
        "$spec" --backend cuda --devices "$DEVS" --quiet --out /tmp/fdw-scaling-memcheck >> "$SC" 2>&1
      echo "memcheck $(basename "$spec") on devices $DEVS exit $? : $(grep -E 'ERROR SUMMARY' "$SC" | tail -1)" | tee -a "$LOG"
    done
    rm -rf /tmp/fdw-scaling-memcheck
  else
    say "scaling: build failed"; grep -E "error" "$LOG" | tail -20
  fi
fi
# Stage "imaging" (only when named): the imaging kinds on the GPU: tests/gpu/test_gpu_imaging
# (the GPU engine on one, two and three slabs against the CPU engine bit for bit, the
# dot-product test), compute-sanitizer memcheck of its small rtm jobs (one and two slabs),
# and --bench: rtm and gradient of a 512^3 shot of 3000 steps against the acoustic kind's
# forward run of the same shot, and the rtm on two slabs of the GPU. Logs: imaging.log;
# record: imaging_bench.json.
if printf '%s\n' "${STAGES[@]}" | grep -qx imaging; then
  say "imaging: test_gpu_imaging, memcheck of its small job, its benchmark"
  if cmake --build "$BUILD" -j"$(nproc)" --target test_gpu_imaging >>"$LOG" 2>&1; then
    (cd "$BUILD" && timeout 400 ./tests/gpu/test_gpu_imaging) 2>&1 | tee "$OUT/imaging.log" | tail -30 | tee -a "$LOG"
    echo "test_gpu_imaging exit ${PIPESTATUS[0]}" | tee -a "$LOG"
    if [ "${IMAGING_MEMCHECK:-1}" = 1 ]; then
    timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 "$BUILD/tests/gpu/test_gpu_imaging" --small \
      > "$OUT/imaging_memcheck.log" 2>&1
    echo "imaging memcheck exit $? : $(grep -E 'ERROR SUMMARY' "$OUT/imaging_memcheck.log" | tail -1)" | tee -a "$LOG"
    fi
    [ "${IMAGING_BENCH:-1}" = 1 ] && (cd "$BUILD" && timeout 300 ./tests/gpu/test_gpu_imaging --bench) 2>&1 | tee -a "$OUT/imaging.log" \
      | grep '^{' | python3 -c "import json,sys,subprocess,datetime; r=json.loads(sys.stdin.read()); r['device']=subprocess.run(['nvidia-smi','--query-gpu=name','--format=csv,noheader'],capture_output=True,text=True).stdout.strip().splitlines()[0]; r['date']=datetime.datetime.now(datetime.timezone.utc).isoformat(); r['command']='bash tests/gpu/run.sh imaging'; json.dump(r,open('$OUT/imaging_bench.json','w'),indent=1); print(r)" | tee -a "$LOG"
  else
    say "imaging: building test_gpu_imaging failed"; grep -E "error" "$LOG" | tail -20
  fi
fi
# Stage "stability" (only when named): issue 25's no-blow-up goal: the models of docs/ete.md's
# stability table and a salt-like 192^3 one (bench/ete_models.py) as ETE jobs at dt auto,
# STAB_NT (10000) steps each on the GPU; the parse's check on the model (on the host) and the
# run's field watch must leave every one finished. Record: stability.json (per model the
# dt the fits gave, the dt run, the check's method, eigenvalues, steps and seconds, the
# run's exit status, loop time and rate).
if printf '%s\n' "${STAGES[@]}" | grep -qx stability; then
  say "stability: ETE jobs at dt auto, ${STAB_NT:-10000} steps, on the GPU"
  if cmake --build "$BUILD" -j"$(nproc)" --target fdwave-run >>"$LOG" 2>&1; then
    M=/tmp/fdw-ete-models
    rm -rf "$M" /tmp/fdw-ete-out && python3 "$ROOT/bench/ete_models.py" "$M" "${STAB_NT:-10000}"
    for j in "$M"/*.json; do
      name=$(basename "$j" .json)
      start=$(date +%s%N)
      timeout 300 "$BUILD/engine/fdwave-run" "$j" --backend cuda --quiet --out "/tmp/fdw-ete-out/$name" \
        > "$OUT/stab_$name.log" 2>&1
      echo "$name exit $? wall $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$LOG"
    done
    python3 - "$M" /tmp/fdw-ete-out "$OUT/stability.json" <<'EOF2' | tee -a "$LOG"
import glob, json, os, subprocess, sys, datetime
models, outs, rec = sys.argv[1:4]
gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                     capture_output=True, text=True).stdout.strip().splitlines()[0]
rows = []
for j in sorted(glob.glob(os.path.join(models, "*.json"))):
    name = os.path.basename(j)[:-5]
    try:
        m = json.load(open(os.path.join(outs, name, "manifest.json")))
    except OSError:
        rows.append({"model": name, "completed": False}); continue
    t, e, r = m["spec"]["time"], m["spec"]["ete"], m.get("result", {})
    st = e.get("stability", {})
    rows.append({"model": name, "grid": m["spec"]["grid"]["nx"], "nt": t["nt"], "dt": t["dt"],
                 "dt_fit": st.get("dt_unstable", t["dt"]), "method": st.get("method"),
                 "lambda_min": st.get("lambda_min"), "check_steps": st.get("steps"),
                 "check_s": st.get("seconds"), "completed": r.get("completed", False),
                 "loop_s": r.get("elapsed_s"), "mpts": r.get("mpts")})
    print("%-14s dt %.6g (fits %.6g) %s check %s steps %.1f s: completed %s, loop %.2f s" % (
        name, t["dt"], rows[-1]["dt_fit"], rows[-1]["method"], rows[-1]["check_steps"],
        rows[-1]["check_s"] or 0, rows[-1]["completed"], rows[-1]["loop_s"] or 0))
json.dump({"benchmark": "ete-stability", "device": gpu, "date": datetime.datetime.utcnow().isoformat() + "Z",
           "command": "bash tests/gpu/run.sh stability", "models": rows}, open(rec, "w"), indent=1)
EOF2
  else
    say "stability: build failed"; grep -E "error" "$LOG" | tail -20
  fi
fi
# PACK=1: every log in $OUT into logs.tgz (the device tool brings back at most 8 files);
# the JSON records stay beside it.
if [ "${PACK:-0}" = 1 ]; then
  tar czf /tmp/fdw-gpu-logs.tgz -C "$OUT" --exclude=logs.tgz --exclude='*.json' . &&
    (cd "$OUT" && find . -type f ! -name '*.json' -delete && find . -mindepth 1 -type d -empty -delete) &&
    mv /tmp/fdw-gpu-logs.tgz "$OUT/logs.tgz"
fi
say "done $(date -u +%FT%TZ)"
