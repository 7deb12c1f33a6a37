#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The command-line tools as a new user meets them (issues 32.6, 50.4): --help prints the usage to
# stdout and succeeds, --version prints the version, an unknown or malformed argument fails with
# exit status 2 and one line on stderr naming it, isg-rewrite names the user's file in its
# diagnostics, and isg-demo without the layer on a device that lacks Intel's sub-groups says how
# to enable it.
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
  err=$("$tool" --no-such-option 2>&1 >/dev/null)
  status=$?
  [ "$status" -eq 2 ] || fail "$name --no-such-option exits $status, not 2"
  [ "$(wc -l <<<"$err")" -eq 1 ] || fail "$name --no-such-option: not one line on stderr: $err"
  grep -q -- "--no-such-option" <<<"$err" || fail "$name does not name --no-such-option: $err"
done
# isg-replay's arguments (issue 50.4): each wrong one is one line naming it, exit 2; --repeat 0
# and --repeat -2 get the same message; nan and inf are no tolerance.
replay=$2
refused() {  # refused TOOL EXPECTED-TEXT ARGS...: one line on stderr containing EXPECTED-TEXT, exit 2
  local tool=$1 want=$2 name
  name=$(basename "$1")
  shift 2
  err=$("$tool" "$@" 2>&1 >/dev/null)
  status=$?
  [ "$status" -eq 2 ] || fail "$name $* exits $status, not 2"
  [ "$(wc -l <<<"$err")" -eq 1 ] || fail "$name $*: not one line: $err"
  grep -qF -- "$want" <<<"$err" || fail "$name $*: '$want' not in: $err"
  last=${err#*: }  # the message without the tool's name
}
bad() { refused "$replay" "$@"; }
mkdir -p "$work/nocase"
bad "--repeat: '0' is not a whole number of at least 1" "$work/nocase" --repeat 0
zero=$last
bad "--repeat: '-2' is not a whole number of at least 1" "$work/nocase" --repeat -2
[ "$(sed "s/'-2'/'0'/" <<<"$last")" = "$zero" ] || fail "--repeat 0 and -2 differ: $zero / $last"
bad "--repeat: '1.5' is not a whole number" "$work/nocase" --repeat 1.5
bad "--atol: 'nan' is not a finite number" "$work/nocase" --atol nan
bad "--rtol: 'inf' is not a finite number" "$work/nocase" --rtol inf
bad "--rtol: '-1' is not a finite number" "$work/nocase" --rtol -1
bad "--ulp: 'x' is not a whole number of 0 or more" "$work/nocase" --ulp x
bad "--ulp needs a value" "$work/nocase" --ulp
bad "unknown option '--tolerance'" "$work/nocase" --tolerance 3
bad "--exact and --ulp contradict" "$work/nocase" --exact --ulp 2
bad "--report-format: 'xml' is neither md nor json" "$work/nocase" --report r.md --report-format xml
bad "--report: 'r.txt' ends in neither .md nor .json" "$work/nocase" --report r.txt
bad "--drop-option: the option is empty" "$work/nocase" --drop-option ""
bad "no case directory given" --exact
bad "$work/nocase: no case" "$work/nocase"
bad "$work/missing: not a directory" "$work/missing"
rewrite=$1 demo=$4
printf 'kernel void k(global int* o) {\n  o[0] = intel_sub_group_shuffle(o[0]);\n}\n' > "$work/wrong.cl"
err=$("$rewrite" --strategy local "$work/wrong.cl" 2>&1 >/dev/null) && fail "isg-rewrite accepts wrong.cl"
grep -q "^$work/wrong.cl:2:" <<<"$err" || fail "isg-rewrite does not name wrong.cl:2 in: $err"
# isg-rewrite's arguments (issue 50.4): a mistyped option is no build option, a size no number.
printf 'kernel void k(global int* o) { o[0] = 1; }\n' > "$work/right.cl"
rbad() { refused "$rewrite" "$@"; }
rbad "unknown option '--frob'" --strategy local --frob "$work/right.cl"
rbad "unknown option '--manfest'" --strategy local --manfest "$work/right.cl"
rbad "--sub-group-size 'abc' is not a positive whole number" --strategy local --sub-group-size abc "$work/right.cl"
rbad "no --strategy given" "$work/right.cl"
rbad "--strategy 'warp' is none of native|nvidia-ptx|khr|local" --strategy warp "$work/right.cl"
rbad "no input file" --strategy local
rbad "no input file" --strategy local -DX=1
rbad "--strategy needs a value" --strategy
"$rewrite" --help | grep -q -- "--device-extensions" || fail "isg-rewrite's usage leaves out --device-extensions"
"$rewrite" --help | grep -q "file.cl" || fail "isg-rewrite's usage names no input file"
"$rewrite" --strategy local -DX=1 -- "$work/right.cl" > /dev/null || fail "isg-rewrite refuses -- before the file"
out=$(env -u OPENCL_LAYERS "$demo" 2>/dev/null)
if grep -q "cl_intel_subgroups advertised: no" <<<"$out"; then
  grep -q "OPENCL_LAYERS=" <<<"$out" || fail "isg-demo does not say how to enable the layer: $out"
fi
[ "$failures" -eq 0 ] && echo "all tool checks passed"
exit "$failures"
