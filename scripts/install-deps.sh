#!/usr/bin/env bash
# Installs the Debian 12 packages weft needs, if any are missing.
# Used by scripts/demo.sh and scripts/test.sh; safe to run again.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config       # build tools
  gfortran                               # a Fortran OpenMP test program (the omp_*_ bindings of libweft-omp.so)
  libboost-context-dev libboost-fiber-dev libboost-dev  # ULT switching; Boost.Fiber + Lockfree baselines
  libhwloc-dev libnuma-dev               # topology, NUMA memory
  libtbb-dev                             # oneTBB baseline
  libgtest-dev libbenchmark-dev          # tests, benchmark timing
  python3                                # the trace tests read traces with its json module
  python3-matplotlib                     # scripts/plot.py's figures (the plot tests draw them)
  libopenmpi-dev openmpi-bin             # weft::mpi (mpi/) and its tests under mpirun
  gettext libpomp2-doc libopenblas0-openmp libblas-dev  # OpenMP code nobody here wrote, for openmp.foreign.* (msgmerge, opari2's example, OpenBLAS)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "weft: installing missing packages: ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "weft: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
