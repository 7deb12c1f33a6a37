#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Runs two suites of Intel's OpenCL C conformance suite "cassian"
# (https://github.com/intel/cassian) against whatever OpenCL platform 0 is,
# typically PoCL or NVIDIA with libIntelSubgroupsLayer.so loaded through
# OPENCL_LAYERS, the way Intel's CI runs them, one crash never hiding the other
# cases. Cassian is neither vendored nor built here: OUTDIR holds a build of it,
# laid out as OUTDIR/bin/<suite>/{<suite>,kernels/} (tools/cassian/README.md).
#
#   run.sh run [options] OUTDIR RESULTDIR [CATCH2_TEST_SPEC...]
#
# See tools/cassian/README.md and `run.sh help`.

set -euo pipefail

SUITES=(oclc_sub_group_functions oclc_work_item_functions)
# Intel's CI runs the work-item suite once per SIMD width; the sub-group suite
# takes no extra option.
DEFAULT_SIMDS="8 16 32"

die() { echo "run.sh: $*" >&2; exit 2; }

usage() {
  cat <<'EOF'
usage:
  run.sh run [options] OUTDIR RESULTDIR [CATCH2_TEST_SPEC...]
      Run the suites from OUTDIR/bin on OpenCL platform 0 / device 0 (chosen
      by the inherited OCL_ICD_VENDORS; OPENCL_LAYERS loads the layer).
      Writes RESULTDIR/results.tsv, RESULTDIR/summary.txt, RESULTDIR/logs/.
      Test specs are Catch2 v2 specs, OR-ed together, e.g.
        'sub_group_shuffle_down - int16'   one case (exact name)
        'sub_group_block_read*'            wildcard
        '~sub_group_shuffle*'              everything except shuffles
      options:
        --suite sg|wi|NAME   only this suite (repeatable; default both)
        --simd "8 16 32"     SIMD widths for the work-item suite
        --batch N            cases per process (default 20)
        --timeout S          per-process timeout in seconds (default 600)
        -v                   also print each case's result while running
EOF
}

# ------------------------------------------------------------------ run ----

