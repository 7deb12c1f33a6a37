#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Intel's OpenCL CPU runtime, the reference driver of the native and differential tests
# (docs/compare.md). It comes from PyPI as wheels, pinned here and nowhere else, and is unpacked
# into a per-user cache folder (no system-wide change): ocl-icd stays the loader, so
# OPENCL_LAYERS keeps working, and the wheel's own libOpenCL.so (a build of the Khronos ICD
# loader) is kept apart, in khronos-loader/, for the tests that run the layer on both loaders.
#   tools/intel-runtime.sh install   # idempotent; prints nothing when it is already there
#   tools/intel-runtime.sh dir       # the installed runtime's folder (exit 1 when missing)
# The folder holds lib/ (LD_LIBRARY_PATH), vendors/ (OCL_ICD_VENDORS for Intel's driver alone)
# vendors-all/ (Intel's driver beside the system's ICDs, for tests that compare them) and
# khronos-loader/ (LD_LIBRARY_PATH that picks the Khronos loader instead of ocl-icd).
set -euo pipefail
wheels=("intel-opencl-rt==2026.2.0" "intel-cmplr-lib-rt==2026.2.0" "tbb==2023.2.0")
cache=$("$(dirname "${BASH_SOURCE[0]}")/cache-dir.sh")
dir="$cache/intel-opencl-rt-2026.2.0"

installed() { [ -f "$dir/.complete" ] && [ -f "$dir/khronos-loader/libOpenCL.so.1" ]; }

case "${1:-}" in
  dir)
    installed || { echo "Intel's OpenCL runtime is not installed: tools/intel-runtime.sh install" >&2; exit 1; }
    echo "$dir"
    ;;
  install)
    installed && exit 0
    echo "installing Intel's OpenCL CPU runtime (${wheels[*]}) into $dir"
    rm -rf "$dir" "$dir.tmp"
    mkdir -p "$dir.tmp/wheels"
    python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$dir.tmp/wheels" \
      "${wheels[@]}"
    # Wheels cannot hold symlinks, so libraries come as several identical copies: each copy
    # after the first becomes a symlink to it.
    python3 - "$dir.tmp" <<'EOF'
import os, sys, zipfile, glob
out = sys.argv[1]
lib = os.path.join(out, "lib")
os.makedirs(lib)
for wheel in glob.glob(os.path.join(out, "wheels", "*.whl")):
    with zipfile.ZipFile(wheel) as z:
        seen = {}
        for info in sorted(z.infolist(), key=lambda i: len(i.filename)):
            parts = info.filename.split("/")
            if len(parts) != 4 or parts[1:3] != ["data", "lib"] or not parts[3]:
                continue
            name = parts[3]
            folder = lib
            if name.startswith("libOpenCL.so"):  # ocl-icd is the loader; this one stays apart
                if name != "libOpenCL.so.1":
                    continue
                folder = os.path.join(out, "khronos-loader")
                os.makedirs(folder, exist_ok=True)
            key = (info.CRC, info.file_size)
            target = os.path.join(folder, name)
            if key in seen and info.file_size > 4096 and folder == lib:
                os.symlink(seen[key], target)
                continue
            with z.open(info) as src, open(target, "wb") as dst:
                while True:
                    chunk = src.read(1 << 20)
                    if not chunk:
                        break
                    dst.write(chunk)
            if folder == lib:
                seen[key] = name
EOF
    rm -rf "$dir.tmp/wheels"
    [ -f "$dir.tmp/lib/libintelocl.so" ] || { echo "the wheel has no libintelocl.so" >&2; exit 1; }
    [ -f "$dir.tmp/khronos-loader/libOpenCL.so.1" ] || { echo "the wheel has no libOpenCL.so.1" >&2; exit 1; }
    mkdir -p "$dir.tmp/vendors" "$dir.tmp/vendors-all"
    echo "$dir/lib/libintelocl.so" > "$dir.tmp/vendors/intel-cpu.icd"
    cp "$dir.tmp/vendors/intel-cpu.icd" "$dir.tmp/vendors-all/"
    for icd in /etc/OpenCL/vendors/*.icd; do
      [ -e "$icd" ] && cp "$icd" "$dir.tmp/vendors-all/"
    done
    touch "$dir.tmp/.complete"
    mv "$dir.tmp" "$dir"
    ;;
  *)
    echo "usage: $0 install|dir" >&2
    exit 2
    ;;
esac
