#!/usr/bin/env bash
# The demo command: installs what is missing, builds weft optimized, and prints
# the headline benchmark table (weft beside oneTBB, OpenMP, Boost.Fiber and the
# raw Boost.Context switch, measured in the same run, with ratios).
#   bash scripts/demo.sh            # headline table
#   bash scripts/demo.sh --json     # the same as JSON records
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target weft-bench
exec build/release/bench/weft-bench ult --quick "$@"
