#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ISG_BUILD_TESTS/ISG_BUILD_BENCH gate exactly what they name: a copy of the source without tests/
# and bench/, configured with both off and GoogleTest made unfindable, has the layer, the bridge
# and the tools and no test or benchmark target.
#   build_options_gate.sh CMAKE SOURCE WORK
set -euo pipefail
cmake=$1
src=$2
work=$3
rm -rf "$work" && mkdir -p "$work/src"
# The checkout's own files (tracked, or new and not ignored), wherever its build folders are;
# without git, everything but the usual build folders.
if git -C "$src" rev-parse --show-toplevel > /dev/null 2>&1; then
  (cd "$src" && git ls-files -z -co --exclude-standard -- . ':!tests' ':!bench') |
    tar -C "$src" --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -C "$work/src" -xf -
else
  tar -C "$src" --exclude=./.git --exclude='./build*' --exclude=./tests --exclude=./bench \
      --exclude='./.gpu*' --exclude='./.device*' --exclude=./.cache -cf - . | tar -C "$work/src" -xf -
fi
"$cmake" -S "$work/src" -B "$work/build" -DISG_BUILD_TESTS=OFF -DISG_BUILD_BENCH=OFF \
    -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_BUILD_TYPE=Release > "$work/configure.log" 2>&1 ||
  { echo "FAIL: configuring without tests/ and bench/:"; tail -20 "$work/configure.log"; exit 1; }
"$cmake" --build "$work/build" --target help > "$work/targets"
for target in IntelSubgroupsLayer IntelSubgroupsSpirv isg-replay isg-rewrite isg-binary package; do
  grep -q "\.\.\. $target\$" "$work/targets" || { echo "FAIL: no target $target"; exit 1; }
done
if grep -Eq '_test|bench_|gtest' "$work/targets"; then
  echo "FAIL: test or benchmark targets with both off:"; grep -E '_test|bench_|gtest' "$work/targets"; exit 1
fi
echo "PASS"
