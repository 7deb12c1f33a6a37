#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Differential check of two runs of the builtin suite (ISG_E2E_DUMP files): every value both
runs produced must agree. Integers, shuffled data, votes, block reads and writes bit for bit;
float reductions and scans within the sum of both runs' bounds: each run is within its own
bound of the exact result (the host model's (n-1) * unit roundoff * sum|x|, for any order of
operations), so they are within the sum of each other.

usage: compare_dumps.py REFERENCE OTHER [--min-common N]"""
import argparse
import sys


def load(path):
    values = {}
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            values[parts[0]] = parts[1:]
    return values


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("reference")
    ap.add_argument("other")
    ap.add_argument("--min-common", type=int, default=1000)
    a = ap.parse_args()
    ref, other = load(a.reference), load(a.other)
    common = sorted(set(ref) & set(other))
    bad = []
    for key in common:
        r, o = ref[key], other[key]
        if len(r) == 2 and len(o) == 2:
            if abs(float(r[0]) - float(o[0])) > float(r[1]) + float(o[1]):
                bad.append((key, r, o))
        elif r != o:
            bad.append((key, r, o))
    cases = {k.split("|")[0] for k in common}
    print(f"compared {len(common)} values of {len(cases)} cases; "
          f"{len(set(ref) - set(other))} only in {a.reference}, "
          f"{len(set(other) - set(ref))} only in {a.other}; {len(bad)} differ")
    for key, r, o in bad[:20]:
        print(f"  DIFFER {key}: {' '.join(r)} vs {' '.join(o)}")
    if bad:
        return 1
    if len(common) < a.min_common:
        print(f"too few common values (fewer than {a.min_common}): the runs did not overlap")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
