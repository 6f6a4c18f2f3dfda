#!/usr/bin/env python3
"""Rank agreement of the simulation on real runs (docs/sweeps.md#rank-agreement).

For every pair of real H100 runs in tests/accuracy/data whose measured mean E2E differs by at
least 5%, does the simulation order them the same way? The simulated mean E2E is the measured
one times (1 + the signed error in docs/accuracy.md's table, which tests/accuracy regenerates).

Pairs are grouped two ways: the issue's criterion (one model and workload, differing in GPU, tp
or max_num_batched_tokens), and, as a proxy, one workload served by different deployments
(model and tp). Usage: tests/sweep/rank_agreement.py [REPO_ROOT]
"""
import glob
import itertools
import json
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
doc = open(os.path.join(root, "docs", "accuracy.md")).read()
table = doc.split("<!-- accuracy-table:begin -->")[1].split("<!-- accuracy-table:end -->")[0]
errors = {}
for line in table.splitlines():
    m = re.match(r"\| ([a-z0-9.-]+)( \(overloaded\))? \|(.*)", line)
    if not m or m.group(1) == "run":
        continue
    cells = [c.strip() for c in m.group(3).split("|")]
    errors[m.group(1)] = (float(cells[6].rstrip("%")) / 100, bool(m.group(2)))

runs = []
for path in sorted(glob.glob(os.path.join(root, "tests", "accuracy", "data", "*.json"))):
    name = os.path.basename(path)[len("20260217-155451-"):-len(".json")]
    measured = json.load(open(path))["successes"]["latency"]["request_latency"]["mean"]
    err, overloaded = errors[name]
    model, tp, workload = re.match(r"(.+)-tp(\d+)-([a-z]+)$", name).groups()
    runs.append(dict(name=name, model=model, tp=int(tp), workload=workload, measured=measured,
                     simulated=measured * (1 + err), overloaded=overloaded))


def agreement(pairs):
    checked = [(a, b) for a, b in pairs
               if abs(a["measured"] - b["measured"]) / min(a["measured"], b["measured"]) >= 0.05]
    same = [(a, b) for a, b in checked
            if (a["measured"] < b["measured"]) == (a["simulated"] < b["simulated"])]
    return checked, same


same_model = [(a, b) for a, b in itertools.combinations(runs, 2)
              if a["model"] == b["model"] and a["workload"] == b["workload"]]
checked, same = agreement(same_model)
print(f"one model and workload, different GPU/tp/max_num_batched_tokens: "
      f"{len(same)} of {len(checked)} pairs in the same order")
for only_steady in (False, True):
    pool = [r for r in runs if not (only_steady and r["overloaded"])]
    pairs = [(a, b) for a, b in itertools.combinations(pool, 2) if a["workload"] == b["workload"]]
    checked, same = agreement(pairs)
    label = "runs not overloaded" if only_steady else "all runs"
    print(f"one workload, different deployments ({label}): {len(same)} of {len(checked)} pairs "
          f"differing by >= 5% in the same order")
    for a, b in checked:
        if (a, b) not in same:
            print(f"  misordered: {a['name']} ({a['measured']:.2f} s measured, {a['simulated']:.2f} s "
                  f"simulated) vs {b['name']} ({b['measured']:.2f} s, {b['simulated']:.2f} s)")
