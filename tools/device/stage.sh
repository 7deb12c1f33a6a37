#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stages, from a build, what the GPU machine runs: the layer as `cmake --install --strip` lays it
# out (stripped: Clang is inside, and the device tool carries at most 64 MiB; the SPIR-V bridge
# in the layer's private folder), the test executables that reach OpenCL only through the
# loader, the demo, and run-suite.sh. Then pack it with ../shared/device/bundle.sh:
#   tools/device/stage.sh build .gpu [SPIRV_CACHE] && ../shared/device/bundle.sh .gpu .device
# Programs from SPIR-V on NVIDIA also need libclc (the GPU machine has no libclc-15: a copy goes
# into the private folder) and, for the SPIR-V test runs (run-spirv.sh), the test programs'
# modules compiled here (SPIRV_CACHE).
set -euo pipefail
build=${1:-build}
out=${2:-.gpu}
cache=${3:-}
rm -rf "$out" && mkdir -p "$out/bin"
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
for component in layer spirv; do
  cmake --install "$build" --prefix "$prefix" --strip --component "$component" > /dev/null
done
libdir=$(dirname "$(find "$prefix" -name libIntelSubgroupsLayer.so)")
mv "$libdir/libIntelSubgroupsLayer.so" "$libdir/intel-subgroups-layer" "$out/"
cp "$build/layer/nvptx64--nvidiacl.bc" "$out/intel-subgroups-layer/"
if [ -n "$cache" ]; then mkdir -p "$out/spirv-cache" && cp "$cache"/*.spv "$out/spirv-cache/"; fi
# Intel's execution model (tests/execution_model): the GPU run compares with what Intel's CPU
# runtime recorded here (CTest execution_model.intel).
reference="$build/tests/execution_model/execution-model-reference.txt"
[ -f "$reference" ] && cp "$reference" "$out/"
for dir in tests/layer tests/e2e tests/realworld tests/nvidia tests/execution_model tools/isg-demo tools/isg-binary bench; do
  [ -d "$build/$dir" ] || continue
  find "$build/$dir" -maxdepth 1 -type f -perm -u+x -exec cp {} "$out/bin/" \;
done
rm -f "$out/bin/layer_loader_init_test"  # checks the .so file itself, not a device
rm -f "$out/bin/bench_scan"  # the rewriter linked in: too large to carry, and it needs no GPU
strip "$out"/bin/*  # with the translator's libraries the bundle is near the carry limit
cp "$(dirname "${BASH_SOURCE[0]}")"/{suite-step,run-suite,run-spirv,run-frontend,spirv-missing,run-cassian,run-ggml}.sh "$out/"
# Intel's conformance suites, where a cassian build exists (tools/cassian/README.md).
if [ -n "${CASSIAN_OUT:-}" ] && [ -d "$CASSIAN_OUT/bin" ]; then
  mkdir -p "$out/cassian" "$out/cassian-out" && cp -r "$CASSIAN_OUT/bin" "$out/cassian-out/"
  cp "$(dirname "${BASH_SOURCE[0]}")/../cassian/run.sh" "$out/cassian/run.sh"
fi
cp -r "$(dirname "${BASH_SOURCE[0]}")/../../bench/"{run-gpu.sh,cuda,common} "$out/"  # bench/README.md
# The CUDA baselines' report writer includes isg/json.h, found beside common/report.h.
mkdir -p "$out/common/isg" && cp "$(dirname "${BASH_SOURCE[0]}")/../../rewriter/include/isg/json.h" "$out/common/isg/"
du -sh "$out"
