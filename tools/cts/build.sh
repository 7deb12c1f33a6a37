#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Builds the `test_subgroups` executable of the Khronos OpenCL-CTS
# (https://github.com/KhronosGroup/OpenCL-CTS) from a CTS source tree, against
# the system OpenCL headers (Debian 12: opencl-headers 3.0~2023.02.06) and the
# system ICD loader (ocl-icd's libOpenCL.so), so that tools/cts/run.sh can run
# it through libIntelSubgroupsLayer.so.  Nothing of the CTS is kept in this
# repository: SRC is a checkout elsewhere and everything built goes to OUTDIR.
#
#   build.sh [options] SRC OUTDIR
#
# Result: OUTDIR/bin/test_subgroups (needs only libOpenCL.so.1 and libstdc++
# at run time), OUTDIR/build-info.txt (CTS commit, headers, build time) and the
# CMake build tree OUTDIR/build (rerunning build.sh rebuilds incrementally).
# See tools/cts/README.md.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() { echo "build.sh: $*" >&2; exit 2; }

usage() {
  cat <<'EOF'
usage: build.sh [options] SRC OUTDIR
  SRC     an OpenCL-CTS source tree (CMakeLists.txt, test_common/, test_conformance/)
  OUTDIR  where the build goes; the executable ends up in OUTDIR/bin/test_subgroups
options:
  --cl-headers DIR   OpenCL headers to use instead of the system ones (a
                     KhronosGroup/OpenCL-Headers checkout: DIR/CL/cl.h)
  --cl-lib-dir DIR   directory holding libOpenCL.so (default: pkg-config OpenCL,
                     else /usr/lib/<multiarch>)
  --commit HASH      CTS commit to record when SRC is not a git work tree
                     (e.g. sources exported with `git archive`)
  -j, --jobs N       parallel compile jobs (default 2)
EOF
}

cl_headers=/usr/include
cl_lib_dir=
commit=
jobs=2
while [[ $# -gt 0 ]]; do
  case $1 in
    --cl-headers) cl_headers=$2; shift 2 ;;
    --cl-lib-dir) cl_lib_dir=$2; shift 2 ;;
    --commit) commit=$2; shift 2 ;;
    -j|--jobs) jobs=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    -*) die "unknown option $1" ;;
    *) break ;;
  esac
done
[[ $# -eq 2 ]] || { usage >&2; exit 2; }
src=$(realpath "$1")
out=$(realpath -m "$2")

[[ -f $src/CMakeLists.txt && -f $src/test_conformance/subgroups/CMakeLists.txt ]] ||
  die "$src is not an OpenCL-CTS source tree (no test_conformance/subgroups)"
case $out/ in
  "$src"/*) die "OUTDIR must not be inside SRC" ;;
esac
# Builds go outside this repository (nothing of the CTS is committed here).
repo=$(git -C "$here" rev-parse --show-toplevel 2>/dev/null || true)
if [[ -n $repo ]]; then
  case $out/ in "$repo"/*) die "OUTDIR must be outside the repository ($repo)" ;; esac
fi
[[ -f $cl_headers/CL/cl.h ]] || die "no CL/cl.h under $cl_headers (install opencl-headers or pass --cl-headers)"

if [[ -z $cl_lib_dir ]]; then
  cl_lib_dir=$(pkg-config --variable=libdir OpenCL 2>/dev/null || true)
  [[ -n $cl_lib_dir ]] || cl_lib_dir=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
fi
# The link needs the unversioned libOpenCL.so (ocl-icd-opencl-dev); the
# executable then records libOpenCL.so.1, whichever loader provides it.
[[ -e $cl_lib_dir/libOpenCL.so ]] || die "no libOpenCL.so in $cl_lib_dir (install ocl-icd-opencl-dev or pass --cl-lib-dir)"

if [[ -z $commit ]]; then
  commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)
fi

mkdir -p "$out/bin" "$out/build"
# The CTS's top-level CMakeLists.txt insists on SPIRV_INCLUDE_DIR (the SPIR-V
# suites include spirv/unified1/spirv.hpp), but neither test_common nor
# test_subgroups includes any SPIR-V header: an empty folder satisfies the
# check, so no SPIRV-Headers checkout is needed.
spirv_dir=$out/build/no-spirv-headers
mkdir -p "$spirv_dir"

# A current CTS needs newer headers than Debian 12's in exactly one place: the
# harness names nine image channel types (cl_ext_image_raw10_raw12,
# cl_ext_image_unorm_int_2_101010, cl_ext_image_unsigned_10x6_12x4_14x2) that
# CL/cl_ext.h gained after 2023.02.  cl_ext_compat.h defines those that the
# headers lack; it is force-included into the C++ files (only they use them)
# and is a no-op with headers that have them.
cxx_flags="-include $here/cl_ext_compat.h"

cmake_args=(
  -S "$src" -B "$out/build"
  -DCMAKE_BUILD_TYPE=Release
  -DCL_INCLUDE_DIR="$cl_headers"
  -DCL_LIB_DIR="$cl_lib_dir"
  # The CTS links ${OPENCL_LIBRARIES} (it never searches for OpenCL itself);
  # pthread is added by its LINK_PTHREAD default.
  -DOPENCL_LIBRARIES=OpenCL
  -DSPIRV_INCLUDE_DIR="$spirv_dir"
  -DCMAKE_CXX_FLAGS="$cxx_flags"
)

echo "== configure: cmake ${cmake_args[*]}"
start=$SECONDS
# Configuring covers the whole CTS tree, but only test_subgroups is built.
cmake "${cmake_args[@]}" >"$out/build/configure.log" 2>&1 ||
  { tail -30 "$out/build/configure.log" >&2; die "configure failed (log: $out/build/configure.log)"; }
echo "== build: test_subgroups with -j$jobs (log: $out/build/build.log)"
# Progress lines only; the full output stays in build.log.
set +e
cmake --build "$out/build" --target test_subgroups -j"$jobs" 2>&1 | tee "$out/build/build.log" |
  { grep --line-buffered -E '^\[ *[0-9]+%\]|error:' || true; }
rc=${PIPESTATUS[0]}
set -e
[[ $rc -eq 0 ]] || die "build failed (log: $out/build/build.log)"
secs=$((SECONDS - start))

exe=$(find "$out/build/test_conformance/subgroups" -maxdepth 2 -type f -name test_subgroups -perm -u+x | head -1)
[[ -n $exe ]] || die "test_subgroups was not produced"
cp "$exe" "$out/bin/test_subgroups"

# A smoke test that needs no device: the harness lists its sub-tests without
# touching OpenCL.  It proves the executable loads (libOpenCL.so.1 resolves).
"$out/bin/test_subgroups" --list >"$out/bin/test_subgroups.list" ||
  die "$out/bin/test_subgroups --list failed"

{
  echo "cts_source: $src"
  echo "cts_commit: $commit"
  echo "built: $(date -Is) on $(uname -n)"
  echo "build_seconds: $secs (-j$jobs, configure included)"
  echo "cl_headers: $cl_headers ($(dpkg-query -W -f='${Package} ${Version}' opencl-c-headers 2>/dev/null || echo '?'))"
  echo "cl_lib_dir: $cl_lib_dir"
  echo "cxx: $(c++ --version | head -1)"
  echo "cmake: ${cmake_args[*]}"
  echo "needs: $(ldd "$out/bin/test_subgroups" | awk '/=>/ {print $1}' | tr '\n' ' ')"
} >"$out/build-info.txt"
cat "$out/build-info.txt"
echo "== $(grep -c . "$out/bin/test_subgroups.list") sub-tests; executable: $out/bin/test_subgroups"
