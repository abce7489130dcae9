#!/usr/bin/env bash
# The measurements a 2-core machine cannot make (issue #13), in one pass on a
# larger machine that has no package registry, within a few minutes:
#   1. its topology: hwloc's view, the latency table of every pair by weft's
#      MCTOP probe and by a plain ping-pong, `weft-topo infer` on each, and
#      three full `weft-topo infer` runs;
#   2. Fetch&Multiply at W=64 on every core, weft's combiners beside the Osci
#      authors' own benchmarks (the Synch framework) in the same run, interleaved;
#   3. the same at 1, 2, 4, 8 workers (scaling; all cores is step 2);
#   4. ULT costs (yield, create+join, fib and skynet on 1..N workers) beside oneTBB & co;
#   5. start-up and teardown beside oneTBB, OpenMP, std::thread;
#   6. the uniform 32-bit sort on 1..N workers (--quick size, one run each);
#   7. a few stress tests at N workers.
# Output: at most 8 files in OUTDIR (the device tool brings back no more).
# Usage (from the checkout's root; see ../shared/tools/device-bundle.sh for BUNDLE):
#   bash bench/run-16core.sh BUNDLE REFERENCE OUTDIR
# BUNDLE: bin/ with weft-bench, weft-topo, weft-startup-probe (+ tests) and lib/;
# REFERENCE: the Synch framework's {osci,sim,ccsynch,hsynch}bench.run, built from
# github.com/nkallima/sim-universal-construction with `make x86_64` (not our code:
# never committed here), or a missing folder to skip those rows.
set -uo pipefail
bundle=$1 ref=$2 out=$3
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bin=$bundle/bin
ncpu=$(nproc)
section() { echo "=== $* ($(date -u +%T), load: $(cut -d' ' -f1-3 /proc/loadavg))"; }
ref_run() {  # ALGO THREADS FIBERS: one run of the authors' benchmark, W=64, 10^7 ops
  [ -x "$ref/$1bench.run" ] || return 0
  echo "ref algo=$1 threads=$2 fibers=$3 $("$ref/$1bench.run" -t "$2" -f "$3" -w 64 -r 10000000 2>&1 | tail -1)"
}

{
  section machine
  lscpu; echo; grep -m1 'model name' /proc/cpuinfo; nproc; cat /sys/fs/cgroup/cpu.max 2>/dev/null
  uname -r; date -u
  section "weft-topo show (hwloc)"
  timeout 60 "$bin/weft-topo" show
  for method in probe pingpong; do
    section "weft-topo latency --method $method"
    timeout 120 "$bin/weft-topo" latency --method $method --save-table "$out/latency-$method.txt"
    section "weft-topo infer --table (the $method table just measured)"
    timeout 60 "$bin/weft-topo" infer --table "$out/latency-$method.txt"
  done
  for run in 1 2 3; do
    section "weft-topo infer, run $run (measures again, then MCTOP-ALG)"
    timeout 120 "$bin/weft-topo" infer
  done
} > "$out/topology.txt" 2>&1

{
  section "Fetch&Multiply W=64 on $ncpu workers, weft then the authors' (3 runs each), per ULTs/core"
  for k in 8 32 64 128; do
    timeout 120 "$bin/weft-bench" combining --filter "fm/W64/x$k" --reps 3
    for run in 1 2 3; do for a in osci sim ccsynch hsynch; do ref_run $a "$ncpu" $k; done; done
  done
  section "the one-per-core originals (SpinWait) for Table 2"
  timeout 60 "$bin/weft-bench" combining --filter "fm/W64/original" --reps 3
} > "$out/combining.txt" 2>&1

{
  for n in 1 2 4 8; do
    section "Fetch&Multiply W=64 x32 on $n workers (one run each)"
    WEFT_WORKERS=$n timeout 60 "$bin/weft-bench" combining --filter "fm/W64/x32" --reps 1 --warmup 0
    for a in osci sim ccsynch hsynch; do ref_run $a "$n" 32; done
  done
} > "$out/combining-scaling.txt" 2>&1

{
  section "ULT costs"
  for f in yield create-join fib; do timeout 90 "$bin/weft-bench" ult --filter $f --reps 3; done
  timeout 90 "$bin/weft-bench" ult --filter skynet --reps 1 --warmup 0
} > "$out/ult.txt" 2>&1

{
  section "start-up"
  timeout 90 "$bin/weft-bench" startup --reps 5
} >> "$out/ult.txt" 2>&1

{
  section "sort, uniform 32-bit keys, 1..N workers (one run each)"
  timeout 150 "$bin/weft-bench" parallel --quick --filter "sort/uniform-i32/" --reps 1 --warmup 0
} > "$out/sort-workers.txt" 2>&1

{
  for t in runtime_ult_test runtime_scheduler_test runtime_many_ults_test sync_combining_stress_test \
           sync_linearizability_test; do
    [ -x "$bin/$t" ] || continue
    section "$t"
    timeout 60 "$bin/$t" --gtest_brief=1 2>&1 | tail -15
  done
} > "$out/tests.txt" 2>&1
section done
