#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The compare flow of docs/compare.md, end to end: a kernel captured on Intel's own driver (the
# layer only captures there) and replayed through the layer on the default device must come
# back IDENTICAL; replaying it on Intel's driver again must too.
#   compare_flow.sh <isg-demo> <isg-replay> <layer.so> <intel runtime dir> <work dir>
set -euo pipefail
demo=$1 replay=$2 layer=$3 runtime=$4 work=$5
rm -rf "$work" && mkdir -p "$work"
OCL_ICD_VENDORS="$runtime/vendors" LD_LIBRARY_PATH="$runtime/lib" OPENCL_LAYERS="$layer" \
  ISG_CAPTURE_DIR="$work/cases" ISG_CAPTURE_KERNEL=sgemv "$demo" > "$work/capture.log"
case_dir=$(ls -d "$work"/cases/sgemv-*)
grep -q '"pass-through"' "$case_dir/case.json"  # captured natively, not rewritten
OPENCL_LAYERS="$layer" "$replay" "$case_dir" | tee "$work/replay-layer.log"
grep -q "^result     IDENTICAL" "$work/replay-layer.log"
OCL_ICD_VENDORS="$runtime/vendors" LD_LIBRARY_PATH="$runtime/lib" "$replay" "$case_dir" |
  tee "$work/replay-intel.log"
grep -q "^result     IDENTICAL" "$work/replay-intel.log"
