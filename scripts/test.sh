#!/usr/bin/env bash
# The test command: installs what is missing, builds with warnings as errors, runs every test
# (unit tests, end-to-end suites against real MCP peers) through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh
./scripts/build.sh -DWARDEN_WERROR=ON
cd "${WARDEN_BUILD_DIR:-build}"
ctest --output-on-failure --timeout 900 "$@"
