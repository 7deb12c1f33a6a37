#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the whole benchmark suite (bench/README.md) in one go and collects every JSON file, the
# logs and one combined markdown table (summary.md) under $OUT. Made for the GPU machine, where
# tools/device/stage.sh lays out:
#   .gpu/run-gpu.sh  .gpu/libIntelSubgroupsLayer.so  .gpu/bin/bench_*  .gpu/cuda/*.cu  .gpu/common/
# and the lead runs (see docs/performance.md):
#   bash .device/on-device.sh bash .gpu/run-gpu.sh
# It also runs anywhere else (CTest's bench.smoke runs it on PoCL): the paths below can be set
# from the environment, and CUDA baselines are skipped, saying so, without nvcc or a CUDA GPU.
#   ISG_BENCH_BIN      folder of the bench_* executables      (default: <this folder>/bin)
#   ISG_BENCH_LAYER    the layer                               (default: <this folder>/libIntelSubgroupsLayer.so)
#   ISG_BENCH_CUDA_SRC folder of the CUDA baselines            (default: <this folder>/cuda)
#   ISG_BENCH_SMOKE=1  tiny sizes, few repetitions
#   ISG_BENCH_ONLY     space-separated subset of: shuffle block reduce local build host sgemm regcap
#                      media startup clblast
#   ISG_BENCH_SKIP     space-separated names of that list left out (CTest's bench.smoke: clblast)
#   ISG_BENCH_ARCH     nvcc -arch (default sm_90: H100/H200)
#   ISG_LAUNCH_VARIANTS the layer's control (default here: wait; off measures the general kernels)
#   ISG_BENCH_SPIRV=1  the layer's programs from SPIR-V too (variant layer-spirv), modules from
#                      <this folder>/spirv-cache (tools/device/run-spirv.sh says how it is filled)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=${ISG_BENCH_BIN:-$here/bin}
layer=${ISG_BENCH_LAYER:-$here/libIntelSubgroupsLayer.so}
cuda_src=${ISG_BENCH_CUDA_SRC:-$here/cuda}
out=${OUT:-/tmp/isg-bench-out}
only=${ISG_BENCH_ONLY:-shuffle block reduce local build host sgemm regcap media startup clblast}
arch=${ISG_BENCH_ARCH:-sm_90}
raw=$out/raw            # intermediate runs (the other half of a cross-process ratio, CUDA)
mkdir -p "$out" "$raw"
rm -f "$out"/*.md "$out"/*.json "$raw"/*.json
work=$(mktemp -d /tmp/isg-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
common=()
[ "${ISG_BENCH_SMOKE:-0}" = 1 ] && common+=(--smoke)
if [ "${ISG_BENCH_SPIRV:-0}" = 1 ]; then
  mkdir -p "$here/spirv-cache"
  export ISG_TEST_SPIRV_CACHE="$here/spirv-cache"
fi
[ -f "$layer" ] || { echo "run-gpu.sh: no layer at $layer" >&2; exit 2; }
compgen -G "$bin/bench_*" > /dev/null || { echo "run-gpu.sh: no bench_* executables in $bin" >&2; exit 2; }
status=0
start=$(date +%s)

wanted() { [[ " $only " == *" $1 "* && " ${ISG_BENCH_SKIP:-} " != *" $1 "* ]]; }
# One benchmark process; its output goes to $out/<log>.log and a one-line verdict to stdout.
step() {
  local log=$1; shift
  local t0=$(date +%s)
  # A hung driver must not eat the whole device call: each process gets a time limit.
  timeout "${ISG_BENCH_STEP_TIMEOUT:-300}" "$@" > "$out/$log.log" 2>&1
  local rc=$?
  echo "[$(( $(date +%s) - start ))s] $log: rc=$rc ($(( $(date +%s) - t0 ))s)$(grep -c 'WRONG RESULT' "$out/$log.log" | sed 's/^0$//;s/^[1-9].*/, WRONG RESULTS/')"
  [ $rc -eq 0 ] || { status=1; tail -5 "$out/$log.log"; }
}
# Launch variants (docs/design.md): every uniform launch runs its variant from the first timed
# launch on, as in an application's steady state, instead of whenever the background build is
# done. The register-cap benchmark (local strategy) keeps auto, under which local has none, and
# so does the host benchmark, which also launches the layer's kernels through the driver's own
# entry (a variant would have taken the scratch those kernels need on the local strategy).
export ISG_LAUNCH_VARIANTS=${ISG_LAUNCH_VARIANTS:-wait}
general_variants=$ISG_LAUNCH_VARIANTS
[ "$general_variants" = wait ] && general_variants=auto
with_layer=(env OPENCL_LAYERS="$layer")
direct=(env -u OPENCL_LAYERS)

