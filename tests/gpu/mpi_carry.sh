#!/usr/bin/env bash
# tests/gpu/mpi_carry.sh — Open MPI for a machine that has none (the GPU machine: Ubuntu
# 24.04 + CUDA, no Open MPI): Debian 12's Open MPI 4.1.4 and its runtime libraries, carried
# as .deb files in .carry/mpi (git-ignored, about 7 MB), unpacked into a private prefix and
# relocated there (OPAL_PREFIX, PMIX_INSTALL_PREFIX), without installing anything.
#
#   tests/gpu/mpi_carry.sh fetch        download the .deb files into .carry/mpi (on Debian 12)
#   tests/gpu/mpi_carry.sh check        prove a relocated install works with the system's
#                                       Open MPI hidden (mount namespace): build fdwave-run
#                                       (CPU) against it and run 2 ranks against 1 process
#   . tests/gpu/mpi_carry.sh; fdw_mpi_setup PREFIX
#                                       unpack into PREFIX and export the environment
#                                       (tests/gpu/run.sh's "mpi" stage)
#
# What is carried: openmpi-bin, openmpi-common, libopenmpi3, libopenmpi-dev (mpi.h and the
# mpicc wrapper) and the runtime closure of their libraries, except what every Ubuntu has
# (libc6, libgcc-s1, libstdc++6, zlib1g). libudev1, libuuid1 and libatomic1 are carried for
# a bare system but dropped from the prefix when the system has them.
FDW_MPI_CARRY_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FDW_MPI_DEBS="openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev libpmix2 libhwloc15
  libevent-core-2.1-7 libevent-pthreads-2.1-7 libfabric1 libibverbs1 ibverbs-providers
  librdmacm1 libnl-3-200 libnl-route-3-200 libpsm-infinipath1 libpsm2-2 libucx0 libnuma1
  libmunge2 libudev1 libuuid1 libatomic1"

