#!/usr/bin/env bash
# The measurements a 2-core machine cannot make (issues #13, #15), in one pass
# on a larger machine that has no package registry. Parts (about how long
# each took on the 16-vCPU Xeon guest; pick what fits the device time left):
#   topology   hwloc's view, the latency table of every pair by weft's MCTOP
#              probe and by a plain ping-pong, `weft-topo infer` on each, and
#              five full `weft-topo infer` runs (~2 min);
#   combining  Fetch&Multiply at W=64 on every core, weft's combiners beside
#              the Osci authors' own benchmarks, interleaved, and Table 2's
#              one-per-core originals (~3 min);
#   scaling    the same at x32 on 1, 2, 4, 8 workers, one run each (~1 min);
#   sweep      W in {0, 512, 4096} at x8, x32, x128, one run each (~3 min);
#   ult        yield, create+join, fib and skynet on 1..N workers (~1.5 min);
#   startup    start-up and teardown beside oneTBB, OpenMP, std::thread (~0.5 min);
#   sort       the uniform 32-bit sort on 1..N workers, --quick size (~1.5 min);
#   openmp     `weft-bench openmp` (EPCC-style constructs, tasks, nested
#              regions, fib/mergesort/tree) under libgomp and libweft-omp.so
#              on every CPU (a few minutes: libgomp's task rows are slow);
#   tests      a few stress tests at N workers (~1 min).
# The default (every part but sweep) adds up to ~12 minutes, more than one
# device call may run (10 minutes): split it, e.g. `topology,startup,ult,tests`
# and then `combining,openmp`, each call with its own OUTDIR.
# Output: at most 8 files in OUTDIR (the device tool brings back no more):
# topology.txt, latency-{probe,pingpong}.txt, combining.txt (combining,
# scaling, sweep), ult.txt (ult, startup), sort-workers.txt, openmp.txt, tests.txt.
# Usage (from the checkout's root):
#   bash bench/run-16core.sh BUNDLE REFERENCE OUTDIR [PART,PART,...]   (default: all but sweep)
# BUNDLE: from ../shared/tools/device-bundle.sh: bin/ with weft-bench,
# weft-topo, weft-startup-probe, weft-omp-probe (+ tests) and lib/ with their
# libraries; for `openmp` also lib/libweft-omp.so, which the bundle script does
# not pick up (it is preloaded, not linked):
#   cp build/release/openmp/libweft-omp.so .device-bundle/lib/
# REFERENCE: the Synch framework's {osci,sim,ccsynch,hsynch}bench.run, built from
# github.com/nkallima/sim-universal-construction with `make x86_64` (not our code:
# never committed here), or a missing folder to skip those rows.
set -uo pipefail
if [ $# -lt 3 ]; then
  echo "usage: bash bench/run-16core.sh BUNDLE REFERENCE OUTDIR [PART,...]" >&2
  exit 2
fi
bundle=$1 ref=$2 out=$3
parts=${4:-topology,combining,scaling,ult,startup,sort,openmp,tests}
known=topology,combining,scaling,sweep,ult,startup,sort,openmp,tests
for p in ${parts//,/ }; do
  case ",$known," in
    *",$p,"*) ;;
    *) echo "run-16core.sh: unknown part '$p' (known: $known)" >&2; exit 2 ;;
  esac
done
want() { case ",$parts," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
[ -x "$bundle/bin/weft-bench" ] || { echo "run-16core.sh: no $bundle/bin/weft-bench" >&2; exit 2; }

mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bin=$bundle/bin
ncpu=$(nproc)
section() { echo "=== $* ($(date -u +%T), load: $(cut -d' ' -f1-3 /proc/loadavg))"; }
ref_run() {  # ALGO THREADS FIBERS [W]: one run of the authors' benchmark, 10^7 ops
  [ -x "$ref/$1bench.run" ] || return 0
  echo "ref algo=$1 threads=$2 fibers=$3 W=${4:-64} $("$ref/$1bench.run" -t "$2" -f "$3" -w "${4:-64}" -r 10000000 2>&1 | tail -1)"
}

if want topology; then
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
    for run in 1 2 3 4 5; do
      section "weft-topo infer, run $run (measures again, then MCTOP-ALG)"
      timeout 120 "$bin/weft-topo" infer
    done
  } > "$out/topology.txt" 2>&1
