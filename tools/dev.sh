#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The project's two entry points (README): from a fresh clone, install what is missing, build,
# and then either run the demo through the layer or run the whole test suite.
#   tools/dev.sh demo    # Intel-targeted sample kernel through the layer on the default device,
#                        # captured and replayed with isg-replay; then captured on Intel's own
#                        # driver and replayed through the layer (docs/compare.md)
#   tools/dev.sh test    # the suite a contributor runs (CTest without labels `full`, `fuzz`): every
#                        # strategy, builtin family, -cl-std, SPIR-V, media, capture/replay,
#                        # binaries, install and Intel's runtime at least once, in minutes
#   tools/dev.sh test --full  # that, then the full matrices (label `full`: every -cl-std x
#                        # strategy x sub-group size, SPIR-V at S = 16, soak), as CI
#   ISG_LLVM_VERSION=19 ISG_BUILD_DIR=build-llvm19 tools/dev.sh test  # the same with LLVM 19
#   tools/dev.sh sanitize  # the suite on PoCL again on a build with ASan and UBSan
#                          # (build-sanitize/), then the layer's API tests on a build with TSan
#                          # (build-tsan/); the suppressions in tests/sanitizers/ for what is
#                          # proven not ours (docs/reliability.md). CI runs it after `test`
#                          # with ISG_LLVM_VERSION=19: its second LLVM, in the same builds
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
what=${1:-}
full=
case "$what" in demo|test|sanitize) ;; *) echo "usage: $0 demo|test [--full]|sanitize" >&2; exit 2;; esac
if [ "$what" = test ] && [ "${2:-}" = --full ]; then full=1
elif [ -n "${2:-}" ]; then echo "usage: $0 demo|test [--full]|sanitize" >&2; exit 2; fi

"$root/tools/install-deps.sh" >/dev/null
jobs=$(nproc 2>/dev/null || echo 2)
# A test process holds PoCL's or Intel's compiler (up to about 1.5 GiB on the largest programs):
# on many cores with little memory, fewer at once.
available_kib=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null || true)
if [ -n "$available_kib" ] && [ $((available_kib / 1572864)) -lt "$jobs" ]; then
  jobs=$((available_kib / 1572864 > 0 ? available_kib / 1572864 : 1))
fi
build=${ISG_BUILD_DIR:-$root/build}
# The quick suite: CTest without the full matrices and the libFuzzer smoke run (label fuzz, by
# hand: tests/fuzz/README.md); the sanitizer runs take their share of it.
quick_suite=(-LE 'full|fuzz')
tree_args=()
# The benchmarks are built where something runs them: the full matrices' bench.smoke.
if [ "$what" = test ] && [ -n "$full" ]; then
  tree_args=(-DISG_BUILD_BENCH=ON)
elif [ "$what" = test ]; then
  tree_args=(-DISG_BUILD_BENCH=OFF)
elif [ "$what" = sanitize ]; then
  build=${ISG_SANITIZE_BUILD_DIR:-$root/build-sanitize}
  tree_args=(-DISG_SANITIZE=address,undefined -DISG_BUILD_BENCH=OFF)
fi
# ISG_LLVM_VERSION=19 (docs/install.md): install-deps and the build take LLVM/Clang 19.
llvm_args=()
[ -z "${ISG_LLVM_VERSION:-}" ] || llvm_args=(-DISG_LLVM_VERSION="$ISG_LLVM_VERSION")
# One PoCL kernel cache for every tree built here (CMakeLists.txt, ISG_TEST_POCL_CACHE_DIR): the
# trees of another LLVM and of the sanitizers hand PoCL the same rewritten texts, which it then
# compiles once, while each tree's layer still does all its own work.
# Line tables only (-g1): backtraces and sanitizer reports keep file and line, and the Clang-heavy
# sources compile in two thirds of the time full debug info takes.
configure() {
  cmake -S "$root" -B "$1" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DISG_TEST_POCL_CACHE_DIR="$root/.cache/pocl-kernels" "${llvm_args[@]}" "${@:2}" >/dev/null
}
# PoCL compiles a kernel again for every local size it is launched with (a work-group function
# specialised to it) unless told not to: the suites launch each kernel in several shapes, and one
# generic function per kernel nearly halves their time (tests/README.md); the sanitizer trees then
# find PoCL's builds of the same texts in the shared cache. The layer's code is the same either
# way; execution_model.variants keeps PoCL's default (tests/execution_model/CMakeLists.txt).
export POCL_WORK_GROUP_SPECIALIZATION=${POCL_WORK_GROUP_SPECIALIZATION:-0}
configure "$build" "${tree_args[@]}"
cmake --build "$build" -j"$jobs"
layer="$build/layer/libIntelSubgroupsLayer.so"

