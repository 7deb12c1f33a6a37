#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# OpenVINO from PyPI, whose GPU plugin the openvino.* tests run through the layer on PoCL
# (docs/openvino.md) against its own CPU plugin. Pinned here and nowhere else; a virtual
# environment in the per-user cache (tools/cache-dir.sh), no system-wide change.
#   tools/openvino.sh install   # idempotent; prints nothing when it is already there
#   tools/openvino.sh python    # the environment's interpreter (exit 1 when missing)
set -euo pipefail
packages=("openvino==2026.4.0" "numpy<2.5")
dir="$("$(dirname "${BASH_SOURCE[0]}")/cache-dir.sh")/openvino-2026.4.0"

installed() { [ -f "$dir/.complete" ] && [ -x "$dir/bin/python" ]; }

case "${1:-}" in
  python)
    installed || { echo "OpenVINO is not installed: tools/openvino.sh install" >&2; exit 1; }
    echo "$dir/bin/python"
    ;;
  install)
    installed && exit 0
    echo "installing ${packages[*]} into $dir"
    rm -rf "$dir"
    python3 -m venv "$dir"
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: "${packages[@]}"
    touch "$dir/.complete"
    ;;
  *)
    echo "usage: $0 install|python" >&2
    exit 2
    ;;
esac
