// Locates the real MCP peers pinned in tests/peers and opens SDK client sessions to them,
// either directly or through the proxy under test (MCP_WARDEN_BIN).
import { existsSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = (rel) => fileURLToPath(new URL(rel, import.meta.url));

export const REPO_ROOT = here('../../../');
export const PEERS_MODULES = here('../../peers/node_modules/');
export const FIXTURES_DIR = here('../fixtures/');

const mcp = (rel) => join(PEERS_MODULES, '@modelcontextprotocol', rel);

export const EVERYTHING_JS = mcp('server-everything/dist/index.js');
export const FILESYSTEM_JS = mcp('server-filesystem/dist/index.js');
export const MEMORY_JS = mcp('server-memory/dist/index.js');

for (const p of [EVERYTHING_JS, FILESYSTEM_JS, MEMORY_JS]) {
  if (!existsSync(p)) throw new Error(`test peer missing: ${p} (run npm ci in tests/peers)`);
}

// The SDK is loaded from tests/peers/node_modules (not from wherever node would resolve it).
const requireFromPeers = createRequire(join(PEERS_MODULES, '..', 'package.json'));
const sdkPath = (sub) => requireFromPeers.resolve(`@modelcontextprotocol/sdk/${sub}`);
export const sdk = {
  client: await import(sdkPath('client/index.js')),
  stdio: await import(sdkPath('client/stdio.js')),
  types: await import(sdkPath('types.js')),
};
export const SDK_MODULE_DIR = mcp('sdk');

/** Absolute path of the proxy binary under test; throws a clear error if unset/missing. */
export function wardenBin() {
  const bin = process.env.MCP_WARDEN_BIN;
  if (!bin) throw new Error('MCP_WARDEN_BIN is not set (path of the mcp-warden binary under test)');
  const abs = resolve(REPO_ROOT, bin);
  if (!existsSync(abs)) throw new Error(`MCP_WARDEN_BIN does not exist: ${abs}`);
  return abs;
}

/** Path of a fixture server script in tests/e2e/fixtures. */
export const fixture = (name) => join(FIXTURES_DIR, name);

// Every temporary directory a test file made, removed when its process exits (tests that stop
// early, or never call cleanup(), left hundreds behind in /tmp).
const madeDirs = new Set();
process.on('exit', () => {
  for (const dir of madeDirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary directory, removed by the returned cleanup() or when the process exits. */
export function tempDir(prefix = 'mcpw-e2e-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.add(dir);
  return {
    dir,
    cleanup: () => {
      rmSync(dir, { recursive: true, force: true });
      madeDirs.delete(dir);
    },
  };
}

/**
 * Server launch specs: { command, args, env }. `env` holds only the variables the peer
 * needs on top of the inherited environment.
 */
export function everythingSpec() {
  return { name: 'everything', command: process.execPath, args: [EVERYTHING_JS, 'stdio'], env: {} };
}
export function filesystemSpec(allowedDir) {
  return { name: 'filesystem', command: process.execPath, args: [FILESYSTEM_JS, allowedDir], env: {} };
}
export function memorySpec(memoryFile) {
  return { name: 'memory', command: process.execPath, args: [MEMORY_JS], env: { MEMORY_FILE_PATH: memoryFile } };
}
export function fixtureSpec(name, ...args) {
  return { name, command: process.execPath, args: [fixture(name), ...args], env: {} };
}

/** argv that runs `spec` through the proxy: [bin, ...proxyArgs, '--', command, ...args]. */
export function proxiedArgv(spec, proxyArgs = []) {
  const bin = wardenBin();
  const pre = bin.endsWith('.mjs') || bin.endsWith('.js') ? [process.execPath, bin] : [bin];
  return [...pre, ...proxyArgs, '--', spec.command, ...spec.args];
}

/**
 * Connects an SDK Client to `spec`, directly or through the proxy.
 * opts: { proxied, proxyArgs, capabilities, setup(client) (register handlers before connect),
 *         clientInfo }
 * Returns { client, transport, notifications, stderr(), close() }.
 */
export async function connectClient(spec, opts = {}) {
  const { Client } = sdk.client;
  const { StdioClientTransport, getDefaultEnvironment } = sdk.stdio;
  const argv = opts.proxied ? proxiedArgv(spec, opts.proxyArgs) : [spec.command, ...spec.args];
  const transport = new StdioClientTransport({
    command: argv[0],
    args: argv.slice(1),
    env: { ...getDefaultEnvironment(), ...spec.env },
    stderr: 'pipe',
  });
  let stderrText = '';
  transport.stderr?.on('data', (d) => { stderrText += d.toString(); });
  const client = new Client(opts.clientInfo ?? { name: 'mcpw-e2e-client', version: '1.0.0' },
    { capabilities: opts.capabilities ?? {} });
  const notifications = [];
  const waiters = new Set();
  client.fallbackNotificationHandler = async (n) => {
    notifications.push(n);
    for (const w of waiters) w();
  };
  /** Resolves with the first notification (past or future) matching pred; bounded. */
  const waitNotification = (pred, timeoutMs = 5000, what = 'notification') => new Promise((res, rej) => {
    const check = () => {
      const hit = notifications.find(pred);
      if (hit) { clearTimeout(timer); waiters.delete(check); res(hit); return true; }
      return false;
    };
    const timer = setTimeout(() => {
      waiters.delete(check);
      rej(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; got: ${JSON.stringify(notifications).slice(0, 2000)}`));
    }, timeoutMs);
    if (!check()) waiters.add(check);
  });
  const errors = [];
  client.onerror = (e) => { errors.push(String(e?.message ?? e)); };
  if (opts.setup) opts.setup(client, notifications);
  await client.connect(transport);
  return {
    client,
    transport,
    notifications,
    waitNotification,
    errors,
    stderr: () => stderrText,
    /** The SDK's own shutdown (stdin EOF, 2 s, SIGTERM, 2 s, SIGKILL). */
    close: async () => { await client.close(); },
    /**
     * Same, but SIGTERM after graceMs instead of 2 s: server-everything does not exit on
     * stdin EOF by itself, and tests that are not about shutdown should not idle for it.
     */
    fastClose: async (graceMs = 300) => {
      const pid = transport.pid;
      const t = setTimeout(() => { try { if (pid) process.kill(pid, 'SIGTERM'); } catch { /* gone */ } }, graceMs);
      try { await client.close(); } finally { clearTimeout(t); }
    },
  };
}

export { writeFileSync, mkdirSync, join };

/** True under the ASan/TSan stages (scripts/test.sh sets WARDEN_SANITIZED): the sanitizers' shadow
 *  memory and quarantine make resident-set figures meaningless, so memory bounds are checked in
 *  the plain build only; every behavioural assertion still runs. */
export const sanitized = Boolean(process.env.WARDEN_SANITIZED);
