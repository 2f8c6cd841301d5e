#!/usr/bin/env bash
# Reproduces every benchmark of docs/benchmarks.md with one command:
#   bench/run.sh            full run (~15 min on 2 cores): builds Release into build-bench/,
#                           measures, writes docs/benchmarks.md and docs/benchmarks/*.svg
#   bench/run.sh --smoke    every case with tiny counts (seconds), results to a temp dir only;
#                           registered as the ctest test bench_smoke so that this code cannot rot
#   bench/run.sh --only http   just the HTTP fronts (mcp-warden serve, supergateway, mcp-proxy at
#                           1, 8 and 64 sessions; 3-5 min); rewrites only that part of the doc
# Options: --no-build, --build-dir DIR, --reps N (interleaved repetitions, medians reported),
#          --out-dir DIR (raw results; default build-dir/bench-results), --no-callgrind, --no-doc,
#          --only stdio|http.
# Each case runs in the same invocation as its baseline (direct, C relay): compare ratios, not
# absolute figures, as the machine is shared.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

smoke=0 build=1 callgrind=1 doc=1 reps=3 only=""
build_dir=${WARDEN_BUILD_DIR:-build-bench}
out_dir=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --smoke) smoke=1 ;;
    --no-build) build=0 ;;
    --build-dir) build_dir=$2; shift ;;
    --reps) reps=$2; shift ;;
    --out-dir) out_dir=$2; shift ;;
    --no-callgrind) callgrind=0 ;;
    --no-doc) doc=0 ;;
    --only) only=$2; shift ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[[ $build_dir = /* ]] || build_dir=$root/$build_dir
case "$only" in ""|stdio|http) ;; *) echo "run.sh: --only takes stdio or http" >&2; exit 2 ;; esac
want() { [[ -z $only || $only == "$1" ]]; }

if [[ $build == 1 ]]; then
  WARDEN_BUILD_DIR=$build_dir ./scripts/build.sh -DCMAKE_BUILD_TYPE=Release
  cmake --build "$build_dir" --target bench_tools -j "${WARDEN_JOBS:-$(nproc)}"
fi

lg=$build_dir/bench/bench_load_generator
echo_server=$build_dir/bench/bench_echo_server
c_relay=$build_dir/bench/bench_c_relay
warden=$build_dir/app/mcp-warden
node_relay=(node "$root/bench/node_relay.mjs" --)
peers=$root/tests/peers/node_modules
everything_js=$peers/@modelcontextprotocol/server-everything/dist/index.js
supergateway_js=$peers/supergateway/dist/index.js
mcp_proxy_js=$peers/mcp-proxy/dist/bin/mcp-proxy.mjs
for tool in "$lg" "$echo_server" "$c_relay" "$warden"; do
  [[ -x $tool ]] || { echo "run.sh: missing $tool (build first)" >&2; exit 1; }
done
have_node=0; command -v node >/dev/null && have_node=1
have_everything=0; [[ $have_node == 1 && -f $everything_js ]] && have_everything=1
have_valgrind=0; command -v valgrind >/dev/null && have_valgrind=1
have_supergateway=0; [[ $have_node == 1 && -f $supergateway_js ]] && have_supergateway=1
have_mcp_proxy=0; [[ $have_node == 1 && -f $mcp_proxy_js ]] && have_mcp_proxy=1

if [[ $smoke == 1 ]]; then
  reps=1 lat_n=50 tp_n=500 ev_n=20 warm=10 startup_k=2 callgrind_n=50 doc=0
  big_n=(20 5 2)
  http_n=64 http_warm=2 http_sessions=(1 8 64) http_peer_sessions=(8)
  if [[ -z $out_dir ]]; then
    out_dir=$(mktemp -d)
    # A directory of its own: removed when the smoke run passes, kept for a look when it fails.
    trap 'rc=$?; [[ $rc == 0 ]] && rm -rf "$out_dir"; exit $rc' EXIT
  fi
else
  lat_n=5000 tp_n=200000 ev_n=2000 warm=500 startup_k=20 callgrind_n=2000
  big_n=(2000 500 10)
  http_n=12800 http_warm=1280 http_sessions=(1 8 64) http_peer_sessions=(1 8 64)
  [[ -n $out_dir ]] || out_dir=$build_dir/bench-results
fi
mkdir -p "$out_dir"
results=$out_dir/results.txt
: >"$results"

# mcp-warden in its two passthrough configurations (info logging off: it goes to /dev/null anyway).
warden_noenum=("$warden" --log-level warn --no-enumerate --)
warden_default=("$warden" --log-level warn --)
# The full path: built-in policy enforced, result scanning, hash-chained audit log (when built).
warden_full=()
# (Not `| grep -q`: grep exits at the first match, the help writer gets SIGPIPE, and pipefail
# then dropped these cases at random.)
if [[ $("$warden" --help 2>/dev/null) == *--audit-log* ]]; then
  warden_full=("$warden" --log-level warn --mode enforce --audit-log "$out_dir/audit.jsonl" --)
fi

# audit_complete CASE CALLS: a full-path figure counts only if every call was recorded (the audit
# writer slows the relay rather than drop records; this checks it).
audit_complete() {
  local got dropped
  got=$(cat "$out_dir"/audit.jsonl* | grep -c '"event":"call"' || true)
  dropped=$(cat "$out_dir"/audit.jsonl* | grep -c '"event":"records_dropped"' || true)
  if [[ $got -ne $2 || $dropped -ne 0 ]]; then
    echo "run.sh: case $1: the audit log holds $got call records for $2 calls ($dropped records_dropped)" >&2
    exit 1
  fi
}

# run CASE LOADGEN-ARGS... -- COMMAND...: one measurement, appended to results.txt.
run() {
  local name=$1; shift
  local line
  if ! line=$("$lg" --label "$name" "$@"); then
    echo "run.sh: case $name failed: $line" >&2
    exit 1
  fi
  echo "case=$name rep=$rep $line" >>"$results"
  echo "  $name: $line"
}

echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); results in $out_dir"
if want stdio; then
# The small-echo paths, in the order of the first repetition. Each repetition starts one path
# further on, so that no path always follows the same one (a fixed order gave the path after the
# Node relay a slower start on this VM, run after run).
echo_paths=(direct c_relay)
[[ $have_node == 1 ]] && echo_paths+=(node_relay)
echo_paths+=(warden_noenum warden)
[[ ${#warden_full[@]} -gt 0 ]] && echo_paths+=(warden_full)

# run_echo PATH MODE CALLS LOADGEN-ARGS...: the bench echo server through PATH.
run_echo() {
  local path=$1 mode=$2 calls=$3; shift 3
  local cmd=()
  case $path in
    direct) cmd=() ;;
    c_relay) cmd=("$c_relay" --) ;;
    node_relay) cmd=("${node_relay[@]}") ;;
    warden_noenum) cmd=("${warden_noenum[@]}") ;;
    warden) cmd=("${warden_default[@]}") ;;
    warden_full) cmd=("${warden_full[@]}"); rm -f "$out_dir"/audit.jsonl* ;;
  esac
  run "echo.$mode.$path" "$@" -- "${cmd[@]}" "$echo_server"
  [[ $path != warden_full ]] || audit_complete "echo.$mode.warden_full" "$calls"
}

for rep in $(seq 1 "$reps"); do
  echo "== repetition $rep/$reps"
  # Small echo calls, one at a time (added latency) and pipelined (throughput).
  for mode in latency throughput; do
    if [[ $mode == latency ]]; then n=$lat_n; else n=$tp_n; fi
    args=(--mode "$mode" --calls "$n" --warmup "$warm" --window 64)
    count=${#echo_paths[@]}
    for ((j = 0; j < count; j++)); do
      run_echo "${echo_paths[$(( (j + rep - 1) % count ))]}" "$mode" $((n + warm)) "${args[@]}"
    done
  done
done

rep=1
echo "== the real server-everything"
if [[ $have_everything == 1 ]]; then
  for rep in $(seq 1 "$reps"); do
    args=(--mode latency --calls "$ev_n" --warmup "$warm")
    run "everything.latency.direct" "${args[@]}" -- node "$everything_js" stdio
    run "everything.latency.c_relay" "${args[@]}" -- "$c_relay" -- node "$everything_js" stdio
    run "everything.latency.node_relay" "${args[@]}" -- "${node_relay[@]}" node "$everything_js" stdio
    run "everything.latency.warden" "${args[@]}" -- "${warden_default[@]}" node "$everything_js" stdio
  done
fi
rep=1

echo "== result sizes (blob tool): latency and memory"
sizes=(1024 102400 10485760)
names=(1k 100k 10m)
for i in 0 1 2; do
  args=(--mode latency --blob "${sizes[$i]}" --calls "${big_n[$i]}" --warmup 2)
  run "blob${names[$i]}.latency.direct" "${args[@]}" -- "$echo_server"
  run "blob${names[$i]}.latency.c_relay" "${args[@]}" -- "$c_relay" -- "$echo_server"
  if [[ $have_node == 1 ]]; then run "blob${names[$i]}.latency.node_relay" "${args[@]}" -- "${node_relay[@]}" "$echo_server"; fi
  run "blob${names[$i]}.latency.warden" "${args[@]}" -- "${warden_default[@]}" "$echo_server"
  if [[ ${#warden_full[@]} -gt 0 ]]; then
    rm -f "$out_dir"/audit.jsonl*
    run "blob${names[$i]}.latency.warden_full" "${args[@]}" -- "${warden_full[@]}" "$echo_server"
    audit_complete "blob${names[$i]}.latency.warden_full" $((big_n[i] + 2))
  fi
done
rm -f "$out_dir"/audit.jsonl*

echo "== start-up: exec to the initialize response"
run "startup.echo.direct" --mode startup --repeat "$startup_k" -- "$echo_server"
run "startup.echo.c_relay" --mode startup --repeat "$startup_k" -- "$c_relay" -- "$echo_server"
if [[ $have_node == 1 ]]; then run "startup.echo.node_relay" --mode startup --repeat "$startup_k" -- "${node_relay[@]}" "$echo_server"; fi
run "startup.echo.warden" --mode startup --repeat "$startup_k" -- "${warden_default[@]}" "$echo_server"
if [[ $have_everything == 1 ]]; then
  k=$(( startup_k > 5 ? 5 : startup_k ))
  run "startup.everything.direct" --mode startup --repeat "$k" -- node "$everything_js" stdio
  run "startup.everything.warden" --mode startup --repeat "$k" -- "${warden_default[@]}" node "$everything_js" stdio
fi
fi  # want stdio

# Instructions per relayed call under callgrind: N and 2N calls, the difference / N removes
# start-up and shutdown. Only the relay is instrumented (valgrind does not follow the child).
if want stdio && [[ $callgrind == 1 && $have_valgrind == 1 ]]; then
  echo "== callgrind: instructions per relayed call (request + response)"
  instructions() {  # instructions COUNT COMMAND...
    local count=$1; shift
    local file=$out_dir/callgrind.$$.$count
    "$lg" --mode latency --calls "$count" --warmup 0 -- \
      valgrind --tool=callgrind --callgrind-out-file="$file" "$@" >/dev/null
    awk '/^(summary|totals):/ {print $2; exit}' "$file"
    rm -f "$file"
  }
  targets=(c_relay warden_noenum warden)
  [[ ${#warden_full[@]} -gt 0 ]] && targets+=(warden_full)
  for target in "${targets[@]}"; do
    case $target in
      c_relay) cmd=("$c_relay" --) ;;
      warden_noenum) cmd=("${warden_noenum[@]}") ;;
      warden) cmd=("${warden_default[@]}") ;;
      warden_full) cmd=("${warden_full[@]}"); rm -f "$out_dir"/audit.jsonl* ;;
    esac
    a=$(instructions "$callgrind_n" "${cmd[@]}" "$echo_server")
    b=$(instructions $((2 * callgrind_n)) "${cmd[@]}" "$echo_server")
    per=$(( (b - a) / callgrind_n ))
    echo "case=callgrind.$target rep=1 instructions_per_call=$per n=$callgrind_n" >>"$results"
    echo "  callgrind.$target: $per instructions per call"
  done
fi

# HTTP fronts: the same bench echo server behind mcp-warden serve, supergateway and mcp-proxy,
# driven by N concurrent Streamable HTTP sessions (one keep-alive connection each, sequential
# calls). Each front is started by the load generator on a free port ({port}) and stopped after
# its RSS and CPU time (its whole process tree) have been read.
if want http; then
  echo "== HTTP fronts: mcp-warden serve vs supergateway vs mcp-proxy"
  [[ $have_node == 1 ]] || echo "  skipping supergateway and mcp-proxy: node is not installed"
  [[ $have_node == 0 || $have_supergateway == 1 ]] || echo "  skipping supergateway: not in tests/peers (cd tests/peers && npm ci)"
  [[ $have_node == 0 || $have_mcp_proxy == 1 ]] || echo "  skipping mcp-proxy: not in tests/peers (cd tests/peers && npm ci)"
  http_url='http://127.0.0.1:{port}/mcp'
  # supergateway runs its --stdio argument through a shell: quote the path.
  printf -v echo_server_sh '%q' "$echo_server"
  for rep in $(seq 1 "$reps"); do
    for s in "${http_sessions[@]}"; do
      # The same number of calls for every session count (split over the sessions); the
      # warm-up likewise, so that the Node fronts' JIT has seen the same traffic.
      args=(--http "$http_url" --sessions "$s" --calls "$http_n" --warmup $(( http_warm / s > 2 ? http_warm / s : 2 )))
      run "http.s$s.warden" "${args[@]}" -- "$warden" serve --listen '127.0.0.1:{port}' --log-level warn -- "$echo_server"
      [[ " ${http_peer_sessions[*]} " == *" $s "* ]] || continue
      if [[ $have_supergateway == 1 ]]; then
        run "http.s$s.supergateway" "${args[@]}" -- node "$supergateway_js" --stdio "$echo_server_sh" \
          --outputTransport streamableHttp --stateful --port '{port}' --logLevel none
      fi
      if [[ $have_mcp_proxy == 1 ]]; then
        run "http.s$s.mcp_proxy" "${args[@]}" -- node "$mcp_proxy_js" --host 127.0.0.1 --port '{port}' \
          --server stream -- "$echo_server"
      fi
    done
  done
  rep=1
fi

{
  echo "cores=$(nproc)"
  echo "cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
  echo "kernel=$(uname -r)"
  echo "compiler=$(c++ --version | head -1)"
  echo "node=$(node --version 2>/dev/null || echo none)"
  echo "commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "load=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
  echo "supergateway=$(node -p "require('$peers/supergateway/package.json').version" 2>/dev/null || echo none)"
  echo "mcp_proxy=$(node -p "require('$peers/mcp-proxy/package.json').version" 2>/dev/null || echo none)"
  echo "reps=$reps lat_n=$lat_n tp_n=$tp_n ev_n=$ev_n http_n=$http_n http_warm=$http_warm"
} >"$out_dir/machine.txt"

if [[ $doc == 1 ]]; then
  python3 "$root/bench/report.py" "$out_dir" "$root/docs/benchmarks.md" "$root/docs/benchmarks"
  echo "== wrote docs/benchmarks.md"
fi
echo "== done"
