#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The installed layer as users get it (docs/install.md), one stage per CTest:
#   install_test.sh prefix  BUILD SRC   cmake --install --prefix: the tree, the layer through
#                                       ocl-icd (OPENCL_LAYERS) and through the Khronos loader
#                                       (its .lay registration, OPENCL_LAYER_PATH), the demo,
#                                       SPIR-V through the installed bridge, the tools' version
#   install_test.sh destdir BUILD SRC   DESTDIR staging for /usr (what packagers do) and the
#                                       CMake package a consumer finds with find_package
#   install_test.sh package BUILD SRC   cpack: the two .debs' contents, fields and
#                                       dependencies, and the layer taken out of the package
# PoCL is the device; the Khronos loader is the one Intel's runtime wheel carries
# (tools/intel-runtime.sh).
set -euo pipefail
stage=$1
build=$(cd "$2" && pwd)
src=$(cd "$3" && pwd)
work="$build/install-test/$stage"
rm -rf "$work" && mkdir -p "$work"
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$build/pocl-cache}"
unset OPENCL_LAYERS OPENCL_LAYER_PATH ISG_DISABLE ISG_STRATEGY
version=$(sed -n 's/^project([^)]* VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
arch=$(gcc -print-multiarch 2>/dev/null || true)
libdir=lib${arch:+/$arch}

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_file() { [ -f "$1" ] || fail "missing $1"; }
# Under pipefail a reader that stops early (grep -q, head) fails its writer with SIGPIPE: the
# checks read whole outputs from variables instead of pipelines.
# Runs a command and checks its output for each of the extended regular expressions after "--".
expect_output() {
  local args=() patterns=() seen=0
  for a in "$@"; do
    if [ "$seen" = 0 ] && [ "$a" = "--" ]; then seen=1; continue; fi
    if [ "$seen" = 0 ]; then args+=("$a"); else patterns+=("$a"); fi
  done
  local out pattern
  out=$("${args[@]}" 2>&1) || fail "${args[*]} exited with $?: $(tail -5 <<<"$out")"
  for pattern in "${patterns[@]}"; do
    grep -Eq -- "$pattern" <<<"$out" || fail "${args[*]}: no line matches '$pattern'; it printed: $(tail -20 <<<"$out")"
  done
}
khronos_loader() {
  local rt
  rt=$("$src/tools/intel-runtime.sh" dir) ||
    fail "the Khronos loader comes with Intel's runtime: tools/intel-runtime.sh install"
  [ -f "$rt/khronos-loader/libOpenCL.so.1" ] || fail "no Khronos loader in $rt (tools/intel-runtime.sh install)"
  echo "$rt/khronos-loader:$rt/lib"
}
intel_extensions='cl_intel_subgroups( |$)'
# What the build was configured with (tests/install/CMakeLists.txt, cmake/llvm.cmake): whether it
# has the SPIR-V bridge, and the libclc the packages depend on.
spirv=${ISG_INSTALL_SPIRV:-1}
libclc=${ISG_INSTALL_LIBCLC:-libclc-15}
llvm=${ISG_INSTALL_LLVM:-15}
# The pattern clinfo shows for the bridge: the extension where it is built; where it is not, a
# pattern every clinfo prints (the check of its absence is separate).
spirv_seen='cl_intel_spirv_subgroups'
[ "$spirv" = 1 ] || spirv_seen='Number of platforms'
bridge_absent() {  # the layer at $1 advertises no SPIR-V extension (a build without the bridge)
  [ "$spirv" = 1 ] && return 0
  local out
  out=$(env OPENCL_LAYERS="$1" clinfo 2>&1) || fail "clinfo through $1"
  ! grep -q 'cl_intel_spirv_subgroups' <<<"$out" || fail "a layer without the SPIR-V bridge advertises cl_intel_spirv_subgroups"
}

case "$stage" in
  prefix)
    p="$work/prefix"
    cmake --install "$build" --prefix "$p" --strip > "$work/install.log"
    layer="$p/$libdir/libIntelSubgroupsLayer.so"
    bridge="$p/$libdir/intel-subgroups-layer/libIntelSubgroupsSpirv.so"
    if [ "$spirv" = 1 ]; then expect_file "$bridge"; else [ ! -e "$bridge" ] || fail "$bridge installed without the bridge"; fi
    for f in "$layer" \
             "$p/$libdir/intel-subgroups-layer/libIntelSubgroupsRewriter.so" \
             "$p/bin/isg-replay" "$p/bin/isg-rewrite" "$p/bin/isg-binary" "$p/bin/isg-demo" \
             "$p/share/doc/intel-subgroups-layer/README.md" "$p/share/doc/intel-subgroups-layer/install.md" \
             "$p/etc/OpenCL/layers/intel-subgroups-layer.lay"; do
      expect_file "$f"
    done
    [ "$(cat "$p/etc/OpenCL/layers/intel-subgroups-layer.lay")" = "$layer" ] ||
      fail "the registration names '$(cat "$p/etc/OpenCL/layers/intel-subgroups-layer.lay")', not $layer"
    for lib in "$layer" "$p/$libdir/intel-subgroups-layer/libIntelSubgroupsRewriter.so"; do
      kind=$(file "$lib")
      grep -q "stripped" <<<"$kind" && ! grep -q "not stripped" <<<"$kind" || fail "--strip left $lib unstripped"
    done
    # Clang and LLVM are in the rewriter library, which the layer loads when a build needs it.
    symbols=$(nm -D "$layer")
    ! grep -q "llvm" <<<"$symbols" || fail "$layer links LLVM"
    ! grep -Eq "llvm|clang" <<<"$(ldd "$layer")" || fail "$layer needs Clang/LLVM libraries: $(ldd "$layer")"
    for tool in isg-replay isg-rewrite isg-binary; do
      expect_output "$p/bin/$tool" --version -- "^$tool $version\$"
    done
    # ocl-icd (Debian 12's 2.3.1 reads no system layers): OPENCL_LAYERS names the installed layer.
    # cl_intel_spirv_subgroups proves it found its bridge in the private folder.
    expect_output env OPENCL_LAYERS="$layer" clinfo -- "$intel_extensions" 'cl_intel_required_subgroup_size' \
      "$spirv_seen" 'Sub-group sizes \(Intel\) +[0-9]'
    bridge_absent "$layer"
    expect_output env OPENCL_LAYERS="$layer" "$p/bin/isg-demo" -- '^PASS: matches the host reference'
    # Without its rewriter library the layer leaves devices to their drivers, and says why.
    mkdir -p "$work/lonely" && cp "$layer" "$work/lonely/"
    out=$(env OPENCL_LAYERS="$work/lonely/libIntelSubgroupsLayer.so" clinfo 2>&1) ||
      fail "clinfo through a layer without its rewriter library"
    grep -q "is left to its driver: the layer's rewriter library libIntelSubgroupsRewriter.so is not installed" <<<"$out" ||
      fail "a layer without its rewriter library does not say so: $(grep isg <<<"$out")"
    ! grep -Eq "$intel_extensions" <<<"$out" || fail "a layer without its rewriter library offers cl_intel_subgroups"
    # The Khronos loader reads the registration (OPENCL_LAYER_PATH instead of /etc/OpenCL/layers),
    # initialises with clInitLayerWithProperties and calls clDeinitLayer at exit.
    loader=$(khronos_loader)
    expect_output env LD_LIBRARY_PATH="$loader" OPENCL_LAYER_PATH="$p/etc/OpenCL/layers" \
      OCL_ICD_ENABLE_TRACE=1 ISG_LOG=info clinfo -- "successfully added layer $layer" "$intel_extensions" \
      "$spirv_seen" 'the loader deinitialises the layer'
    expect_output env LD_LIBRARY_PATH="$loader" OPENCL_LAYER_PATH="$p/etc/OpenCL/layers" "$p/bin/isg-demo" \
      -- '^PASS: matches the host reference'
    # Without the registration the Khronos loader has no layer: what enabled it was the .lay.
    out=$(env LD_LIBRARY_PATH="$loader" OPENCL_LAYER_PATH="$work/none" clinfo 2>&1) || fail "clinfo without layers"
    ! grep -Eq "$intel_extensions" <<<"$out" || fail "PoCL advertises cl_intel_subgroups by itself"
    ;;
  destdir)
    stage_dir="$work/stage"
    DESTDIR="$stage_dir" cmake --install "$build" --prefix /usr > "$work/install.log"
    expect_file "$stage_dir/usr/$libdir/libIntelSubgroupsLayer.so"
    [ "$spirv" = 0 ] || expect_file "$stage_dir/usr/$libdir/intel-subgroups-layer/libIntelSubgroupsSpirv.so"
    expect_file "$stage_dir/usr/$libdir/intel-subgroups-layer/libIntelSubgroupsRewriter.so"
    expect_file "$stage_dir/etc/OpenCL/layers/intel-subgroups-layer.lay"
    [ "$(cat "$stage_dir/etc/OpenCL/layers/intel-subgroups-layer.lay")" = "/usr/$libdir/libIntelSubgroupsLayer.so" ] ||
      fail "the staged registration names '$(cat "$stage_dir/etc/OpenCL/layers/intel-subgroups-layer.lay")'"
    ! grep -q "$stage_dir" "$stage_dir/etc/OpenCL/layers/intel-subgroups-layer.lay" || fail "DESTDIR leaked into the .lay"
    # Everything went under DESTDIR.
    outside=$(find "$stage_dir" -mindepth 1 -maxdepth 1 -printf '%f\n' | grep -Ev '^(usr|etc)$' || true)
    [ -z "$outside" ] || fail "unexpected top-level folders in the staging: $outside"
    # A consumer's CMake finds the installed layer and its version.
    prefix="$work/prefix"
    cmake --install "$build" --prefix "$prefix" > "$work/install-prefix.log"
    mkdir -p "$work/consumer"
    cat > "$work/consumer/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.20)
