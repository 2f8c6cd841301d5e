#!/usr/bin/env bash
# The main job on a real server: installs what is missing, builds, then puts mcp-warden in front of
# the reference server @modelcontextprotocol/server-everything, drives it with the official SDK
# client, and shows what mcp-warden confirmed about the server.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh
./scripts/build.sh >/dev/null
exec node examples/demo/wrap-everything.mjs build/app/mcp-warden
