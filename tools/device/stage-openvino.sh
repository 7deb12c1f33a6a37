#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stages OpenVINO's GPU plugin runs for the GPU machine (docs/openvino.md): the layer from a build
# (stripped, its rewriter and libclc beside it), the GPU tests that reach OpenCL only through
# the loader, run-openvino.sh, and OpenVINO's wheel for the GPU machine's Python (3.12) without
# the NPU plugin and the model front ends (the models are built in memory), compressed: about
# 50 MB with the CPU plugin, which the throughput's baseline runs on. Then pack and run:
#   tools/device/stage-openvino.sh build .ovgpu && ../shared/device/bundle.sh .ovgpu .device
#   device run carry=[".device"] command="bash .device/on-device.sh bash .ovgpu/run-openvino.sh"
set -euo pipefail
build=${1:-build}
out=${2:-.ovgpu}
python=${ISG_DEVICE_PYTHON:-3.12}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
version=$(sed -n 's/^packages=("openvino==\([0-9.]*\)".*/\1/p' "$here/../openvino.sh")
rm -rf "$out" && mkdir -p "$out/layer" "$out/tests/nvidia" "$out/tests/realworld"
cp "$build/layer/libIntelSubgroupsLayer.so" "$build/layer/libIntelSubgroupsRewriter.so" \
   "$build/layer/nvptx64--nvidiacl.bc" "$out/layer/"
cp "$build/tests/nvidia/nvidia_ptx_test" "$out/tests/nvidia/"
cp "$build/tests/realworld/realworld_tests" "$out/tests/realworld/"
strip -s "$out"/layer/*.so "$out"/tests/*/*
cp "$here/run-openvino.sh" "$out/"
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
pip download --quiet "openvino==$version" --no-deps --only-binary=:all: --python-version "$python" \
    --platform manylinux_2_28_x86_64 -d "$wheels"
mkdir -p "$wheels/ov"
python3 -m zipfile -e "$wheels"/openvino-*.whl "$wheels/ov"
rm -rf "$wheels"/ov/openvino/libs/libopenvino_intel_npu_plugin.so "$wheels"/ov/openvino/libs/libopenvino_*_frontend.so.* \
       "$wheels"/ov/openvino/tools "$wheels"/ov/openvino/frontend/{onnx,pytorch,tensorflow,paddle,jax}
tar -C "$wheels/ov" -cf - openvino | xz -T0 -6 > "$out/ov.tar.xz"
grep -qxF "/$out/" .git/info/exclude 2>/dev/null || echo "/$out/" >> .git/info/exclude
du -sh "$out"
