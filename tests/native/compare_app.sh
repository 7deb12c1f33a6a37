#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A whole application compared (issue 50.3, docs/compare.md "Compare a whole application"):
# compare_app's three kernels captured on Intel's CPU runtime (each kernel's first 3 launches,
# no count cap), then every case replayed through the layer on the default device by one
# isg-replay DIR: scale identical, sg_reduce identical or within tolerance, sg_rows (which
# differs on purpose) mismatched; exit status 1; the Markdown and JSON reports say the same. A
# case that cannot be read makes it NOT RUN and the exit status 2.
#   compare_app.sh <compare_app> <isg-replay> <layer.so> <intel runtime dir> <work dir>
set -uo pipefail
app=$1 replay=$2 layer=$3 runtime=$4 work=$5
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
OCL_ICD_VENDORS="$runtime/vendors" LD_LIBRARY_PATH="$runtime/lib" OPENCL_LAYERS="$layer" \
  ISG_CAPTURE_DIR="$work/cases" ISG_CAPTURE_PER_KERNEL=3 "$app" || fail "compare_app failed"
[ "$(ls "$work/cases" | wc -l)" -eq 7 ] || fail "not 7 cases (3 scale, 2 sg_reduce, 2 sg_rows): $(ls "$work/cases")"
grep -q '"pass-through"' "$work"/cases/sg_rows-*-0006/case.json || fail "not captured natively"

OPENCL_LAYERS="$layer" "$replay" "$work/cases" --report "$work/report.md" | tee "$work/replay.log"
status=${PIPESTATUS[0]}
[ "$status" -eq 1 ] || fail "exit status $status, not 1 (sg_rows differs)"
log=$work/replay.log
[ "$(grep -c '^IDENTICAL  *scale ' "$log")" -eq 3 ] || fail "scale: not 3 identical lines"
[ "$(grep -cE '^(IDENTICAL|WITHIN TOLERANCE)  *sg_reduce ' "$log")" -eq 2 ] || fail "sg_reduce"
[ "$(grep -c '^MISMATCH  *sg_rows  *global \[10, 7\] local \[5, 7\]' "$log")" -eq 2 ] || fail "sg_rows"
grep -q 'arg 0 out: 70 of 70 elements differ' "$log" || fail "sg_rows's line says not what differs"
grep -qE '^scale  +3  +3  +0  +0  +0 ' "$log" || fail "table: scale"
grep -qE '^sg_reduce  +2  +[0-2]  +[0-2]  +0  +0 ' "$log" || fail "table: sg_reduce"
grep -qE '^sg_rows  +2  +0  +0  +2  +0 ' "$log" || fail "table: sg_rows"
grep -qE '^total  +7  ' "$log" || fail "table: total"
grep -q '^isg-replay: 7 cases; tolerance default (sums in another order): float ulp <= 4' "$log" ||
  fail "the bound in use is not printed"
md=$work/report.md
grep -q '^| scale | 3 | 3 | 0 | 0 | 0 |  |$' "$md" || fail "report.md: scale"
grep -q '^| sg_rows | 2 | 0 | 0 | 2 | 0 |  |$' "$md" || fail "report.md: sg_rows"
grep -q '^Exit status 1: some case mismatched.$' "$md" || fail "report.md: exit status"
[ "$(grep -c '^| MISMATCH | sg_rows |' "$md")" -eq 2 ] || fail "report.md: sg_rows cases"

# The same replay as JSON; a case that cannot be read is NOT RUN (exit status 2).
mkdir -p "$work/broken" && cp -r "$work"/cases/scale-*-0001 "$work/broken/scale-x"
echo '{"format": "isg-kernel-case", "format_version": 2' > "$work/broken/scale-x/case.json"
OPENCL_LAYERS="$layer" "$replay" "$work/cases" "$work/broken" --report "$work/report.json" \
  > "$work/replay2.log"
status=$?
cat "$work/replay2.log"
[ "$status" -eq 2 ] || fail "exit status $status with an unreadable case, not 2"
grep -q '^NOT RUN  *? ' "$work/replay2.log" || fail "no NOT RUN line"
grep -q '^ *case unreadable: .*case.json' "$work/replay2.log" || fail "NOT RUN does not say why"
json=$work/report.json
grep -q '"exit_status": 2' "$json" || fail "report.json: exit status"
grep -q '{"kernel": "sg_rows", "cases": 2, "identical": 0, "within_tolerance": 0, "mismatched": 2, "not_run": 0' "$json" ||
  fail "report.json: sg_rows"
grep -q '{"kernel": "scale", "cases": 3, "identical": 3, ' "$json" || fail "report.json: scale"
grep -q '"result": "NOT RUN", .*"detail": "case unreadable: ' "$json" || fail "report.json: NOT RUN"
echo "compare_app: whole-run compare checked"
