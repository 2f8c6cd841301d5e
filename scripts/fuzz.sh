#!/usr/bin/env bash
# Builds the libFuzzer targets with clang + ASan/UBSan into build-fuzz/ and runs each one for
# SECONDS (default 30) from the seed corpus in tests/fuzz/seeds/<target>. A crash fails the run
# and leaves its input in build-fuzz/crashes/ (turn it into a regression test). So does an input
# that takes over 10 s (libFuzzer's default allows 20 minutes): untrusted text must be handled in
# linear time, and the slowest 64 KiB input takes well under a second under ASan.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DWARDEN_FUZZ=ON -DWARDEN_TESTS=OFF \
  -DWARDEN_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DWARDEN_BENCH=OFF >/dev/null
targets=$(cd tests/fuzz && ls fuzz_*.cpp | sed 's/\.cpp$//')
cmake --build build-fuzz -j "${WARDEN_JOBS:-$(nproc)}" --target $targets
mkdir -p build-fuzz/crashes
for t in $targets; do
  work=build-fuzz/corpus/${t#fuzz_}
  mkdir -p "$work"
  seeds=tests/fuzz/seeds/${t#fuzz_}
  echo "fuzz: $t for ${seconds}s"
  UBSAN_OPTIONS=halt_on_error=1 ./build-fuzz/tests/fuzz/$t -max_total_time="$seconds" -max_len=65536 -timeout=10 \
    -artifact_prefix=build-fuzz/crashes/$t- -print_final_stats=1 "$work" ${seeds:+$([ -d "$seeds" ] && echo "$seeds")} \
    2>&1 | grep -E "^(#[0-9]+ *DONE|stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY)" || true
  if ls build-fuzz/crashes/$t-* >/dev/null 2>&1; then
    echo "fuzz: $t found a crash: $(ls build-fuzz/crashes/$t-*)" >&2
    exit 1
  fi
done
echo "fuzz: all targets ran ${seconds}s without a crash"
