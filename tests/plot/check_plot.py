#!/usr/bin/env python3
"""CTest: scripts/plot.py draws every figure and each holds its expected
series (plot.py names each line, bar or cell group by its series in the SVG's
ids).

  check_plot.py SOURCE_DIR OUTPUT_DIR                   the committed results, traces
                                                        and topologies (docs/figures)
  check_plot.py SOURCE_DIR OUTPUT_DIR --bench WEFT_BENCH a small fresh run: weft-bench
                                                        graph --quick --json, then plot.py

Exits 77 (skipped) only where no python3 with matplotlib is installed, and
says so.
"""
import argparse
import os
import subprocess
import sys

SKIPPED = 77

parser = argparse.ArgumentParser()
parser.add_argument("source")
parser.add_argument("output")
parser.add_argument("--bench", help="weft-bench: plot a small fresh run instead of the committed results")
args = parser.parse_args()
plot = os.path.join(args.source, "scripts", "plot.py")
os.makedirs(args.output, exist_ok=True)
problems = []


def has_matplotlib(python):
    return subprocess.run([python, "-c", "import matplotlib"], capture_output=True).returncode == 0


# The interpreter running this, else the distribution's (where a pyenv or
# virtualenv python3 comes first on PATH without matplotlib).
candidates = [p for p in (sys.executable, "/usr/bin/python3") if os.path.exists(p)]
python = next((p for p in candidates if has_matplotlib(p)), None)
if python is None:
    print(f"SKIPPED: matplotlib is not installed for {' or '.join(candidates)} "
          "(Debian: python3-matplotlib, which scripts/install-deps.sh installs); no figure checked")
    sys.exit(SKIPPED)


def run(*argv):
    r = subprocess.run([python, plot, *argv], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"plot.py {' '.join(argv)} failed (status {r.returncode}):\n{r.stdout}{r.stderr}")
    return r.stdout.split()


def expect_series(svg, names):
    """Every name must be the id of an element of the SVG."""
    if not os.path.exists(svg):
        problems.append(f"{svg} was not written")
        return
    with open(svg) as f:
        text = f.read()
    for n in names:
        if f'id="{n}"' not in text:
            problems.append(f"{svg}: no element with id {n}")


def out(name):
    return os.path.join(args.output, name)


def check_fresh_run():
    """A small fresh run (BFS on kron-16 at 1 and 2 workers, a few seconds)
    through plot.py scaling: weft's and OpenMP's curves and the ideal."""
    jsonl = out("fresh-graph-bfs.jsonl")
    with open(jsonl, "w") as f:
        r = subprocess.run([args.bench, "graph", "--quick", "--json", "--filter", "bfs/kron-16/", "--reps", "2"],
                           stdout=f, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"weft-bench graph failed (status {r.returncode}):\n{r.stderr}")
    svg = out("fresh-graph-bfs.svg")
    run("scaling", jsonl, "-o", svg)
    expect_series(svg, [f"series-{s}@bfs/kron-16" for s in ("weft", "openmp", "ideal")])


# What each committed figure must hold (plot.py figures draws them all).
COMBINING = ["weft", "PSim", "CC-Synch", "DSM-Synch", "H-Synch", "flat-combining", "OyamaAlg", "CLH", "mutex"]
EXPECTED = {
    **{f"combining-fm-W{w}.svg": [f"series-{a}" for a in COMBINING] + ["series-ideal", "original-weft", "original-PSim"]
       for w in (0, 64, 512, 4096)},
    "trace-fib.svg": ["series-fib", "series-main", "series-sleeper", "series-idle: spin", "series-idle: sleep"],
    "trace-bfs.svg": ["series-ult", "series-idle: spin", "series-scope: loop chunk", "series-scope: parallel region",
                      "series-scope: bfs top-down step", "series-scope: bfs bottom-up step",
                      "series-scope: bfs to bottom-up", "series-scope: bfs to top-down"],
    **{f"graph-{g}.svg": [f"series-{impl}@{kernel}/{g}" for kernel in ("bfs", "sssp", "pr", "cc", "cc_sv", "bc", "tc")
                          for impl in ("weft", "openmp", "ideal")] + [f"series-tbb@{k}/{g}" for k in ("pr", "tc")]
       for g in ("kron-16", "urand-16")},
    "parallel-loops.svg": [f"series-{impl}@{loop}" for loop in ("stream-triad", "mandelbrot", "spmv")
                           for impl in ("weft", "omp static", "tbb auto_partitioner", "ideal")],
    "ult-fib.svg": [f"series-{impl}@fib" for impl in ("weft", "tbb task_group", "openmp task", "ideal")],
    "ult-fib-16core.svg": [f"series-{impl}@fib" for impl in ("weft", "tbb task_group", "openmp task", "ideal")],
    "parallel-sort-workers.svg": [f"series-{impl}@uniform-i32"
                                  for impl in ("weft", "tbb::parallel_sort", "__gnu_parallel::sort", "ideal")],
    "parallel-sort.svg": [f"series-{impl}@sort/uniform-{k}" for k in ("i32", "i64")
                          for impl in ("weft", "weft stable", "tbb::parallel_sort", "__gnu_parallel::sort", "std::sort")],
    "channels-ult.svg": [f"series-{impl}@channels/ult/{kind}/{where}" for kind in ("unbuffered", "buffered-64")
                         for where in ("1w-1p", "2w-1p", "2w-4p") for impl in ("weft", "boost-fiber")],
    "channels-threads.svg": [f"series-{impl}@channels/{case}" for case in ("threads/unbuffered/1p", "handoff/1pairs")
                             for impl in ("weft", "weft-unfair", "mutex+condvar")],
    "locks.svg": [f"series-{impl}@locks/ssync/threads" for impl in ("weft::Mutex", "std::mutex", "MCS", "CLH", "QD lock()")]
                 + [f"series-{impl}@locks/pq/work32" for impl in ("QD", "CC-Synch", "Osci (ULTs)", "std::mutex")],
    "maps.svg": [f"series-{impl}@maps/{mix}/2^10" for mix in ("1pct", "50pct")
                 for impl in ("weft", "weft-clht-lf", "tbb-concurrent_hash_map", "mutex+unordered_map")],
    "latency.svg": ["heatmap@latency-2core-vm", "heatmap@latency-16cpu-kvm-xeon"],
    "topology.svg": ["context-0@topology-2core-vm", "context-1@topology-2core-vm",
                     "context-15@topology-16cpu-kvm-xeon", "group-76.5-9.11.13@topology-16cpu-kvm-xeon",
                     "group-287-" + ".".join(map(str, range(16))) + "@topology-16cpu-kvm-xeon"],
}


def check_committed():
    written = run("figures", "-o", args.output)
    expected_files = [out(name) for name in EXPECTED]
    if sorted(written) != sorted(expected_files):
        problems.append(f"plot.py figures wrote {sorted(written)}, expected {sorted(expected_files)}")
    for name, series in EXPECTED.items():
        expect_series(out(name), series)


if args.bench:
    check_fresh_run()
else:
    check_committed()
for p in problems:
    print("PROBLEM: " + p)
sys.exit(1 if problems else 0)
