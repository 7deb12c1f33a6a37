#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs on the GPU machine (inside on-device.sh): Intel's conformance suites, staged by
# tools/device/stage.sh from a cassian build (CASSIAN_OUT; tools/cassian/README.md), through
# the layer on the NVIDIA platform. Options for tools/cassian/run.sh's `run` come before `--`,
# Catch2 test specs after it; results and logs land under $OUT/cassian-<tag>.
#   bash .device/on-device.sh bash .gpu/run-cassian.sh TAG [--suite sg ...] [-- SPEC...]
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tag=${1:?tag}; shift
options=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do options+=("$1"); shift; done
[ "${1:-}" = -- ] && shift
out=${OUT:-/tmp/isg-out}
export OPENCL_LAYERS=${OPENCL_LAYERS-$here/libIntelSubgroupsLayer.so}
bash "$here/cassian/run.sh" run "${options[@]}" "$here/cassian-out" "$out/cassian-$tag" "$@"
