#!/bin/bash
# 2-core VM, 2026-11-27 (seventh session). Copies of build/release/bench/weft-bench:
#   /tmp/wb-headA  the commit this file lands with (local_work aligned to 64 bytes)
#   /tmp/wb-floorA the same with combining-2core-2026-11-27-yield-floor.patch applied (a
#                  YieldOnly row: each operation multiplies its worker's own word and yields)
#   /tmp/wb-flags, /tmp/wb-new  two builds of an Osci variant that was not kept, before the
#                  alignment: the same machine code for local_work, Osci::apply and
#                  Osci::combine, local_work unaligned at 0x8fee0 and 0x8f3f0
# and the authors' Synch binaries (oscibench.run, simbench.run; 16core-2026-11-26.md says how
# they were built) in .device-ref/.
cd /work/main
for round in 1 2 3; do
  for k in 8 32 64 128; do
    echo "round $round k=$k: $(nice -n -5 /tmp/wb-headA combining --filter fm/W64/x$k --reps 3 --rows weft,PSim-x$k,ideal 2>&1 | grep -E '^  (weft|PSim-x[0-9]+|ideal) ' | tr -s ' ' | tr '\n' '|')"
  done
  echo "round $round floor k=128: $(nice -n -5 /tmp/wb-floorA combining --filter fm/W64/x128 --reps 3 --rows weft,YieldOnly-x128,ideal 2>&1 | grep -E '^  (weft|YieldOnly-x128|ideal) ' | tr -s ' ' | tr '\n' '|')"
  for b in flags new headA; do
    echo "round $round layout $b 1-worker: $(WEFT_WORKERS=1 nice -n -5 /tmp/wb-$b combining --filter fm/W64/x128 --reps 3 --rows weft,ideal 2>&1 | grep -E '^  (weft|ideal) ' | tr -s ' ' | tr '\n' '|')"
    echo "round $round layout $b 2-workers: $(nice -n -5 /tmp/wb-$b combining --filter fm/W64/x128 --reps 3 --rows weft,ideal 2>&1 | grep -E '^  (weft|ideal) ' | tr -s ' ' | tr '\n' '|')"
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
