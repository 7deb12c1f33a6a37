#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The project's two entry points (README): from a fresh clone, install what is missing, build,
# and then either run the demo through the layer or run the whole test suite.
#   tools/dev.sh demo    # Intel-targeted sample kernel through the layer on the default device
#   tools/dev.sh test    # the whole suite (CTest), as CI runs it
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
what=${1:-}
case "$what" in demo|test) ;; *) echo "usage: $0 demo|test" >&2; exit 2;; esac

"$root/tools/install-deps.sh" >/dev/null
jobs=$(nproc 2>/dev/null || echo 2)
build=${ISG_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$jobs"
layer="$build/layer/libIntelSubgroupsLayer.so"

case "$what" in
  demo)
    export OPENCL_LAYERS="$layer"
    exec "$build/tools/isg-demo/isg-demo"
    ;;
  test)
    exec ctest --test-dir "$build" --output-on-failure -j"$jobs" --timeout 900
    ;;
esac
