#!/usr/bin/env bash
# bench/mpi/run.sh: weft::mpi beside plain MPI, and the Graph500 BFS on weft
# beside its MPI+OpenMP baseline, each measurement an mpirun job launched
# here (docs/benchmarks.md, docs/mpi.md). Same-run ratios only.
#
#   bench/mpi/run.sh [BUILD_DIR] [--quick]
#
# BUILD_DIR (default build/release) must hold bench/weft-mpi-probe and
# mpi/weft-graph-mpi. Scales 16, 18, 20 (--quick: 14, 16) on 1, 2 and 4
# ranks; KEYS searches per run (default 16; the specification's 64 takes
# four times as long); workers (weft) or OpenMP threads (baseline) per rank:
# the cores divided among the ranks, at least 1 (WORKERS overrides).
# Environment: the same Open MPI settings as the tests (tests/mpi/
# CMakeLists.txt: root allowed, shared memory, no CMA, oversubscription, no
# binding, single-node launcher) unless already set. MPIRUN overrides the
# launcher (e.g. MPIRUN="srun" on a Slurm allocation: see docs/scale-out.md).
set -euo pipefail
build=build/release
quick=0
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    -*) echo "run.sh: unknown option $a (usage: bench/mpi/run.sh [BUILD_DIR] [--quick])" >&2; exit 2 ;;
    *) build=$a ;;
  esac
done
probe=$build/bench/weft-mpi-probe
graph=$build/mpi/weft-graph-mpi
for f in "$probe" "$graph"; do
  [[ -x $f ]] || { echo "run.sh: $f not found: cmake --build $build --target weft-mpi-probe weft-graph-mpi" >&2; exit 2; }
done
: "${OMPI_ALLOW_RUN_AS_ROOT:=1}" "${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:=1}" "${OMPI_MCA_btl:=self,vader}"
: "${OMPI_MCA_btl_vader_single_copy_mechanism:=none}" "${OMPI_MCA_rmaps_base_oversubscribe:=1}"
: "${OMPI_MCA_hwloc_base_binding_policy:=none}" "${OMPI_MCA_plm:=isolated}" "${OMP_WAIT_POLICY:=passive}"
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_btl OMPI_MCA_btl_vader_single_copy_mechanism
export OMPI_MCA_rmaps_base_oversubscribe OMPI_MCA_hwloc_base_binding_policy OMPI_MCA_plm OMP_WAIT_POLICY
mpirun=${MPIRUN:-mpirun}
keys=${KEYS:-16}
cores=$(nproc)
scales="16 18 20"
probe_args=()
if [[ $quick == 1 ]]; then
  scales="14 16"
  probe_args=(--round-trips 5000 --messages 50000 --reps 3)
fi

echo "# bench/mpi/run.sh $*  ($(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $cores cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "## ULT-aware waits vs blocking MPI (2 ranks, 1 worker per rank)"
echo "\$ $mpirun -np 2 $probe ${probe_args[*]}"
$mpirun -np 2 "$probe" "${probe_args[@]}"
echo
echo "## Graph500 BFS: weft (direction-optimizing, overlapped) vs MPI+OpenMP baseline (top-down, MPI_Alltoallv per level), $keys keys"
printf '%-6s %-6s %-8s %-8s %-14s %-14s %-16s %s\n' scale ranks impl workers construction_s bfs_median_s harmonic_TEPS "weft/baseline"
for scale in $scales; do
  for ranks in 1 2 4; do
    workers=${WORKERS:-$(( cores / ranks > 0 ? cores / ranks : 1 ))}
    base_teps=""
    for impl in mpi-omp weft; do
      out=$($mpirun -np "$ranks" "$graph" bfs -g "$scale" -k 16 -n "$keys" --impl "$impl" --workers "$workers" 2>&1) || {
        echo "$out" >&2
        echo "run.sh: FAILED: $mpirun -np $ranks $graph bfs -g $scale -n $keys --impl $impl --workers $workers" >&2
        exit 1
      }
      field() { echo "$out" | awk -v k="$1:" '$1 == k { print $2 }'; }
      teps=$(field harmonic_mean_TEPS)
      ratio=""
      if [[ $impl == mpi-omp ]]; then base_teps=$teps; else ratio=$(awk -v a="$teps" -v b="$base_teps" 'BEGIN { printf "%.2fx", a / b }'); fi
      printf '%-6s %-6s %-8s %-8s %-14s %-14s %-16s %s\n' "$scale" "$ranks" "$impl" "$workers" "$(field construction_time)" \
        "$(field bfs_median_time)" "$teps" "$ratio"
    done
  done
done
echo
echo "## Bytes sent per level per rank (weft, first search, 2 ranks, scale ${scales##* })"
echo "\$ $mpirun -np 2 $graph bfs -g ${scales##* } -n 1 -v"
$mpirun -np 2 "$graph" bfs -g "${scales##* }" -n 1 -v --workers "${WORKERS:-$(( cores / 2 > 0 ? cores / 2 : 1 ))}" | grep -E '^(#|level)'
