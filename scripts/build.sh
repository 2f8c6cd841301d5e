#!/usr/bin/env bash
# Configures and builds mcp-warden into build/ (Ninja, ccache when present).
# Extra arguments go to cmake, e.g. -DWARDEN_WERROR=ON or -DWARDEN_SANITIZE=address,undefined.
# WARDEN_BUILD_DIR picks the build folder, WARDEN_JOBS the parallelism, WARDEN_TARGETS a subset.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${WARDEN_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja "$@" >/dev/null
targets=()
[[ -n "${WARDEN_TARGETS:-}" ]] && targets=(--target ${WARDEN_TARGETS})
cmake --build "$build_dir" -j "${WARDEN_JOBS:-$(nproc)}" "${targets[@]}"
