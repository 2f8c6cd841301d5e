#!/usr/bin/env bash
# Records/s shipped by --audit-syslog to a local rsyslogd (docs/fleet.md, "Shipping to syslog"),
# and what shipping costs the relay: pipelined calls/s through the full policy path (enforce,
# audit log) without and with --audit-syslog, alternated, REPS times each; and the latency one call
# sees (sequential calls, p50/p99) without and with shipping.
# Starts a private rsyslogd (own config, port, work directory; never the system's) and stops it.
# Usage: bench/syslog.sh [RECORDS] [CALLS] [REPS] (build dir: WARDEN_BUILD_DIR; needs syslog_bench,
# bench_load_generator, bench_echo_server and mcp-warden built).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${WARDEN_BUILD_DIR:-build}
records=${1:-200000} calls=${2:-100000} reps=${3:-3}
rsyslogd=$(command -v rsyslogd || echo /usr/sbin/rsyslogd)
[[ -x $rsyslogd ]] || { echo "syslog.sh: rsyslogd is not installed (apt-get install rsyslog)" >&2; exit 2; }
work=$(mktemp -d)
trap '[[ -f $work/rsyslogd.pid ]] && kill "$(cat "$work/rsyslogd.pid")" 2>/dev/null; rm -rf "$work"' EXIT
mkdir "$work/rsyslog"
cat >"$work/rsyslog.conf" <<EOF
global(workDirectory="$work/rsyslog" maxMessageSize="1m" parser.escapeControlCharactersOnReceive="off")
module(load="imtcp")
main_queue(queue.workerThreads="1")
template(name="msg_only" type="string" string="%msg%\n")
input(type="imtcp" address="127.0.0.1" port="0" listenPortFileName="$work/port")
action(type="omfile" file="$work/received.jsonl" template="msg_only")
EOF
"$rsyslogd" -n -f "$work/rsyslog.conf" -i "$work/rsyslogd.pid" &
for _ in $(seq 100); do [[ -s $work/port ]] && break; sleep 0.1; done
[[ -s $work/port ]] || { echo "syslog.sh: rsyslogd did not start" >&2; exit 1; }
"$build_dir/bench/syslog_bench" "tcp://127.0.0.1:$(cat "$work/port")" "$work/received.jsonl" "$work/bench" "$records"
cmp "$work/bench/shipped.jsonl" "$work/received.jsonl" && echo "received copy identical to the audit log"

port=$(cat "$work/port")
echo "relay, pipelined echo calls through --mode enforce --audit-log (load $(cut -d' ' -f1-3 /proc/loadavg)):"
for rep in $(seq "$reps"); do
  for shipping in no yes; do
    rm -rf "$work/relay.jsonl" "$work/relay.jsonl.spool"
    extra=(); [[ $shipping == yes ]] && extra=(--audit-syslog "tcp://127.0.0.1:$port")
    line=$("$build_dir/bench/bench_load_generator" --mode throughput --calls "$calls" --warmup 1000 --window 64 -- \
      "$build_dir/app/mcp-warden" --log-level warn --mode enforce --audit-log "$work/relay.jsonl" "${extra[@]}" -- \
      "$build_dir/bench/bench_echo_server")
    shipped=""
    if [[ $shipping == yes ]]; then  # the run's records, last in rsyslog's file, as in the log
      n=$(wc -l <"$work/relay.jsonl")
      for _ in $(seq 100); do tail -n "$n" "$work/received.jsonl" | cmp -s - "$work/relay.jsonl" && break; sleep 0.1; done
      tail -n "$n" "$work/received.jsonl" | cmp -s - "$work/relay.jsonl" && shipped=" (all $n records received)" || shipped=" (NOT all received)"
    fi
    echo "  shipping=$shipping: $(grep -o 'calls_per_s=[0-9.]*' <<<"$line")$shipped"
  done
done
echo "latency, sequential echo calls through --mode enforce --audit-log:"
for rep in $(seq "$reps"); do
  for shipping in no yes; do
    rm -rf "$work/relay.jsonl" "$work/relay.jsonl.spool"
    extra=(); [[ $shipping == yes ]] && extra=(--audit-syslog "tcp://127.0.0.1:$port")
    line=$("$build_dir/bench/bench_load_generator" --mode latency --calls $((calls / 10)) --warmup 500 -- \
      "$build_dir/app/mcp-warden" --log-level warn --mode enforce --audit-log "$work/relay.jsonl" "${extra[@]}" -- \
      "$build_dir/bench/bench_echo_server")
    echo "  shipping=$shipping: $(grep -o 'p50_us=[0-9.]* p90_us=[0-9.]* p99_us=[0-9.]*' <<<"$line")"
  done
done