case "$what" in
  demo)
    export OPENCL_LAYERS="$layer"
    # The demo runs with capture on (docs/compare.md): its kernel run becomes a case, which
    # isg-replay then runs again and compares output by output.
    cases="$build/demo-cases"
    rm -rf "$cases"
    ISG_CAPTURE_DIR="$cases" ISG_CAPTURE_KERNEL=sgemv "$build/tools/isg-demo/isg-demo"
    case_dir=$(ls -d "$cases"/sgemv-* | head -n 1)
    echo
    echo "captured the sgemv enqueue to $case_dir; replaying it:"
    echo "  isg-replay $case_dir --repeat 5"
    "$build/tools/isg-replay/isg-replay" "$case_dir" --repeat 5
    # The compare flow for real (docs/compare.md): the same kernel captured on Intel's own
    # driver (the layer passes it through and only captures), replayed through the layer on the
    # default device.
    intel=$("$root/tools/intel-runtime.sh" dir)
    native_cases="$build/demo-cases-intel"
    rm -rf "$native_cases"
    echo
    echo "capturing the same kernel on Intel's own OpenCL driver ($intel):"
    OCL_ICD_VENDORS="$intel/vendors" LD_LIBRARY_PATH="$intel/lib" ISG_CAPTURE_DIR="$native_cases" \
      ISG_CAPTURE_KERNEL=sgemv "$build/tools/isg-demo/isg-demo"
    native_case=$(ls -d "$native_cases"/sgemv-* | head -n 1)
    echo
    echo "replaying Intel's capture through the layer on the default device:"
    echo "  isg-replay $native_case --ulp 4"
    exec "$build/tools/isg-replay/isg-replay" "$native_case" --ulp 4
    ;;
  test)
    phase() {  # name, ctest label arguments
      local start=$SECONDS status=0
      ctest --test-dir "$build" --output-on-failure -j"$jobs" --timeout 900 "${@:2}" || status=$?
      echo "tools/dev.sh: $1 took $((SECONDS - start)) s"
      return $status
    }
    phase "the test suite" "${quick_suite[@]}"
    [ -z "$full" ] || phase "the full matrices" -L full
    ;;
  sanitize)
    # On PoCL: test executables link the runtimes first; hosts that are not ours (clinfo) fail to
    # load the instrumented layer, and Intel's runtime (native.*, khr_intel.*, differential.*)
    # runs its builtin suites for tens of minutes under an instrumented host, so those are left
    # out here, as is execution_model.* (Intel's runtime records its reference). The strict
    # compile stays: it is the Clang of the tree's LLVM reading what the rewriter wrote, and CI's
    # sanitizer trees are its LLVM 19 build.
    (
      # allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons each new slab in an ASan build and
      # unpoisons what it hands out, both in header code. Our instrumented sources instantiate
      # that code, Clang's uninstrumented archives their own copy, and the link keeps one of
      # each function: a slab ours poisoned is then handed out by theirs, still poisoned, and
      # ASan reports Clang's own writes (use-after-poison in IdentifierTable::get, 255 of 373
      # tests with LLVM 19). Nothing of ours poisons memory by hand; ASan's own checks are kept.
      export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allow_user_poisoning=0
      # use_tls=0: LeakSanitizer's thread-suspending tracer (GCC 12) crashes scanning a dynamic TLS
      # record it keeps with a bogus address ("DTLS 6 at 0x7ba", then "Tracer caught signal 11")
      # at the exit of processes whose tests all passed (docs/reliability.md). Without TLS as a
      # root, a block only TLS points to would be reported, never hidden: no leak escapes.
      export LSAN_OPTIONS="use_tls=0:suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0"
      export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
      # The quick suite: the full matrices run the same layer code at more sizes and -cl-std.
      # Also left out: the compile-only check of the rewriter's sources. The builtin oracle runs
      # here at S = 16 only (S = 8 and 32 run the same layer code on other library bodies, which
      # the full matrices check; 196 of the 981 s of tests in the CI of e347e4d), and the khr
      # test double under its native size 64 only (the one with every optional extension; 32
      # without them took another 89 s).
      ctest --test-dir "$build" --output-on-failure -j"$jobs" --timeout 1800 "${quick_suite[@]}" \
        -E 'clinfo|^install\.|^native\.|^khr_intel\.|^differential\.|^execution_model\.|^e2e\.Builtins/[^ ]*[_/]S(8|32)( |$)|^khr32min\.'
    )
    # ThreadSanitizer: the tests that drive the layer from several threads live among the
    # layer's API tests (label layer_api); the rest of the suite is single-threaded.
    tsan=${ISG_TSAN_BUILD_DIR:-$root/build-tsan}
    configure "$tsan" -DISG_SANITIZE=thread -DISG_BUILD_BENCH=OFF
    cmake --build "$tsan" --target isg_layer_api_tests -j"$jobs"
    export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/sanitizers/tsan.supp"
    # Those of the quick suite: the full matrices' are the soak, whose heap figures mean nothing
    # under TSan's allocator (and which took 298 of the 385 s of this run with LLVM 19), and the
    # 2^22-token macro, which runs the rewriter on one thread (its 2^20 sibling runs here).
    exec ctest --test-dir "$tsan" --output-on-failure -j"$jobs" --timeout 1800 -L layer_api "${quick_suite[@]}" \
      -E 'clinfo'
    ;;
esac
