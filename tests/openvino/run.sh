#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# OpenVINO's GPU plugin through the layer on the test's OpenCL device (PoCL in CI, presented as
# a GPU: ISG_PRESENT_AS_GPU), each small model of bench/openvino/models.py against OpenVINO's CPU
# plugin at f32 (docs/openvino.md).
#   run.sh PYTHON LAYER WORKDIR [--f16]
set -euo pipefail
python=$1 layer=$2 work=$3
shift 3
models="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/bench/openvino/models.py"
mkdir -p "$work"
# The reference: the CPU plugin alone, no layer.
env -u OPENCL_LAYERS "$python" "$models" ref "$work/refs.npz" > "$work/ref.log" 2>&1 ||
  { cat "$work/ref.log"; echo "OpenVINO's CPU plugin failed to make the reference"; exit 1; }
OPENCL_LAYERS="$layer" ISG_PRESENT_AS_GPU=1 exec "$python" "$models" gpu "$work/refs.npz" "$@"
