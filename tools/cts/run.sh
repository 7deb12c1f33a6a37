#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Runs the Khronos OpenCL-CTS `test_subgroups` executable (built by
# tools/cts/build.sh) against whatever OpenCL device the harness picks,
# typically PoCL or NVIDIA with libIntelSubgroupsLayer.so loaded through
# OPENCL_LAYERS.  Each CTS sub-test runs in its own process under a time
# limit, so one crash or hang never hides the others, and the results are
# tabulated in RESULTS/summary.md.
#
#   run.sh [options] OUTDIR RESULTS [TEST...]
#
# The environment is inherited untouched: OCL_ICD_VENDORS picks the driver,
# OPENCL_LAYERS the layer, and the harness's own CL_DEVICE_TYPE,
# CL_PLATFORM_INDEX and CL_DEVICE_INDEX pick the device.  Exit status: 0 when
# nothing failed or crashed, 1 otherwise, 2 on usage errors.
# See tools/cts/README.md.

set -euo pipefail

die() { echo "run.sh: $*" >&2; exit 2; }

usage() {
  cat <<'EOF'
usage: run.sh [options] OUTDIR RESULTS [TEST...]
  OUTDIR   build.sh's output folder (OUTDIR/bin/test_subgroups), or the bin/
           folder itself (what gets copied to another machine)
  RESULTS  folder for summary.md, results.tsv, env.txt and logs/<test>.{log,json}
  TEST     sub-test names or shell patterns ('subgroup_functions_*', '*_core');
           default: every sub-test that `test_subgroups --list` prints
options:
  --timeout S   time limit per sub-test process in seconds (default 1800)
  --arg ARG     extra argument for every test_subgroups process, repeatable
                (e.g. --arg gpu, --arg id1, --arg -w for wimpy mode)
  -l, --list    print the sub-test names and exit
EOF
}

TIMEOUT=1800
EXTRA=()
LIST=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --timeout) TIMEOUT=$2; shift 2 ;;
    --arg) EXTRA+=("$2"); shift 2 ;;
    -l|--list) LIST=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    -*) die "unknown option $1" ;;
    *) break ;;
  esac
