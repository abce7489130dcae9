#!/bin/bash
# 2-core VM, 2026-11-28 (eighth session): $WB = build/release/bench/weft-bench (/tmp/wb-head: of
# 805f66b; /tmp/wb-head2: with Osci::apply aligned to 64 bytes, the commit this file lands with),
# the authors' Synch binaries in .device-ref/ (16core-2026-11-26.md says how they were built).
cd /work/main; WB=${WB:-/tmp/wb-head}
for round in 1 2 3; do
  for k in 8 32 64 128; do
    echo "round $round k=$k: $(nice -n -5 $WB combining --filter fm/W64/x$k --reps 3 --rows weft,PSim-x$k,ideal 2>&1 | grep -E '^  (weft|PSim-x[0-9]+|ideal) ' | tr -s ' ' | tr '\n' '|')"
  done
  for k in 32 64 128; do
    for i in 1 2 3; do
      echo "round $round authors Osci k=$k: $(.device-ref/oscibench.run -t 2 -f $k -w 64 -r 10000000 2>&1 | tail -1)"
    done
  done
  for k in 64 128; do
    for i in 1 2 3; do
      echo "round $round authors PSim k=$k: $(.device-ref/simbench.run -t 2 -f $k -w 64 -r 10000000 2>&1 | tail -1)"
    done
  done
done
