#!/usr/bin/env bash
# OpenMP programs nobody here wrote, unchanged, run on libgomp and on weft's
# runtime (LD_PRELOAD=libweft-omp.so) in the same script: the same output
# (checked), and the wall times side by side (median of REPS runs each,
# interleaved). tests/openmp/foreign.cmake checks the same programs in the
# test suite; this script times them on bigger inputs.
#
#   bench/openmp/foreign.sh <build dir> [reps]      (default reps: 3)
#
# The programs, where installed (each is skipped with a note otherwise):
#   msgmerge   gettext's msgmerge (Debian's binary, -fopenmp): the German
#              coreutils catalogue merged against gnupg2's messages, a
#              parallel fuzzy search (schedule(dynamic)) over 2212 messages
#   dgemm      Debian's OpenBLAS (libopenblas0-openmp, GCC -fopenmp) behind
#              libblas.so.3, called by tests/openmp/blas_dgemm.cpp (no
#              OpenMP of its own): 1024x1024 dgemm, best of 5 per process
#   opari2     opari2's example.c (Score-P), compiled as shipped: a region
#              with a worksharing loop and a reduction (start-up dominated)
# The EPCC-style reimplementations (probe.cpp) print timings, not results:
# `weft-bench openmp` runs them under both runtimes.
set -euo pipefail

build=${1:?usage: bench/openmp/foreign.sh <build dir> [reps]}
reps=${2:-3}
lib=$(realpath "$build/openmp/libweft-omp.so")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now_ns() { date +%s%N; }

# run <name> <compare: plain|sorted> <command...>: REPS runs per runtime.
run() {
  local name=$1 compare=$2
  shift 2
  local gomp=() weft=()
  for ((r = 0; r < reps; ++r)); do
    for rt in libgomp weft; do
      local pre=""
      [ "$rt" = weft ] && pre=$lib
      local t0 t1
      t0=$(now_ns)
      if ! env LD_PRELOAD="$pre" "$@" > "$work/$rt.out" 2> "$work/$rt.err"; then
        echo "$name: failed on $rt:" >&2
        cat "$work/$rt.err" >&2
        exit 1
      fi
      t1=$(now_ns)
      if [ "$rt" = libgomp ]; then gomp+=($(((t1 - t0) / 1000))); else weft+=($(((t1 - t0) / 1000))); fi
      if [ "$compare" = sorted ]; then sort -o "$work/$rt.out" "$work/$rt.out"; fi
    done
    if ! cmp -s "$work/libgomp.out" "$work/weft.out"; then
      echo "$name: the outputs differ" >&2
      diff "$work/libgomp.out" "$work/weft.out" | head -20 >&2
      exit 1
    fi
  done
  local g w
  g=$(printf '%s\n' "${gomp[@]}" | sort -n | sed -n "$(((reps + 1) / 2))p")
  w=$(printf '%s\n' "${weft[@]}" | sort -n | sed -n "$(((reps + 1) / 2))p")
  local inner=""
  [ -s "$work/weft.err" ] && inner="  (weft: $(tail -1 "$work/weft.err"); libgomp: $(tail -1 "$work/libgomp.err"))"
  printf '%-12s %12.1f %12.1f %8.2f   same output (%s bytes)%s\n' "$name" "$(echo "$g / 1000" | bc -l)" \
    "$(echo "$w / 1000" | bc -l)" "$(echo "$w / $g" | bc -l)" "$(wc -c < "$work/libgomp.out")" "$inner"
}

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, $(uptime | sed 's/.*load average/load average/')"
echo "# wall ms per process, median of $reps; weft/libgomp < 1: weft faster"
printf '%-12s %12s %12s %8s\n' program "libgomp ms" "weft ms" ratio

if command -v msgmerge > /dev/null && command -v msgunfmt > /dev/null && command -v msgfilter > /dev/null &&
  [ -f /usr/share/locale/de/LC_MESSAGES/coreutils.mo ] && [ -f /usr/share/locale/de/LC_MESSAGES/gnupg2.mo ]; then
  msgunfmt /usr/share/locale/de/LC_MESSAGES/coreutils.mo > "$work/def.po"
  msgunfmt /usr/share/locale/de/LC_MESSAGES/gnupg2.mo |
    msgfilter --keep-header -o "$work/ref.pot" sed -e d
  run msgmerge plain msgmerge -q "$work/def.po" "$work/ref.pot" -o -
else
  echo "msgmerge: skipped (needs gettext and the de coreutils/gnupg2 catalogues)"
fi

if [ -x "$build/tests/openmp/omp_blas_dgemm" ]; then
  run dgemm plain "$build/tests/openmp/omp_blas_dgemm" 1024 5
else
  echo "dgemm: skipped (no $build/tests/openmp/omp_blas_dgemm: needs an OpenMP OpenBLAS as libblas.so.3)"
fi

if [ -x "$build/tests/openmp/omp_opari2_example" ]; then
  run opari2 sorted "$build/tests/openmp/omp_opari2_example"
else
  echo "opari2: skipped (no opari2 example)"
fi
