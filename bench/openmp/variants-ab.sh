#!/usr/bin/env bash
# A/B of libweft-omp.so builds against each other and libgomp, one probe
# process per value, every library in turn within a round, medians over the
# rounds (as bench/results/openmp-16core-barrier-ab.txt was made).
#   LIBS="gomp base new" [CASES="sync/barrier ..."] \
#     bash bench/openmp/variants-ab.sh BUNDLE LIBDIR OUTFILE [ROUNDS]
# BUNDLE: a folder with bin/weft-omp-probe and lib/ (bench/pack-16core.sh's
# .device-bundle, or build/release/bench's probe: BUNDLE=build/release/bench/..).
# LIBDIR: NAME.so for every NAME in LIBS but "gomp" (no preload: libgomp).
# OMP_NUM_THREADS etc. pass through to every run.
set -u
if [ $# -lt 3 ]; then
  echo "usage: LIBS=\"gomp A B\" bash bench/openmp/variants-ab.sh BUNDLE LIBDIR OUTFILE [ROUNDS]" >&2
  exit 2
fi
bundle=$1 libdir=$(cd "$2" && pwd) out=$3 rounds=${4:-5}
probe=$bundle/bin/weft-omp-probe
[ -x "$probe" ] || { echo "variants-ab.sh: no $probe" >&2; exit 2; }
export LD_LIBRARY_PATH=$(cd "$bundle" && pwd)/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
libs=${LIBS:-"gomp base new"}
cases=${CASES:-"sync/barrier sync/for sync/single sync/parallel sync/reduction sync/atomic sched/static sched/static-8 task/task-barrier one-cpu/sync/barrier one-cpu/task/task-barrier"}
for l in $libs; do
  [ "$l" = gomp ] || [ -f "$libdir/$l.so" ] || { echo "variants-ab.sh: no $libdir/$l.so" >&2; exit 2; }
done
echo "# $(nproc) cpus, OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}, $(date -u), rounds $rounds" > "$out"
for r in $(seq "$rounds"); do
  for c in $cases; do
    for l in $libs; do
      if [ "$l" = gomp ]; then v=$(timeout 30 "$probe" "$c" 5 2>&1 | tail -1)
      else v=$(LD_PRELOAD=$libdir/$l.so timeout 30 "$probe" "$c" 5 2>&1 | tail -1); fi
      echo "$r $c $l $v" >> "$out"
    done
  done
  echo "round $r done at ${SECONDS}s"
done
echo "== medians (ns per construct)"
for c in $cases; do
  line=$c
  for l in $libs; do
    m=$(awk -v c="$c" -v l="$l" '$2 == c && $3 == l {print $4}' "$out" | sort -g |
        awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}')
    line="$line $l=$m"
  done
  echo "$line"
done | tee -a "$out"
