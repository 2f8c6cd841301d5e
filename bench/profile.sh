#!/usr/bin/env bash
# Where a relayed call's time goes, per thread of mcp-warden, under pipelined echo traffic:
#   bench/profile.sh [passthrough|full] [--seconds N] [--no-build] [--build-dir DIR]
# Builds Release with frame pointers into build-prof/ (so that perf can walk the stacks through
# mcp-warden's own code without DWARF unwinding), drives small echo calls with a window of 64,
# and prints for each thread its CPU (task-clock), its context switches and where its samples
# fall: inclusive, so that the kernel's wake-up and switch paths show next to the code that ran
# into them. Needs `perf` (Debian: linux-perf) and the right to profile one's own processes
# (kernel.perf_event_paranoid <= 2). Not a timed test: the figures are for docs/benchmarks.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

path=full seconds=3 build=1
build_dir=${WARDEN_BUILD_DIR:-build-prof}
while [[ $# -gt 0 ]]; do
  case "$1" in
    passthrough|full) path=$1 ;;
    --seconds) seconds=$2; shift ;;
    --no-build) build=0 ;;
    --build-dir) build_dir=$2; shift ;;
    *) echo "profile.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
command -v perf >/dev/null || { echo "profile.sh: perf is not installed (apt-get install linux-perf)" >&2; exit 1; }
[[ $build_dir = /* ]] || build_dir=$root/$build_dir

if [[ $build == 1 ]]; then
  WARDEN_BUILD_DIR=$build_dir WARDEN_TARGETS="mcp-warden bench_echo_server bench_load_generator" ./scripts/build.sh \
    -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS=-g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
fi
warden=$build_dir/app/mcp-warden
work=$(mktemp -d)
load=""
trap '[[ -n $load ]] && kill "$load" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"' EXIT

args=(--log-level warn)
[[ $path == full ]] && args+=(--mode enforce --audit-log "$work/audit.jsonl")
# More calls than the profile lasts; the load generator is stopped when it is done.
"$build_dir/bench/bench_load_generator" --mode throughput --calls 100000000 --warmup 500 --window 64 -- \
  "$warden" "${args[@]}" -- "$build_dir/bench/bench_echo_server" >"$work/load.txt" 2>&1 &
load=$!
for _ in $(seq 50); do
  pid=$(pgrep -n -P "$load" -f "^$warden" || true)
  [[ -n $pid ]] && break
  sleep 0.1
done
[[ -n $pid ]] || { echo "profile.sh: mcp-warden did not start" >&2; cat "$work/load.txt" >&2; exit 1; }
sleep 1  # past start-up and warm-up

echo "== $path path, pipelined small echo calls, ${seconds}s; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
perf stat --per-thread -e task-clock,context-switches -p "$pid" -- sleep "$seconds" 2>&1 |
  awk '/task-clock|context-switches/ && $2 + 0 > 0 { printf "  %-26s %12s %s\n", $1, $2, $3 == "msec" ? "ms CPU" : "switches" }'
perf record -q --call-graph fp -F 2000 -p "$pid" -o "$work/perf.data" -- sleep "$seconds" >/dev/null 2>&1
kill "$load" 2>/dev/null || true

# Threads by share of the samples, then each thread's heaviest entries (inclusive).
threads() { perf report -i "$work/perf.data"  --no-children --sort comm --stdio -g none 2>/dev/null | awk '/^ +[0-9.]+%/'; }
threads | awk '{ print "  thread " $2 ": " $1 " of the samples" }'
for comm in $(threads | awk '{ print $2 }'); do
  echo "== $comm: inclusive share of all samples (top 30)"
  perf report -i "$work/perf.data" --comms "$comm" --children --sort sym --stdio -g none --percent-limit 1.5 2>/dev/null |
    awk '/%/ && !/\[\.\] 0x/' | head -30 | cut -c1-150
done