# --- CUDA baselines: compiled here, in this call, while the first OpenCL benchmarks run -------
have_cuda=0
if command -v nvcc >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  have_cuda=1
  # The reports' JSON writer (isg/json.h): beside common/ where stage.sh lays it out, in the
  # rewriter's headers in a source tree.
  for b in shuffle memcpy cublas; do
    libs=(); [ $b = cublas ] && libs=(-lcublas)
    (nvcc -O3 -arch="$arch" -std=c++17 -I "$here/../rewriter/include" -o "$work/cuda_$b" "$cuda_src/$b.cu" "${libs[@]}" \
      > "$out/nvcc_$b.log" 2>&1) &
  done
else
  echo "CUDA baselines skipped: $(command -v nvcc >/dev/null 2>&1 && echo 'no CUDA device (nvidia-smi -L failed)' || echo 'no nvcc on PATH')"
fi
cuda_baseline() {  # $1 = shuffle|memcpy|cublas [$2 = the variant it gives, default cuda]; the --baseline argument when its JSON exists
  [ -s "$raw/cuda_$1.json" ] && echo "--baseline" "${2:-cuda}=$raw/cuda_$1.json"
}

# --- kernels that need no CUDA baseline first (device-side timings; nvcc uses the CPU) -------
wanted reduce && step reduce "${with_layer[@]}" "$bin/bench_reduce" "${common[@]}" --json "$out/reduce.json" --md "$work/3.md"
if wanted local; then
  step local_auto "${with_layer[@]}" "$bin/bench_local" "${common[@]}" --json "$raw/local_auto.json"
  step local "${with_layer[@]}" ISG_STRATEGY=local "$bin/bench_local" "${common[@]}" \
    --baseline "layer-auto=$raw/local_auto.json" --json "$out/local.json" --md "$work/4.md"
fi
wanted sgemm && step sgemm "${with_layer[@]}" "$bin/bench_sgemm" "${common[@]}" --json "$out/sgemm.json" --md "$work/7.md"
wanted regcap && step regcap "${with_layer[@]}" ISG_STRATEGY=local ISG_LAUNCH_VARIANTS=$general_variants "$bin/bench_regcap" "${common[@]}" \
  --json "$out/regcap.json" --md "$work/8.md"
wanted media && step media "${with_layer[@]}" "$bin/bench_media" "${common[@]}" --json "$out/media.json" --md "$work/9.md"

if [ $have_cuda = 1 ]; then
  wait
  for b in shuffle memcpy cublas; do
    if [ -x "$work/cuda_$b" ]; then
      if [ $b = shuffle ] && ! wanted shuffle; then continue; fi
      if [ $b = memcpy ] && ! wanted block; then continue; fi
      if [ $b = cublas ] && ! wanted clblast; then continue; fi
      step "cuda_$b" "$work/cuda_$b" "${common[@]}" --json "$raw/cuda_$b.json"
    else
      echo "cuda_$b: nvcc failed:"; tail -20 "$out/nvcc_$b.log"; status=1
    fi
  done
fi
wanted shuffle && step shuffle "${with_layer[@]}" "$bin/bench_shuffle" "${common[@]}" $(cuda_baseline shuffle) \
  --json "$out/shuffle.json" --md "$work/1.md"
wanted block && step block "${with_layer[@]}" "$bin/bench_block" "${common[@]}" $(cuda_baseline memcpy) \
  --json "$out/block.json" --md "$work/2.md"

# CLBlast (issue 35.4): its own path, its Intel path through the layer, cuBLAS; the variants are
# processes of bench_clblast (it starts them itself, interleaved over rounds).
if wanted clblast; then
  if [ -x "$bin/bench_clblast" ]; then
    step clblast "${direct[@]}" ISG_BENCH_LAYER="$layer" "$bin/bench_clblast" "${common[@]}" \
      --rounds "$([ "${ISG_BENCH_SMOKE:-0}" = 1 ] && echo 1 || echo 3)" $(cuda_baseline cublas cublas) \
      --json "$out/clblast.json" --md "$work/11.md"
  else
    echo "clblast: bench_clblast was not built (no libclblast-dev: tools/install-deps.sh installs it)"; status=1
  fi
