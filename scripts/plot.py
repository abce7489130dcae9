#!/usr/bin/env python3
"""SVG figures of weft's benchmark results and traces (matplotlib).

  plot.py combining RESULTS -o DIR   Fetch&Multiply throughput against ULTs per
                                     worker, one figure per local-work setting
                                     (combining-fm-W<w>.svg): every algorithm's
                                     x1..x128 variants as a line, its one-per-core
                                     original and the ideal as dashed levels.
  plot.py trace TRACE.json -o F.svg  a trace (WEFT_TRACE, weft::trace) as a
                                     per-worker timeline: ULT runs coloured by
                                     label, idle spinning and sleeping in grey.

RESULTS is the output of `weft-bench combining`: its table (as committed in
bench/results/*.txt) or its --json lines. Each line or bar carries its series
name as the SVG element id (gid), so a figure can be checked by machine.

Needs matplotlib (Debian: python3-matplotlib, or `bash scripts/install-deps.sh
plot`); without it, plot.py says so and exits with status 77 (skipped).
"""
import argparse
import collections
import json
import os
import re
import sys

SKIPPED = 77


def load_matplotlib():
    try:
        import matplotlib
    except ImportError:
        print("plot.py: matplotlib is not installed (Debian: apt-get install python3-matplotlib, "
              "or bash scripts/install-deps.sh plot); no figures drawn", file=sys.stderr)
        sys.exit(SKIPPED)
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: searchable, checkable
    matplotlib.rcParams["svg.hashsalt"] = "weft"  # the same input gives the same file
    import matplotlib.pyplot as plt
    return plt


# ---------------------------------------------------------------- reading results

CASE_LINE = re.compile(r"^(\S+/\S+) — ")
ROW_LINE = re.compile(r"^  (\S+)\s+([0-9.]+)\s+\[")


def read_results(path):
    """{case: {impl: ns per op}} from weft-bench's table or its --json lines."""
    results = collections.defaultdict(dict)
    with open(path) as f:
        text = f.read()
    if text.lstrip().startswith("{"):
        for line in text.splitlines():
            if not line.strip():
                continue
            r = json.loads(line)
            if r.get("metric") == "time_per_op" and r.get("status") == "ok":
                results[r["case"]][r["impl"]] = float(r["value"])
    else:
        case = None
        for line in text.splitlines():
            m = CASE_LINE.match(line)
            if m:
                case = m.group(1)
                continue
            m = ROW_LINE.match(line)
            if m and case:
                results[case][m.group(1)] = float(m.group(2))
    if not results:
        raise SystemExit(f"plot.py: no results found in {path}")
    return results


# ---------------------------------------------------------------- combining sweep

SWEEP_CASE = re.compile(r"^combining/fm/W(\d+)/(original|x(\d+))$")
VARIANT = re.compile(r"^(.*)-x\d+$")


