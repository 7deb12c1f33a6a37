#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the rewriter's libFuzzer target with clang-15 in a build directory of its own and fuzzes
# it for a short time from the committed seed corpus. Exits non-zero on any finding (crash,
# sanitizer report, leak, per-input timeout, out-of-memory) or when the build fails.
#   tests/fuzz/run-smoke.sh [BUILD_DIR] [SECONDS]     (defaults: build-fuzz, 30)
# The mutation seed is fixed (ISG_FUZZ_SEED, default 1) so that CI explores the same inputs on
# every run of a commit and a red run is reproducible; ISG_FUZZ_SEED=0 picks a random seed, for
# longer sessions by hand.
# Findings are left in BUILD_DIR/fuzz-run/ (crash-*, leak-*, timeout-*, oom-*); reproduce one with
#   BUILD_DIR/tests/fuzz/isg_rewriter_fuzzer BUILD_DIR/fuzz-run/crash-...
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(mkdir -p "${1:-$root/build-fuzz}" && cd "${1:-$root/build-fuzz}" && pwd)
seconds=${2:-30}
cmake=${CMAKE:-cmake}

for tool in clang-15 clang++-15; do
  command -v "$tool" >/dev/null || { echo "run-smoke.sh: $tool not found (tools/install-deps.sh)" >&2; exit 1; }
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
"$cmake" --build "$build" --target isg_rewriter_fuzzer -j"$(nproc 2>/dev/null || echo 2)" >"$build/build.log" 2>&1 ||
  { tail -n 60 "$build/build.log" >&2; exit 1; }
echo "fuzzer built in $(( $(date +%s) - start )) s"

# A fresh working directory: libFuzzer writes new inputs into the first corpus directory (the
# committed seeds stay read-only), and the rewriter resolves quoted includes against the
# current directory, which must not be the source tree.
work="$build/fuzz-run"
rm -rf "$work"
mkdir -p "$work/corpus"
cd "$work"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:allocator_may_return_null=0:${ASAN_OPTIONS:-}"
# libFuzzer prints a line per new input; CI logs get the summary, or the tail on a finding.
rc=0
"$build/tests/fuzz/isg_rewriter_fuzzer" \
  -seed="${ISG_FUZZ_SEED:-1}" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=20 -max_len=8192 \
  -dict="$here/opencl.dict" -artifact_prefix="$work/" -print_final_stats=1 \
  "$work/corpus" "$here/corpus" >"$work/fuzz.log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
  tail -n 150 "$work/fuzz.log" >&2
  echo "run-smoke.sh: the fuzzer found a problem (exit $rc); inputs: $(ls "$work" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' | tr '\n' ' ')" >&2
  exit 1
fi
grep -E '^(INFO: +[0-9]+ files found|#[0-9]+[[:space:]]+INITED|Done |stat::)' "$work/fuzz.log" || true
