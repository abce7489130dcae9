#!/usr/bin/env bash
# The test command: installs what is missing, then builds and runs the whole
# GoogleTest suite three times: optimized, under ThreadSanitizer, and under
# AddressSanitizer + UBSan. Exits non-zero if any test fails.
#   bash scripts/test.sh            # all three
#   WEFT_TEST_CONFIGS=release bash scripts/test.sh   # just one (release|tsan|asan)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

jobs=$(nproc)
configs=${WEFT_TEST_CONFIGS:-"release tsan asan"}
for preset in $configs; do
  echo "=== weft tests: $preset build ==="
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  # Tests run one at a time: several of them measure their own CPU use or need both cores.
  ctest --preset "$preset" --timeout 600
done
echo "=== weft tests: all passed ($configs) ==="
