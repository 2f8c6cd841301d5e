// End-to-end tests of the HTTP transports: `mcp-warden serve` (Streamable HTTP and legacy SSE
// fronts) and `mcp-warden --upstream URL` (Streamable HTTP and legacy SSE clients, TLS), with real
// SDK peers, the stateless 2026-07-28 revision, and misbehaving clients and upstreams.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixture, tempDir } from './support/peers.mjs';
import {
  INITIALIZE, MCP_HEADERS, connectHttp, connectThroughWarden, makeTestCertificates, rawRequest, startEverything, startProcess,
  startServe, v2,
} from './support/http.mjs';

async function exerciseEverything(client) {
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'echo'), 'echo tool listed');
  const echo = await client.callTool({ name: 'echo', arguments: { message: 'through http' } });
  assert.equal(echo.content[0].text, 'Echo: through http');
  let progress = 0;
  const long = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
    undefined, { onprogress: () => { progress++; } });
  assert.match(long.content[0].text, /Long running operation completed/);
  assert.ok(progress >= 2, `progress notifications arrived (${progress})`);
  // A server-to-client request (sampling) answered by the client across the proxy.
  const sampled = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi', maxTokens: 5 } });
  assert.match(sampled.content[0].text, /sampled by the test/);
}

test('serve: SDK client over Streamable HTTP -> stdio server, one child per session', async () => {
  const serve = await startServe([]);
  try {
    const a = await connectHttp(serve.url);
    const b = await connectHttp(serve.url);
    assert.notEqual(a.transport.sessionId, b.transport.sessionId);
    await exerciseEverything(a.client);
    await exerciseEverything(b.client);
    const pids = [...serve.output().matchAll(/started server pid (\d+)/g)].map((m) => m[1]);
    assert.equal(new Set(pids).size, 2, `two sessions, two children: ${pids}`);
    await a.transport.terminateSession();
    await a.close();
    await b.close();
    // The log line travels through a pipe: wait for it (bounded) rather than race it.
    for (let waited = 0; !/deleted by the client/.test(serve.output()) && waited < 5000; waited += 50)
      await new Promise((r) => setTimeout(r, 50));
    assert.match(serve.output(), /deleted by the client/);
    // A deleted session is gone: 404.
    const after = await rawRequest(serve.port, {
      headers: { ...MCP_HEADERS, 'Mcp-Session-Id': a.transport.sessionId ?? 'x', 'MCP-Protocol-Version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }),
    });
    assert.equal(after.status, 404);
  } finally {
    assert.equal(await serve.stop(), 0, 'serve exits 0 on SIGTERM');
  }
});

test('serve: SDK client over legacy HTTP+SSE', async () => {
  const serve = await startServe([]);
  try {
    const c = await connectHttp(`${serve.origin}/sse`, 'sse');
    await exerciseEverything(c.client);
    await c.close();
  } finally {
    await serve.stop();
  }
});

test('upstream: stdio client -> --upstream server-everything (streamableHttp and sse)', async () => {
  for (const mode of ['streamableHttp', 'sse']) {
    const upstream = await startEverything(mode);
    try {
      const c = await connectThroughWarden(['--upstream', upstream.url]);
      await exerciseEverything(c.client);
      await c.close();
      if (mode === 'sse') assert.match(c.stderr(), /legacy HTTP\+SSE transport/);
      else assert.match(c.stderr(), /DELETE session answered 200|exited with status 0/);
    } finally {
      await upstream.stop('SIGKILL');
    }
  }
});

test('serve --upstream: HTTP client -> mcp-warden -> HTTP server', async () => {
  const upstream = await startEverything('streamableHttp');
  const serve = await startServe([], ['--upstream', upstream.url]);
  try {
    const c = await connectHttp(serve.url);
    const echo = await c.client.callTool({ name: 'echo', arguments: { message: 'http to http' } });
    assert.equal(echo.content[0].text, 'Echo: http to http');
    await c.close();
  } finally {
    await serve.stop();
    await upstream.stop('SIGKILL');
  }
});

test('serve: HTTP validation answers with the right status codes', async () => {
  const serve = await startServe(['--max-body-bytes', '100000', '--max-header-bytes', '4096', '--header-timeout-ms', '700']);
  try {
    const post = (headers, body = INITIALIZE, extra = {}) => rawRequest(serve.port, { headers, body, ...extra });
    const host = `127.0.0.1:${serve.port}`;
    assert.equal((await post({ 'Content-Type': 'application/json', Accept: 'application/json' })).status, 406);
    assert.equal((await post({ ...MCP_HEADERS, 'Content-Type': 'text/plain' })).status, 415);
    const bad = await post(MCP_HEADERS, '{not json');
    assert.equal(bad.status, 400);
    assert.equal(JSON.parse(bad.body).error.code, -32700);
    assert.equal((await post(MCP_HEADERS, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }))).status, 400,
      'no session id on a non-initialize request');
    assert.equal((await post({ ...MCP_HEADERS, 'Mcp-Session-Id': 'nope' }, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }))).status, 404);
    assert.equal((await post({ ...MCP_HEADERS, 'MCP-Protocol-Version': '1999-01-01', 'Mcp-Session-Id': 'x' },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }))).status, 400);
    const put = await rawRequest(serve.port, { method: 'PUT', headers: MCP_HEADERS, body: '{}' });
    assert.equal(put.status, 405);
    assert.match(put.headers.allow, /POST/);
    assert.equal((await rawRequest(serve.port, { method: 'GET', path: '/nowhere' })).status, 404);
    // DNS rebinding: foreign Host or Origin.
    assert.equal((await post({ ...MCP_HEADERS, Host: 'evil.example.com', Origin: 'http://evil.example.com' })).status, 403);
    assert.equal((await post({ ...MCP_HEADERS, Host: host, Origin: 'https://evil.example.com' })).status, 403);
    // Oversized body and headers.
    const big = await post(MCP_HEADERS, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'x', params: { pad: 'a'.repeat(200000) } }));
    assert.equal(big.status, 413);
    const fat = await post({ ...MCP_HEADERS, 'X-Pad': 'b'.repeat(8000) });
    assert.equal(fat.status, 431);
    // A slow client that never finishes its headers is disconnected.
    const closedAfter = await new Promise((resolve) => {
      const started = Date.now();
      const s = connect(serve.port, '127.0.0.1', () => s.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n'));
      s.on('close', () => resolve(Date.now() - started));
      s.on('error', () => {});
      s.resume();
    });
    assert.ok(closedAfter < 5000, `slow client dropped after ${closedAfter} ms`);
    // Still serving after all that.
    const ok = await post({ ...MCP_HEADERS, Host: host, Origin: `http://localhost:${serve.port}` });
    assert.equal(ok.status, 200);
    assert.ok(ok.headers['mcp-session-id']);
    assert.match(ok.body, /"protocolVersion"/);
  } finally {
    await serve.stop();
  }
});

