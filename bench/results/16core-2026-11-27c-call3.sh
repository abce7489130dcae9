#!/usr/bin/env bash
# One device call: where a cold 16-worker weft process spends its wall time
# beside oneTBB (before/in/after main, strace of the exit), and Osci's best
# rows beside the authors' again.
set -u
out=$1
B=.device-bundle; export LD_LIBRARY_PATH=$PWD/$B/lib
T=.device-tools
echo "=== $(date -u +%T) startup cold, 11 reps, three runs" 
for i in 1 2 3; do $B/bin/weft-bench startup --filter cold --reps 11; done > $out/startup-cold.txt 2>&1
echo "=== $(date -u +%T) strace"
{
for impl in weft tbb; do for i in 1 2 3; do
  echo "--- $impl run $i: strace -f -ttt (from main's output to exit)"
  LD_LIBRARY_PATH=$PWD/$T/lib:$LD_LIBRARY_PATH $T/strace -f -ttt -o /tmp/st-$impl-$i.txt $B/bin/weft-startup-probe $impl 16
  awk '/write\(1/{f=1} f' /tmp/st-$impl-$i.txt | head -80
  echo "--- $impl run $i: syscall counts (whole process)"
  awk '{print $3}' /tmp/st-$impl-$i.txt | cut -d'(' -f1 | sort | uniq -c | sort -rn | head -25
  echo "--- $impl run $i: lines, first and last timestamps"; wc -l < /tmp/st-$impl-$i.txt; head -1 /tmp/st-$impl-$i.txt; tail -1 /tmp/st-$impl-$i.txt
done; done
for impl in weft tbb; do
  echo "--- $impl strace -c -f"
  LD_LIBRARY_PATH=$PWD/$T/lib:$LD_LIBRARY_PATH $T/strace -c -f -o /tmp/stc-$impl.txt $B/bin/weft-startup-probe $impl 16; head -30 /tmp/stc-$impl.txt
done
} > $out/strace.txt 2>&1
echo "=== $(date -u +%T) osci"
{
for r in 1 2 3; do
  for k in 64 128; do
    $B/bin/weft-bench combining --filter fm/W64/x$k --reps 3 --rows weft,PSim-x$k 2>&1 | grep -E "^combining/fm|^  (weft|PSim)"
    for j in 1 2 3; do echo -n "ref osci x$k: "; .device-ref/oscibench.run -t 16 -f $k -w 64 -r 10000000 2>&1 | grep -o "throughput.*"; done
    for j in 1 2 3; do echo -n "ref sim x$k: "; .device-ref/simbench.run -t 16 -f $k -w 64 -r 10000000 2>&1 | grep -o "throughput.*"; done
  done
done
} > $out/osci.txt 2>&1
echo "=== $(date -u +%T) done"