fi

# --- host-side costs last, with the CPU otherwise idle ---------------------------------------
if wanted build; then
  # Caches off: every build must compile (bench/build_cost.cpp also salts each build).
  export CUDA_CACHE_DISABLE=1 POCL_KERNEL_CACHE=0
  # bench_build starts itself through the layer and without it, interleaved round by round;
  # one build of each program per round and variant (the rounds are the repetitions: NVIDIA's
  # compiler takes seconds for the Intel program, and three per round overran the step's limit).
  step build "${direct[@]}" ISG_BENCH_LAYER="$layer" "$bin/bench_build" "${common[@]}" \
    --rounds "$([ "${ISG_BENCH_SMOKE:-0}" = 1 ] && echo 2 || echo 5)" --reps 1 \
    --json "$out/build.json" --md "$work/5.md"
  unset CUDA_CACHE_DISABLE POCL_KERNEL_CACHE
  # The text scan alone, where this build has it (not in the GPU stage: stage.sh).
  [ -x "$bin/bench_scan" ] && step scan "$bin/bench_scan" "${common[@]}" --json "$out/scan.json" --md "$work/5s.md"
fi
# Host cost per call: bench_host starts itself through the layer, through a pass-through layer
# and without one, interleaved round by round.
wanted host && step host "${direct[@]}" ISG_LAUNCH_VARIANTS=$general_variants ISG_BENCH_LAYER="$layer" \
  ISG_BENCH_PASSTHROUGH="$bin/libisg_bench_passthrough.so" "$bin/bench_host" "${common[@]}" \
  --rounds "$([ "${ISG_BENCH_SMOKE:-0}" = 1 ] && echo 2 || echo 7)" --json "$out/host.json" --md "$work/6.md"
# Start-up: the benchmark starts the host (clinfo) itself, with and without the layer.
wanted startup && step startup "${direct[@]}" ISG_BENCH_LAYER="$layer" "$bin/bench_startup" \
  "${common[@]}" --json "$out/startup.json" --md "$work/10.md"

# --- one table for docs/performance.md -------------------------------------------------------
{
  echo "# Benchmark run $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo
  echo "- host: $(uname -n), $(nproc) CPUs$([ "${ISG_BENCH_SMOKE:-0}" = 1 ] && echo ', SMOKE RUN (tiny sizes, not a measurement)')"
  if nvidia-smi -L >/dev/null 2>&1; then
    echo "- GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)"
  fi
  echo "- ratios: speed = rate(subject)/rate(baseline), higher is better; cost = time(subject)/time(baseline), lower is better"
  echo
  for i in 1 2 3 4 5 5s 6 7 8 9 10 11; do [ -f "$work/$i.md" ] && cat "$work/$i.md"; done
  echo "Goals missed: $(grep -h '^|' "$work"/*.md 2>/dev/null | grep -o 'MISS' | wc -l); wrong results: $(cat "$out"/*.log | grep -c 'WRONG RESULT')"
} > "$out/summary.md"
cat "$out/summary.md"
# The device tool returns only the output's tail: repeat the digest (worst case per ratio) last.
echo; echo "== digest (all tables: $out/summary.md)"
for i in 1 2 3 4 5 6 7 8 9 10 11; do [ -f "$work/$i.md" ] && grep -E '^(### |- worst )' "$work/$i.md"; done
# Programs from SPIR-V without a module yet (ISG_BENCH_SPIRV=1): packed for the development machine.
if [ -n "${ISG_TEST_SPIRV_CACHE:-}" ] && [ -f "$here/spirv-missing.sh" ]; then
  bash "$here/spirv-missing.sh" "$ISG_TEST_SPIRV_CACHE" "$out"
fi
# The device tool brings back only a few files: everything else travels in one archive.
(cd "$out" && tar -czf results.tgz --exclude=spirv-missing.tar.gz --exclude=results.tgz --exclude=summary.md . &&
  find . -mindepth 1 ! -name results.tgz ! -name summary.md ! -name spirv-missing.tar.gz -delete) 2>/dev/null || true
echo "run-gpu.sh: $(( $(date +%s) - start ))s, status $status, results in $out (summary.md, results.tgz)"
exit $status