# Python helper, kept inline so the script is one file.  Modes:
#   parse XML NAMES RC TIMEOUT_S OUT_TSV OUT_UNFINISHED
#       Read a (possibly truncated) Catch2 v2 XML report of one process that
#       was asked to run the cases listed in NAMES.  Append finished cases to
#       OUT_TSV as name<TAB>status<TAB>message, write the rest to
#       OUT_UNFINISHED.  A case that hit a fatal signal is "unfinished" too.
#   crash XML RC TIMEOUT_S   -> print a one-line crash reason
#   summary TSV              -> print the per-part table
PYHELPER=$(cat <<'PY'
import sys, re, xml.etree.ElementTree as ET

def one_line(s, n=400):
    s = re.sub(r'\s+', ' ', s or '').strip()
    return s[:n]

def cases_from_xml(path):
    """Yield finished <TestCase> elements, tolerating a truncated file."""
    done = []
    try:
        for ev, el in ET.iterparse(path, events=('end',)):
            if el.tag == 'TestCase':
                done.append(el)
    except (ET.ParseError, FileNotFoundError):
        pass
    return done

def first_failure(tc):
    """Return (kind, text) of the first failing assertion, depth first."""
    def walk(el, path):
        for ch in el:
            if ch.tag == 'Section':
                r = walk(ch, path + [ch.get('name', '')])
                if r: return r
            elif ch.tag == 'Expression' and ch.get('success') == 'false':
                exc = ch.find('Exception')
                if exc is not None:
                    # An exception escaped after the last assertion; Catch2
                    # then reports "{Unknown expression ...}": show the text.
                    return ('Exception', path,
                            'exception: ' + (exc.text or '').strip(), exc.get('line'))
                orig = (ch.findtext('Original') or '').strip()
                exp = (ch.findtext('Expanded') or '').strip()
                t = '%s( %s )' % (ch.get('type', ''), orig)
                if exp and exp != orig:
                    t += ' with expansion: ' + one_line(exp, 160)
                return ('Expression', path, t, ch.get('line'))
            elif ch.tag in ('Exception', 'FatalErrorCondition', 'Failure'):
                return (ch.tag, path, (ch.text or '').strip(), ch.get('line'))
        return None
    return walk(tc, [])

def assertions_ok(tc):
    return sum(int(r.get('successes', 0)) for r in tc.iter('OverallResults'))

def classify(tc):
    res = tc.find('OverallResult')
    if res is None:
        return None
    ff = first_failure(tc)
    if ff and ff[0] == 'FatalErrorCondition':
        return None          # crashed: handled by the caller
    out = res.findtext('StdOut') or ''
    if res.get('success') == 'true':
        # Catch2 v2 has no "skip": cassian logs "<reason> - SKIPPED" and
        # returns without assertions, which Catch2 counts as a pass.
        if '- SKIPPED' in out and assertions_ok(tc) == 0:
            m = [l for l in out.splitlines() if '- SKIPPED' in l]
            return ('SKIP', one_line(m[0]))
        return ('PASS', '')
    if ff:
        kind, path, text, line = ff
        where = '/'.join(p for p in path if p)
        msg = (where + ': ' if where else '') + text
        # "Failed to build OpenCL program" says little: add the compiler's
        # first error line, which cassian logs on stderr.
        err = [l for l in (res.findtext('StdErr') or '').splitlines()
               if 'error:' in l]
        if err:
            msg += ' | ' + re.sub(r'^error: \S*tempfile_\w+\.cl:', 'error: ', err[0])
        # Cassian logs what it is about to test ("Testing image format: ..."):
        # the last such line names the variant that failed.
        ctx = [l for l in (res.findtext('StdOut') or '').splitlines() if l.strip()]
        if ctx:
            msg += ' | last: ' + ctx[-1].strip()
        return ('FAIL', one_line(msg, 600))
    return ('FAIL', one_line(res.findtext('StdErr') or 'failed'))

def crash_reason(xml, rc, timeout):
    rc = int(rc)
    for tc in cases_from_xml(xml):
        ff = first_failure(tc)
        if ff and ff[0] == 'FatalErrorCondition':
            return one_line('fatal signal: ' + ff[2])
    if rc in (124, 137):
        return 'timed out after %s s' % timeout
    if rc > 128:
        return 'killed by signal %d (rc=%d)' % (rc - 128, rc)
    return 'process ended without a result (rc=%d)' % rc

mode = sys.argv[1]
if mode == 'parse':
    xml, names, rc, timeout, out_tsv, out_unf = sys.argv[2:8]
    want = [l.rstrip('\n') for l in open(names) if l.strip()]
    got = {}
    for tc in cases_from_xml(xml):
        r = classify(tc)
        if r is not None:
            got[tc.get('name')] = r
    with open(out_tsv, 'a') as f:
        for n in want:
            if n in got:
                f.write('%s\t%s\t%s\n' % (n, got[n][0], got[n][1]))
    with open(out_unf, 'w') as f:
        for n in want:
            if n not in got:
                f.write(n + '\n')
elif mode == 'crash':
    print(crash_reason(*sys.argv[2:5]))
elif mode == 'summary':
    PARTS = ['ids/broadcast/reduce/scan/vote',
             'shuffle/shuffle_xor/common_offset/mixed',
             'shuffle_down', 'shuffle_up',
             'block IO on buffers', 'block IO on images', 'media block IO']
    rows = {}
    order = list(PARTS)
    for line in open(sys.argv[2]):
        if line.startswith('#'): continue
        f = line.rstrip('\n').split('\t')
        if len(f) < 5: continue
        run, part, name, st = f[0], f[1], f[2], f[3]
        if part not in order: order.append(part)
        c = rows.setdefault(part, {'PASS': 0, 'FAIL': 0, 'SKIP': 0, 'CRASH': 0})
        c[st] = c.get(st, 0) + 1
    fmt = '%-42s %6s %6s %6s %7s'
    print(fmt % ('part', 'pass', 'fail', 'skip', 'crash'))
    tot = {'PASS': 0, 'FAIL': 0, 'SKIP': 0, 'CRASH': 0}
    for p in order:
        if p not in rows: continue
        c = rows[p]
        for k in tot: tot[k] += c.get(k, 0)
        print(fmt % (p, c['PASS'], c['FAIL'], c['SKIP'], c['CRASH']))
    print(fmt % ('TOTAL', tot['PASS'], tot['FAIL'], tot['SKIP'], tot['CRASH']))
PY
)
py() { python3 -c "$PYHELPER" "$@"; }

