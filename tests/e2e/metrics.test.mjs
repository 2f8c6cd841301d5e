// Metrics and health probes end to end (docs/fleet.md, "Metrics and health"): the stdio proxy and
// serve with --metrics-listen; /healthz and /readyz on every listener; a real Prometheus (Debian
// package prometheus) scrapes both, the serve one over TLS with a bearer token, and its query API
// must report exactly the tool calls made.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectClient, everythingSpec, proxiedArgv, tempDir } from './support/peers.mjs';
import { connectHttp, freePort, makeTestCertificates, rawRequest, startProcess, startServe } from './support/http.mjs';
import { rawHandshake, reap, startRaw } from './support/raw.mjs';

const prometheus = spawnSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' }).stdout.trim();
const noPrometheus = prometheus ? false
  : 'the prometheus binary is not installed (Debian package prometheus; scripts/bootstrap.sh installs it)';

/** GET `url` (http or https, `ca` to trust); resolves {status, headers, body}. */
function get(url, { headers = {}, ca } = {}) {
  const u = new URL(url);
  const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(u, { headers, ca, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`timed out: ${url}`)));
    req.on('error', reject);
    req.end();
  });
}

/** Polls `probe` (async) until it returns a truthy value; bounded, fails with the last value seen. */
async function until(what, probe, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await probe();
    if (last?.ok ?? last) return last;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// The base URL of the metrics listener, from the line every mcp-warden prints on stderr.
const metricsBase = (output) => output.match(/metrics listening on (https?:\/\/\S+)\/metrics/)?.[1];

// The value of a label-less metric line in a /metrics text.
const sample = (text, name) => Number(text.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1]);

