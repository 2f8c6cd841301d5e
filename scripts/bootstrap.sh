#!/usr/bin/env bash
# Installs what mcp-warden needs on Debian 12, only what is missing: build tools and libraries
# from Debian, and the pinned npm test peers (tests/peers/package-lock.json).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ninja-build ccache pkg-config git
          rsyslog rsyslog-openssl    # a real syslog receiver for tests/e2e/audit-syslog.test.mjs (own daemon, own config)
          libboost1.81-dev libboost-url1.81-dev nlohmann-json3-dev libssl-dev libspdlog-dev doctest-dev
          libicu-dev libre2-dev libcli11-dev libtomlplusplus-dev libgoogle-perftools-dev nodejs npm chromium python3
          clang libclang-rt-14-dev   # clang + libFuzzer for the fuzz stage
          clang-format               # scripts/format.sh (.clang-format)
          prometheus)                # scrapes --metrics-listen in tests/e2e/metrics.test.mjs
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node may come from elsewhere than Debian (it does on our machines): do not fight it.
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
fi
read -r -a missing <<<"${missing[*]}"
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -d tests/peers/node_modules ] || [ tests/peers/package-lock.json -nt tests/peers/node_modules/.package-lock.json ]; then
  echo "bootstrap: installing pinned MCP peers (npm ci)"
  (cd tests/peers && npm ci --no-audit --no-fund --loglevel=error)
fi
