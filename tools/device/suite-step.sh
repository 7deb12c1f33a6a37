# SPDX-License-Identifier: MIT
# Sourced by the run-*.sh scripts of this folder. `step LOG LABEL COMMAND...` runs one test
# executable with its output in LOG and prints one line: LABEL, its exit status and the verdict
# lines of gtest and of the builtin suite. A failure sets the caller's status to 1.
step() {
  local log=$1 label=$2
  shift 2
  "$@" > "$log" 2>&1
  local rc=$?
  echo "$label rc=$rc $(grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[isg-e2e\] [0-9]" "$log" | tr '\n' ' ')"
  [ $rc -eq 0 ] || status=1
}
