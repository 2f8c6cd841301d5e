// Helpers for the HTTP suites: start processes and wait for their "listening" line, SDK clients
// over Streamable HTTP / SSE / stdio-through-mcp-warden, raw HTTP requests with any headers.
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { EVERYTHING_JS, PEERS_MODULES, sdk, wardenBin } from './peers.mjs';

/**
 * A test CA (DIR/ca.pem) and a server certificate for localhost it signed (DIR/server.pem, key
 * DIR/server.key), made with openssl; `altNames` is the certificate's subjectAltName.
 */
export function makeTestCertificates(dir, altNames = 'DNS:localhost') {
  const f = (n) => join(dir, n);
  const ssl = (...args) => execFileSync('openssl', args, { stdio: 'pipe' });
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '2', '-subj', '/CN=mcp-warden test CA');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=localhost');
  writeFileSync(f('ext.cnf'), `subjectAltName=${altNames}\n`);
  ssl('x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('server.pem'), '-days', '2', '-extfile', f('ext.cnf'));
}

const sdkEsm = join(PEERS_MODULES, '@modelcontextprotocol/sdk/dist/esm');
export const sdkHttp = {
  streamable: await import(join(sdkEsm, 'client/streamableHttp.js')),
  sse: await import(join(sdkEsm, 'client/sse.js')),
};
export const v2 = {
  client: await import(join(PEERS_MODULES, '@modelcontextprotocol/client/dist/index.mjs')),
  stdio: await import(join(PEERS_MODULES, '@modelcontextprotocol/client/dist/stdio.mjs')),
};

export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts argv[0] with argv[1..]; resolves once `ready` matches its output. */
export function startProcess(argv, { env = {}, ready, timeoutMs = 15000 } = {}) {
  const proc = spawn(argv[0], argv.slice(1), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`not ready after ${timeoutMs} ms: ${argv.join(' ')}\n${output}`));
    }, timeoutMs);
    const onData = (d) => {
      output += d.toString();
      const m = ready ? output.match(ready) : [''];
      if (m && timer) {
        clearTimeout(timer);
        resolve({
          proc,
          match: m,
          output: () => output,
          // Resolves with the exit code (or signal); a sanitizer report in the output fails.
          stop: (signal = 'SIGTERM') => new Promise((res, rej) => {
            const done = (code) => (/ERROR: (Leak|Address|Thread)Sanitizer|runtime error:/.test(output)
              ? rej(new Error(`sanitizer report from ${argv[0]}:\n${output.slice(-4000)}`)) : res(code));
            if (proc.exitCode !== null || proc.signalCode !== null) return done(proc.exitCode ?? proc.signalCode);
            proc.once('close', (code, sig) => done(code ?? sig));
            proc.kill(signal);
          }),
        });
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`exited (${code}) before ready: ${output}`)); });
  });
}

/** mcp-warden serve on a free port; `.url` is the Streamable HTTP endpoint. */
export async function startServe(args, server = ['--', process.execPath, EVERYTHING_JS, 'stdio']) {
  const p = await startProcess([wardenBin(), 'serve', '--listen', '127.0.0.1:0', ...args, ...server], {
    ready: /listening on (https?:\/\/\S+)/,
  });
  p.url = p.match[1];
  p.origin = new URL(p.url).origin;
  p.port = Number(new URL(p.url).port);
  return p;
}

/** server-everything over HTTP ('streamableHttp' or 'sse') on a free port. */
export async function startEverything(mode) {
  const port = await freePort();
  const p = await startProcess([process.execPath, EVERYTHING_JS, mode], { env: { PORT: String(port) }, ready: /port/i });
  p.url = `http://127.0.0.1:${port}/${mode === 'sse' ? 'sse' : 'mcp'}`;
  return p;
}

function clientWithSampling(info = { name: 'http-e2e', version: '1.0.0' }) {
  const client = new sdk.client.Client(info, { capabilities: { sampling: {} } });
  client.setRequestHandler(sdk.types.CreateMessageRequestSchema, async () => ({
    model: 'test-model', role: 'assistant', content: { type: 'text', text: 'sampled by the test' },
  }));
  return client;
}

/** SDK 1.x client over Streamable HTTP ('streamable') or legacy SSE ('sse'). */
export async function connectHttp(url, kind = 'streamable', opts = {}) {
  const transport = kind === 'sse'
    ? new sdkHttp.sse.SSEClientTransport(new URL(url), opts)
    : new sdkHttp.streamable.StreamableHTTPClientTransport(new URL(url), opts);
  const client = clientWithSampling();
  await client.connect(transport);
  return { client, transport, close: async () => { await client.close(); } };
}

/** SDK 1.x client over stdio to `mcp-warden [args]` (e.g. --upstream URL). */
export async function connectThroughWarden(args) {
  const transport = new sdk.stdio.StdioClientTransport({
    command: wardenBin(), args, env: sdk.stdio.getDefaultEnvironment(), stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d.toString(); });
  const client = clientWithSampling();
  await client.connect(transport);
  return { client, transport, stderr: () => stderr, close: async () => { await client.close(); } };
}

/** One HTTP request with exactly the headers given (Host included); resolves {status, headers, body}. */
export function rawRequest(port, { method = 'POST', path = '/mcp', headers = {}, body, timeoutMs = 5000 } = {}) {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, setHost: !('Host' in headers) }, (res) => {
      let data = '';
      res.on('data', (d) => { data += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: data }));
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
