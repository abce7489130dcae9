#!/usr/bin/env bash
# The measurements a 2-core machine cannot make (issues #13, #15), in one pass
# on a larger machine that has no package registry, within a time budget:
# a lent machine has ~15 minutes of device time in all, its start included,
# so one call of at most 10 minutes must bring back what matters most.
# Parts, in the order they run (what no 16-core run has measured yet first),
# with about how long each took on the 16-vCPU Xeon guest:
#   topology   hwloc's view, the latency table of every pair by weft's MCTOP
#              probe and by a plain ping-pong, `weft-topo infer` on each, and
#              three full `weft-topo infer` runs (~1.5 min);
#   ult        create+join, yield, fib and skynet on 1..N workers (~1.5 min);
#   startup    start-up and teardown beside oneTBB, OpenMP, std::thread (~0.5 min);
#   openmp     `weft-bench openmp` (tasks, nested regions, task programs,
#              EPCC-style constructs, schedules) under libgomp and
#              libweft-omp.so on every CPU (a few minutes: libgomp's task rows
#              are slow);
#   combining  Fetch&Multiply at W=64 on every core, weft's combiners beside
#              the Osci authors' own benchmarks, interleaved, and Table 2's
#              one-per-core originals (~3 min);
#   scaling    Fetch&Multiply at x32 on 1, 2, 4, 8 workers, one run each (~1 min);
#   tests      a few stress tests at N workers (~1 min);
#   sort       the uniform 32-bit sort on 1..N workers, --quick size (~1.5 min);
#   sweep      W in {0, 512, 4096} at x8, x32, x128, one run each (~3 min);
#   ab         this build against BUNDLE/base (`BASE=<commit> bash
#              bench/pack-16core.sh`) and every BUNDLE/variants/NAME
#              (`VARIANTS=...`, see pack-16core.sh), alternating, three
#              rounds: Osci and PSim-x at W=64 x8, x32, x128, with the authors'
#              Osci at x32 once a round, then the start-up on every CPU of
#              this build and the base (~1 min per build); not in the default set.
# Every step first checks the budget (RUN_BUDGET_S seconds from the start,
# default 540, for a device call of timeout_s 600): a step that would not
# fit is skipped with a line saying so, on stdout and in its part's file, so
# the call ends in time with the files of everything done. The default is
# every part but sweep, and it does not fit one budget: what is skipped can
# be asked for in a second call (`scaling,tests,sort` say), budget allowing.
# Output: at most 8 files in OUTDIR (the device tool brings back no more):
# topology.txt, latency-{probe,pingpong}.txt, combining.txt (combining,
# scaling, sweep), ult.txt (ult, startup), sort-workers.txt, openmp.txt, tests.txt,
# ab.txt.
# Usage (from the checkout's root):
#   bash bench/run-16core.sh BUNDLE REFERENCE OUTDIR [PART,PART,...]   (default: all but sweep)
# BUNDLE: `bash bench/pack-16core.sh` packs it (.device-bundle/: weft-bench,
# weft-topo, weft-startup-probe, weft-omp-probe, the stress tests, their
# libraries and libweft-omp.so).
# REFERENCE: the Synch framework's {osci,sim,ccsynch,hsynch}bench.run, built from
# github.com/nkallima/sim-universal-construction with `make x86_64` (not our code:
# never committed here), or a missing folder to skip those rows.
set -uo pipefail
if [ $# -lt 3 ]; then
  echo "usage: bash bench/run-16core.sh BUNDLE REFERENCE OUTDIR [PART,...]" >&2
  exit 2
fi
bundle=$1 ref=$2 out=$3
parts=${4:-topology,ult,startup,openmp,combining,scaling,tests,sort}
known=topology,combining,scaling,sweep,ult,startup,sort,openmp,tests,ab
for p in ${parts//,/ }; do
  case ",$known," in
    *",$p,"*) ;;
    *) echo "run-16core.sh: unknown part '$p' (known: $known)" >&2; exit 2 ;;
  esac
done
budget=${RUN_BUDGET_S:-540}
case $budget in
  ''|*[!0-9]*) echo "run-16core.sh: RUN_BUDGET_S must be a whole number of seconds, not '$budget'" >&2; exit 2 ;;
