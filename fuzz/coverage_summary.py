#!/usr/bin/env python3
"""Sums up fuzz/coverage/<target>/lcov.info (written by coverage.sh): for
each target, the lines and regions of its suite's reference and judge that
its inputs reached, as a Markdown table on stdout, and the unreached lines
of those files in fuzz/coverage/<target>/unreached.txt (ranges per file).

    python3 fuzz/coverage_summary.py boundary boundary_fast ...

Which files are a suite's reference and which its judge is the table
PARTS below (paths under contract/); a file of neither is not counted.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# (suite crate, reference files or folders, judge files or folders), paths
# relative to contract/<crate>/src/
CORE = (
    "core",
    ["serializer/", "call.rs", "registry.rs", "model/", "bigint.rs", "signal.rs"],
    ["scenario/checks/", "scenario/invariants.rs", "scenario/oracle.rs"],
)
PARTS = {
    "serializer": CORE,
    "serializer_scenario": CORE,
    "call": CORE,
    "registry": CORE,
    "scenario": CORE,
    "boundary": ("boundary", ["reference.rs", "translate.rs"], ["judge.rs", "attribution.rs"]),
    "pipeline": ("pipeline", ["reference/", "validation.rs"], ["judge.rs", "judge/"]),
    "workspace": (
        "workspace",
        ["reference.rs", "boundary.rs", "tools.rs", "model.rs", "read_stream.rs", "race.rs", "node_text.rs"],
        ["judge.rs"],
    ),
    "actions": (
        "actions",
        ["reference.rs", "runner.rs", "store.rs", "authorize.rs", "strict_json.rs", "structure.rs"],
        ["judge.rs"],
    ),
    "action_text": ("actions", ["strict_json.rs", "structure.rs", "authorize.rs"], []),
}


def parts_of(target):
    return PARTS.get(target) or PARTS.get(re.sub(r"_fast$", "", target))


def read_lcov(path):
    """{source file: {line: count}}"""
    files, current = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("SF:"):
                current = files.setdefault(line[3:], {})
            elif line.startswith("DA:") and current is not None:
                number, count = line[3:].split(",")[:2]
                current[int(number)] = max(current.get(int(number), 0), int(count))
            elif line == "end_of_record":
                current = None
    return files


def which(path, crate, reference, judge):
    marker = f"/contract/{crate}/src/"
    if marker not in path:
        return None
    rel = path.split(marker, 1)[1]
    for kind, entries in (("reference", reference), ("judge", judge)):
        for e in entries:
            if rel == e or (e.endswith("/") and rel.startswith(e)):
                return kind
    return None


def ranges(lines):
    out, start, prev = [], None, None
    for n in sorted(lines):
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append((start, prev))
            start = prev = n
    if start is not None:
        out.append((start, prev))
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in out)


def main(targets):
    print("| target | suite | reference lines reached | judge lines reached |")
    print("|---|---|---:|---:|")
    for t in targets:
        parts = parts_of(t)
        lcov = os.path.join(HERE, "coverage", t, "lcov.info")
        if parts is None or not os.path.exists(lcov):
            print(f"| {t} | ? | no data | no data |")
            continue
        crate, reference, judge = parts
        sums = {"reference": [0, 0], "judge": [0, 0]}
        unreached = []
        for path, lines in sorted(read_lcov(lcov).items()):
            kind = which(path, crate, reference, judge)
            if kind is None:
                continue
            sums[kind][0] += sum(1 for c in lines.values() if c > 0)
            sums[kind][1] += len(lines)
            missed = [n for n, c in lines.items() if c == 0]
            if missed:
                rel = path.split("/contract/", 1)[1]
                unreached.append(f"contract/{rel} ({kind}, {len(missed)} of {len(lines)}): {ranges(missed)}")
        with open(os.path.join(HERE, "coverage", t, "unreached.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(unreached) + "\n")

        def cell(kind):
            hit, total = sums[kind]
            return f"{hit}/{total} ({100 * hit / total:.1f}%)" if total else "-"

        print(f"| {t} | {crate} | {cell('reference')} | {cell('judge')} |")


if __name__ == "__main__":
    main(sys.argv[1:])
