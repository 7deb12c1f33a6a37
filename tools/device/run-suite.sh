#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs on the GPU machine (inside on-device.sh): every staged test executable through the ICD
# loader with the layer enabled, then the demo; writes gtest JSON and a summary under $OUT.
#   bash .device/on-device.sh bash .gpu/run-suite.sh [gtest filter]
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${OUT:-/tmp/isg-out}
mkdir -p "$out"
export OPENCL_LAYERS="$here/libIntelSubgroupsLayer.so"
filter=${1:-*}
status=0
for t in "$here"/bin/*; do
  name=$(basename "$t")
  case "$name" in isg-*|bench_*) continue ;; esac  # tools and benchmarks, not tests
  "$t" --gtest_filter="$filter" --gtest_output="json:$out/$name.json" > "$out/$name.log" 2>&1
  rc=$?
  summary=$(grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$out/$name.log" | tr '\n' ' ')
  echo "$name rc=$rc $summary"
  [ $rc -eq 0 ] || status=1
done
if [ -x "$here/bin/isg-demo" ]; then
  "$here/bin/isg-demo" || status=1
fi
exit $status
