#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs on the GPU machine (inside on-device.sh): the suites that build kernels with every
# rewritten program built by the layer's own OpenCL C front end (ISG_NVIDIA_FRONTEND=layer;
# docs/design.md, "Build paths on NVIDIA"): the layer compiles them with its Clang and NVPTX
# back end and gives NVIDIA's driver PTX (images in NVIDIA's own forms).
#   bash .device/on-device.sh bash .gpu/run-frontend.sh [gtest filter] [-cl-std options...]
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${OUT:-/tmp/isg-out}
mkdir -p "$out"
export OPENCL_LAYERS="$here/libIntelSubgroupsLayer.so"
export ISG_NVIDIA_FRONTEND=layer
# shellcheck source=suite-step.sh
. "$here/suite-step.sh"
filter=${1:-*}
shift || true
stds=("$@")
[ ${#stds[@]} -gt 0 ] || stds=("")
status=0
for std in "${stds[@]}"; do
  for name in isg_builtins_e2e_test isg_whole_subgroups_test realworld_tests nvidia_ptx_test \
              layer_program_binaries_test layer_kernel_objects_test layer_subgroup_queries_test \
              layer_build_log_test layer_compile_link_test; do
    [ -x "$here/bin/$name" ] || continue
    step "$out/$name.frontend${std:+.${std#-cl-std=}}.log" "$name layer front end ${std:-(no -cl-std)}" \
      env ISG_TEST_BUILD_OPTIONS="$std" "$here/bin/$name" --gtest_filter="$filter"
  done
done
exit $status