fi

{
  if want combining; then
    section "Fetch&Multiply W=64 on $ncpu workers, weft then the authors' (3 runs each), per ULTs/core"
    for k in 8 32 64 128; do
      timeout 120 "$bin/weft-bench" combining --filter "fm/W64/x$k" --reps 3
      for run in 1 2 3; do for a in osci sim ccsynch hsynch; do ref_run $a "$ncpu" $k; done; done
    done
    section "the one-per-core originals (SpinWait) for Table 2"
    timeout 60 "$bin/weft-bench" combining --filter "fm/W64/original" --reps 3
  fi
  if want scaling; then
    for n in 1 2 4 8; do
      section "Fetch&Multiply W=64 x32 on $n workers (one run each)"
      WEFT_WORKERS=$n timeout 60 "$bin/weft-bench" combining --filter "fm/W64/x32" --reps 1 --warmup 0
      for a in osci sim ccsynch hsynch; do ref_run $a "$n" 32; done
    done
  fi
  if want sweep; then
    for w in 0 512 4096; do
      for k in 8 32 128; do
        section "Fetch&Multiply W=$w x$k on $ncpu workers (one run each)"
        timeout 60 "$bin/weft-bench" combining --filter "fm/W$w/x$k" --reps 1 --warmup 0
        for a in osci sim; do ref_run $a "$ncpu" $k $w; done
      done
    done
  fi
} > "$out/combining.txt" 2>&1
[ -s "$out/combining.txt" ] || rm -f "$out/combining.txt"

{
  if want ult; then
    section "ULT costs"
    for f in yield create-join fib; do timeout 90 "$bin/weft-bench" ult --filter $f --reps 3; done
    timeout 90 "$bin/weft-bench" ult --filter skynet --reps 1 --warmup 0
  fi
  if want startup; then
    section "start-up"
    timeout 90 "$bin/weft-bench" startup --reps 5
  fi
} > "$out/ult.txt" 2>&1
[ -s "$out/ult.txt" ] || rm -f "$out/ult.txt"

if want sort; then
  {
    section "sort, uniform 32-bit keys, 1..N workers (one run each)"
    timeout 150 "$bin/weft-bench" parallel --quick --filter "sort/uniform-i32/" --reps 1 --warmup 0
  } > "$out/sort-workers.txt" 2>&1
fi

if want openmp; then
  {
    if [ -f "$bundle/lib/libweft-omp.so" ] && [ -x "$bin/weft-omp-probe" ]; then
      export WEFT_OMP_LIBRARY=$PWD/$bundle/lib/libweft-omp.so
      for f in sync/ task/ app/ sched/ nested/; do
        section "openmp $f on $ncpu CPUs, libgomp and weft (3 processes each)"
        timeout 240 "$bin/weft-bench" openmp --filter "$f" --reps 3
      done
    else
      echo "no $bundle/lib/libweft-omp.so or $bin/weft-omp-probe: copy the library into the bundle (see the header)"
    fi
  } > "$out/openmp.txt" 2>&1
fi

if want tests; then
  {
    for t in runtime_ult_test runtime_scheduler_test runtime_many_ults_test sync_combining_stress_test \
             sync_linearizability_test; do
      [ -x "$bin/$t" ] || continue
      section "$t"
      timeout 60 "$bin/$t" --gtest_brief=1 2>&1 | tail -15
    done
  } > "$out/tests.txt" 2>&1
fi
section done
