#!/usr/bin/env python3
"""The table of bench/ab_libraries.sh's runs: per packing and case, the
faster round of the old and the new library, their ratio, and per packing
the sum over the cases. Usage: ab_libraries.py DIR [--all]; without --all,
ResNet-50 layers within 5% of each other are left out of the rows (not of
the sums)."""
import collections
import glob
import json
import os
import sys

times = collections.defaultdict(lambda: collections.defaultdict(list))
for path in glob.glob(os.path.join(sys.argv[1], "ab_*.json")):
    _, lib, packing, _ = os.path.basename(path)[:-5].split("_")
    for r in json.load(open(path))["results"]:
        times[(packing, r["case"])][lib].append(r["median_ns"] / 1e3)
print("| packing | case | old us | new us | new/old |\n| --- | --- | --- | --- | --- |")
sums = collections.defaultdict(lambda: [0.0, 0.0])
for (packing, case), t in sorted(times.items()):
    if not t["old"] or not t["new"]:  # a packing one of the builds does not know
        continue
    old, new = min(t["old"]), min(t["new"])
    sums[packing][0] += old
    sums[packing][1] += new
    if "--all" in sys.argv or "resnet50" not in case or abs(new / old - 1) > 0.05:
        print(f"| {packing} | {case} | {old:.1f} | {new:.1f} | {new / old:.2f} |")
for packing, (old, new) in sorted(sums.items()):
    print(f"| {packing} | **sum of all cases** | {old:.1f} | {new:.1f} | {new / old:.3f} |")