# Which summary row a case belongs to (by name prefix; cassian has no tags).
part_of() {  # RUNLABEL NAME
  case $1 in
    wi-simd*) echo "work-item functions simd${1#wi-simd}"; return ;;
  esac
  case $2 in
    "sub_group_media_block_"*)                    echo "media block IO" ;;
    "sub_group_block_"*"_image - "*)              echo "block IO on images" ;;
    "sub_group_block_"*)                          echo "block IO on buffers" ;;
    "sub_group_shuffle_down - "*)                 echo "shuffle_down" ;;
    "sub_group_shuffle_up - "*)                   echo "shuffle_up" ;;
    "sub_group_shuffle"*)                         echo "shuffle/shuffle_xor/common_offset/mixed" ;;
    *)                                            echo "ids/broadcast/reduce/scan/vote" ;;
  esac
}

VERBOSE=0
BATCH=20
TIMEOUT=600

# Run one cassian process on the case names in file $3.
#   run_proc LOGBASE EXE NAMESFILE ARGS...   -> sets PROC_RC
run_proc() {
  local logbase=$1 exe=$2 names=$3; shift 3
  rm -f "$logbase.xml"
  # -f: Catch2 v2 reads one test name per line and quotes each, so names
  # with spaces and dashes match exactly.  -o keeps the XML apart from the
  # "Cassian x.y.z" banner that cassian prints on stdout before Catch2 starts.
  # -k: a hung driver that ignores SIGTERM still gets killed.
  # The subshell (kept alive by the trailing `exit`, so bash does not exec
  # timeout in its place) swallows bash's "Segmentation fault" notice into
  # /dev/null; the crash is reported from the XML and exit status instead.
  set +e
  (timeout -k 30 "$TIMEOUT" "$exe" "$@" -f "$names" -r xml -o "$logbase.xml" \
    >"$logbase.log" 2>&1 </dev/null; exit $?) 2>/dev/null
  PROC_RC=$?
  set -e
}

# Append "runlabel part name status message" rows for newly finished cases.
emit() {  # RUNLABEL RAW_TSV
  local label=$1 raw=$2 name st msg
  while IFS=$'\t' read -r name st msg; do
    printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$(part_of "$label" "$name")" \
      "$name" "$st" "$msg" >>"$RESULTS"
    ((VERBOSE)) && printf '  %-6s %s %s\n' "$st" "$name" "${msg:0:160}"
    case $st in PASS) ((++N_PASS)) ;; FAIL) ((++N_FAIL)) ;;
                SKIP) ((++N_SKIP)) ;; CRASH) ((++N_CRASH)) ;; esac
  done <"$raw"
  : >"$raw"
}

# Run all cases of one suite invocation in batches.
run_suite() {  # SUITE RUNLABEL SPEC EXTRA_ARGS...
  local suite=$1 label=$2 spec=$3; shift 3
  local dir=$BIN/$suite exe=$BIN/$suite/$suite
  [[ -x $exe ]] || die "missing $exe (run 'run.sh build' first)"
  [[ -d $dir/kernels/$suite ]] || die "missing $dir/kernels/$suite"
  local logs=$RESDIR/logs/$label
  mkdir -p "$logs"

  # Cassian opens "kernels/<suite>/x.cl" relative to the working directory
  # (a missing file silently becomes an empty source), so run from the
  # suite's staging dir.  Subshell keeps our own cwd.
  (
    cd "$dir"
    local listargs=(--list-test-names-only)
    [[ -n $spec ]] && listargs+=("$spec")
    # Listing does not initialise the runtime; drop the version banner.
    "$exe" "${listargs[@]}" 2>/dev/null | sed -e '/^Cassian [0-9]/d' -e '/^Runtime:/d' \
      -e '/^[[:space:]]*$/d' -e '/^[0-9]* matching test cases/d' >"$logs/all-names.txt" || true
    local total
    total=$(wc -l <"$logs/all-names.txt")
    echo "== $label: $total cases ($suite${*:+ $*})"
    ((total > 0)) || exit 0
    split -l "$BATCH" -d -a 4 "$logs/all-names.txt" "$logs/batch"
    local b raw=$logs/raw.tsv
    : >"$raw"
    for b in "$logs"/batch[0-9][0-9][0-9][0-9]; do
      run_proc "$b" "$exe" "$b" "$@"
      py parse "$b.xml" "$b" "$PROC_RC" "$TIMEOUT" "$raw" "$b.unfinished"
      emit "$label" "$raw"
      # Cases without a result were not reached (or crashed) because the
      # process died: rerun each alone so one crash hides nothing else.
      if [[ -s $b.unfinished ]]; then
        local i=0 name one
        echo "   $(basename "$b"): process ended early (rc=$PROC_RC);" \
             "rerunning $(wc -l <"$b.unfinished") case(s) one by one"
        while IFS= read -r name; do
          one=$b.single$((i++))
          printf '%s\n' "$name" >"$one"
          run_proc "$one" "$exe" "$one" "$@"
          py parse "$one.xml" "$one" "$PROC_RC" "$TIMEOUT" "$raw" "$one.unfinished"
          if [[ -s $one.unfinished ]]; then
            printf '%s\tCRASH\t%s\n' "$name" \
              "$(py crash "$one.xml" "$PROC_RC" "$TIMEOUT")" >>"$raw"
          fi
          emit "$label" "$raw"
        done <"$b.unfinished"
      fi
    done
    echo "   pass=$N_PASS fail=$N_FAIL skip=$N_SKIP crash=$N_CRASH"
  )
}

