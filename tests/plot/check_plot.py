#!/usr/bin/env python3
"""CTest: scripts/plot.py on the committed results and trace; every figure
must exist and hold the expected series (plot.py names each line or bar
group by its series in the SVG's ids). Exits 77 (skipped) without matplotlib.

Usage: check_plot.py SOURCE_DIR OUTPUT_DIR
"""
import os
import subprocess
import sys

source, out = sys.argv[1], sys.argv[2]
plot = os.path.join(source, "scripts", "plot.py")
os.makedirs(out, exist_ok=True)
problems = []


def has_matplotlib(python):
    return subprocess.run([python, "-c", "import matplotlib"], capture_output=True).returncode == 0


# The interpreter running this, else the distribution's (where a pyenv or
# virtualenv python3 comes first on PATH without matplotlib).
python = next((p for p in (sys.executable, "/usr/bin/python3") if os.path.exists(p) and has_matplotlib(p)),
              sys.executable)


def run(*args):
    r = subprocess.run([python, plot, *args], capture_output=True, text=True)
    if r.returncode == 77:
        print(r.stderr.strip())
        sys.exit(77)
    if r.returncode != 0:
        sys.exit(f"plot.py {' '.join(args)} failed:\n{r.stdout}{r.stderr}")
    return r.stdout.split()


def expect_series(svg, names):
    with open(svg) as f:
        text = f.read()
    for n in names:
        if f'id="{n}"' not in text:
            problems.append(f"{svg}: no element with id {n}")


results = os.path.join(source, "bench", "results", "combining-2core-run1.txt")
written = run("combining", results, "-o", out)
expected_files = [os.path.join(out, f"combining-fm-W{w}.svg") for w in (0, 64, 512, 4096)]
if sorted(written) != sorted(expected_files):
    problems.append(f"combining figures: wrote {written}, expected {expected_files}")
algorithms = ["weft", "PSim", "CC-Synch", "DSM-Synch", "H-Synch", "flat-combining", "OyamaAlg", "CLH", "mutex"]
for svg in expected_files:
    if os.path.exists(svg):
        expect_series(svg, [f"series-{a}" for a in algorithms] + ["series-ideal", "original-weft", "original-PSim"])

trace = os.path.join(source, "docs", "figures", "trace-fib.json")
svg = os.path.join(out, "trace-fib.svg")
run("trace", trace, "-o", svg)
expect_series(svg, ["series-fib", "series-main", "series-sleeper", "series-idle: spin", "series-idle: sleep"])

for p in problems:
    print("PROBLEM: " + p)
sys.exit(1 if problems else 0)