test('stdio proxy: /healthz at once, /readyz once the server answered initialize, /metrics in text format 0.0.4', { timeout: 60_000 }, async () => {
  const tmp = tempDir('mcpw-metrics-stdio-');
  const audit = join(tmp.dir, 'audit.jsonl');
  const peer = startRaw(proxiedArgv(everythingSpec(), ['--metrics-listen', '127.0.0.1:0', '--log-level', 'warn',
    '--audit-log', audit, '--stdin-grace-ms', '300', '--term-grace-ms', '300']));
  try {
    await peer.waitStderr(/metrics listening on/, 10000);
    const base = metricsBase(peer.stderr);
    assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.deepEqual(await get(`${base}/healthz`).then((r) => [r.status, r.body]), [200, 'ok\n']);
    // The server runs, but no initialize has gone through yet.
    assert.deepEqual(await get(`${base}/readyz`).then((r) => [r.status, r.body]), [503, 'not ready\n']);
    await rawHandshake(peer);
    // The session records the answer before relaying it: ready by the time the client has it.
    assert.equal((await get(`${base}/readyz`)).status, 200);

    for (let i = 0; i < 3; i++) {
      peer.send({ jsonrpc: '2.0', id: `c${i}`, method: 'tools/call', params: { name: 'echo', arguments: { message: `m${i}` } } });
      await peer.waitResponse(`c${i}`);
    }
    const m = await get(`${base}/metrics`);
    assert.equal(m.status, 200);
    assert.equal(m.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    assert.match(m.body, /^# TYPE mcp_warden_tool_calls_total counter$/m);
    assert.match(m.body, /^mcp_warden_tool_calls_total\{verdict="allow",server="[^"]+"\} 3$/m);
    assert.match(m.body, /^mcp_warden_tool_call_duration_seconds_bucket\{server="[^"]+",le="\+Inf"\} 3$/m);
    assert.match(m.body, /^mcp_warden_tool_call_duration_seconds_count\{server="[^"]+"\} 3$/m);
    assert.match(m.body, /^mcp_warden_findings_total\{rule="[a-z.-]+",severity="(info|low|medium|high|critical)"\} \d+$/m);
    assert.equal(sample(m.body, 'mcp_warden_sessions_active'), 1);
    // The writer thread appends on its own time: once it has caught up, the count is the file's.
    await until('the audit count to match the audit file', async () => {
      const text = (await get(`${base}/metrics`)).body;
      const lines = readFileSync(audit, 'utf8').split('\n').filter(Boolean).length;
      const written = sample(text, 'mcp_warden_audit_records_total');
      return written >= 5 && written === lines && sample(text, 'mcp_warden_audit_queue_depth') === 0 ? true : { ok: false, written, lines };
    }, 10000);
    assert.equal(sample(m.body, 'mcp_warden_audit_records_lost_total'), 0);

    const missing = await get(`${base}/nothing-here`);
    assert.deepEqual([missing.status, missing.body], [404, 'Not found: try /metrics\n']);
    const foreign = await rawRequest(Number(new URL(base).port), { method: 'GET', path: '/metrics', headers: { Host: 'evil.example' } });
    assert.deepEqual([foreign.status, foreign.body], [403, "Forbidden: Host 'evil.example' is not allowed\n"]);
    peer.endInput();
    await peer.waitExit(15000);
  } finally {
    await reap(peer);
    tmp.cleanup();
  }
});

test('serve: /healthz and /readyz on its own listener need no token; the MCP endpoint still does', async () => {
  const tmp = tempDir('mcpw-metrics-serve-');
  const tokenFile = join(tmp.dir, 'token');
  writeFileSync(tokenFile, 'front-token\n');
  const serve = await startServe(['--auth-token-file', tokenFile, '--log-level', 'warn']);
  try {
    for (const path of ['/healthz', '/readyz']) {
      const r = await rawRequest(serve.port, { method: 'GET', path, headers: { Host: 'probe.internal:1' } });
      assert.deepEqual([r.status, r.body], [200, 'ok\n'], path);
    }
    assert.equal((await rawRequest(serve.port, { method: 'GET', path: '/mcp' })).status, 401);
  } finally {
    await serve.stop();
    tmp.cleanup();
  }
});

test('a real Prometheus scrapes the stdio proxy and serve (TLS, bearer token); its query API counts every call',
  { skip: noPrometheus, timeout: 120_000 }, async () => {
    const tmp = tempDir('mcpw-prometheus-');
    const f = (n) => join(tmp.dir, n);
    makeTestCertificates(tmp.dir, 'DNS:localhost,IP:127.0.0.1');
    writeFileSync(f('token'), 'scrape-token\n');
    const ca = readFileSync(f('ca.pem'));

    let stdio, serve, scraper;
    const sessions = [];
    try {
      // 5 calls through the stdio proxy, 2 x 2 through two serve sessions.
      stdio = await connectClient(everythingSpec(), { proxied: true, proxyArgs: ['--metrics-listen', '127.0.0.1:0', '--log-level', 'warn'] });
      for (let i = 0; i < 3; i++) await stdio.client.callTool({ name: 'echo', arguments: { message: `m${i}` } });
      for (let i = 0; i < 2; i++) await stdio.client.callTool({ name: 'get-sum', arguments: { a: i, b: 1 } });
      const stdioBase = await until('the stdio proxy metrics line', () => metricsBase(stdio.stderr()));

      serve = await startServe(['--metrics-listen', '127.0.0.1:0', '--metrics-tls-cert', f('server.pem'), '--metrics-tls-key',
        f('server.key'), '--metrics-auth-token-file', f('token'), '--log-level', 'warn']);
      for (let s = 0; s < 2; s++) {
        const c = await connectHttp(serve.url);
        sessions.push(c);
        for (let i = 0; i < 2; i++) await c.client.callTool({ name: 'echo', arguments: { message: `s${s}-${i}` } });
      }
      const serveBase = await until('the serve metrics line', () => metricsBase(serve.output()));
      assert.match(serveBase, /^https:/);
      const denied = await get(`${serveBase}/metrics`, { ca });
      assert.equal(denied.status, 401);
      assert.equal(denied.headers['www-authenticate'], 'Bearer');
      assert.equal((await get(`${serveBase}/readyz`, { ca })).status, 200, 'probes need no token');
      const authed = await get(`${serveBase}/metrics`, { ca, headers: { Authorization: 'Bearer scrape-token' } });
      assert.equal(authed.status, 200);
      assert.equal(sample(authed.body, 'mcp_warden_sessions_opened_total'), 2);

      const webPort = await freePort();
      writeFileSync(f('prometheus.yml'), [
        'global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s}',
        'scrape_configs:',
        `  - {job_name: stdio, static_configs: [{targets: ['${new URL(stdioBase).host}']}]}`,
        `  - {job_name: serve, scheme: https, authorization: {credentials_file: '${f('token')}'},`,
        `     tls_config: {ca_file: '${f('ca.pem')}'}, static_configs: [{targets: ['${new URL(serveBase).host}']}]}`,
        '',
      ].join('\n'));
      scraper = await startProcess([prometheus, `--config.file=${f('prometheus.yml')}`, `--storage.tsdb.path=${f('data')}`,
        `--web.listen-address=127.0.0.1:${webPort}`], { ready: /Server is ready to receive web requests/, timeoutMs: 60000 });

      const query = async (promql) => {
        const r = await get(`http://127.0.0.1:${webPort}/api/v1/query?query=${encodeURIComponent(promql)}`);
        const body = JSON.parse(r.body);
        assert.equal(body.status, 'success', r.body);
        return body.data.result;
      };
      // Both targets scraped and up.
      await until('both targets up', async () => {
        const up = await query('up');
        return up.length === 2 && up.every((s) => s.value[1] === '1') ? up : { ok: false, up };
      });
      const calls = await until('the calls in Prometheus', async () => {
        const series = await query('mcp_warden_tool_calls_total');
        const byJob = {};
        for (const s of series) byJob[s.metric.job] = (byJob[s.metric.job] ?? 0) + Number(s.value[1]);
        return byJob.stdio === 5 && byJob.serve === 4 ? series : { ok: false, byJob };
      });
      for (const s of calls) {
        assert.equal(s.metric.verdict, 'allow');
        assert.notEqual(s.metric.server, '');
      }
      const [count] = await query('sum(mcp_warden_tool_call_duration_seconds_count)');
      assert.equal(count.value[1], '9');
      const [opened] = await query('mcp_warden_sessions_opened_total{job="serve"}');
      assert.equal(opened.value[1], '2');
    } finally {
      if (scraper) await scraper.stop();
      for (const c of sessions) await c.close().catch(() => {});
      if (serve) await serve.stop();
      if (stdio) await stdio.fastClose();
      tmp.cleanup();
    }
  });
