#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Joins two ggml test-backend-ops perf outputs (console format) case by case: ggml's OpenCL
backend through the layer against ggml's CUDA backend (tools/device/run-ggml.sh writes both).
Prints a markdown table per op (median and worst ratio) and every case, speed = CUDA time /
OpenCL time (higher is better for the layer), for docs/performance.md.
  bench/ggml_compare.py ggml-perf-opencl.txt ggml-perf-cuda.txt [--cases]"""
import re
import statistics
import sys

LINE = re.compile(r"^\s+(\w+)\((.*)\):\s+(\d+) runs -\s+([\d.]+) us/run")
UNSUPPORTED = re.compile(r"^\s+(\w+)\((.*)\): not supported")


def read(path):
    times, unsupported = {}, set()
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if m:
                times[(m.group(1), m.group(2))] = float(m.group(4))
                continue
            m = UNSUPPORTED.match(line)
            if m:
                unsupported.add((m.group(1), m.group(2)))
    return times, unsupported


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    ocl, ocl_no = read(argv[1])
    cuda, cuda_no = read(argv[2])
    both = sorted(set(ocl) & set(cuda))
    per_op = {}
    for key in both:
        per_op.setdefault(key[0], []).append((cuda[key] / ocl[key], key))
    print("| op | cases | median CUDA/OpenCL-layer | worst | best |")
    print("|---|---:|---:|---:|---:|")
    allr = []
    for op, rs in sorted(per_op.items()):
        vals = [r for r, _ in rs]
        allr += vals
        print(f"| {op} | {len(vals)} | {statistics.median(vals):.3f}x | {min(vals):.3f}x | {max(vals):.3f}x |")
    if allr:
        print(f"| all | {len(allr)} | {statistics.median(allr):.3f}x | {min(allr):.3f}x | {max(allr):.3f}x |")
    print()
    print(f"- cases timed on both: {len(both)}; OpenCL only: {len(set(ocl) - set(cuda))}; CUDA only: "
          f"{len(set(cuda) - set(ocl))}; not supported by OpenCL: {len(ocl_no)}, by CUDA: {len(cuda_no)}")
    if "--cases" in argv:
        print()
        print("| case | OpenCL-layer us | CUDA us | CUDA/OpenCL |")
        print("|---|---:|---:|---:|")
        for key in both:
            print(f"| {key[0]}({key[1]}) | {ocl[key]:.2f} | {cuda[key]:.2f} | {cuda[key] / ocl[key]:.3f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
