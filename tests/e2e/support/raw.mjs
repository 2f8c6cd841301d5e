// Raw line-level driver for a stdio JSON-RPC peer (the proxy or a server), no SDK involved.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

/**
 * Spawns argv[0] with argv.slice(1). Collects stdout as lines (Buffers, without '\n')
 * and stderr as text. All waits are bounded and fail with a description of what was seen.
 */
export function startRaw(argv, { env = {}, cwd } = {}) {
  const child = spawn(argv[0], argv.slice(1), {
    env: { ...process.env, ...env },
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines = [];          // Buffer per stdout line (without the trailing \n)
  let pending = Buffer.alloc(0);
  let stderr = '';
  const listeners = new Set();
  const poke = () => { for (const l of listeners) l(); };
  let exitInfo = null;
  let spawnError = null;
  let closed = false;
  // 'exit' gives the status; 'close' comes once our pipes are drained, but never while a
  // surviving grandchild still holds an inherited copy of them, so both are tracked.
  const exited = new Promise((res) => {
    child.on('exit', (code, signal) => { exitInfo = { code, signal }; poke(); res(exitInfo); });
    child.on('close', () => { closed = true; poke(); });
    child.on('error', (err) => { spawnError = err; closed = true; exitInfo ??= { code: null, signal: null, error: err }; poke(); res(exitInfo); });
  });
  child.stdin.on('error', () => {}); // EPIPE after the peer exited is not the test's concern
  child.stdout.on('data', (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    let i;
    while ((i = pending.indexOf(0x0a)) >= 0) {
      lines.push(pending.subarray(0, i));
      pending = pending.subarray(i + 1);
    }
    poke();
  });
  child.stderr.on('data', (d) => { stderr += d.toString(); poke(); });

  const parsed = () => lines.map((b) => {
    try { return JSON.parse(b.toString('utf8')); } catch { return { __unparsable: b.toString('utf8') }; }
  });

  /** Wait until cond() returns a truthy value; resolves with it. */
  function waitUntil(cond, timeoutMs, what) {
    return new Promise((res, rej) => {
      const check = () => {
        let v;
        try { v = cond(); } catch (e) { cleanup(); rej(e); return true; }
        if (v) { cleanup(); res(v); return true; }
        return false;
      };
      const timer = setTimeout(() => {
        cleanup();
        rej(new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n` +
          `exit: ${JSON.stringify(exitInfo)}\nstdout lines:\n${lines.map((b) => '  ' + b.toString('utf8').slice(0, 400)).join('\n')}\n` +
          `stderr (tail):\n${stderr.slice(-2000)}`));
      }, timeoutMs);
      const cleanup = () => { clearTimeout(timer); listeners.delete(check); };
      if (!check()) listeners.add(check);
    });
  }

  const api = {
    child,
    pid: child.pid,
    lines,
    get stderr() { return stderr; },
    get exitInfo() { return exitInfo; },
    get spawnError() { return spawnError; },
    exited,
    parsed,
    /** Write raw bytes (string or Buffer) as-is. */
    writeRaw(data) { child.stdin.write(data); },
    /** Write one message (object is JSON.stringified; string/Buffer written verbatim) plus '\n'. */
    send(msg) {
      if (Buffer.isBuffer(msg)) child.stdin.write(Buffer.concat([msg, Buffer.from('\n')]));
      else child.stdin.write((typeof msg === 'string' ? msg : JSON.stringify(msg)) + '\n');
    },
    endInput() { child.stdin.end(); },
    waitUntil,
    /** Wait for a parsed stdout message satisfying pred; resolves with it. */
    waitMessage(pred, timeoutMs = 5000, what = 'a matching message') {
      return waitUntil(() => parsed().find((m) => !m.__unparsable && pred(m)), timeoutMs, what);
    },
    /** Wait for the response (result or error, not a request) with this exact id. */
    waitResponse(id, timeoutMs = 5000) {
      return api.waitMessage((m) => m.id === id && !('method' in m) && ('result' in m || 'error' in m),
        timeoutMs, `response to id ${JSON.stringify(id)}`);
    },
    /** Raw bytes of the first stdout line whose parsed form satisfies pred. */
    async waitLine(pred, timeoutMs = 5000, what = 'a matching line') {
      return waitUntil(() => lines.find((b) => {
        try { return pred(JSON.parse(b.toString('utf8'))); } catch { return false; }
      }), timeoutMs, what);
    },
    waitStderr(re, timeoutMs = 5000) {
      return waitUntil(() => re.test(stderr), timeoutMs, `stderr matching ${re}`);
    },
    /** Waits for the exit, then (at most 1 s more) for the pipes to drain. */
    async waitExit(timeoutMs = 10000) {
      await waitUntil(() => exitInfo, timeoutMs, 'process exit');
      await waitUntil(() => closed, 1000, 'stdout/stderr to close').catch(() => {});
      return exitInfo;
    },
    kill(sig = 'SIGKILL') { try { child.kill(sig); } catch { /* gone */ } },
  };
  return api;
}

/** Standard initialize + initialized handshake over a raw peer. */
export async function rawHandshake(peer, { id = 'init-1', protocolVersion = '2025-06-18', capabilities = {}, timeoutMs = 10000 } = {}) {
  peer.send({ jsonrpc: '2.0', id, method: 'initialize',
    params: { protocolVersion, capabilities, clientInfo: { name: 'mcpw-raw', version: '0.0.1' } } });
  const resp = await peer.waitResponse(id, timeoutMs);
  peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return resp;
}

/** Direct children of pid (from /proc). */
export function childPidsOf(pid) {
  const out = [];
  for (const ent of readdirSync('/proc')) {
    if (!/^\d+$/.test(ent)) continue;
    try {
      const stat = readFileSync(`/proc/${ent}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(ent));
    } catch { /* raced with exit */ }
  }
  return out;
}

/** True if pid exists and is not a zombie. */
export function pidAlive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch { return false; }
}

/** Waits (bounded, event-free polling of /proc) until pid is gone. */
export async function waitPidGone(pid, timeoutMs = 5000) {
  const start = Date.now();
  while (pidAlive(pid)) {
    if (Date.now() - start > timeoutMs) throw new Error(`process ${pid} still alive after ${timeoutMs} ms (orphan?)`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits until `pid` has exactly one child and returns its pid (the proxied server). */
export async function waitSingleChild(pid, timeoutMs = 5000) {
  const start = Date.now();
  for (;;) {
    const kids = childPidsOf(pid);
    if (kids.length === 1) return kids[0];
    if (Date.now() - start > timeoutMs) throw new Error(`expected one child of ${pid}, found ${JSON.stringify(kids)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Every descendant pid of pid (recursive). */
export function descendantsOf(pid) {
  const out = [];
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop();
    for (const c of childPidsOf(p)) { out.push(c); stack.push(c); }
  }
  return out;
}

/** mcp-warden (argv from proxiedArgv) under the raw driver; `.serverPid` is its server child. */
export async function startProxied(argv, env = {}) {
  const peer = startRaw(argv, { env });
  peer.serverPid = await waitSingleChild(peer.pid);
  return peer;
}

/** Best-effort teardown for a failed test: never leave processes behind. */
export async function reap(peer) {
  if (!peer) return;
  const kids = descendantsOf(peer.pid);
  if (!peer.exitInfo) { peer.kill('SIGKILL'); await peer.waitExit(5000).catch(() => {}); }
  for (const k of kids) { try { process.kill(k, 'SIGKILL'); } catch { /* gone */ } }
}

/**
 * Runs `body(peer)` with the peer that `starting` resolves to, then ends it with `teardown`
 * (default: reap) whatever happened.
 */
export async function withPeer(starting, body, teardown = reap) {
  let peer;
  try {
    peer = await starting;
    return await body(peer);
  } finally {
    if (peer) await teardown(peer);
  }
}
