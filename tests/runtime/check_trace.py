#!/usr/bin/env python3
"""Checks a weft trace (Chrome Trace Event JSON) and prints what it holds.

Usage: check_trace.py TRACE.json

Reads the file with Python's json module and checks that every event lies on
a named worker track, that timestamps never go backwards on a track, that the
slices (ULT runs, idle spins and sleeps) of a track never overlap, and that
every flow has one start and one end, each at an event of its track, and
every scope (async slice) one begin and one end on one track. Prints
key=value lines (counts of slices by label and by how they ended, flows by
kind, instants, dropped events); exits 1 with the first problems otherwise.
"""
import collections
import json
import sys

EPS = 0.002  # us: timestamps are written with 3 decimals


def main(path):
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    problems = []
    tracks = set()
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            tracks.add((e["pid"], e["tid"]))
    last_ts = {}
    slices = collections.defaultdict(list)
    instants = collections.defaultdict(set)
    flows = collections.defaultdict(dict)
    scopes = collections.defaultdict(dict)
    counts = collections.Counter()
    for e in events:
        ph = e.get("ph")
        if ph == "M":
            continue
        where = (e.get("pid"), e.get("tid"))
        if where not in tracks:
            problems.append(f"event on no named track: {e}")
            continue
        ts = e["ts"]
        if ts + EPS < last_ts.get(where, -1.0):
            problems.append(f"time goes backwards on track {where}: {ts} after {last_ts[where]}")
        last_ts[where] = max(ts, last_ts.get(where, ts))
        if ph == "X":
            if e["dur"] < 0:
                problems.append(f"negative duration: {e}")
            slices[where].append((ts, ts + e["dur"], e))
            if e["cat"] == "ult":
                counts["ult_slices"] += 1
                counts["ult_slices_label_" + e["name"]] += 1
                counts["ended_" + e["args"]["ended"].replace(" ", "_") + "_label_" + e["name"]] += 1
            else:
                counts[e["cat"] + "_slices_" + e["name"]] += 1
        elif ph == "i":
            instants[where].add(round(ts, 3))
            counts["instant_" + e["name"].replace(" ", "_")] += 1
            if e["name"] == "events dropped":
                counts["dropped_instant"] += e["args"]["dropped"]
        elif ph in ("b", "e"):
            if ph in scopes[e["id"]]:
                problems.append(f"scope {e['id']} has two '{ph}' events")
            scopes[e["id"]][ph] = e
        elif ph in ("s", "f"):
            if ph in flows[e["id"]]:
                problems.append(f"flow {e['id']} has two '{ph}' events")
            flows[e["id"]][ph] = e
        else:
            problems.append(f"unexpected event phase {ph}: {e}")
    for where, list_ in slices.items():
        list_.sort(key=lambda s: s[0])
        for (b0, e0, s0), (b1, e1, s1) in zip(list_, list_[1:]):
            if b1 + EPS < e0:
                problems.append(f"slices overlap on track {where}: {s0} and {s1}")
    starts = {w: {round(b, 3) for b, _, _ in l} for w, l in slices.items()}
    for fid, pair in flows.items():
        if set(pair) != {"s", "f"}:
            problems.append(f"flow {fid} lacks an end: {pair}")
            continue
        s, f = pair["s"], pair["f"]
        counts["flows_" + s["name"]] += 1
        s_where, f_where = (s["pid"], s["tid"]), (f["pid"], f["tid"])
        if round(s["ts"], 3) not in instants[s_where]:
            problems.append(f"flow {fid} starts at no event of its track: {s}")
        if round(f["ts"], 3) not in starts.get(f_where, set()) and round(f["ts"], 3) not in instants[f_where]:
            problems.append(f"flow {fid} ends at no event of its track: {f}")
    for sid, pair in scopes.items():
        if set(pair) != {"b", "e"}:
            problems.append(f"scope {sid} lacks an end: {pair}")
            continue
        b, e = pair["b"], pair["e"]
        if (b["pid"], b["tid"]) != (e["pid"], e["tid"]) or e["ts"] + EPS < b["ts"]:
            problems.append(f"scope {sid} ends on another track or before it begins: {b} {e}")
        counts["scopes_" + b["name"]] += 1
        # Each integer argument summed per scope name ("scopes_combine.served=...")
        # and counted (".n"), and how many scopes name the ULT that opened them.
        for key, value in b.get("args", {}).items():
            if key == "ult":
                counts[f"scopes_{b['name']}.by_ult"] += value != 0
            elif isinstance(value, int) and not isinstance(value, bool):
                counts[f"scopes_{b['name']}.{key}"] += value
                counts[f"scopes_{b['name']}.{key}.n"] += 1  # how many scopes have it
    counts["tracks"] = len(tracks)
    counts["dropped"] = trace["otherData"]["dropped_events"]
    counts["events"] = trace["otherData"]["events"]
    for key in sorted(counts):
        print(f"{key}={counts[key]}")
    if problems:
        for p in problems[:20]:
            print("PROBLEM: " + p)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
