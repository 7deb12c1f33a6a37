#!/bin/sh
# SPDX-License-Identifier: MIT
# Every program khr_sources writes (every builtin x type of the table, S = 8, 16, 32, 64),
# rewritten by `isg-rewrite --strategy khr`, must compile with clang-15 for spir64 with the khr
# extensions: OpenCL C 3.0 with all of them, 3.0 without the optional clustered reduce and
# extended types (the library's shuffle-only paths), and 2.0 with the extensions (cl_khr_subgroups
# needs 2.0; the 1.2 paths run on PoCL through the khr test double).
#   khr_clang_compile.sh ISG_REWRITE KHR_SOURCES CLANG WORKDIR
set -eu
rewrite=$1
sources=$2
clang=$3
dir=$4
mkdir -p "$dir"
"$sources" "$dir"
base='+cl_khr_subgroups,+cl_khr_subgroup_shuffle,+cl_khr_subgroup_shuffle_relative'
full="$base,+cl_khr_subgroup_clustered_reduce,+cl_khr_subgroup_extended_types"
minimal="$base,-cl_khr_subgroup_clustered_reduce,-cl_khr_subgroup_extended_types"
status=0
for S in 8 16 32 64; do
  in="$dir/khr_all_S$S.cl"
  out="$dir/khr_all_S$S.rewritten.cl"
  "$rewrite" --strategy khr --sub-group-size "$S" --fp16 --fp64 "$in" > "$out"
  for variant in "CL3.0 $full,+__opencl_c_subgroups" "CL3.0 $minimal,+__opencl_c_subgroups" \
                 "CL2.0 $full"; do
    std=${variant%% *}
    ext=${variant#* }
    if ! "$clang" -x cl -cl-std="$std" -target spir64 -Xclang -cl-ext="$ext" -Xclang \
        -finclude-default-header -fsyntax-only -Werror "$out"; then
      echo "FAILED: S=$S -cl-std=$std -cl-ext=$ext ($out)"
      status=1
    fi
  done
done
exit $status
