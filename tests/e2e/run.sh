#!/usr/bin/env bash
# End-to-end tests of the stdio proxy against real MCP peers (tests/peers).
# Usage: MCP_WARDEN_BIN=build/app/mcp-warden tests/e2e/run.sh [SUITE.test.mjs...] [node --test args]
# Before the C++ binary exists: MCP_WARDEN_BIN=tests/e2e/support/passthrough-relay.mjs
# (proxy-specific tests are expected to fail against that stand-in).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
if [[ -z "${MCP_WARDEN_BIN:-}" ]]; then
  echo "run.sh: MCP_WARDEN_BIN must point at the mcp-warden binary under test" >&2
  exit 2
fi
if [[ ! -e "$MCP_WARDEN_BIN" ]]; then
  echo "run.sh: MCP_WARDEN_BIN=$MCP_WARDEN_BIN does not exist" >&2
  exit 2
fi
if [[ ! -d tests/peers/node_modules/@modelcontextprotocol/server-everything ]]; then
  echo "run.sh: test peers missing: run 'npm ci --prefix tests/peers'" >&2
  exit 2
fi
MCP_WARDEN_BIN="$(realpath "$MCP_WARDEN_BIN")"
export MCP_WARDEN_BIN
# Arguments ending in .mjs pick the suites (default: all of them); the others go to node --test.
files=() options=()
for arg in "$@"; do
  if [[ $arg == *.mjs ]]; then files+=("$arg"); else options+=("$arg"); fi
done
((${#files[@]})) || files=(tests/e2e/*.test.mjs)
exec node --test --test-concurrency=2 "${options[@]}" "${files[@]}"
