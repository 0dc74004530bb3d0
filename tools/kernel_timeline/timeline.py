#!/usr/bin/env python3
"""Reads the timelines that the VKDML_TIMELINE kernels wrote over each layer's input
(<name>.bin, written by the models of models.py): per layer, when its workgroups started and
ended (the device clock), and how long each phase of their first tile took (SM clock cycles,
shown in µs at the SM clock measured over each workgroup).

    tools/kernel_timeline/timeline.py DIR"""
import glob
import os
import statistics
import struct
import sys

RECORD = 160
MAGIC = 0x5A5A5A5A
PHASES = ["set up", "tile set up", "K loop", "sums", "first barrier"]  # marks 1 to 5; 6-13 passes, 14, 15


def spread(values):
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def alive(records):
    """How many workgroups ran at once: at most, and on average over the dispatch's span."""
    events = sorted([(r[0], 1) for r in records] + [(r[1], -1) for r in records])
    count = most = area = 0
    last = events[0][0]
    for at, change in events:
        area += count * (at - last)
        last = at
        count += change
        most = max(most, count)
    return most, area / max(events[-1][0] - events[0][0], 1)


def report(path):
    data = open(path, "rb").read()
    records = []
    for at in range(0, len(data) - RECORD + 1, RECORD):
        r = struct.unpack_from("<20Q", data, at)
        if r[3] >> 32 != MAGIC or (r[3] & 0xFFFFFFFF) != len(records):
            break
        records.append(r)
    name = os.path.basename(path)[:-4]
    if not records:
        print(f"{name}: no timeline (was VKDML_KERNEL_DIR set to the timeline kernels?)")
        return
    start = min(r[0] for r in records)
    # Cycles over the whole workgroup (mark 15) against its device-clock span: the SM clock.
    # Kernels built with --spans record no marks.
    marked = [r for r in records if r[18]]
    ghz = statistics.median(r[18] / max(r[1] - r[0], 1) for r in marked) if marked else 0
    us = lambda cycles: cycles / ghz / 1e3
    mark = lambda r, i: r[3 + i]
    print(f"{name}: {len(records)} workgroups, {records[0][2] >> 32} K steps in the first tile, "
          f"{(max(r[1] for r in records) - start) / 1e3:.2f} µs from the first start to the last end" +
          (f", SM clock {ghz:.2f} GHz" if marked else ""))
    print(f"  starts (µs after the first): {spread([(r[0] - start) / 1e3 for r in records])}; "
          f"ends: {spread([(r[1] - start) / 1e3 for r in records])}; "
          f"lives: {spread([(r[1] - r[0]) / 1e3 for r in records])}")
    most, mean = alive(records)
    print(f"  workgroups alive at once: at most {most}, on average {mean:.1f} (divide by the SMs for "
          f"workgroups per SM)")
    if not marked:
        return
    steps = [("set up", 0, 1), ("tile set up", 1, 2), ("K loop", 2, 3), ("sums", 3, 4), ("epilogue", 4, 14),
             ("last barrier", 14, 15)]
    parts = []
    for label, a, b in steps:
        values = [us(mark(r, b) - (mark(r, a) if a else 0)) for r in records if mark(r, b)]
        parts.append(f"{label} {spread(values)}")
    print("  phases (µs, min / median / max): " + "; ".join(parts))
    passes = [statistics.median(us(mark(r, i) - mark(r, 4)) for r in records) for i in range(5, 14)
              if all(mark(r, i) for r in records)]
    print("  epilogue (median µs after the sums): first barrier " + f"{passes[0]:.2f}; passes end " +
          " ".join(f"{p:.2f}" for p in passes[1:]))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.bin"))):
        report(path)


if __name__ == "__main__":
    main()
