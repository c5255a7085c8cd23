#!/usr/bin/env bash
# setup.sh — the two commands of README.md on a fresh Debian machine:
#   deploy/setup.sh demo   install missing packages, build, start fdwaved on localhost
#                          (SQLite + CPU backend), submit the example job, follow its
#                          progress and print where the snapshots are.
#   deploy/setup.sh test   install missing packages, build, run the whole test suite.
#   deploy/setup.sh fuzz   also install clang, build the libFuzzer targets with ASan/UBSan
#                          in BUILD_DIR-fuzz and run both for FUZZ_SECONDS (600) each
#                          (fuzz/run.sh; the record goes to bench/security/).
# Environment: BUILD_DIR (default build), JOBS (default nproc), FDW_PORT (demo, 8080).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
# The CPU backend's OpenMP threads sleep between steps instead of spinning: on a shared or
# small machine spinning threads starve the daemon, the test clients and each other.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

PKGS="build-essential cmake pkg-config libjansson-dev libmicrohttpd-dev libsqlite3-dev sqlite3
      nettle-dev check libsegyio-dev segyio-bin python3-segyio libpng-dev libcurl4-openssl-dev
      libglpk-dev libopenmpi-dev openmpi-bin python3 python3-jsonschema python3-yaml curl"
# strace: tests/server counts the daemon's opens of a model file (test_model_opens);
# npm: tests/docs installs the pinned OpenAPI linter with it (docs_openapi_lint).
# npm comes with Node.js where that is installed from elsewhere (nodesource's nodejs holds
# npm and conflicts with Debian's package): only a machine with no npm at all asks for it.
# slurm*, munge: tests/slurm starts a one-node Slurm cluster (tests/slurm/slurm_cluster.py).
[ "$mode" = test ] && PKGS="$PKGS chromium strace slurmctld slurmd slurm-client munge"
[ "$mode" = test ] && ! command -v npm >/dev/null 2>&1 && PKGS="$PKGS npm"
# clang, its libFuzzer and sanitizer runtimes and LLVM's OpenMP: the fuzz build only.
[ "$mode" = fuzz ] && PKGS="$PKGS clang libclang-rt-dev libomp-dev"

install_packages() {
    local missing=()
    for p in $PKGS; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "setup: installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() {
    cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${CMAKE_ARGS:-} >/dev/null
    cmake --build "$BUILD_DIR" -j "$JOBS"
}

case "$mode" in
test)
    install_packages
    build
    cd "$BUILD_DIR"
    ctest --output-on-failure -j "$JOBS" --timeout 900
    ;;
fuzz)
    install_packages
    cmake -S . -B "$BUILD_DIR-fuzz" -DCMAKE_C_COMPILER=clang -DFDW_FUZZ=ON -DFDW_CUDA=OFF \
        -DFUZZ_SECONDS="${FUZZ_SECONDS:-600}" >/dev/null
    cmake --build "$BUILD_DIR-fuzz" -j "$JOBS" --target fuzz-run
    ;;
demo)
    install_packages
    build
    exec ./deploy/demo.sh "$BUILD_DIR"
    ;;
*)
    echo "usage: $0 demo|test|fuzz" >&2
    exit 2
    ;;
esac