test('serve: Last-Event-ID replays finished answers within one replay budget, and says which it gave up', async () => {
  const serve = await startServe(['--max-body-bytes', String(8 << 20)]);
  try {
    let session;
    const headers = () => ({ ...MCP_HEADERS, ...(session ? { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-11-25' } : {}) });
    const post = async (body) => {
      const r = await fetch(serve.url, { method: 'POST', headers: headers(), body: JSON.stringify(body) });
      session ??= r.headers.get('mcp-session-id');
      return r.text();
    };
    await post(JSON.parse(INITIALIZE));
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // Two answers of 2 MiB each, then two small ones: together far over the 1 MiB budget.
    const streams = [];
    for (const [n, size] of [[1, 2 << 20], [2, 2 << 20], [3, 10], [4, 10]]) {
      const text = await post({ jsonrpc: '2.0', id: 10 + n, method: 'tools/call',
        params: { name: 'echo', arguments: { message: `answer${n}:${'m'.repeat(size)}` } } });
      assert.match(text, new RegExp(`answer${n}:`));
      const ids = [...text.matchAll(/^id: ?(\S+)$/gm)].map((m) => m[1]);
      assert.ok(ids.length > 0, `event ids on the answer stream: ${text.slice(0, 200)}`);
      streams.push(ids.at(-1).split('_')[0]);
    }
    const resume = async (stream) => {
      const r = await fetch(serve.url, { method: 'GET', headers: { ...headers(), 'Last-Event-ID': `${stream}_0` },
        signal: AbortSignal.timeout(5000) });
      assert.equal(r.status, 200);
      const text = await r.text();
      const answer = text.match(/answer\d+:/)?.[0];
      if (answer) return answer;
      const data = text.match(/^data: ?(.*)$/m)?.[1];
      if (!data) return 'nothing';
      const message = JSON.parse(data);
      assert.match(message.error?.message ?? '', /send the request again/);
      return `error ${message.id} ${message.error.code}`;
    };
    // The oldest large answers gave theirs up, and resuming their streams gets an error for each
    // lost answer (not a silent gap); the small ones, which fit the budget, still replay.
    assert.deepEqual(await Promise.all(streams.map(resume)), ['error 11 -32001', 'error 12 -32001', 'answer3:', 'answer4:']);
  } finally {
    await serve.stop();
  }
});

test('serve: bearer token auth', async () => {
  const tmp = tempDir();
  const tokenFile = join(tmp.dir, 'token');
  writeFileSync(tokenFile, 's3cret-token\n');
  const serve = await startServe(['--auth-token-file', tokenFile]);
  try {
    const denied = await rawRequest(serve.port, { headers: MCP_HEADERS, body: INITIALIZE });
    assert.equal(denied.status, 401);
    assert.equal(denied.headers['www-authenticate'], 'Bearer');
    assert.equal((await rawRequest(serve.port, { headers: { ...MCP_HEADERS, Authorization: 'Bearer wrong' }, body: INITIALIZE })).status, 401);
    const c = await connectHttp(serve.url, 'streamable', { requestInit: { headers: { Authorization: 'Bearer s3cret-token' } } });
    assert.equal((await c.client.callTool({ name: 'echo', arguments: { message: 'authed' } })).content[0].text, 'Echo: authed');
    await c.close();
  } finally {
    await serve.stop();
    tmp.cleanup();
  }
});

test('TLS: serve --tls-cert, and --upstream https verified with a test CA', async () => {
  const tmp = tempDir();
  const f = (n) => join(tmp.dir, n);
  makeTestCertificates(tmp.dir);
  const serve = await startServe(['--tls-cert', f('server.pem'), '--tls-key', f('server.key')]);
  try {
    assert.match(serve.url, /^https:/);
    const url = `https://localhost:${serve.port}/mcp`;
    const c = await connectThroughWarden(['--upstream', url, '--ca-file', f('ca.pem')]);
    assert.equal((await c.client.callTool({ name: 'echo', arguments: { message: 'over tls' } })).content[0].text, 'Echo: over tls');
    await c.close();
    // Without the CA the certificate is not trusted; with an IP the host name does not match.
    for (const [args, why] of [[['--upstream', url], /certificate verify failed|TLS handshake/],
      [['--upstream', `https://127.0.0.1:${serve.port}/mcp`, '--ca-file', f('ca.pem')], /TLS handshake|certificate/]]) {
      await assert.rejects(connectThroughWarden(args), (e) => { assert.match(String(e.message), why); return true; });
    }
  } finally {
    await serve.stop();
    tmp.cleanup();
  }
});

test('2026-07-28: a stateless client and server through serve and through --upstream', async () => {
  const modern = (name) => new v2.client.Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  // HTTP client -> serve -> stdio server (each stateless request gets its own one-shot session).
  const serve = await startServe([], ['--', process.execPath, fixture('modern-server.mjs'), 'stdio']);
  try {
    const client = modern('modern-http');
    await client.connect(new v2.client.StreamableHTTPClientTransport(new URL(serve.url)));
    const r = await client.callTool({ name: 'shout', arguments: { text: 'stateless' } });
    assert.equal(r.content[0].text, 'STATELESS');
    await client.close();
    assert.match(serve.output(), /started \(stateless\)/);
  } finally {
    await serve.stop();
  }
  // stdio client -> mcp-warden --upstream -> HTTP server.
  const http = await startProcess([process.execPath, fixture('modern-server.mjs'), 'http'], { ready: /listening (\d+)/ });
  try {
    const client = modern('modern-stdio');
    await client.connect(new v2.stdio.StdioClientTransport({
      command: process.env.MCP_WARDEN_BIN, args: ['--upstream', `http://127.0.0.1:${http.match[1]}/mcp`], stderr: 'pipe',
    }));
    const r = await client.callTool({ name: 'shout', arguments: { text: 'upstream' } });
    assert.equal(r.content[0].text, 'UPSTREAM');
    await client.close();
  } finally {
    await http.stop('SIGKILL');
  }
});

test('bad upstream: malformed SSE, oversized events, HTTP errors, vanishing mid-stream', async () => {
  // A scripted Streamable HTTP server whose tools misbehave on purpose.
  const server = createServer(async (req, res) => {
    if (req.method === 'DELETE') return res.writeHead(200).end();
    if (req.method === 'GET') return res.writeHead(405).end();
    let body = '';
    for await (const c of req) body += c;
    const msg = JSON.parse(body);
    const reply = (result) => JSON.stringify({ jsonrpc: '2.0', id: msg.id, result });
    if (msg.method === 'initialize') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Mcp-Session-Id': 'bad-1' });
      return res.end(reply({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'bad', version: '1' } }));
    }
    if (!('id' in msg)) return res.writeHead(202).end();
    if (msg.method === 'tools/list') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return res.end(reply({ tools: ['garbage', 'huge', 'http500', 'vanish'].map((name) => ({ name, inputSchema: { type: 'object' } })) }));
    }
    const name = msg.params?.name;
    const ok = reply({ content: [{ type: 'text', text: `ok ${name}` }] });
    if (name === 'garbage') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(': comment\r\ndata: {not json\r\n\r\nevent: weird\ndata: 1\n\nretry: x\nid\0bad\n\n');
      return res.end(`data: ${ok}\n\n`);
    }
    if (name === 'huge') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      return res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { pad: 'x'.repeat(300000) } })}\n\n`);
    }
    if (name === 'http500') return res.writeHead(500, { 'Content-Type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-1,"message":"boom"},"id":null}');
    if (name === 'vanish') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(': about to vanish\n\n');
      return setTimeout(() => res.socket.destroy(), 50);
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(ok);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}/mcp`;
  try {
    const c = await connectThroughWarden(['--upstream', url, '--max-message-bytes', '100000']);
    const garbage = await c.client.callTool({ name: 'garbage', arguments: {} });
    assert.equal(garbage.content[0].text, 'ok garbage');
    await assert.rejects(c.client.callTool({ name: 'huge', arguments: {} }), /exceeds the message size limit/);
    await assert.rejects(c.client.callTool({ name: 'http500', arguments: {} }), /HTTP 500.*boom/);
    await assert.rejects(c.client.callTool({ name: 'vanish', arguments: {} }), /event stream ended before it answered/);
    // The proxy is still there.
    assert.equal((await c.client.callTool({ name: 'other', arguments: {} })).content[0].text, 'ok other');
    await c.close();
    // The upstream vanishing entirely: a clear error, no hang.
    const d = await connectThroughWarden(['--upstream', url]);
    await new Promise((r) => server.close(r));
    server.closeAllConnections();
    await assert.rejects(d.client.callTool({ name: 'garbage', arguments: {} }), /cannot connect|failed|closed/);
    await d.close();
  } finally {
    server.close();
  }
});
