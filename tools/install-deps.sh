#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian 12 packages the project builds and tests with (DEVELOPERS.md lists why
# each is needed). Idempotent: does nothing when everything is already there.
set -euo pipefail
packages=(cmake g++ make python3 python3-pip python3-venv opencl-headers ocl-icd-opencl-dev pocl-opencl-icd clang-15
          libclang-15-dev llvm-15-dev libclang-common-15-dev libllvmspirvlib-15-dev llvm-spirv-15 spirv-tools
          libclc-15
          libgtest-dev clinfo libclblast-dev dpkg-dev file zlib1g-dev libtinfo-dev libzstd-dev libedit-dev libxml2-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# Intel's OpenCL CPU runtime from PyPI, the reference driver of tests/native (per user, cached).
"$(dirname "${BASH_SOURCE[0]}")/intel-runtime.sh" install
# OpenVINO from PyPI, whose GPU plugin the openvino.* tests run through the layer (cached).
"$(dirname "${BASH_SOURCE[0]}")/openvino.sh" install
