#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On the GPU machine (stage-openvino.sh staged it): the layer's GPU tests, OpenVINO's small models
# against its CPU plugin, ResNet-34's throughput against the CPU plugin in the same run and where
# batch 1's time goes, each with packed work-groups on (ISG_PACK_WORK_GROUPS=1) and off; the f16
# models on the local strategy; where batch 32's f16 time goes. The
# results go to $OUT, one file per part (the device tool brings back a few files). Arguments name
# the parts to run (tests, models, resnet; all by default), so that each fits one device call
# (auto, variants, local, diag and kernels: by name);
# diag (not in the default) prints each layer's time at batch 1, packed and as given, and does what
# local does: captures the attention model at f16 on the local strategy (programs and every
# rewritten kernel's first launch, for tools/isg-replay here) with the layer's log.
set -uo pipefail
stage=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$stage/.." && pwd)
export OPENCL_LAYERS=$stage/layer/libIntelSubgroupsLayer.so
out=${OUT:-/tmp/openvino-out}
parts=" ${*:-tests models resnet} "
want() { [[ $parts == *" $1 "* ]]; }
mkdir -p "$out" /tmp/ov
want tests && for pack in 1 0 auto; do
  ( ISG_PACK_WORK_GROUPS=$pack ISG_NVIDIA_FRONTEND=layer timeout 90 "$stage/tests/nvidia/nvidia_ptx_test"
    ISG_PACK_WORK_GROUPS=$pack ISG_NVIDIA_FRONTEND=layer timeout 90 "$stage/tests/realworld/realworld_tests" ) \
    > "$out/tests-pack$pack.txt" 2>&1
done
tar -xJf "$stage/ov.tar.xz" -C /tmp/ov
export PYTHONPATH=/tmp/ov
cd "$root/bench/openvino"
# The CPU plugin's results, which the models and diag parts compare with.
{ want models || want diag || want local; } && timeout 30 python3 models.py ref /tmp/refs.npz > "$out/refs.txt" 2>&1
want models && {
  for pack in auto 1 0; do
    for f16 in "" --f16; do
      echo "== ISG_PACK_WORK_GROUPS=$pack $f16"
      ISG_PACK_WORK_GROUPS=$pack timeout 90 python3 models.py gpu /tmp/refs.npz $f16
    done
  done
  # Local memory in place of warp instructions (sdpa_opt's block reads under sub-group-uniform flow).
  echo "== ISG_STRATEGY=local --f16"
  ISG_STRATEGY=local timeout 120 python3 models.py gpu /tmp/refs.npz --f16
} > "$out/models.txt" 2>&1
want resnet && {
  echo "== ISG_PACK_WORK_GROUPS=1"; ISG_PACK_WORK_GROUPS=1 timeout 170 python3 resnet.py
  echo "== ISG_PACK_WORK_GROUPS=0"; ISG_PACK_WORK_GROUPS=0 timeout 100 python3 resnet.py GPU
  for pack in 1 0; do echo "== profile, ISG_PACK_WORK_GROUPS=$pack"; ISG_PACK_WORK_GROUPS=$pack timeout 40 python3 profile.py f32 f16; done
  echo "== profile, batch 32, ISG_PACK_WORK_GROUPS=1"
  ISG_DUMP_DIR=/tmp/ov-dump ISG_PACK_WORK_GROUPS=1 timeout 60 python3 profile.py f16 --batch 32
} > "$out/resnet.txt" 2>&1
want diag && {
  for pack in 1 0; do echo "== layers, ISG_PACK_WORK_GROUPS=$pack"; ISG_PACK_WORK_GROUPS=$pack timeout 60 python3 profile.py f32 --layers; done
} > "$out/diag.txt" 2>&1
{ want diag || want local; } && {
  echo "== ISG_STRATEGY=local --f16 attention, captured (the layer's log: local-log.txt)"
  ISG_STRATEGY=local ISG_DUMP_DIR=/tmp/ov-local ISG_CAPTURE_DIR=/tmp/ov-cap ISG_CAPTURE_REWRITTEN_ONLY=1 ISG_CAPTURE_PER_KERNEL=1 \
    ISG_LOG=info ISG_LOG_FILE="$out/local-log.txt" timeout 120 python3 models.py gpu /tmp/refs.npz --f16 attention
  tar -C /tmp -cJf "$out/ov-local.tar.xz" ov-local ov-cap
} > "$out/local.txt" 2>&1
# ResNet-34's throughput on the GPU with launch variants as by default and off, in one run; the
# default's log says which kernels ran variants.
want variants && {
  echo "== ISG_LAUNCH_VARIANTS=auto"; ISG_LOG=info ISG_LOG_FILE="$out/variants-log.txt" timeout 200 python3 resnet.py GPU
  echo "== ISG_LAUNCH_VARIANTS=off"; ISG_LAUNCH_VARIANTS=off timeout 200 python3 resnet.py GPU
} > "$out/variants.txt" 2>&1
# ISG_PACK_WORK_GROUPS=auto (the copy only where a launch's work-groups outnumber the CTAs the GPU
# holds, or its packed warps fill the SMs) against as given, in one run: throughput with the CPU
# plugin's beside it, then one request at a time at batch 1 and 32.
want auto && {
  echo "== ISG_PACK_WORK_GROUPS=auto"; ISG_PACK_WORK_GROUPS=auto timeout 170 python3 resnet.py
  echo "== ISG_PACK_WORK_GROUPS=0"; ISG_PACK_WORK_GROUPS=0 timeout 100 python3 resnet.py GPU
  echo "== profile, ISG_PACK_WORK_GROUPS=auto"; ISG_PACK_WORK_GROUPS=auto timeout 40 python3 profile.py f32 f16
  for pack in auto 0; do
    echo "== profile, batch 32, ISG_PACK_WORK_GROUPS=$pack"; ISG_PACK_WORK_GROUPS=$pack timeout 60 python3 profile.py f16 --batch 32
  done
} > "$out/auto.txt" 2>&1
# Each layer's time one request at a time at f16, batch 32 and 1, under auto, with what the plugin
# built (source, rewrite, PTX) for reading the chosen convolutions' code here.
want kernels && {
  for b in 32 1; do
    echo "== layers, f16 batch $b, ISG_PACK_WORK_GROUPS=auto"
    ISG_DUMP_DIR=/tmp/ov-kernels/b$b timeout 90 python3 profile.py f16 --batch $b --layers
  done
  tar -C /tmp -cJf "$out/ov-kernels.tar.xz" ov-kernels
} > "$out/kernels.txt" 2>&1
# What the plugin built at batch 32 (source, rewrite, PTX), to read the chosen kernels here.
want resnet && tar -C /tmp -cJf "$out/ov-dump.tar.xz" ov-dump 2>/dev/null
grep -h -E 'PASSED|FAILED|==|inferences|rel.err|ms an inference|wrong or' "$out"/*.txt
