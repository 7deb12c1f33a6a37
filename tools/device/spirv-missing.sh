#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# spirv-missing.sh CACHE OUT: packs the programs a SPIR-V run recorded in CACHE without a module
# (KEY.cl, KEY.options; tests/common/spirv_cache.h) into OUT/spirv-missing.tar.gz, one file
# because the device tool brings back few; compile them on the development machine with
# build/tests/isg_fill_spirv_cache. Prints how many there were.
set -uo pipefail
cache=$1 out=$2
missing=()
for cl in "$cache"/*.cl; do
  [ -e "$cl" ] || continue
  key=${cl%.cl}
  [ -e "$key.spv" ] || missing+=("$(basename "$key").cl" "$(basename "$key").options")
done
[ ${#missing[@]} -eq 0 ] || tar -C "$cache" -czf "$out/spirv-missing.tar.gz" "${missing[@]}"
echo "programs without a module: $(( ${#missing[@]} / 2 ))"
