#!/bin/sh
# SPDX-License-Identifier: MIT
# Every program all_builtins_sources writes (every builtin x type of the table, both arities of
# the barrier and of block IO, a prototype of a builtin, S = 8, 16, 32, 64), rewritten by
# isg-rewrite for each strategy, must compile with clang-15 under every OpenCL C version and the
# option sets real projects pass, with -pedantic-errors -Werror: NVIDIA's OpenCL C front end
# rejects what clang only calls an extension (variadic macros before OpenCL C 3.0), so a library
# that needs an extension fails this test before it fails on a GPU.
#   strict_compile.sh ISG_REWRITE SOURCES_TOOL CLANG WORKDIR SIZES
# SIZES: the sub-group sizes to rewrite for ("16" in the quick suite, "8 32 64" in the full
# matrices); khr takes each of them, local and nvidia-ptx those up to 32.
set -eu
rewrite=$1
sources=$2
clang=$3
dir=$4
sizes=$5
mkdir -p "$dir"
"$sources" "$dir"
khr_base='+cl_khr_subgroups,+cl_khr_subgroup_shuffle,+cl_khr_subgroup_shuffle_relative'
khr_full="$khr_base,+cl_khr_subgroup_clustered_reduce,+cl_khr_subgroup_extended_types"
khr_minimal="$khr_base,-cl_khr_subgroup_clustered_reduce,-cl_khr_subgroup_extended_types"
status=0
checked=0
compile() {  # strategy S std target ext options...
  strategy=$1 S=$2 std=$3 target=$4 ext=$5
  shift 5
  out="$dir/$strategy.S$S.$std.cl"
  opts="$dir/$strategy.S$S.$std.options"
  extra=
  # The functions of the active work-items (builtins.def, nonuniform): nvidia-ptx declares them.
  [ "$strategy" = nvidia-ptx ] && extra="--nv-sm 90 -DISG_TEST_ACTIVE_SET=1"
  # shellcheck disable=SC2086
  if ! "$rewrite" --strategy "$strategy" --sub-group-size "$S" --fp16 --fp64 $extra \
      --driver-options "$opts" -cl-std="$std" "$@" "$dir/all_S$S.cl" > "$out"; then
    echo "FAILED to rewrite: $strategy S=$S -cl-std=$std $*"
    status=1
    return
  fi
  images=
  [ "$target" = spir64 ] || images=-D__IMAGE_SUPPORT__=1
  # shellcheck disable=SC2046
  if ! "$clang" $images -x cl -cl-std="$std" -target "$target" -Xclang -cl-ext="$ext" -Xclang \
      -finclude-default-header -fsyntax-only -pedantic-errors -Werror \
      -Wno-unused-command-line-argument $(cat "$opts") "$out"; then
    echo "FAILED: $strategy S=$S -cl-std=$std -cl-ext=$ext $* ($out)"
    status=1
  fi
  checked=$((checked + 1))
}
for S in $sizes; do
  [ "$S" -le 32 ] || continue
  for std in CL1.2 CL2.0 CL3.0; do
    for strategy in local nvidia-ptx; do
      target=spir64
      ext="+cl_khr_fp16,+cl_khr_fp64"
      # NVIDIA's driver has images and says so (__IMAGE_SUPPORT__); clang's nvptx target does not.
      [ "$strategy" = nvidia-ptx ] && target=nvptx64-nvidia-nvcl ext="$ext,+__opencl_c_images"
      compile "$strategy" "$S" "$std" "$target" "$ext"
      # What real projects pass (ggml, oneDNN, OpenVINO, OpenCV): math flags, -D, -Werror, -w.
      for set in "-cl-mad-enable -cl-fast-relaxed-math -Werror" \
                 "-cl-finite-math-only -cl-denorms-are-zero -DUSER_MACRO=3" \
                 "-w -cl-unsafe-math-optimizations"; do
        # shellcheck disable=SC2086
        compile "$strategy" "$S" "$std" "$target" "$ext" $set
      done
    done
  done
done
# khr: cl_khr_subgroups needs OpenCL C 2.0 or later.
for S in $sizes; do
  for variant in "CL3.0 $khr_full,+__opencl_c_subgroups" "CL3.0 $khr_minimal,+__opencl_c_subgroups" \
                 "CL2.0 $khr_full" "CL2.0 $khr_minimal"; do
    compile khr "$S" "${variant%% *}" spir64 "${variant#* },+cl_khr_fp16,+cl_khr_fp64"
    compile khr "$S" "${variant%% *}" spir64 "${variant#* },+cl_khr_fp16,+cl_khr_fp64" -cl-fast-relaxed-math -Werror
  done
done
echo "strict_compile: $checked rewritten programs compiled"
exit $status