esac
want() { case ",$parts," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
[ -x "$bundle/bin/weft-bench" ] || { echo "run-16core.sh: no $bundle/bin/weft-bench" >&2; exit 2; }

mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bin=$bundle/bin
ncpu=$(nproc)
exec 3>&1  # the call's own stdout, while a part's output goes to its file
section() { echo "=== $* ($(date -u +%T), ${SECONDS}s in, load: $(cut -d' ' -f1-3 /proc/loadavg))"; }
# fits SECONDS WHAT: whether a step of about SECONDS still fits the budget;
# if not, says so in the part's file and on the call's stdout.
fits() {
  if [ $((SECONDS + $1)) -le "$budget" ]; then return 0; fi
  echo "skipped (budget): $2 needs ~$1 s, $((budget - SECONDS)) s of $budget left" | tee /dev/fd/3
  return 1
}
ref_run() {  # ALGO THREADS FIBERS [W]: one run of the authors' benchmark, 10^7 ops
  [ -x "$ref/$1bench.run" ] || return 0
  echo "ref algo=$1 threads=$2 fibers=$3 W=${4:-64} $("$ref/$1bench.run" -t "$2" -f "$3" -w "${4:-64}" -r 10000000 2>&1 | tail -1)"
}
progress() { echo "$(date -u +%T) ${SECONDS}s: $*" >&3; }

if want topology; then
  progress topology
  {
    section machine
    lscpu; echo; grep -m1 'model name' /proc/cpuinfo; nproc; cat /sys/fs/cgroup/cpu.max 2>/dev/null
    uname -r; date -u
    section "weft-topo show (hwloc)"
    timeout 60 "$bin/weft-topo" show
    for method in probe pingpong; do
      fits 40 "weft-topo latency --method $method" || continue
      section "weft-topo latency --method $method"
      timeout 120 "$bin/weft-topo" latency --method $method --save-table "$out/latency-$method.txt"
      section "weft-topo infer --table (the $method table just measured)"
      timeout 60 "$bin/weft-topo" infer --table "$out/latency-$method.txt"
    done
    for run in 1 2 3; do
      fits 20 "weft-topo infer, run $run" || break
      section "weft-topo infer, run $run (measures again, then MCTOP-ALG)"
      timeout 120 "$bin/weft-topo" infer
    done
  } > "$out/topology.txt" 2>&1
fi

if want ult || want startup; then
  progress "ult, startup"
  {
    if want ult; then
      section "ULT costs"
      for f in create-join yield fib; do
        fits 30 "ult $f" && timeout 90 "$bin/weft-bench" ult --filter $f --reps 3
      done
      fits 20 "ult skynet" && timeout 90 "$bin/weft-bench" ult --filter skynet --reps 1 --warmup 0
    fi
    if want startup && fits 30 "startup"; then
      section "start-up"
      timeout 90 "$bin/weft-bench" startup --reps 5
    fi
  } > "$out/ult.txt" 2>&1
fi

if want openmp; then
  progress openmp
  {
    if [ -f "$bundle/lib/libweft-omp.so" ] && [ -x "$bin/weft-omp-probe" ]; then
      export WEFT_OMP_LIBRARY=$PWD/$bundle/lib/libweft-omp.so
      for f in task/ nested/ app/ sync/ sched/; do
        fits 60 "openmp $f" || continue
        section "openmp $f on $ncpu CPUs, libgomp and weft (3 processes each)"
        timeout 240 "$bin/weft-bench" openmp --filter "$f" --reps 3
      done
    else
      echo "no $bundle/lib/libweft-omp.so or $bin/weft-omp-probe: pack the bundle with bench/pack-16core.sh"
    fi
  } > "$out/openmp.txt" 2>&1
fi

if want combining; then
  progress combining
  {
    section "Fetch&Multiply W=64 on $ncpu workers, weft then the authors' (3 runs each), per ULTs/core"
    for k in 32 128 8 64; do
      fits 45 "Fetch&Multiply x$k" || break
      timeout 120 "$bin/weft-bench" combining --filter "fm/W64/x$k" --reps 3
      for run in 1 2 3; do for a in osci sim ccsynch hsynch; do ref_run $a "$ncpu" $k; done; done
    done
    if fits 30 "Table 2's originals"; then
      section "the one-per-core originals (SpinWait) for Table 2"
      timeout 60 "$bin/weft-bench" combining --filter "fm/W64/original" --reps 3
    fi
  } >> "$out/combining.txt" 2>&1
fi

if want scaling; then
  progress scaling
  {
    for n in 1 2 4 8; do
      fits 15 "Fetch&Multiply x32 on $n workers" || break
      section "Fetch&Multiply W=64 x32 on $n workers (one run each)"
      WEFT_WORKERS=$n timeout 60 "$bin/weft-bench" combining --filter "fm/W64/x32" --reps 1 --warmup 0
      for a in osci sim ccsynch hsynch; do ref_run $a "$n" 32; done
    done
  } >> "$out/combining.txt" 2>&1
fi

if want tests; then
  progress tests
  {
    for t in runtime_ult_test runtime_scheduler_test runtime_many_ults_test sync_combining_stress_test \
             sync_linearizability_test; do
      [ -x "$bin/$t" ] || continue
      fits 60 "$t" || continue
      section "$t"
      timeout 60 "$bin/$t" --gtest_brief=1 2>&1 | tail -15
    done
    # The fair channel's garbage bound, which failed 2 in 300 runs on 16 CPUs
    # before 35eef95 (never on 2): the stress and white-box tests, repeated.
    if [ -x "$bin/sync_channel_test" ] && fits 60 "fair channel stress x200"; then
      section "sync_channel_test fair unbuffered stress x200"
      timeout 60 "$bin/sync_channel_test" --gtest_brief=1 --gtest_repeat=200 \
        --gtest_filter='*unbuffered_fair*:*FairQueue*' 2>&1 | grep -E 'FAILED|Failure|actual' | sort | uniq -c
      echo "exit ${PIPESTATUS[0]} (0: all 200 repetitions passed)"
    fi
  } > "$out/tests.txt" 2>&1
fi

if want sort; then
  progress sort
  {
    if fits 100 "sort on 1..N workers"; then
      section "sort, uniform 32-bit keys, 1..N workers (one run each)"
      timeout 150 "$bin/weft-bench" parallel --quick --filter "sort/uniform-i32/" --reps 1 --warmup 0
    fi
  } > "$out/sort-workers.txt" 2>&1
fi

if want sweep; then
  progress sweep
  {
    for w in 0 512 4096; do
      for k in 8 32 128; do
        fits 20 "Fetch&Multiply W=$w x$k" || break 2
        section "Fetch&Multiply W=$w x$k on $ncpu workers (one run each)"
        timeout 60 "$bin/weft-bench" combining --filter "fm/W$w/x$k" --reps 1 --warmup 0
        for a in osci sim; do ref_run $a "$ncpu" $k $w; done
      done
    done
  } >> "$out/combining.txt" 2>&1
fi
if want ab; then
  progress ab
  {
    builds=()  # NAME=EXE, this build first
    builds+=("new=$bin/weft-bench")
    [ -x "$bundle/base/weft-bench" ] && builds+=("base=$bundle/base/weft-bench")
    for exe in "$bundle"/variants/*/weft-bench; do
      [ -x "$exe" ] && builds+=("$(basename "$(dirname "$exe")")=$exe")
    done
    if [ ${#builds[@]} -lt 2 ]; then
      echo "nothing to compare: pack with BASE=<commit> and/or VARIANTS=... bash bench/pack-16core.sh"
    else
      echo "builds: ${builds[*]}"
      for round in 1 2 3; do
        for k in 8 32 128; do
          for b in "${builds[@]}"; do
            fits 25 "A/B round $round x$k (${b%%=*})" || break 3
            section "A/B round $round: ${b%%=*}, Fetch&Multiply W=64 x$k"
            timeout 60 "${b#*=}" combining --filter "fm/W64/x$k" --rows "weft,PSim-x$k" --reps 3
          done
        done
        fits 10 "A/B round $round, the authors' Osci" && ref_run osci "$ncpu" 32
      done
      if [ -x "$bundle/base/weft-bench" ]; then
        for round in 1 2 3; do
          for b in "base=$bundle/base/weft-bench" "new=$bin/weft-bench"; do
            fits 20 "A/B round $round start-up (${b%%=*})" || break 2
            section "A/B round $round: ${b%%=*}, start-up with $ncpu workers"
            timeout 60 "${b#*=}" startup --filter "/$ncpu-workers" --reps 5
          done
        done
      fi
    fi
  } > "$out/ab.txt" 2>&1
fi
progress "done: $(ls "$out" | tr '\n' ' ')"
