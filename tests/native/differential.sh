#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The same generated kernels, with the same inputs, natively on Intel's CPU runtime and through
# the layer on the default device (PoCL): every value both produce must agree
# (compare_dumps.py says how). Both runs use Intel's case set (ISG_E2E_CASES=intel-cpu).
#   differential.sh <isg_builtins_e2e_test> <layer.so> <intel runtime dir> <work dir> [options]
set -euo pipefail
test=$1 layer=$2 runtime=$3 work=$4 options=${5:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$work"
rm -f "$work/intel.dump" "$work/layer.dump"
OCL_ICD_VENDORS="$runtime/vendors" LD_LIBRARY_PATH="$runtime/lib" ISG_E2E_NATIVE=intel-cpu \
  ISG_TEST_BUILD_OPTIONS="$options" ISG_E2E_DUMP="$work/intel.dump" "$test" > "$work/intel.log" 2>&1 ||
  { echo "the native run failed:"; tail -n 30 "$work/intel.log"; exit 1; }
OPENCL_LAYERS="$layer" ISG_E2E_CASES=intel-cpu ISG_TEST_BUILD_OPTIONS="$options" \
  ISG_E2E_DUMP="$work/layer.dump" "$test" > "$work/layer.log" 2>&1 ||
  { echo "the run through the layer failed:"; tail -n 30 "$work/layer.log"; exit 1; }
python3 "$here/compare_dumps.py" "$work/intel.dump" "$work/layer.dump" --min-common 100000
rm -f "$work/intel.dump" "$work/layer.dump"  # ~200 MB; kept only when they differ