project(consumer LANGUAGES CXX)  # a language: find_package searches lib/<triplet> only then
find_package(IntelSubgroupsLayer $version EXACT REQUIRED)
file(GENERATE OUTPUT found.txt CONTENT "\$<TARGET_FILE:IntelSubgroupsLayer::IntelSubgroupsLayer> \${IntelSubgroupsLayer_VERSION} \$<TARGET_FILE:IntelSubgroupsLayer::isg-replay>\n")
EOF
    cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$prefix" > "$work/consumer.log" 2>&1 ||
      fail "find_package(IntelSubgroupsLayer $version) failed: $(tail -20 "$work/consumer.log")"
    [ "$(cat "$work/consumer/build/found.txt")" = "$prefix/$libdir/libIntelSubgroupsLayer.so $version $prefix/bin/isg-replay" ] ||
      fail "find_package found: $(cat "$work/consumer/build/found.txt")"
    # ... and refuses another version.
    sed -i "s/$version EXACT/99.0 EXACT/" "$work/consumer/CMakeLists.txt"
    ! cmake -S "$work/consumer" -B "$work/consumer/build2" -DCMAKE_PREFIX_PATH="$prefix" > "$work/consumer2.log" 2>&1 ||
      fail "find_package(IntelSubgroupsLayer 99.0) accepted version $version"
    ;;
  package)
    (cd "$work" && cpack --config "$build/CPackConfig.cmake" -B "$work/packages" > "$work/cpack.log" 2>&1) ||
      fail "cpack: $(tail -20 "$work/cpack.log")"
    debarch=$(dpkg --print-architecture)
    main="$work/packages/intel-subgroups-layer_${version}_${debarch}.deb"
    spirv_deb="$work/packages/intel-subgroups-layer-spirv_${version}_${debarch}.deb"
    expect_file "$main"
    if [ "$spirv" = 1 ]; then expect_file "$spirv_deb"; else [ ! -e "$spirv_deb" ] || fail "a SPIR-V package without the bridge"; fi
    dpkg-deb -c "$main" > "$work/main.list"
    for f in "./usr/$libdir/libIntelSubgroupsLayer.so" ./etc/OpenCL/layers/intel-subgroups-layer.lay \
             "./usr/$libdir/intel-subgroups-layer/libIntelSubgroupsRewriter.so" \
             ./usr/bin/isg-replay ./usr/bin/isg-rewrite ./usr/bin/isg-binary ./usr/bin/isg-demo \
             ./usr/share/doc/intel-subgroups-layer/README.md ./usr/share/doc/intel-subgroups-layer/install.md \
             "./usr/$libdir/cmake/IntelSubgroupsLayer/IntelSubgroupsLayerConfigVersion.cmake"; do
      grep -q " $f\$" "$work/main.list" || fail "$main lacks $f"
    done
    ! grep -q "libIntelSubgroupsSpirv" "$work/main.list" || fail "the bridge is in the main package"
    if [ "$spirv" = 1 ]; then
      grep -q " ./usr/$libdir/intel-subgroups-layer/libIntelSubgroupsSpirv.so\$" <<<"$(dpkg-deb -c "$spirv_deb")" ||
        fail "$spirv_deb lacks the bridge"
    fi
    [ "$(dpkg-deb -f "$main" Package)" = intel-subgroups-layer ] || fail "package name"
    [ "$(dpkg-deb -f "$main" Version)" = "$version" ] || fail "package version"
    depends=$(dpkg-deb -f "$main" Depends)
    # (LLVM 15 also brings libtinfo6, LLVM 19 libzstd1: what the build's LLVM was configured with.)
    for d in libc6 libstdc++6 zlib1g; do
      grep -q "\b$d\b" <<<"$depends" || fail "Depends lacks $d: $depends"
    done
    ! grep -Eqi 'llvm|clang|spirv' <<<"$depends" || fail "the layer depends on Clang/LLVM at run time: $depends"
    # Its front end for NVIDIA links libclc; each library once, at the strictest version.
    grep -q "\b$libclc\b" <<<"$depends" || fail "Depends lacks $libclc (the front end's library): $depends"
    [ "$(grep -o 'ocl-icd-libopencl1' <<<"$depends" | wc -l)" -le 1 ] || fail "Depends repeats ocl-icd-libopencl1: $depends"
    debs=("$main")
    [ "$spirv" = 0 ] || debs+=("$spirv_deb")
    for deb in "${debs[@]}"; do
      name=$(dpkg-deb -f "$deb" Package)
      listing=$(dpkg-deb -c "$deb")
      for f in copyright changelog.gz; do
        grep -q " ./usr/share/doc/$name/$f\$" <<<"$listing" || fail "$deb lacks /usr/share/doc/$name/$f (Debian policy)"
      done
    done
    if [ "$spirv" = 1 ]; then
      grep -q "intel-subgroups-layer-spirv" <<<"$(dpkg-deb -f "$main" Recommends)" || fail "Recommends lacks the SPIR-V package"
      sdepends=$(dpkg-deb -f "$spirv_deb" Depends)
      for d in "intel-subgroups-layer (= $version)" "libllvm$llvm" "libllvmspirvlib$llvm" "$libclc"; do
        grep -qF "$d" <<<"$sdepends" || fail "the SPIR-V package's Depends lacks $d: $sdepends"
      done
    else
      ! grep -q "intel-subgroups-layer-spirv" <<<"$(dpkg-deb -f "$main" Recommends)" ||
        fail "Recommends names a SPIR-V package this build does not make"
    fi
    grep -qx /etc/OpenCL/layers/intel-subgroups-layer.lay <<<"$(dpkg-deb --ctrl-tarfile "$main" | tar -xO ./conffiles)" ||
      fail "the registration is not a conffile"
    # The layer out of the package: registered for /usr, stripped, and it works.
    dpkg-deb -x "$main" "$work/root"
    [ "$spirv" = 0 ] || dpkg-deb -x "$spirv_deb" "$work/root"
    [ "$(cat "$work/root/etc/OpenCL/layers/intel-subgroups-layer.lay")" = "/usr/$libdir/libIntelSubgroupsLayer.so" ] ||
      fail "the package's registration names '$(cat "$work/root/etc/OpenCL/layers/intel-subgroups-layer.lay")'"
    layer="$work/root/usr/$libdir/libIntelSubgroupsLayer.so"
    ! grep -q "not stripped" <<<"$(file "$layer")" || fail "the packaged layer is not stripped"
    expect_output env OPENCL_LAYERS="$layer" clinfo -- "$intel_extensions" "$spirv_seen"
    bridge_absent "$layer"
    changelog=$(zcat "$work/root/usr/share/doc/intel-subgroups-layer/changelog.gz")
    grep -q "^intel-subgroups-layer ($version) " <<<"${changelog%%$'\n'*}" ||
      fail "the changelog's first entry is not version $version"
    # The front end for NVIDIA, as installed, finds libclc (which the package depends on): PTX.
    printf 'kernel void k(global int* o) { o[get_global_id(0)] = intel_sub_group_shuffle(o[0], 1); }\n' > "$work/k.cl"
    expect_output "$work/root/usr/bin/isg-rewrite" --strategy nvidia-ptx --module-output ptx "$work/k.cl" -- '^\.entry k\('
    ;;
  *)
    echo "usage: $0 prefix|destdir|package BUILD SRC" >&2
    exit 2
    ;;
esac
echo "PASS: install $stage"