done
[[ $# -ge 1 ]] || { usage >&2; exit 2; }
out=$1; shift
if [[ -x $out/bin/test_subgroups ]]; then EXE=$(realpath "$out/bin/test_subgroups")
elif [[ -x $out/test_subgroups ]]; then EXE=$(realpath "$out/test_subgroups")
else die "no test_subgroups in $out/bin or $out (run tools/cts/build.sh first)"; fi

# `--list` prints one tab-indented name per line and touches no device.
mapfile -t ALL < <("$EXE" --list 2>/dev/null | sed -n 's/^\t\([A-Za-z0-9_]*\)$/\1/p')
((${#ALL[@]})) || die "$EXE --list printed no sub-tests"
if ((LIST)); then printf '%s\n' "${ALL[@]}"; exit 0; fi

[[ $# -ge 1 ]] || { usage >&2; exit 2; }
RESDIR=$(realpath -m "$1"); shift

# Expand names/patterns against the list ourselves, so each sub-test gets its
# own process (the harness would run all matches of a pattern in one).
TESTS=()
if [[ $# -eq 0 ]]; then
  TESTS=("${ALL[@]}")
else
  for pat in "$@"; do
    found=0
    for t in "${ALL[@]}"; do
      # shellcheck disable=SC2053  # $pat is a pattern on purpose
      if [[ $t == $pat ]]; then
        [[ " ${TESTS[*]} " == *" $t "* ]] || TESTS+=("$t")
        found=1
      fi
    done
    ((found)) || die "'$pat' matches no sub-test (see run.sh -l $out)"
  done
fi

# Line-buffer the harness's stdout when possible: it is a file here, and a
# crash would otherwise lose the buffered lines that say what was running.
LINEBUF=()
command -v stdbuf >/dev/null && LINEBUF=(stdbuf -oL -eL)

mkdir -p "$RESDIR"
rm -rf "$RESDIR/logs"
mkdir -p "$RESDIR/logs"
buildinfo=$(dirname "$EXE")/../build-info.txt
{
  echo "date: $(date -Is)"
  echo "host: $(uname -n)"
  echo "executable: $EXE"
  if [[ -f $buildinfo ]]; then grep -E '^cts_commit:' "$buildinfo"; fi
  echo "OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-}"
  echo "OPENCL_LAYERS=${OPENCL_LAYERS:-}"
  echo "CL_DEVICE_TYPE=${CL_DEVICE_TYPE:-} CL_PLATFORM_INDEX=${CL_PLATFORM_INDEX:-} CL_DEVICE_INDEX=${CL_DEVICE_INDEX:-}"
  echo "extra args: ${EXTRA[*]:-}"
  echo "timeout: ${TIMEOUT}s per sub-test"
  if command -v clinfo >/dev/null; then clinfo -l 2>/dev/null || true; fi
} >"$RESDIR/env.txt"
cat "$RESDIR/env.txt"

# One line saying why a sub-test did not pass, from its log.  The harness
# prints a progress line per checked built-in ("  sub_group_reduce_add(int)...")
# before checking it: the last one before the first error names the variant.
why() {  # STATUS LOG
  awk -v st="$1" '
    function clean(s) { gsub(/[ \t\r]+/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s); return s }
    /^  [A-Za-z_]+.*\.\.\.$/ || /^  sub_group_barrier|^  independent forward/ { last = clean($0) }
    st == "skipped" && !reason && /[Ss]kip|not supported|requires at least/ && !/^SKIPPED [0-9]/ {
      reason = clean($0)
      if (reason ~ /while initialization/)
        reason = "whole suite skipped by InitCL (main.cpp): OpenCL >= 3.0 device with CL_DEVICE_MAX_NUM_SUB_GROUPS == 0"
    }
    (st == "failed" || st == "crashed") && !reason &&
        /ERROR|[Ee]rror|FAILED|[Ff]ailed|[Uu]nable/ && !/^FAILED [0-9]|^FAILED (sub-)?test\.$/ {
      reason = clean($0); during = last
    }
    END {
      if (st == "crashed") { if (!during) during = last; reason = "" }
      out = reason
      if (during != "") out = out (out != "" ? " " : "") "(during: " during ")"
      print substr(out, 1, 400)
    }' "$2"
}

# Passing sub-tests: how many built-in checks passed and which data types the
# device lacked (the CTS skips those types silently inside a passing test).
passnote() {  # LOG
  awk '
    /\.\.\. ?passed$/ { n++ }
    /Data type not supported/ { sub(/.*: /, ""); if (!seen[$0]++) t = t (t ? "," : "") $0 }
    END { s = n ? n " checks passed" : ""; if (t) s = s (s ? "; " : "") "types skipped: " t; print s }' "$1"
}

RESULTS=$RESDIR/results.tsv
printf '#test\tstatus\tseconds\tnote\n' >"$RESULTS"
declare -A COUNT=([passed]=0 [failed]=0 [skipped]=0 [crashed]=0)
device=""
start_all=$SECONDS
for t in "${TESTS[@]}"; do
  log=$RESDIR/logs/$t.log json=$RESDIR/logs/$t.json
  rm -f "$json"
  t0=$SECONDS
  # The subshell (kept alive by `exit $?`, so bash does not exec timeout in
  # its place) takes bash's "Segmentation fault" notice away from our output;
  # the crash is reported from the exit status instead.  -k: a driver that
  # ignores SIGTERM still goes.  No core files: they would fill the disk.
  set +e
  (ulimit -c 0; CL_CONFORMANCE_RESULTS_FILENAME=$json \
     timeout -k 30 "$TIMEOUT" "${LINEBUF[@]}" "$EXE" "$t" "${EXTRA[@]}" \
     >"$log" 2>&1 </dev/null; exit $?) 2>/dev/null
  rc=$?
  set -e
  secs=$((SECONDS - t0))
  # The harness writes its JSON ("name": "pass|fail|skip") only when it gets
  # to the end; no JSON means the process died or the harness gave up early.
  res=
  if [[ -f $json ]]; then
    res=$(sed -n "s/^[[:space:]]*\"$t\": \"\\([a-z]*\\)\".*/\\1/p" "$json" | head -1)
  fi
  case $res in
    pass) status=passed ;;
    skip) status=skipped ;;
    fail) status=failed ;;
    *)
      if ((rc == 124 || rc == 137)); then status=crashed
      elif ((rc > 128)); then status=crashed
      else status=failed; fi ;;
  esac
  case $status in
    passed) note=$(passnote "$log") ;;
    *) note=$(why "$status" "$log") ;;
  esac
  if [[ -z $res ]]; then
    if ((rc == 124 || rc == 137)); then pre="timed out after ${TIMEOUT}s"
    elif ((rc > 128)); then pre="killed by signal $((rc - 128)) ($(kill -l $((rc - 128)) 2>/dev/null || echo '?'))"
    else pre="exited rc=$rc without a result"; fi
    case $note in
      "") note=$pre ;;
      "(during"*) note="$pre $note" ;;
      *) note="$pre; $note" ;;
    esac
  fi
  [[ -n $device ]] || device=$(sed -n 's/^Compute Device Name = \([^,]*\),.*Compute Device Version = \([^,]*\),.*/\1 (\2)/p' "$log" | head -1)
  COUNT[$status]=$((COUNT[$status] + 1))
  printf '%s\t%s\t%s\t%s\n' "$t" "$status" "$secs" "$note" >>"$RESULTS"
  printf '%-45s %-8s %5ss  %s\n' "$t" "$status" "$secs" "${note:0:150}"