cmd_run() {
  local sel=() simds=$DEFAULT_SIMDS
  while [[ $# -gt 0 ]]; do
    case $1 in
      --suite) sel+=("$2"); shift 2 ;;
      --simd) simds=$2; shift 2 ;;
      --batch) BATCH=$2; shift 2 ;;
      --timeout) TIMEOUT=$2; shift 2 ;;
      -v) VERBOSE=1; shift ;;
      --) shift; break ;;
      -*) die "unknown option $1" ;;
      *) break ;;
    esac
  done
  [[ $# -ge 2 ]] || { usage >&2; exit 2; }
  local out=$1 spec=""; RESDIR=$(realpath -m "$2"); shift 2
  # Accept OUTDIR itself or its bin/ (what gets copied to another machine).
  if [[ -d $out/bin/${SUITES[0]} ]]; then BIN=$(realpath "$out/bin")
  elif [[ -d $out/${SUITES[0]} ]]; then BIN=$(realpath "$out")
  else die "$out has no bin/${SUITES[0]} (run 'run.sh build' first)"; fi
  # Several specs are OR-ed: Catch2 v2 treats ',' as "or".
  if [[ $# -gt 0 ]]; then spec=$(IFS=,; echo "$*"); fi
  ((${#sel[@]})) || sel=(sg wi)
  command -v python3 >/dev/null || die "python3 is needed to read Catch2 XML"

  mkdir -p "$RESDIR"
  rm -rf "$RESDIR/logs"
  RESULTS=$RESDIR/results.tsv
  printf '#run\tpart\tcase\tstatus\tfirst_failure\n' >"$RESULTS"
  {
    echo "date: $(date -Is)"
    echo "host: $(uname -n)"
    echo "OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-}"
    echo "OPENCL_LAYERS=${OPENCL_LAYERS:-}"
    echo "spec: ${spec:-<all>}"
    command -v clinfo >/dev/null && clinfo -l 2>/dev/null | head -3
  } >"$RESDIR/env.txt"
  cat "$RESDIR/env.txt"
  N_PASS=0 N_FAIL=0 N_SKIP=0 N_CRASH=0
  local s w start=$SECONDS
  for s in "${sel[@]}"; do
    case $s in
      sg|oclc_sub_group_functions)
        run_suite oclc_sub_group_functions sg "$spec" ;;
      wi|oclc_work_item_functions)
        for w in $simds; do
          run_suite oclc_work_item_functions "wi-simd$w" "$spec" --simd "$w"
        done ;;
      *) die "unknown suite $s" ;;
    esac
  done
  echo
  py summary "$RESULTS" | tee "$RESDIR/summary.txt"
  echo "($((SECONDS - start)) s; per-case results: $RESULTS)"
}

case ${1:-} in
  run) shift; cmd_run "$@" ;;
  help|-h|--help) usage ;;
  *) usage >&2; exit 2 ;;
esac
