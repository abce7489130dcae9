#!/usr/bin/env bash
# Osci with request slots that share the argument's and the response's
# bytes ("new") against the same code without ("base": 197d21e's osci.hpp),
# alternating, three rounds, with the authors' Osci between them.
set -u
out=$1
B=.device-bundle; export LD_LIBRARY_PATH=$PWD/$B/lib
{
for r in 1 2 3; do
  for k in 8 32 64 128; do
    for b in base new; do
      if [ $b = base ]; then exe=.device-tools/wb-base; else exe=$B/bin/weft-bench; fi
      echo "=== round $r $b x$k"
      $exe combining --filter fm/W64/x$k --reps 3 --rows weft,PSim-x$k 2>&1 | grep -E "^  (impl|weft|PSim-x)"
    done
    for j in 1 2 3; do echo -n "ref osci x$k: "; .device-ref/oscibench.run -t 16 -f $k -w 64 -r 10000000 2>&1 | grep -o "throughput.*"; done
  done
done
} > $out/osci-slots-ab.txt 2>&1
echo "done $(date -u +%T)"
