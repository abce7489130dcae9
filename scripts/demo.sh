#!/usr/bin/env bash
# The demo command: installs what is missing, builds weft optimized, and prints
# the headline benchmark tables, each measured in one run, with ratios: ULT
# operations and 10^4 parked ULTs (weft beside oneTBB, OpenMP, Boost.Fiber and
# the raw Boost.Context switch); the parallel layer (an empty parallel region
# and an imbalanced Mandelbrot loop beside libgomp and oneTBB); a graph
# kernel (direction-optimizing BFS on a scale-16 Kronecker graph beside the
# same algorithm in plain OpenMP); and the Osci
# paper's Fetch&Multiply with its Table 2 (Osci and PSim-x beside CC-Synch,
# flat combining, locks, ... and the ideal).
#   bash scripts/demo.sh            # headline table
#   bash scripts/demo.sh --json     # the same as JSON records
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target weft-bench
build/release/bench/weft-bench ult --quick "$@"
build/release/bench/weft-bench parallel --quick --filter overhead/region "$@"
build/release/bench/weft-bench parallel --quick --filter loops/mandelbrot "$@"
build/release/bench/weft-bench graph --quick --filter bfs/kron "$@"
exec build/release/bench/weft-bench combining --quick --reps 3 --filter fm/ "$@"