def plot_combining(args):
    plt = load_matplotlib()
    results = read_results(args.results)
    sweeps = collections.defaultdict(dict)  # W -> {case kind: rows}
    for case, rows in results.items():
        m = SWEEP_CASE.match(case)
        if m:
            sweeps[int(m.group(1))]["original" if m.group(2) == "original" else int(m.group(3))] = rows
    if not sweeps:
        raise SystemExit(f"plot.py: {args.results} holds no combining/fm sweep")
    os.makedirs(args.output, exist_ok=True)
    for w, cases in sorted(sweeps.items()):
        fig, ax = plt.subplots(figsize=(8, 5))
        xs = sorted(k for k in cases if k != "original")
        series = collections.defaultdict(list)  # algorithm -> [(x, Mops/s)]
        for x in xs:
            for impl, ns in cases[x].items():
                if impl == "ideal" or ns <= 0:
                    continue
                m = VARIANT.match(impl)
                name = m.group(1) if m else impl
                series[name].append((x, 1e3 / ns))
        colours = {}
        for name, points in sorted(series.items(), key=lambda kv: (kv[0] != "weft", kv[0])):
            line, = ax.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                            linewidth=2.5 if name == "weft" else 1.2, label=name)
            line.set_gid(f"series-{name}")
            colours[name] = line.get_color()
        original = cases.get("original", {})
        for impl, ns in original.items():
            if ns <= 0:
                continue
            if impl == "ideal":
                line = ax.axhline(1e3 / ns, color="black", linestyle=":", linewidth=1, label="ideal")
                line.set_gid("series-ideal")
            elif impl in colours:
                line = ax.axhline(1e3 / ns, color=colours[impl], linestyle="--", linewidth=0.8)
                line.set_gid(f"original-{impl}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("ULTs per worker (x1 .. x128)")
        ax.set_ylabel("throughput, million operations/s")
        ax.set_title(f"Fetch&Multiply, local work 0..{w}: weft (Osci) beside the baselines\n"
                     "dashed: each algorithm's one-per-core original", fontsize=10)
        ax.legend(fontsize=7, ncol=2)
        ax.grid(True, which="both", alpha=0.3)
        out = os.path.join(args.output, f"combining-fm-W{w}.svg")
        fig.tight_layout()
        fig.savefig(out, metadata={"Date": None})
        plt.close(fig)
        print(out)


# ---------------------------------------------------------------- trace timeline

def plot_trace(args):
    plt = load_matplotlib()
    with open(args.trace) as f:
        trace = json.load(f)
    names = {}
    for e in trace["traceEvents"]:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[(e["pid"], e["tid"])] = f"runtime {e['pid']}: {e['args']['name']}"
    tracks = sorted(names)
    if not tracks:
        raise SystemExit(f"plot.py: {args.trace} has no worker tracks")
    row = {t: i for i, t in enumerate(tracks)}
    bars = collections.defaultdict(list)  # series -> [(row, start, duration)]
    for e in trace["traceEvents"]:
        if e.get("ph") != "X":
            continue
        series = e["name"] if e["cat"] == "ult" else "idle: " + e["name"]
        bars[series].append((row[(e["pid"], e["tid"])], e["ts"], e["dur"]))
    fig, ax = plt.subplots(figsize=(10, 1.2 + 0.6 * len(tracks)))
    colour = {"idle: spin": "#c8c8c8", "idle: sleep": "#eeeeee"}
    palette = plt.get_cmap("tab10").colors
    for k, series in enumerate(sorted(s for s in bars if s not in colour)):
        colour[series] = palette[k % len(palette)]
    for series, spans in sorted(bars.items()):
        by_row = collections.defaultdict(list)
        for r, start, dur in spans:
            by_row[r].append((start, max(dur, 1e-3)))
        for r, ranges in by_row.items():
            coll = ax.broken_barh(ranges, (r - 0.4, 0.8), facecolors=colour[series],
                                  label=series if r == min(by_row) else None)
            coll.set_gid(f"series-{series}")
    ax.set_yticks(range(len(tracks)))
    ax.set_yticklabels([names[t] for t in tracks], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("time since the trace started, us")
    dropped = trace.get("otherData", {}).get("dropped_events", 0)
    ax.set_title(f"{os.path.basename(args.trace)}: ULT runs by label, idle time in grey"
                 + (f" ({dropped} events dropped)" if dropped else ""), fontsize=10)
    ax.legend(fontsize=7, loc="upper right", ncol=3)
    fig.tight_layout()
    fig.savefig(args.output, metadata={"Date": None})
    plt.close(fig)
    print(args.output)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    c = sub.add_parser("combining", help="Fetch&Multiply sweep figures from weft-bench combining results")
    c.add_argument("results")
    c.add_argument("-o", "--output", required=True, help="directory for the SVG files")
    c.set_defaults(run=plot_combining)
    t = sub.add_parser("trace", help="a trace as a per-worker timeline")
    t.add_argument("trace")
    t.add_argument("-o", "--output", required=True, help="the SVG file to write")
    t.set_defaults(run=plot_trace)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
