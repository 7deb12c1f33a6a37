#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Prints the per-user folder where tools/intel-runtime.sh and tools/openvino.sh keep what they
# fetch from PyPI (ISG_CACHE_DIR overrides it). Without a home (CI containers, service accounts)
# it is the checkout's own .cache.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
home_cache=${XDG_CACHE_HOME:-${HOME:+$HOME/.cache}}
if [ -n "$home_cache" ] && { mkdir -p "$home_cache" 2>/dev/null && [ -w "$home_cache" ]; }; then
  echo "${ISG_CACHE_DIR:-$home_cache/intel-subgroups-layer}"
else
  echo "${ISG_CACHE_DIR:-$root/.cache/intel-subgroups-layer}"
fi
