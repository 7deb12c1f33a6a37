#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stages, from a build, what the GPU machine runs: the layer (stripped: Clang is inside, and the
# device tool carries at most 64 MiB), the test executables that reach OpenCL only through the
# loader, the demo, and run-suite.sh. Then pack it with ../shared/device/bundle.sh:
#   tools/device/stage.sh build .gpu && ../shared/device/bundle.sh .gpu .device
set -euo pipefail
build=${1:-build}
out=${2:-.gpu}
rm -rf "$out" && mkdir -p "$out/bin"
cp "$build/layer/libIntelSubgroupsLayer.so" "$out/" && strip "$out/libIntelSubgroupsLayer.so"
for dir in tests/layer tests/e2e tests/realworld tests/nvidia tools/isg-demo tools/isg-binary bench; do
  [ -d "$build/$dir" ] || continue
  find "$build/$dir" -maxdepth 1 -type f -perm -u+x -exec cp {} "$out/bin/" \;
done
rm -f "$out/bin/layer_loader_init_test"  # checks the .so file itself, not a device
cp "$(dirname "${BASH_SOURCE[0]}")/run-suite.sh" "$out/"
cp -r "$(dirname "${BASH_SOURCE[0]}")/../../bench/"{run-gpu.sh,cuda,common} "$out/"  # bench/README.md
du -sh "$out"
