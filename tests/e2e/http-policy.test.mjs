// Policy, pins, audit and scan apply on every transport: the same enforce-mode behaviour as the
// stdio proxy when the poisoned demo server sits behind `mcp-warden serve` (Streamable HTTP), the
// audit log records every HTTP session under its own id with an intact hash chain, and
// `scan --upstream URL` enumerates a remote server live.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVERYTHING_JS, REPO_ROOT, tempDir, wardenBin } from './support/peers.mjs';
import { connectHttp, startEverything, startServe } from './support/http.mjs';

const T = { timeout: 60_000 };
const POISONED = join(REPO_ROOT, 'examples/poisoned-server/server.mjs');

test('serve --mode enforce: poisoned tools hidden and refused, injected result withheld, per-session audit', T, async () => {
  const { dir } = tempDir();
  const audit = join(dir, 'audit.jsonl');
  const serve = await startServe(['--mode', 'enforce', '--audit-log', audit, '--log-level', 'warn'],
    ['--', process.execPath, POISONED]);
  const sessions = [];
  try {
    for (let i = 0; i < 2; i++) {
      const c = await connectHttp(serve.url);
      sessions.push(c);
      const names = (await c.client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('get_weather'), 'honest tools stay visible');
      assert.ok(!names.includes('format_date'), 'the tool with hidden tag characters is hidden');
      assert.ok(!names.includes('add'), 'the tool with a tagged instruction block is hidden');
      const refused = await c.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
      assert.equal(refused.isError, true);
      assert.match(refused.content[0].text, /blocked by the security policy/);
      const page = await c.client.callTool({ name: 'fetch_page', arguments: { url: 'https://example.com' } });
      assert.doesNotMatch(JSON.stringify(page), /ignore all previous instructions/i, 'the injection never reaches the client');
      const weather = await c.client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } });
      assert.notEqual(weather.isError, true, 'honest calls work untouched');
    }
  } finally {
    for (const c of sessions) await c.close().catch(() => {});
    await serve.stop('SIGTERM');
  }
  const records = readFileSync(audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const ids = new Set(records.filter((r) => r.event === 'session_start').map((r) => r.session));
  assert.equal(ids.size, 2, 'one audit session per HTTP session');
  assert.ok(records.some((r) => JSON.stringify(r).includes('"add"') && /deny|block/.test(JSON.stringify(r))),
    'the refused call is recorded with its decision');
  const verify = execFileSync(wardenBin(), ['log', 'verify', audit], { encoding: 'utf8' });
  assert.match(verify, /hash chain intact/);
});

test('serve refuses to start with a broken policy file (clear error, exit 2)', T, async () => {
  const { dir } = tempDir();
  const bad = join(dir, 'bad.json');
  (await import('node:fs')).writeFileSync(bad, '{ "defaultAction": "maybe" }');
  let failure;
  try {
    execFileSync(wardenBin(), ['serve', '--listen', '127.0.0.1:0', '--policy', bad, '--', process.execPath, POISONED],
      { encoding: 'utf8', stdio: 'pipe', timeout: 10000 });
  } catch (e) { failure = e; }
  assert.ok(failure, 'serve must not start');
  assert.equal(failure.status, 2);
  assert.match(failure.stderr, /bad\.json:\d+:\d+/);
});

for (const mode of ['streamableHttp', 'sse']) {
  test(`scan --upstream: a remote server (${mode}) is enumerated live and analysed like a local one`, T, async () => {
    const remote = await startEverything(mode);
    try {
      const out = execFileSync(wardenBin(), ['scan', '--format', 'json', '--upstream', remote.url],
        { encoding: 'utf8', timeout: 30000 });
      const report = JSON.parse(out);
      assert.equal(report.coverage.inputs.liveTransport, true);
      assert.equal(report.stats.tools, 13, 'server-everything lists 13 tools');
      // The same verdict as a scan of the same server over stdio, and not flagged (A or B).
      const local = JSON.parse(execFileSync(wardenBin(), ['scan', '--format', 'json', '--', process.execPath, EVERYTHING_JS, 'stdio'],
        { encoding: 'utf8', timeout: 30000 }));
      assert.equal(report.score.grade, local.score.grade);
      assert.deepEqual(report.findings.map((f) => f.ruleId).sort(), local.findings.map((f) => f.ruleId).sort());
      assert.match(report.score.grade, /^[AB]$/);
      assert.ok(JSON.stringify(report.target).includes(remote.url), 'the report names the URL it scanned');
    } finally {
      await remote.stop('SIGTERM');
    }
  });
}
