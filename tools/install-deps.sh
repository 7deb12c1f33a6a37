#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian 12 packages the project builds and tests with (DEVELOPERS.md lists why
# each is needed). Idempotent: does nothing when everything is already there.
#   ISG_LLVM_VERSION=19 tools/install-deps.sh   # LLVM/Clang 19 instead of the distribution's
#                                               # (15 on Debian 12; docs/install.md); the build
#                                               # then takes -DISG_LLVM_VERSION=19
set -euo pipefail
# The distribution's LLVM (what its llvm-dev package depends on: 19 on Debian 13, 18 on Ubuntu
# 24.04) where the layer builds with it; else 15 (Debian 12's default, 14, is too old).
distro=$(apt-cache depends llvm-dev 2>/dev/null | sed -n 's/^ *Depends: llvm-\([0-9][0-9]*\)-dev$/\1/p' | head -n 1)
case "$distro" in 15|16|17|18|19) ;; *) distro=15;; esac
v=${ISG_LLVM_VERSION:-$distro}
case "$v" in 15|16|17|18|19) ;; *) echo "ISG_LLVM_VERSION=$v: the layer builds against LLVM 15 to 19" >&2; exit 2;; esac
packages=(cmake g++ make python3 python3-pip python3-venv opencl-headers ocl-icd-opencl-dev pocl-opencl-icd
          clang-$v libclang-$v-dev llvm-$v-dev libclang-common-$v-dev spirv-tools
          libgtest-dev clinfo libclblast-dev dpkg-dev file zlib1g-dev libtinfo-dev libzstd-dev libedit-dev libxml2-dev)
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
updated=""
update_once() { [ -n "$updated" ] || { $sudo apt-get update -qq; updated=1; }; }
available() { [ -n "$(apt-cache show "$1" 2>/dev/null | head -n 1)" ]; }
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
# Split out of libclang-common in 16 (Clang's CodeGen links it); SPIRV-LLVM-Translator where the
# distribution has it for this version (Debian 12: 15 only), else the build leaves SPIR-V out.
# (Which packages exist is read from apt's lists: refreshed first where they lack this LLVM.)
if [ "$v" = 15 ]; then
  packages+=(libllvmspirvlib-15-dev llvm-spirv-15)
else
  available "llvm-$v-dev" || update_once
  for p in libpolly-$v-dev libllvmspirvlib-$v-dev llvm-spirv-$v; do
    if available "$p"; then packages+=("$p"); fi
  done
fi
# libclc: the packages of each version conflict with each other; one of this or an older LLVM
# serves (a later LLVM reads older bitcode), so an installed one stays.
clc=""
for n in $(seq 15 "$v"); do
  if installed "libclc-$n"; then clc="libclc-$n"; fi
done
packages+=("${clc:-libclc-$v}")
missing=()
for p in "${packages[@]}"; do
  installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  update_once
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# Intel's OpenCL CPU runtime from PyPI, the reference driver of tests/native (per user, cached).
"$(dirname "${BASH_SOURCE[0]}")/intel-runtime.sh" install
# OpenVINO from PyPI, whose GPU plugin the openvino.* tests run through the layer (cached).
"$(dirname "${BASH_SOURCE[0]}")/openvino.sh" install
