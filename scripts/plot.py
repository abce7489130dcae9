#!/usr/bin/env python3
"""SVG figures of weft's benchmark results, machines and traces (matplotlib).

  plot.py combining RESULTS -o DIR   Fetch&Multiply throughput against ULTs per
                                     worker, one figure per local-work setting
                                     (combining-fm-W<w>.svg): every algorithm's
                                     x1..x128 variants as a line, its one-per-core
                                     original and the ideal as dashed levels.
  plot.py scaling RESULTS -o F.svg   speed-up against workers of every case family
                                     whose cases end in N-worker(s) (parallel
                                     loops, graph kernels, ...): one panel each,
                                     every implementation over weft's time at the
                                     fewest workers, and the ideal line.
  plot.py bars RESULTS -o F.svg      every implementation's median side by side,
                                     one panel per case (--throughput: millions
                                     of operations per second).
  plot.py trace TRACE.json -o F.svg  a trace (WEFT_TRACE, weft::trace) as a
                                     per-worker timeline: ULT runs coloured by
                                     label, idle spinning and sleeping in grey.

RESULTS is the output of `weft-bench SUITE`: its table (as committed in
bench/results/*.txt) or its --json lines (full precision: the tables round).
--cases REGEX picks cases. Each line, bar or cell group carries its series
name as the SVG element id (gid), so a figure can be checked by machine.

Needs matplotlib (Debian: python3-matplotlib, which scripts/install-deps.sh
installs); without it, plot.py says so and exits with status 77 (skipped).
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
              "or bash scripts/install-deps.sh); no figures drawn", file=sys.stderr)
        sys.exit(SKIPPED)
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: searchable, checkable
    matplotlib.rcParams["svg.hashsalt"] = "weft"  # the same input gives the same file
    import matplotlib.pyplot as plt
    return plt


# ---------------------------------------------------------------- reading results

CASE_LINE = re.compile(r"^(\S+/\S+) — ")
HEADER_LINE = re.compile(r"^  impl\s+(\S+)\s+\[min")
ROW_LINE = re.compile(r"^  (\S(?:.*?\S)?)\s{2,}([0-9.]+)\s+\[[^]]*\](?:\s+([0-9.]+))?")


class Results:
    """weft-bench's medians: values[case][impl] (time per operation, in the
    case's unit[case], e.g. "ns/op" or "s/trial") and total[case][impl] (the
    run's total time, ms), read from its table (as committed in
    bench/results/*.txt) or from its --json lines. Ratios are best taken from
    the totals: a table rounds a time per operation of 0.0018 s to 0.002."""

    def __init__(self, path):
        self.path = path
        self.values = collections.defaultdict(dict)
        self.total = collections.defaultdict(dict)
        self.unit = {}
        with open(path) as f:
            text = f.read()
        if text.lstrip().startswith("{"):
            for n, line in enumerate(text.splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                except json.JSONDecodeError as e:
                    raise SystemExit(f"plot.py: {path}:{n}: not a JSON line ({e})")
                if r.get("status") != "ok":
                    continue
                if r.get("metric") == "time_per_op":
                    self.values[r["case"]][r["impl"]] = float(r["value"])
                    self.unit[r["case"]] = r.get("unit", "")
                elif r.get("metric") == "total_time":
                    self.total[r["case"]][r["impl"]] = float(r["value"])
        else:
            case = None
            for line in text.splitlines():
                m = CASE_LINE.match(line)
                if m:
                    case = m.group(1)
                    continue
                m = HEADER_LINE.match(line)
                if m and case:
                    self.unit[case] = m.group(1)
                    continue
                m = ROW_LINE.match(line)
                if m and case:
                    self.values[case][m.group(1)] = float(m.group(2))
                    if m.group(3):
                        self.total[case][m.group(1)] = float(m.group(3))
        if not self.values:
            raise SystemExit(f"plot.py: no results found in {path}")

    def select(self, pattern):
        """The cases whose name matches the regular expression, in file order."""
        rx = re.compile(pattern or "")
        cases = [c for c in self.values if rx.search(c)]
        if not cases:
            raise SystemExit(f"plot.py: no case in {self.path} matches '{pattern}'")
        return cases


def read_results(path):
    """{case: {impl: ns per op}} from weft-bench's table or its --json lines."""
    return Results(path).values


def save(fig, path):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fig.tight_layout()
    # An SVG without its date: the same input gives the same file (a .png, for a look, has none).
    fig.savefig(path, metadata={"Date": None} if path.endswith(".svg") else None)
    print(path)


def panel_grid(plt, count, width=4.2, height=3.2, columns=4):
    cols = min(columns, count)
    rows = (count + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    flat = [a for row in axes for a in row]
    for a in flat[count:]:
        a.set_visible(False)
    return fig, flat[:count]


def series_style(impl):
    """weft's rows stand out; every other row is a baseline."""
    return {"linewidth": 2.5, "zorder": 3} if impl.startswith("weft") else {"linewidth": 1.2}


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


# ---------------------------------------------------------------- speed-up against workers

WORKERS_CASE = re.compile(r"^(.*)/(\d+)-workers?$")


def plot_scaling(args):
    """One panel per case family (the case name less its trailing N-worker(s)):
    each implementation's speed-up over weft's time at the fewest workers
    (so the baselines stand beside weft on one scale), and the ideal line."""
    plt = load_matplotlib()
    results = Results(args.results)
    families = collections.OrderedDict()  # family -> {workers: case}
    for case in results.select(args.cases):
        m = WORKERS_CASE.match(case)
        if m:
            families.setdefault(m.group(1), {})[int(m.group(2))] = case
    if not families:
        raise SystemExit(f"plot.py: no case of {args.results} matching '{args.cases}' ends in N-worker(s)")
    fig, axes = panel_grid(plt, len(families))
    for ax, (family, by_workers) in zip(axes, families.items()):
        workers = sorted(by_workers)
        # Ratios from the total times where every case has them (same work at every worker count).
        times = results.total if all(results.total.get(by_workers[w]) for w in workers) else results.values
        first = times[by_workers[workers[0]]]
        ref_impl = "weft" if "weft" in first else next(iter(first))
        reference = first[ref_impl]
        panel = family.split("/", 1)[1] if "/" in family else family
        impls = list(dict.fromkeys(i for w in workers for i in times[by_workers[w]]))
        for impl in impls:
            points = [(w, reference / times[by_workers[w]][impl]) for w in workers
                      if times[by_workers[w]].get(impl, 0) > 0]
            line, = ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=impl,
                            **series_style(impl))
            line.set_gid(f"series-{impl}@{panel}")
        ideal, = ax.plot(workers, [w / workers[0] for w in workers], color="black", linestyle=":",
                         linewidth=1, label="ideal")
        ideal.set_gid(f"series-ideal@{panel}")
        ax.set_xticks(workers)
        ax.set_xlabel("workers")
        ax.set_ylabel(f"speed-up over {ref_impl} on {workers[0]}")
        unit = "ms in all" if times is results.total else results.unit.get(by_workers[workers[0]], "")
        ax.set_title(f"{panel}\n({ref_impl} on {workers[0]}: {reference:.4g} {unit})", fontsize=8)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=6)
    fig.suptitle(args.title or f"{os.path.basename(args.results)}: speed-up against workers", fontsize=10)
    save(fig, args.output)
    plt.close(fig)


# ---------------------------------------------------------------- implementations side by side

def plot_bars(args):
    """One panel per case: every implementation's median as a bar, weft's in
    front; --throughput turns a time per operation into millions per second."""
    plt = load_matplotlib()
    results = Results(args.results)
    cases = results.select(args.cases)
    fig, axes = panel_grid(plt, len(cases), width=4.4, height=0.9 + 0.22 * max(len(results.values[c]) for c in cases))
    palette = [c for k, c in enumerate(plt.get_cmap("tab10").colors) if k != 3]
    colour = {}
    for ax, case in zip(axes, cases):
        rows = [(impl, v) for impl, v in results.values[case].items() if v > 0]
        unit = results.unit.get(case, "")
        if args.throughput:
            scale = {"ns": 1e3, "us": 1.0, "ms": 1e-3, "s": 1e-6}.get(unit.split("/")[0])
            if scale is None:
                raise SystemExit(f"plot.py: {case}: cannot turn '{unit}' into a throughput")
            rows = [(impl, scale / v) for impl, v in rows]
            label = "million " + (unit.split("/", 1)[1] if "/" in unit else "operations") + "/s"
        else:
            label = unit
        for k, (impl, v) in enumerate(rows):
            if impl not in colour:  # one colour per implementation in every panel; red is weft's
                colour[impl] = "#d62728" if impl.startswith("weft") else palette[len(colour) % len(palette)]
            bar = ax.barh(k, v, color=colour[impl])
            bar.patches[0].set_gid(f"series-{impl}@{case}")
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([r[0] for r in rows], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel(label, fontsize=8)
        ax.set_title(case, fontsize=8)
        ax.grid(True, axis="x", alpha=0.3)
    fig.suptitle(args.title or os.path.basename(args.results), fontsize=10)
    save(fig, args.output)
    plt.close(fig)


# ---------------------------------------------------------------- machines

class Machine:
    """A latency table (cycles between every two CPUs) from a latency-table
    file or a saved topology (docs/topology-format.md); a topology also gives
    each context's OS cpu, core, socket and node."""

    def __init__(self, path):
        self.path = path
        self.cpus, self.rows, self.ctx = None, [], []  # ctx: (os_cpu, core, socket, node)
        self.description = ""
        with open(path) as f:
            lines = [(n, l.split("#", 1)[0].split()) for n, l in enumerate(f, 1)]
        words = [(n, w) for n, w in lines if w]
        if words and words[0][1][0] == "weft-topology":
            for n, w in words:
                if w[0] == "description":
                    self.description = " ".join(w[1:])
                elif w[0] == "ctx":
                    self.ctx.append(tuple(self.numbers(n, w[2:6], int)))
                elif w[0] == "latency":
                    self.rows.append(self.numbers(n, w[2:], float))
            self.cpus = [c[0] for c in self.ctx]
        else:
            for n, w in words:
                if w[0] == "cpus":
                    self.cpus = self.numbers(n, w[1:], int)
                elif w[0] != "nodes":
                    self.rows.append(self.numbers(n, w, float))
        size = len(self.rows)
        if size == 0 or any(len(r) != size for r in self.rows):
            raise SystemExit(f"plot.py: {path}: expected an N x N latency table, got {size} rows "
                             f"of lengths {sorted(set(len(r) for r in self.rows))}")
        self.cpus = self.cpus or list(range(size))
        # One triangle may be 0 ("not measured"): fill it from the other.
        for i in range(size):
            for j in range(size):
                if i != j and self.rows[i][j] == 0:
                    self.rows[i][j] = self.rows[j][i]

    def numbers(self, line, words, kind):
        try:
            return [kind(w) for w in words]
        except ValueError:
            raise SystemExit(f"plot.py: {self.path}:{line}: expected numbers, got '{' '.join(words)}'")

    def name(self):
        return os.path.splitext(os.path.basename(self.path))[0]


def plot_latency(args):
    """Each table as a heat map: row i, column j = cycles between cpu i and j."""
    plt = load_matplotlib()
    machines = [Machine(p) for p in args.tables]
    fig, axes = panel_grid(plt, len(machines), width=5.2, height=4.4, columns=2)
    for ax, m in zip(axes, machines):
        size = len(m.rows)
        image = ax.imshow(m.rows, cmap="viridis", interpolation="nearest")
        image.set_gid(f"heatmap@{m.name()}")
        fig.colorbar(image, ax=ax, label="cycles", shrink=0.8)
        ticks = range(0, size, max(1, size // 16))
        ax.set_xticks(list(ticks))
        ax.set_xticklabels([m.cpus[t] for t in ticks], fontsize=7)
        ax.set_yticks(list(ticks))
        ax.set_yticklabels([m.cpus[t] for t in ticks], fontsize=7)
        ax.set_xlabel("cpu")
        ax.set_ylabel("cpu")
        if size <= 16:
            middle = (min(map(min, m.rows)) + max(map(max, m.rows))) / 2
            for i in range(size):
                for j in range(size):
                    ax.text(j, i, f"{m.rows[i][j]:.0f}", ha="center", va="center", fontsize=5 if size > 8 else 8,
                            color="white" if m.rows[i][j] < middle else "black")
        ax.set_title(f"{m.name()}: {size} cpus", fontsize=9)
    fig.suptitle(args.title or "cache-line transfer latency between cpus (cycles)", fontsize=10)
    save(fig, args.output)
    plt.close(fig)


def latency_groups(rows):
    """MCTOP's hierarchy read off a latency table (thesis §7.3: every
    distinct latency is a level; a level's groups are the components of the
    contexts that talk at most that fast): [(latency, [groups])], lowest first."""
    size = len(rows)
    levels = []
    for value in sorted({rows[i][j] for i in range(size) for j in range(size) if i != j}):
        parent = list(range(size))

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x
        for i in range(size):
            for j in range(i + 1, size):
                if rows[i][j] <= value:
                    parent[find(i)] = find(j)
        groups = collections.OrderedDict()
        for i in range(size):
            groups.setdefault(find(i), []).append(i)
        levels.append((value, list(groups.values())))
    return levels


def plot_topology(args):
    """A saved topology's MCTOP hierarchy as a tree: contexts at the bottom,
    a node for every group of every latency level that joins more than its
    children already did, the machine at the top."""
    plt = load_matplotlib()
    machines = [Machine(p) for p in args.topologies]
    fig, axes = panel_grid(plt, len(machines), width=max(5.0, 0.5 * max(len(m.rows) for m in machines)),
                           height=4.2, columns=1)
    for ax, m in zip(axes, machines):
        if not m.ctx:
            raise SystemExit(f"plot.py: {m.path} is not a saved topology (no 'ctx' lines)")
        size = len(m.rows)
        levels = []  # (latency, groups) of the levels that join something new
        for value, groups in latency_groups(m.rows):
            if len(groups) < (len(levels[-1][1]) if levels else size):
                levels.append((value, [tuple(g) for g in groups]))
        # Leaves in the order of the tree, so that each group's contexts sit together.
        order = sorted(range(size), key=lambda i: [next(k for k, g in enumerate(groups) if i in g)
                                                   for _, groups in reversed(levels)] + [i])
        drawn = {(i,): (0, float(order.index(i))) for i in range(size)}  # group -> (depth, x) of its node
        for i in range(size):
            c = m.ctx[i]
            node, = ax.plot([drawn[(i,)][1]], [0], marker="o", markersize=7, color="#d62728")
            node.set_gid(f"context-{c[0]}@{m.name()}")
            ax.annotate(f"cpu {c[0]}\ncore {c[1]}\nsocket {c[2]}", (drawn[(i,)][1], 0), textcoords="offset points",
                        xytext=(0, -22), ha="center", fontsize=6)
        for depth, (value, groups) in enumerate(levels, 1):
            for g in groups:
                if g in drawn:
                    continue  # the same group as below: nothing new at this level
                children = [c for c in drawn if set(c) < set(g) and not any(set(c) < set(o) < set(g) for o in drawn)]
                pos = sum(drawn[c][1] for c in children) / len(children)
                for c in children:
                    ax.plot([drawn[c][1], pos], [drawn[c][0], depth], color="#555555", linewidth=1)
                node, = ax.plot([pos], [depth], marker="o", markersize=7, color="#1f77b4")
                node.set_gid(f"group-{value:g}-{'.'.join(str(m.ctx[i][0]) for i in g)}@{m.name()}")
                label = "machine" if len(g) == size else "cpus " + ",".join(str(m.ctx[i][0]) for i in g)
                ax.annotate(f"{label}\n{value:.4g} cycles", (pos, depth), textcoords="offset points",
                            xytext=(0, 8), ha="center", fontsize=6)
                drawn[g] = (depth, pos)
        depth_latency = [0.0] + [v for v, _ in levels]
        ax.set_yticks(range(len(depth_latency)))
        ax.set_yticklabels(["contexts"] + [f"{v:.4g} cycles" for v in depth_latency[1:]], fontsize=7)
        ax.set_xticks([])
        ax.set_ylim(-0.8, len(depth_latency) - 0.4)
        ax.set_title(f"{m.name()}: {m.description or 'saved topology'}", fontsize=8)
        for side in ("top", "right", "bottom"):
            ax.spines[side].set_visible(False)
    fig.suptitle(args.title or "MCTOP hierarchy: a level per distinct latency", fontsize=10)
    save(fig, args.output)
    plt.close(fig)


# ---------------------------------------------------------------- trace timeline

def plot_trace(args):
    """Each worker's track as a row of ULT runs (coloured by label) and idle
    time (grey), and under it a thin row per scope name on that track
    (parallel regions, loop chunks, combining rounds, kernel phases...)."""
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
    bars = collections.defaultdict(list)  # series -> [(track, start, duration)]
    for e in trace["traceEvents"]:
        if e.get("ph") == "X":
            series = e["name"] if e["cat"] == "ult" else "idle: " + e["name"]
            bars[series].append(((e["pid"], e["tid"]), e["ts"], e["dur"]))
    opened = {}  # scope id -> its 'b' event
    for e in trace["traceEvents"]:
        if e.get("cat") == "scope" and e.get("ph") == "b":
            opened[e["id"]] = e
        elif e.get("cat") == "scope" and e.get("ph") == "e" and e["id"] in opened:
            b = opened.pop(e["id"])
            bars["scope: " + b["name"]].append(((b["pid"], b["tid"]), b["ts"], e["ts"] - b["ts"]))
    # Rows: a track, then one row per scope name seen on it.
    rows, labels = {}, []
    for t in tracks:
        rows[t] = len(labels)
        labels.append(names[t])
        for series in sorted(s for s in bars if s.startswith("scope: ") and any(b[0] == t for b in bars[s])):
            rows[(t, series)] = len(labels)
            labels.append(series)
    fig, ax = plt.subplots(figsize=(12, 1.4 + 0.35 * len(labels)))
    colour = {"idle: spin": "#c8c8c8", "idle: sleep": "#eeeeee"}
    palette = plt.get_cmap("tab20").colors
    for k, series in enumerate(sorted(s for s in bars if s not in colour)):
        colour[series] = palette[k % len(palette)]
    for series, spans in sorted(bars.items()):
        by_row = collections.defaultdict(list)
        for t, start, dur in spans:
            scope = series.startswith("scope: ")
            by_row[rows[(t, series)] if scope else rows[t]].append((start, max(dur, 1e-3)))
        for r, ranges in by_row.items():
            height = 0.5 if series.startswith("scope: ") else 0.8
            coll = ax.broken_barh(ranges, (r - height / 2, height), facecolors=colour[series],
                                  label=series if r == min(by_row) else None)
            coll.set_gid(f"series-{series}")
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("time since the trace started, us")
    dropped = trace.get("otherData", {}).get("dropped_events", 0)
    ax.set_title(f"{os.path.basename(args.trace)}: ULT runs by label, idle time in grey, scopes below each worker"
                 + (f" ({dropped} events dropped)" if dropped else ""), fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))  # beside the rows, hiding none
    save(fig, args.output)
    plt.close(fig)


# ---------------------------------------------------------------- the repository's figures

# Every figure in docs/figures and what it is drawn from ({root}: the
# repository; {out}: the output folder): `plot.py figures` redraws them all,
# the CTest plot_figures into the build directory.
FIGURES = [
    ["combining", "{root}/bench/results/combining-2core-run1.txt", "-o", "{out}"],
    ["trace", "{root}/docs/figures/trace-fib.json", "-o", "{out}/trace-fib.svg"],
    ["trace", "{root}/docs/figures/trace-bfs.json", "-o", "{out}/trace-bfs.svg"],
    ["scaling", "{root}/bench/results/graph-2core-quick.txt", "--cases", "/kron-16/", "-o", "{out}/graph-kron-16.svg",
     "--title", "GAP kernels on kron-16 (2-core VM, bench/results/graph-2core-quick.txt): speed-up against workers"],
    ["scaling", "{root}/bench/results/graph-2core-quick.txt", "--cases", "/urand-16/", "-o", "{out}/graph-urand-16.svg",
     "--title", "GAP kernels on urand-16 (2-core VM, bench/results/graph-2core-quick.txt): speed-up against workers"],
    ["scaling", "{root}/bench/results/parallel-2core-loops.txt", "-o", "{out}/parallel-loops.svg",
     "--title", "parallel loops (2-core VM, bench/results/parallel-2core-loops.txt): speed-up against workers"],
    ["scaling", "{root}/bench/results/ult-2core-2026-11-23.txt", "--cases", "^fib/", "-o", "{out}/ult-fib.svg",
     "--title", "fib(30), a task per call (bench/results/ult-2core-2026-11-23.txt)"],
    ["scaling", "{root}/bench/results/16core-2026-11-26-ult-startup.txt", "--cases", "^fib/",
     "-o", "{out}/ult-fib-16core.svg",
     "--title", "fib(30), a task per call, 1-16 workers (16-core Xeon guest, bench/results/16core-2026-11-26.md)"],
    ["scaling", "{root}/bench/results/16core-2026-11-26-sort-workers.txt", "--cases", "^sort/uniform-i32/",
     "-o", "{out}/parallel-sort-workers.svg",
     "--title", "sorting 256 MiB of random 32-bit keys, 1-16 workers (16-core Xeon guest, one run each)"],
    ["bars", "{root}/bench/results/parallel-2core-sort-uniform.txt", "-o", "{out}/parallel-sort.svg",
     "--title", "sorting 256 MiB of random keys on 2 workers (bench/results/parallel-2core-sort-uniform.txt)"],
    ["bars", "{root}/bench/results/channels-2core-quick.txt", "--cases", "^channels/ult/", "--throughput",
     "-o", "{out}/channels-ult.svg", "--title", "channels between ULTs (bench/results/channels-2core-quick.txt)"],
    ["bars", "{root}/bench/results/channels-2core-quick.txt", "--cases", "^channels/(threads|handoff)/",
     "--throughput", "-o", "{out}/channels-threads.svg",
     "--title", "channels between threads (bench/results/channels-2core-quick.txt)"],
    ["bars", "{root}/bench/results/locks-2core-run3-quiet.txt", "--cases", "^locks/(uncontended|ssync|oversub|pq)",
     "--throughput", "-o", "{out}/locks.svg", "--title", "locks (bench/results/locks-2core-run3-quiet.txt)"],
    ["bars", "{root}/bench/results/maps-2core-quick.jsonl", "--throughput", "-o", "{out}/maps.svg",
     "--title", "maps, 2 threads (bench/results/maps-2core-quick.jsonl: a quick run on the loaded VM)"],
    ["latency", "{root}/docs/figures/latency-2core-vm.txt", "{root}/tests/sched/data/latency-16cpu-kvm-xeon.txt",
     "-o", "{out}/latency.svg"],
    ["topology", "{root}/docs/figures/topology-2core-vm.topo", "{root}/docs/figures/topology-16cpu-kvm-xeon.topo",
     "-o", "{out}/topology.svg"],
]


def plot_figures(args):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for figure in FIGURES:
        main([a.format(root=root, out=args.output) for a in figure])


def main(argv=None):
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
    for name, run, what in (("scaling", plot_scaling, "speed-up against workers (cases ending in N-worker(s))"),
                            ("bars", plot_bars, "every implementation's median, one panel per case")):
        p = sub.add_parser(name, help=what)
        p.add_argument("results", help="weft-bench's table or its --json lines")
        p.add_argument("-o", "--output", required=True, help="the SVG file to write")
        p.add_argument("--cases", default="", help="only cases matching this regular expression")
        p.add_argument("--title", help="the figure's title")
        if name == "bars":
            p.add_argument("--throughput", action="store_true", help="millions of operations per second")
        p.set_defaults(run=run)
    m = sub.add_parser("latency", help="latency tables (or saved topologies) as heat maps")
    m.add_argument("tables", nargs="+")
    m.add_argument("-o", "--output", required=True, help="the SVG file to write")
    m.add_argument("--title")
    m.set_defaults(run=plot_latency)
    m = sub.add_parser("topology", help="saved topologies' MCTOP hierarchy as trees")
    m.add_argument("topologies", nargs="+")
    m.add_argument("-o", "--output", required=True, help="the SVG file to write")
    m.add_argument("--title")
    m.set_defaults(run=plot_topology)
    f = sub.add_parser("figures", help="redraw every figure of docs/figures from the committed inputs")
    f.add_argument("-o", "--output", default=os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                           "..", "docs", "figures")),
                   help="the folder (default docs/figures)")
    f.set_defaults(run=plot_figures)
    args = parser.parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    main()
