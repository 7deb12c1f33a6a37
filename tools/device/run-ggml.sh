#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs on the GPU machine (inside on-device.sh): ggml's own test-backend-ops (docs/design.md,
# "ggml"; issue 35.4) in perf mode on ggml's OpenCL backend through the layer, taking its Intel
# path, and on ggml's CUDA backend built here from the same snapshot, op by op; the outputs go to
# $OUT and bench/ggml_compare.py joins them on the development machine.
#   bash .device/on-device.sh bash .gpu/run-ggml.sh GGML_SRC.tar.xz [OPS [PARAMS]]
# .gpu/bin/test-backend-ops is ggml's test built with GGML_OPENCL=ON on the development machine
# (statically linked). OPS and PARAMS: test-backend-ops' -o and -p filters (defaults below: the
# default PARAMS leaves out flash attention's flash-decoding shapes, whose split kernel ggml
# launches with 64 work-items but compiles for Intel with 32: it writes past its local array).
# ISG_GGML_SIDES: "opencl cuda" (default) or either. ISG_GGML_CUDA_BIN: a CUDA build of
# test-backend-ops to use instead of building one (the build takes minutes; ISG_GGML_KEEP_BIN=1
# copies the one built here, stripped, to $OUT).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${OUT:-/tmp/isg-out}
src_tar=${1:?GGML source tarball}
ops=${2:-MUL_MAT,SOFT_MAX,ROPE,FLASH_ATTN_EXT,CPY,RMS_NORM,ADD,MUL,SCALE,GET_ROWS,ARGSORT,CUMSUM}
params=${3:-'^(?!hsk=(64|128),)'}
sides=${ISG_GGML_SIDES:-opencl cuda}
mkdir -p "$out"
work=$(mktemp -d /tmp/isg-ggml.XXXXXX)
trap 'rm -rf "$work"' EXIT
status=0
start=$(date +%s)
side() { [[ " $sides " == *" $1 "* ]]; }

# The CUDA backend: configure and build test-backend-ops in the background while OpenCL runs.
cuda_bin=${ISG_GGML_CUDA_BIN:-}
build=
if side cuda && [ -z "$cuda_bin" ]; then
  mkdir -p "$work/src" && tar -xf "$src_tar" -C "$work/src"
  srcdir=$(dirname "$(find "$work/src" -maxdepth 2 -name CMakeLists.txt | head -1)")
  (cmake -S "$srcdir" -B "$work/cuda" -DCMAKE_BUILD_TYPE=Release -DGGML_CUDA=ON -DGGML_NATIVE=OFF \
     -DCMAKE_CUDA_ARCHITECTURES="${ISG_GGML_CUDA_ARCH:-90}" -DGGML_BUILD_TESTS=ON -DGGML_BUILD_EXAMPLES=OFF \
     -DBUILD_SHARED_LIBS=OFF > "$out/ggml-cuda-configure.log" 2>&1 &&
   cmake --build "$work/cuda" -j "${ISG_GGML_CUDA_JOBS:-$(nproc)}" --target test-backend-ops \
     > "$out/ggml-cuda-build.log" 2>&1) &
  build=$!
fi

# ggml's OpenCL backend through the layer, as docs/design.md runs it: presented as Intel, every
# program on the layer's front end, S from each launch; ggml's binary cache off (it keys on
# nothing of the layer's controls).
if side opencl; then
  env OPENCL_LAYERS="$here/libIntelSubgroupsLayer.so" ISG_PRESENT_AS_INTEL=1 ISG_NVIDIA_FRONTEND=every \
    ISG_SUB_GROUP_SIZE_FROM_LAUNCH=1 GGML_OPENCL_KERNEL_CACHE_DIR=off \
    timeout "${ISG_GGML_TIMEOUT:-400}" "$here/bin/test-backend-ops" perf -b GPUOpenCL -o "$ops" -p "$params" \
    > "$out/ggml-perf-opencl.txt" 2> "$out/ggml-perf-opencl.log"
  rc=$?
  echo "[$(( $(date +%s) - start ))s] OpenCL through the layer: rc=$rc, $(grep -c 'us/run' "$out/ggml-perf-opencl.txt") cases"
  [ $rc -eq 0 ] || status=1
fi

if side cuda; then
  if [ -n "$build" ]; then
    wait "$build"
    rc=$?
    echo "[$(( $(date +%s) - start ))s] CUDA build: rc=$rc"
    cuda_bin=$(find "$work/cuda" -name test-backend-ops -type f -perm -u+x | head -1)
    [ $rc -eq 0 ] || { tail -20 "$out/ggml-cuda-build.log"; cuda_bin=; status=1; }
    if [ -n "$cuda_bin" ] && [ "${ISG_GGML_KEEP_BIN:-0}" = 1 ]; then
      cp "$cuda_bin" "$out/test-backend-ops-cuda" && strip "$out/test-backend-ops-cuda"
    fi
  fi
  if [ -n "$cuda_bin" ]; then
    timeout "${ISG_GGML_TIMEOUT:-400}" "$cuda_bin" perf -b CUDA0 -o "$ops" -p "$params" \
      > "$out/ggml-perf-cuda.txt" 2> "$out/ggml-perf-cuda.log"
    rc=$?
    echo "[$(( $(date +%s) - start ))s] CUDA: rc=$rc, $(grep -c 'us/run' "$out/ggml-perf-cuda.txt") cases"
    [ $rc -eq 0 ] || status=1
  fi
fi
# The device tool brings back a few files: the logs travel in one archive.
(cd "$out" && tar -czf ggml-logs.tgz ggml-*.log && rm -f ggml-*.log) 2>/dev/null || true
exit $status
