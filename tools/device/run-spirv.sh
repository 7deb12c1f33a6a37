#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs on the GPU machine (inside on-device.sh): the suites that build kernels, with every program
# compiled to SPIR-V and created with clCreateProgramWithIL (ISG_TEST_SPIRV, cl_harness.h), so
# that the layer writes PTX for NVIDIA's driver (docs/spirv.md). The GPU machine has no clang-15:
# modules come from spirv-cache/ beside this script. A first run records the programs it lacks
# in $OUT/spirv-missing.tar.gz; unpack it into DIR, compile them here and stage again:
#   build/tests/isg_fill_spirv_cache DIR && tools/device/stage.sh build .gpu DIR
#   bash .device/on-device.sh bash .gpu/run-spirv.sh [gtest filter]
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${OUT:-/tmp/isg-out}
mkdir -p "$out" "$here/spirv-cache"
export OPENCL_LAYERS="$here/libIntelSubgroupsLayer.so"
# shellcheck source=suite-step.sh
. "$here/suite-step.sh"
filter=${1:-*}
status=0
for name in isg_builtins_e2e_test isg_whole_subgroups_test realworld_tests layer_il_programs_test nvidia_ptx_test; do
  [ -x "$here/bin/$name" ] || continue
  step "$out/$name.spirv.log" "$name SPIR-V" \
    env ISG_TEST_SPIRV=1 ISG_TEST_SPIRV_CACHE="$here/spirv-cache" "$here/bin/$name" --gtest_filter="$filter"
done
# The local strategy's library through the same path (ISG_STRATEGY=local).
if [ -x "$here/bin/isg_builtins_e2e_test" ]; then
  step "$out/isg_builtins_e2e_test.spirv.local.log" "isg_builtins_e2e_test SPIR-V ISG_STRATEGY=local" \
    env ISG_STRATEGY=local ISG_TEST_SPIRV=1 ISG_TEST_SPIRV_CACHE="$here/spirv-cache" \
    "$here/bin/isg_builtins_e2e_test" --gtest_filter="$filter"
fi
# Programs this run found no module for: the development machine compiles them.
bash "$here/spirv-missing.sh" "$here/spirv-cache" "$out"
exit $status