# Unpack the carried packages into $1 (emptied first) and export what Open MPI, the
# compiler wrapper and CMake need to use it from there. Returns non-zero when nothing is
# carried or the unpacked mpirun cannot start.
fdw_mpi_setup() {
  local prefix=$1 debs=${2:-$FDW_MPI_CARRY_ROOT/.carry/mpi}
  ls "$debs"/*.deb >/dev/null 2>&1 || { echo "no .deb files in $debs (run: $0 fetch)"; return 1; }
  rm -rf "$prefix" && mkdir -p "$prefix" || return 1
  local d
  for d in "$debs"/*.deb; do dpkg -x "$d" "$prefix" || return 1; done
  local lib=$prefix/usr/lib/x86_64-linux-gnu
  # Base libraries the system already has stay the system's (never shadow them).
  local so
  for so in libudev.so.1 libuuid.so.1 libatomic.so.1; do
    if /sbin/ldconfig -p 2>/dev/null | grep -q "^[[:space:]]*$so "; then
      rm -f "$lib/$so" "$lib"/"$so".*
    fi
  done
  export OPAL_PREFIX=$prefix/usr
  export PMIX_INSTALL_PREFIX=$lib/pmix2
  export PATH=$prefix/usr/bin:$PATH
  export LD_LIBRARY_PATH=$lib:$prefix/lib/x86_64-linux-gnu:$lib/openmpi/lib:$lib/pmix2/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  # libibverbs and libnl read their provider lists from /etc; point them at the prefix.
  export IBV_CONFIG_DIR=$prefix/etc/libibverbs.d
  # Debian's postinst makes these through update-alternatives; dpkg -x does not.
  ln -sf mpirun.openmpi "$prefix/usr/bin/mpirun"
  ln -sf mpicc.openmpi "$prefix/usr/bin/mpicc"
  # Single host, loopback: ranks started directly (no ssh needed: the "isolated" launcher;
  # the rsh one refuses to start when no ssh is installed), shared memory and TCP through
  # ob1 (no InfiniBand, UCX or libfabric transports to probe); the device runs as root.
  export OMPI_MCA_plm=isolated OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp
  export OMPI_MCA_btl_vader_single_copy_mechanism=none
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export FDW_MPI_CMAKE_ARGS="-DMPI_C_COMPILER=$prefix/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=$prefix/usr/bin/mpirun.openmpi"
  "$prefix/usr/bin/mpirun" --version >/dev/null 2>&1 || { echo "the carried mpirun does not start"; return 1; }
  return 0
}

# Download the packages (Debian 12, apt-get download needs no root).
fdw_mpi_fetch() {
  mkdir -p "$FDW_MPI_CARRY_ROOT/.carry/mpi" && cd "$FDW_MPI_CARRY_ROOT/.carry/mpi" || return 1
  # shellcheck disable=SC2086
  apt-get download $FDW_MPI_DEBS && du -sh .
}

# The system's files of every carried package (Open MPI and its libraries), except the
# base libraries a system keeps (libudev1, libuuid1, libatomic1).
fdw_mpi_system_files() {
  local p pkgs=""
  for p in $FDW_MPI_DEBS; do
    case $p in libudev1|libuuid1|libatomic1) ;; *) pkgs="$pkgs $p" ;; esac
  done
  # shellcheck disable=SC2086
  dpkg -L $pkgs 2>/dev/null | while read -r f; do
    { [ -f "$f" ] || [ -L "$f" ]; } && echo "$f"
  done
}

# Inside a private mount namespace: hide every file of the system's Open MPI (bind
# /dev/null over it), unpack the carried one into a fresh prefix, build fdwave-run (CPU
# backend) against it with CMake, run a job on 2 ranks and on 1 process and compare.
fdw_mpi_check_hidden() {
  local work=${1:-/tmp/fdw-mpi-check}
  rm -rf "$work" && mkdir -p "$work" || return 1
  local n=0 f
  while read -r f; do
    case "$f" in /usr/share/doc/*|/usr/share/man/*|/usr/share/lintian/*) continue ;; esac
    mount --bind /dev/null "$f" 2>/dev/null && n=$((n + 1))
  done < <(fdw_mpi_system_files)
  # a bare machine has no ssh either (Open MPI's rsh launcher looks for it)
  for f in /usr/bin/ssh /usr/bin/rsh; do
    [ -e "$f" ] && mount --bind /dev/null "$f" && n=$((n + 1))
  done
  echo "hid $n files of the system's Open MPI and ssh"
  if /usr/bin/mpirun --version >/dev/null 2>&1; then echo "FAIL: the system mpirun still runs"; return 1; fi
  fdw_mpi_setup "$work/prefix" || { echo "FAIL: setup"; return 1; }
  echo "mpirun: $(command -v mpirun) ($(mpirun --version 2>&1 | head -1))"
  cmake -S "$FDW_MPI_CARRY_ROOT" -B "$work/build" -DFDW_CUDA=OFF -DFDW_MPI=ON -DFDW_BUILD_SERVER=OFF \
    -DFDW_BUILD_CLIENTS=OFF -DFDW_BUILD_TESTS=OFF $FDW_MPI_CMAKE_ARGS >"$work/cmake.log" 2>&1 \
    || { echo "FAIL: cmake"; tail -20 "$work/cmake.log"; return 1; }
  cmake --build "$work/build" -j2 --target fdwave-run >"$work/build.log" 2>&1 \
    || { echo "FAIL: build"; grep -E "error" "$work/build.log" | head; return 1; }
  local run=$work/build/engine/fdwave-run
  ldd "$run" | grep -E "libmpi|libopen-pal|libpmix" | sed 's/^/  /'
  if ldd "$run" | grep -E "libmpi|libopen" | grep -qv "$work/prefix"; then
    echo "FAIL: fdwave-run resolves Open MPI outside the prefix"; return 1
  fi
  local spec=$FDW_MPI_CARRY_ROOT/tests/mpi/acoustic.json
  OMP_NUM_THREADS=1 timeout 120 "$run" "$spec" --quiet --out "$work/one" --backend cpu >"$work/one.log" 2>&1 \
    || { echo "FAIL: one process"; cat "$work/one.log"; return 1; }
  OMP_NUM_THREADS=1 timeout 120 mpirun -np 2 --oversubscribe "$run" "$spec" --quiet --out "$work/np2" \
    --backend cpu >"$work/np2.log" 2>&1 || { echo "FAIL: mpirun -np 2"; cat "$work/np2.log"; return 1; }
  grep -i "warn\|error" "$work/np2.log" | head -5
  local bad=0
  for f in "$work"/one/*; do
    case "$f" in */manifest.json) continue ;; esac
    cmp -s "$f" "$work/np2/$(basename "$f")" || { echo "FAIL: $(basename "$f") differs"; bad=1; }
  done
  [ $bad = 0 ] && echo "PASS: relocated Open MPI, 2 ranks == 1 process on $(ls "$work/one" | wc -l) files"
  return $bad
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case "${1:-}" in
    fetch) fdw_mpi_fetch ;;
    check)
      # a private mount namespace, so the hiding ends with the check
      exec unshare -m --propagation private bash -c ". '$0'; fdw_mpi_check_hidden '${2:-/tmp/fdw-mpi-check}'" ;;
    *) echo "usage: $0 fetch | check [WORKDIR]   (or source it and call fdw_mpi_setup PREFIX)"; exit 2 ;;
  esac
fi
