#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The command-line tools as a new user meets them (issue 32.6): --help prints the usage to stdout
# and succeeds, --version prints the version, a wrong command line fails with the usage on
# stderr, isg-rewrite names the user's file in its diagnostics, and isg-demo without the layer
# on a device that lacks Intel's sub-groups says how to enable it.
# usage: cli_test.sh VERSION WORKDIR isg-rewrite isg-replay isg-binary isg-demo
set -u
version=$1 work=$2
shift 2
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
mkdir -p "$work"
for tool in "$@"; do
  name=$(basename "$tool")
  out=$("$tool" --help 2>/dev/null) || fail "$name --help exits $?"
  grep -q "usage: $name" <<<"$out" || fail "$name --help prints no usage to stdout: $out"
  out=$("$tool" --version 2>/dev/null) || fail "$name --version exits $?"
  [ "$out" = "$name $version" ] || fail "$name --version prints '$out', not '$name $version'"
  err=$("$tool" --no-such-option 2>&1 >/dev/null) && fail "$name accepts --no-such-option"
  grep -q "usage:" <<<"$err" || fail "$name gives no usage on stderr for a wrong option: $err"
done
rewrite=$1 demo=$4
printf 'kernel void k(global int* o) {\n  o[0] = intel_sub_group_shuffle(o[0]);\n}\n' > "$work/wrong.cl"
err=$("$rewrite" --strategy local "$work/wrong.cl" 2>&1 >/dev/null) && fail "isg-rewrite accepts wrong.cl"
grep -q "^$work/wrong.cl:2:" <<<"$err" || fail "isg-rewrite does not name wrong.cl:2 in: $err"
out=$(env -u OPENCL_LAYERS "$demo" 2>/dev/null)
if grep -q "cl_intel_subgroups advertised: no" <<<"$out"; then
  grep -q "OPENCL_LAYERS=" <<<"$out" || fail "isg-demo does not say how to enable the layer: $out"
fi
[ "$failures" -eq 0 ] && echo "all tool checks passed"
exit "$failures"
