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
# Tests that compile a program to SPIR-V take it from the modules staged beside (run-spirv.sh).
[ -d "$here/spirv-cache" ] && export ISG_TEST_SPIRV_CACHE="$here/spirv-cache"
# shellcheck source=suite-step.sh
. "$here/suite-step.sh"
# Every work-group shape of the work-group collectives (the quick suite on PoCL takes six).
export ISG_E2E_WG_SHAPES=all
filter=${1:-*}
status=0
for t in "$here"/bin/*; do
  name=$(basename "$t")
  case "$name" in isg-*|bench_*|lib*.so) continue ;; esac  # tools, benchmarks and their layer, not tests
  # Suites that compare the layer with the driver alone record the driver first, without the
  # layer, as CTest does (tests/layer/CMakeLists.txt: <Suite>.RecordTheDriverAlone).
  record=$("$t" --gtest_list_tests 2>/dev/null | awk '/^[^ ]/{suite=$1} /^  RecordTheDriverAlone/{print suite "RecordTheDriverAlone"}')
  if [ "$name" = execution_model_test ]; then
    # Against the record of Intel's CPU runtime made at staging, on nvidia-ptx and on local.
    [ -f "$here/execution-model-reference.txt" ] || { echo "no execution-model reference staged"; status=1; continue; }
    case "$filter" in *-*) rest="$filter:ExecutionModel.RecordIntelsDriver" ;; *) rest="$filter-ExecutionModel.RecordIntelsDriver" ;; esac
    for strategy in "" local; do
      step "$out/$name${strategy:+.$strategy}.log" "$name ${strategy:-default strategy}" \
        env ISG_EXECUTION_MODEL_REFERENCE="$here/execution-model-reference.txt" ${strategy:+ISG_STRATEGY=$strategy} \
        "$t" --gtest_filter="$rest" \
        --gtest_output="json:$out/$name${strategy:+.$strategy}.json"
    done
  elif [ -n "$record" ]; then
    case "$filter" in *-*) rest="$filter:$record" ;; *) rest="$filter-$record" ;; esac
    step "$out/$name.driver_alone.log" "$name driver alone" env -u OPENCL_LAYERS "$t" --gtest_filter="$record"
    step "$out/$name.log" "$name" "$t" --gtest_filter="$rest" --gtest_output="json:$out/$name.json"
  else
    step "$out/$name.log" "$name" "$t" --gtest_filter="$filter" --gtest_output="json:$out/$name.json"
  fi
done
# The suites that build kernels, again under each OpenCL C version real projects pass
# (ISG_TEST_BUILD_OPTIONS is appended to every build), and the builtin suite on the local
# strategy too. The media block IO cases (MediaBlock.*) cost NVIDIA's compiler about 80 s a
# run, so the -cl-std variants leave them out (they run in the default and local runs): the
# whole script then fits one 600 s device call.
std_filter=$filter
case "$filter" in *-*) ;; *) std_filter="$filter-*MediaBlock*" ;; esac
for std in CL1.2 CL2.0 CL3.0; do
  for name in isg_builtins_e2e_test isg_whole_subgroups_test isg_work_group_test realworld_tests nvidia_ptx_test; do
    [ -x "$here/bin/$name" ] || continue
    step "$out/$name.$std.log" "$name -cl-std=$std" \
      env ISG_TEST_BUILD_OPTIONS="-cl-std=$std" "$here/bin/$name" --gtest_filter="$std_filter"
  done
done
# The real-code shapes on the local strategy too: its register-heavy exchanges at the largest
# work-group need the register cap (layer/launch/register_cap.h); the builtin suite; and programs
# created from their binaries, whose kernels have hidden arguments only on local.
for name in realworld_tests isg_builtins_e2e_test isg_work_group_test layer_program_binaries_test; do
  [ -x "$here/bin/$name" ] || continue
  step "$out/$name.local.log" "$name ISG_STRATEGY=local" \
    env ISG_STRATEGY=local "$here/bin/$name" --gtest_filter="$filter"
done
if [ -x "$here/bin/isg-demo" ]; then
  "$here/bin/isg-demo" || status=1
fi
exit $status