done

total=${#TESTS[@]}
{
  echo "# OpenCL-CTS test_subgroups"
  echo
  echo "- date: $(date -Is), host: $(uname -n)"
  echo "- device: ${device:-unknown}"
  if [[ -f $buildinfo ]]; then echo "- CTS commit: $(sed -n 's/^cts_commit: //p' "$buildinfo")"; fi
  echo "- OCL_ICD_VENDORS=\`${OCL_ICD_VENDORS:-}\`"
  echo "- OPENCL_LAYERS=\`${OPENCL_LAYERS:-}\`"
  if [[ -n ${CL_DEVICE_TYPE:-}${CL_PLATFORM_INDEX:-}${CL_DEVICE_INDEX:-} ]]; then
    echo "- CL_DEVICE_TYPE=${CL_DEVICE_TYPE:-} CL_PLATFORM_INDEX=${CL_PLATFORM_INDEX:-} CL_DEVICE_INDEX=${CL_DEVICE_INDEX:-}"
  fi
  if ((${#EXTRA[@]})); then echo "- extra arguments: \`${EXTRA[*]}\`"; fi
  echo "- one process per sub-test, ${TIMEOUT}s limit each; logs in logs/<sub-test>.log"
  echo
  echo "| sub-test | result | seconds | note |"
  echo "| --- | --- | ---: | --- |"
  tail -n +2 "$RESULTS" | while IFS=$'\t' read -r name st secs note; do
    printf '| %s | %s | %s | %s |\n' "$name" "$st" "$secs" "${note//|/\\|}"
  done
  echo
  echo "**passed ${COUNT[passed]}, failed ${COUNT[failed]}, skipped ${COUNT[skipped]}, crashed ${COUNT[crashed]}** (of $total; $((SECONDS - start_all)) s)"
} >"$RESDIR/summary.md"
echo
echo "passed ${COUNT[passed]}, failed ${COUNT[failed]}, skipped ${COUNT[skipped]}, crashed ${COUNT[crashed]} (of $total; $((SECONDS - start_all)) s)"
echo "summary: $RESDIR/summary.md"
((COUNT[failed] + COUNT[crashed] == 0))
