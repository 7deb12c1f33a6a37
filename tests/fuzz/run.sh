#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds a libFuzzer target with clang-15 in a build directory of its own and fuzzes it from its
# committed seed corpus. Exits non-zero on any finding (crash, sanitizer report, leak, per-input
# timeout, out-of-memory) or when the build fails.
#   tests/fuzz/run.sh TARGET [BUILD_DIR] [SECONDS] [LIBFUZZER_OPTION...]
#     TARGET rewriter: isg::rewriteProgram alone (rewriter_fuzzer.cpp, corpus/); CTest's 30 s
#                      smoke run
#     TARGET api:      the layer through the real OpenCL API on the default device
#                      (api_fuzzer.cpp, api-corpus/ and corpus/); campaigns by hand (README.md)
# Defaults: build-fuzz, 30 s. Extra options go to libFuzzer (a campaign that should carry on
# past findings: -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1).
# The mutation seed is fixed (ISG_FUZZ_SEED, default 1) so that CI explores the same inputs on
# every run of a commit and a red run is reproducible; ISG_FUZZ_SEED=0 picks a random seed, for
# longer sessions by hand.
# Findings are left in BUILD_DIR/fuzz-run-TARGET/ (crash-*, leak-*, timeout-*, oom-*), new
# inputs in its corpus/; reproduce one with BUILD_DIR/tests/fuzz/<fuzzer> <file>.
set -euo pipefail
# The body is one function, read whole before it runs: a campaign lasts hours, and bash would
# otherwise read an edited script (a checkout, a pull) from the middle.
main() {
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  root=$(cd "$here/../.." && pwd)
  target=${1:-}
  case "$target" in
    rewriter) fuzzer=isg_rewriter_fuzzer seeds=("$here/corpus") limits=(-rss_limit_mb=4096 -timeout=20 -max_len=8192) ;;
    # A compile by PoCL takes a fraction of a second and its LLVM a few hundred MB. The rewriter's
    # seeds are programs too (their first byte means something else here, which is fine).
    api) fuzzer=isg_api_fuzzer seeds=("$here/api-corpus" "$here/corpus") limits=(-rss_limit_mb=8192 -timeout=60 -max_len=16384) ;;
    *) echo "usage: $0 rewriter|api [BUILD_DIR] [SECONDS] [LIBFUZZER_OPTION...]" >&2; exit 2 ;;
  esac
  build=$(mkdir -p "${2:-$root/build-fuzz}" && cd "${2:-$root/build-fuzz}" && pwd)
  seconds=${3:-30}
  shift $(( $# < 3 ? $# : 3 ))
  cmake=${CMAKE:-cmake}

  for tool in clang-15 clang++-15; do
    command -v "$tool" >/dev/null || { echo "run.sh: $tool not found (tools/install-deps.sh)" >&2; exit 1; }
  done

  # -O1 and no debug info: this build exists to run for 30 s, and the static Clang link with
  # ASan is the slow part, which debug info would make much slower.
  log="$build/configure.log"
  if ! "$cmake" -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang-15 -DCMAKE_CXX_COMPILER=clang++-15 \
       -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS_RELEASE=-O1 -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
       -DISG_BUILD_TESTS=ON -DISG_BUILD_FUZZER=ON >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
  fi
  start=$(date +%s)
  "$cmake" --build "$build" --target "$fuzzer" -j"$(nproc 2>/dev/null || echo 2)" >"$build/build.log" 2>&1 ||
    { tail -n 60 "$build/build.log" >&2; exit 1; }
  echo "fuzzer built in $(( $(date +%s) - start )) s"

  # A fresh working directory: libFuzzer writes new inputs into the first corpus directory (the
  # committed seeds stay read-only), and the rewriter resolves quoted includes against the
  # current directory, which must not be the source tree.
  work="$build/fuzz-run-$target"
  rm -rf "$work"
  mkdir -p "$work/corpus"
  cd "$work"
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:allocator_may_return_null=0:${ASAN_OPTIONS:-}"
  # PoCL's and libLLVM's own allocations (the API target loads both), proven in the file.
  export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
  # PoCL caches each kernel it compiles; a campaign compiles tens of thousands.
  export POCL_KERNEL_CACHE=0
  # libFuzzer prints a line per new input; CI logs get the summary, or the tail on a finding.
  rc=0
  "$build/tests/fuzz/$fuzzer" \
    -seed="${ISG_FUZZ_SEED:-1}" -max_total_time="$seconds" "${limits[@]}" \
    -dict="$here/opencl.dict" -artifact_prefix="$work/" -print_final_stats=1 "$@" \
    "$work/corpus" "${seeds[@]}" >"$work/fuzz.log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    tail -n 150 "$work/fuzz.log" >&2
    echo "run.sh: the fuzzer found a problem (exit $rc); inputs: $(ls "$work" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' | tr '\n' ' ')" >&2
    exit 1
  fi
  grep -E '^(INFO: +[0-9]+ files found|#[0-9]+[[:space:]]+INITED|Done |stat::)' "$work/fuzz.log" || true
}
main "$@"
exit
