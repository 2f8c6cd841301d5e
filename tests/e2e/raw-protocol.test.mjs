// Raw protocol: drive mcp-warden with hand-written lines (no SDK) and compare, where it makes
// sense, with what the same server does when driven directly.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { everythingSpec, fixtureSpec, proxiedArgv, wardenBin, sanitized } from './support/peers.mjs';
import { startRaw, rawHandshake, waitSingleChild, waitPidGone, withPeer } from './support/raw.mjs';

wardenBin();
const T = { timeout: 30_000 };

/** Starts `spec` directly or through the proxy; returns the raw peer plus the server pid. */
async function start(spec, mode, proxyArgs = []) {
  const argv = mode === 'proxied' ? proxiedArgv(spec, proxyArgs) : [spec.command, ...spec.args];
  const peer = startRaw(argv, { env: spec.env });
  peer.serverPid = mode === 'proxied' ? await waitSingleChild(peer.pid) : peer.pid;
  return peer;
}

/** EOF, then SIGTERM/SIGKILL if needed; asserts the server process is gone (no orphan). */
async function stop(peer) {
  if (!peer.exitInfo) {
    peer.endInput();
    const t1 = setTimeout(() => peer.kill('SIGTERM'), 300);
    const t2 = setTimeout(() => peer.kill('SIGKILL'), 4000);
    await peer.waitExit(8000).finally(() => { clearTimeout(t1); clearTimeout(t2); });
  }
  await waitPidGone(peer.serverPid, 5000);
}

/** Runs fn against the server directly and through the proxy, concurrently (independent processes). */
async function both(spec, fn, proxyArgs = []) {
  const run = async (mode) => {
    const peer = await start(spec, mode, proxyArgs);
    try {
      return await fn(peer, mode);
    } catch (e) {
      e.message = `[${mode}] ${e.message}`;
      throw e;
    } finally {
      await stop(peer);
    }
  };
  const [direct, proxied] = await Promise.all([run('direct'), run('proxied')]);
  return { direct, proxied };
}

const call = (id, name, args, extra = {}) =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...extra } });
const isErrorNullId = (m) => m.id === null && m.error && typeof m.error.code === 'number';
const assertAlive = async (peer, id) => {
  peer.send({ jsonrpc: '2.0', id, method: 'ping' });
  const r = await peer.waitResponse(id, 5000);
  assert.deepEqual(r.result, {}, `ping ${id} failed: ${JSON.stringify(r)}`);
  assert.equal(peer.exitInfo, null, 'process exited');
};

// A request with unusual but valid formatting: spaces, key order, \u escapes (incl. a surrogate
// pair), an escaped slash, a tab escape, and non-ASCII bytes in the raw line.
const WEIRD_ECHO = (id) =>
  `{ "params" : { "arguments" : {"message":"caf\\u00e9 \\ud83d\\ude00 \\/ tab\\t ünï"} , "name":"echo"},` +
  `   "method":"tools/call" ,"jsonrpc" : "2.0", "id" : ${JSON.stringify(id)} }`;
// The same request for byte-probe's `mirror` tool, which answers with the bytes it received.
const WEIRD_MIRROR = (id) => WEIRD_ECHO(id).replace('"echo"', '"mirror"');

describe('byte-for-byte forwarding', () => {
  test('server-everything: same response bytes for an unusually formatted request', T, async () => {
    const r = await both(everythingSpec(), async (peer) => {
      await rawHandshake(peer);
      peer.send(WEIRD_ECHO(7));
      const line = await peer.waitLine((m) => m.id === 7 && 'result' in m, 5000, 'echo response');
      return line.toString('utf8');
    });
    assert.match(r.direct, /Echo: café 😀 \/ tab\\t ünï/);
    assert.equal(r.proxied, r.direct);
  });

  test('byte-probe: client line reaches the server unchanged and the server line reaches the client unchanged', T, async () => {
    const r = await both(fixtureSpec('byte-probe-server.mjs'), async (peer) => {
      const init = await rawHandshake(peer, { protocolVersion: '2025-03-26' });
      const initLine = await peer.waitLine((m) => m.id === 'init-1');
      const req = WEIRD_MIRROR(11);
      peer.send(req);
      const resp = await peer.waitLine((m) => m.id === 11, 5000, 'mirror response');
      const mirrored = Buffer.from(JSON.parse(resp.toString('utf8')).result.content[0].text, 'base64');
      return { init: init.result, initLine: initLine.toString('utf8'), resp: resp.toString('utf8'), mirroredEqualsSent: mirrored.equals(Buffer.from(req, 'utf8')), mirrored: mirrored.toString('utf8') };
    });
    assert.equal(r.direct.mirroredEqualsSent, true, 'direct baseline broken');
    assert.equal(r.proxied.mirrored, r.direct.mirrored, 'client->server bytes changed by the proxy');
    assert.equal(r.proxied.mirroredEqualsSent, true);
    assert.match(r.direct.initLine, /^\{ "result" : .*\\u00e9/, 'fixture baseline broken');
    assert.equal(r.proxied.initLine, r.direct.initLine, 'server->client bytes (initialize response) changed by the proxy');
    assert.equal(r.proxied.resp, r.direct.resp, 'server->client bytes (tool response) changed by the proxy');
  });

  // Pipelined traffic: the relay hands a burst to its writer in parts (every 8 messages in
  // passthrough, every 16 with inspectors); nothing may be lost, reordered or changed, and with an
  // audit log (the relay held back when the writer's queue is full) every call is recorded.
  const auditDir = mkdtempSync(join(tmpdir(), 'warden-burst-'));
  const audited = join(auditDir, 'audit.jsonl');
  const variants = [
    ['passthrough', []],
    ['policy enforced', ['--mode', 'enforce']],
    ['policy enforced, audited', ['--mode', 'enforce', '--audit-log', audited]],
  ];
  for (const [label, proxyArgs] of variants) {
    test(`byte-probe: 1,000 requests written at once come back complete, in order, byte-identical (${label})`, T, async () => {
      const first = 1000, count = 1000;
      const r = await both(fixtureSpec('byte-probe-server.mjs'), async (peer) => {
        await rawHandshake(peer, { protocolVersion: '2025-03-26' });
        const burst = Array.from({ length: count }, (_, i) => WEIRD_MIRROR(first + i));
        peer.writeRaw(burst.join('\n') + '\n');
        await peer.waitLine((m) => m.id === first + count - 1, 20_000, 'the answer to the last request');
        const ours = (line) => { const id = JSON.parse(line).id; return typeof id === 'number' && id >= first && id < first + count; };
        return peer.lines.map((b) => b.toString('utf8')).filter(ours);
      }, proxyArgs);
      assert.equal(r.direct.length, count, 'direct baseline broken');
      assert.deepEqual(r.proxied, r.direct);
      if (!proxyArgs.includes('--audit-log')) return;
      const calls = readFileSync(audited, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
        .filter((e) => e.event === 'call' && e.id >= first && e.id < first + count);
      assert.deepEqual(calls.map((e) => e.id), Array.from({ length: count }, (_, i) => first + i), 'one record per call, in order');
      assert.ok(calls.every((e) => e.decision === 'allow' && e.tool === 'mirror'));
      assert.match(execFileSync(wardenBin(), ['log', 'verify', audited], { encoding: 'utf8' }), /^ok: /);
      rmSync(auditDir, { recursive: true, force: true });
    });
  }
});

test('oldest and newest stateful revisions: initialize and tools/list answers are byte-identical', T, async () => {
  for (const protocolVersion of ['2024-11-05', '2025-11-25']) {
    const r = await both(everythingSpec(), async (peer) => {
      await rawHandshake(peer, { protocolVersion });
      peer.send({ jsonrpc: '2.0', id: 'tl', method: 'tools/list' });
      const init = (await peer.waitLine((m) => m.id === 'init-1')).toString('utf8');
      const tools = (await peer.waitLine((m) => m.id === 'tl')).toString('utf8');
      return { init, tools };
    });
    assert.equal(JSON.parse(r.direct.init).result.protocolVersion, protocolVersion);
    assert.deepEqual(r.proxied, r.direct, `differs for ${protocolVersion}`);
  }
});

describe('ids', () => {
  test('string and numeric ids are kept apart and returned with their exact type', T, async () => {
    const ids = ['abc', 42, '42', -1, 0, 'ü-ñ/😀', 1e15];
    const r = await both(everythingSpec(), async (peer) => {
      await rawHandshake(peer);
      for (const id of ids) peer.send(call(id, 'echo', { message: `for ${typeof id} ${id}` }));
      const out = [];
      for (const id of ids) {
        const line = await peer.waitLine((m) => m.id === id && 'result' in m, 5000, `response to ${JSON.stringify(id)}`);
        out.push(line.toString('utf8'));
      }
      return out;
    });
    for (const [i, id] of ids.entries()) {
      const msg = JSON.parse(r.proxied[i]);
      assert.equal(msg.id, id);
      assert.equal(msg.result.content[0].text, `Echo: for ${typeof id} ${id}`);
    }
    assert.deepEqual(r.proxied, r.direct);
  });

  test('the same id in flight in both directions (client request 0 vs server sampling request 0)', T, async () => {
    const r = await both(everythingSpec(), async (peer) => {
      await rawHandshake(peer, { capabilities: { sampling: {} } });
      peer.send(call(0, 'trigger-sampling-request', { prompt: 'overlap', maxTokens: 3 }));
      const srvReq = await peer.waitMessage((m) => m.method === 'sampling/createMessage', 5000, 'server sampling request');
      // while both id-0 requests are open, a client ping also reuses the server's id
      peer.send({ jsonrpc: '2.0', id: srvReq.id, method: 'ping' });
      const pingResp = await peer.waitMessage((m) => m.id === srvReq.id && 'result' in m && !('content' in (m.result ?? {})), 5000, 'ping response');
      peer.send({ jsonrpc: '2.0', id: srvReq.id, result: { model: 'raw-model', role: 'assistant', content: { type: 'text', text: 'sampled-overlap' } } });
      const toolResp = await peer.waitMessage((m) => m.id === 0 && m.result?.content, 5000, 'tool response for id 0');
      return { srvReqId: srvReq.id, ping: pingResp.result, text: toolResp.result.content[0].text };
    });
    assert.equal(r.direct.srvReqId, 0, 'precondition: server-everything numbers its first request 0');
    assert.equal(r.proxied.srvReqId, 0, 'server request id was rewritten');
    assert.match(r.proxied.text, /sampled-overlap/);
    assert.deepEqual(r.proxied, r.direct);
  });
});

describe('batches (2025-03-26)', () => {
  test('server-everything: the proxy does to a batch what the server does (compare)', T, async () => {
    const r = await both(everythingSpec(), async (peer) => {
      await rawHandshake(peer, { protocolVersion: '2025-03-26' });
      peer.send('[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","id":"b2","method":"tools/call","params":{"name":"echo","arguments":{"message":"in batch"}}}]');
      peer.send({ jsonrpc: '2.0', id: 'after-batch', method: 'ping' });
      await peer.waitResponse('after-batch');
      // give a batch response that may come late the time of one more round trip
      peer.send(call('after-batch-2', 'echo', { message: 'x' }));
      await peer.waitResponse('after-batch-2');
      return peer.lines.map((b) => b.toString('utf8')).filter((l) => /"b[12]"|^\[/.test(l) || /"id":null/.test(l));
    });
    assert.deepEqual(r.proxied, r.direct);
  });

  test('byte-probe: a batch request and a batch response pass through unchanged', T, async () => {
    const batch = '[{"jsonrpc":"2.0","id":"b1","method":"ping"} , {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mirror","arguments":{}}}]';
    const r = await both(fixtureSpec('byte-probe-server.mjs'), async (peer) => {
      await rawHandshake(peer, { protocolVersion: '2025-03-26' });
      peer.send(batch);
      const line = await peer.waitUntil(() => peer.lines.find((b) => b[0] === 0x5b), 5000, 'batch response line');
      return line.toString('utf8');
    });
    const arr = JSON.parse(r.direct);
    assert.deepEqual(arr.map((m) => m.id), ['b1', 2]);
    assert.equal(Buffer.from(arr[1].result.content[0].text, 'base64').toString('utf8'), batch, 'fixture baseline');
    assert.equal(r.proxied, r.direct);
  });
});

describe('malformed and hostile input from the client', () => {
  test('malformed JSON gets -32700 with id null and the session continues', T, async () => {
    await withPeer(start(everythingSpec(), 'proxied'), async (peer) => {
      await rawHandshake(peer);
      peer.send('{"jsonrpc":"2.0","id":5,"method":');
      const err = await peer.waitMessage(isErrorNullId, 5000, '-32700 error with id null');
      assert.equal(err.error.code, -32700);
      assert.equal(err.jsonrpc, '2.0');
      assert.equal(typeof err.error.message, 'string');
      peer.send('not json at all');
      await peer.waitUntil(() => peer.parsed().filter(isErrorNullId).length >= 2, 5000, 'second -32700');
      await assertAlive(peer, 'after-malformed');
      assert.equal(peer.parsed().some((m) => m.id === 5), false, 'no response with the unparsable id');
    }, stop);
  });

  test('over-size line (--max-message-bytes 1024) gets an error and the session continues', T, async () => {
    await withPeer(start(everythingSpec(), 'proxied', ['--max-message-bytes', '1024']), async (peer) => {
      // server-everything's initialize answer (~2 KB) is itself over the limit: the client must
      // get an error for it rather than silence.
      const init = await rawHandshake(peer);
      assert.ok(init.error, `over-size initialize answer should become an error: ${JSON.stringify(init).slice(0, 300)}`);
      assert.match(init.error.message, /exceed|limit|too (large|big)|size/i);
      peer.send(call('small', 'echo', { message: 'y'.repeat(300) }));
      assert.equal((await peer.waitResponse('small')).result.content[0].text, `Echo: ${'y'.repeat(300)}`);
      peer.send(call('big', 'echo', { message: 'x'.repeat(4000) }));
      // JSON-RPC allows id null when the id cannot be read; echoing the request id is better still.
      const err = await peer.waitMessage((m) => m.error && (m.id === null || m.id === 'big'), 5000, 'error for the over-size line');
      assert.ok([-32600, -32700].includes(err.error.code), `unexpected code ${err.error.code}`);
      assert.match(err.error.message, /exceed|limit|too (large|big)|size/i, `unclear message: ${err.error.message}`);
      // a line far over the limit, sent in many chunks, must not be buffered whole or kill the session
      peer.send(call('huge', 'echo', { message: 'z'.repeat(3 << 20) }));
      await peer.waitMessage((m) => m.error && (m.id === null || m.id === 'huge') && m !== err, 10_000, 'error for the 3 MiB line');
      await assertAlive(peer, 'after-oversize');
      assert.equal(peer.parsed().some((m) => (m.id === 'big' || m.id === 'huge') && m.result), false, 'over-size request reached the server');
    }, stop);
  });

  test('memory stays bounded: a 48 MiB line under a 1 KiB limit is not buffered', T, async () => {
    await withPeer(start(fixtureSpec('byte-probe-server.mjs'), 'proxied', ['--max-message-bytes', '1024']), async (peer) => {
      await rawHandshake(peer);
      const chunk = Buffer.alloc(1 << 20, 0x61);
      peer.writeRaw('{"jsonrpc":"2.0","id":"mem","method":"ping","params":{"pad":"');
      for (let i = 0; i < 48; i++) {
        if (!peer.child.stdin.write(chunk)) await new Promise((r) => peer.child.stdin.once('drain', r));
      }
      peer.writeRaw('"}}\n');
      await peer.waitMessage((m) => m.error && (m.id === null || m.id === 'mem'), 10_000, 'error for the 48 MiB line');
      const hwmKb = Number(readFileSync(`/proc/${peer.pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/)[1]);
      if (!sanitized) assert.ok(hwmKb < 32 * 1024, `proxy peak RSS ${hwmKb} kB: the over-size line seems to be buffered`);
      await assertAlive(peer, 'after-mem');
    }, stop);
  });

  // tcmalloc keeps freed pages for reuse; mcp-warden hands them back once the traffic stops.
  const allocator = (() => {
    try { return execFileSync(wardenBin(), ['--version'], { encoding: 'utf8' }); } catch { return ''; }
  })();
  test('memory goes back to the system after large results', { ...T, skip: !allocator.includes('tcmalloc') && 'built without tcmalloc' }, async () => {
    const peer = await start(everythingSpec(), 'proxied');
    const status = (field) => Number(readFileSync(`/proc/${peer.pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+)`))[1]);
    try {
      await rawHandshake(peer);
      const baselineKb = status('VmRSS');
      const message = 'm'.repeat(6 << 20);
      for (const id of ['big1', 'big2', 'big3']) {
        peer.send(call(id, 'echo', { message }));
        assert.equal((await peer.waitResponse(id, 20_000)).result.content[0].text.length, message.length + 'Echo: '.length);
      }
      // Each 6 MiB result is held at least once while relayed, so the peak sits well above the
      // baseline; once idle, at most the allocator's keep-for-reuse allowance (8 MiB) plus some
      // fragmentation may remain.
      const peakKb = status('VmHWM');
      const allowedKb = baselineKb + 10 * 1024;
      const deadline = Date.now() + 6000;
      let rssKb = status('VmRSS');
      while (rssKb > allowedKb && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        rssKb = status('VmRSS');
      }
      assert.ok(peakKb > baselineKb + 8 * 1024, `peak ${peakKb} kB, baseline ${baselineKb} kB: the large results did not grow the heap`);
      assert.ok(rssKb <= allowedKb, `RSS ${rssKb} kB after idling (baseline ${baselineKb} kB, peak ${peakKb} kB): freed memory was kept`);
      await assertAlive(peer, 'after-release');
    } finally { await stop(peer); }
  });

  test('invalid UTF-8 inside a string: no crash, an answer, the session continues', T, async () => {
    await withPeer(start(everythingSpec(), 'proxied'), async (peer) => {
      await rawHandshake(peer);
      const bad = Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":"utf8","method":"tools/call","params":{"name":"echo","arguments":{"message":"bad '),
        Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
        Buffer.from(' bytes"}}}'),
      ]);
      peer.send(bad);
      const ans = await peer.waitMessage((m) => m.id === 'utf8' || isErrorNullId(m), 5000, 'an answer to the invalid UTF-8 request');
      assert.ok(ans.result || ans.error);
      await assertAlive(peer, 'after-utf8');
      // stdout must stay valid UTF-8 JSON lines
      for (const b of peer.lines) assert.doesNotThrow(() => JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(b)), `bad stdout line: ${b.toString('hex').slice(0, 200)}`);
    }, stop);
  });

  test('100k levels of nesting: clear error, no crash, session continues', T, async () => {
    await withPeer(start(everythingSpec(), 'proxied'), async (peer) => {
      await rawHandshake(peer);
      const depth = 100_000;
      peer.send(`{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"echo","arguments":{"message":"m","deep":${'['.repeat(depth)}${']'.repeat(depth)}}}}`);
      const err = await peer.waitMessage((m) => (m.id === 'deep' || m.id === null) && m.error, 10_000, 'error for the deep message');
      assert.match(err.error.message, /depth|deep|nest/i, `error message is not clear: ${err.error.message}`);
      await assertAlive(peer, 'after-deep');
    }, stop);
  });

  test('--max-depth 10: depth 5 passes, depth 20 gets a clear error', T, async () => {
    await withPeer(start(everythingSpec(), 'proxied', ['--max-depth', '10']), async (peer) => {
      await rawHandshake(peer);
      const nest = (d) => '['.repeat(d) + ']'.repeat(d);
      peer.send(`{"jsonrpc":"2.0","id":"d5","method":"tools/call","params":{"name":"echo","arguments":{"message":"ok","x":${nest(5)}}}}`);
      assert.equal((await peer.waitResponse('d5')).result.content[0].text, 'Echo: ok');
      peer.send(`{"jsonrpc":"2.0","id":"d20","method":"tools/call","params":{"name":"echo","arguments":{"message":"ok","x":${nest(20)}}}}`);
      const err = await peer.waitMessage((m) => m.error && (m.id === 'd20' || m.id === null), 5000, 'depth error');
      assert.match(err.error.message, /depth|deep|nest/i);
      await assertAlive(peer, 'after-depth');
    }, stop);
  });

  test('CRLF line endings and empty lines are tolerated', T, async () => {
    await withPeer(start(everythingSpec(), 'proxied'), async (peer) => {
      await rawHandshake(peer);
      peer.writeRaw('\n\n{"jsonrpc":"2.0","id":"crlf","method":"ping"}\r\n\r\n\n');
      // one message delivered in many small writes
      const split = JSON.stringify(call('crlf-echo', 'echo', { message: 'ok' })) + '\r\n';
      for (let i = 0; i < split.length; i += 7) {
        peer.writeRaw(split.slice(i, i + 7));
        await new Promise((r) => setImmediate(r));
      }
      const r = await peer.waitResponse('crlf');
      assert.deepEqual(r.result, {});
      const e = await peer.waitResponse('crlf-echo');
      assert.equal(e.result.content[0].text, 'Echo: ok');
      await assertAlive(peer, 'after-crlf');
      assert.deepEqual(peer.parsed().filter((m) => m.error), [], 'empty lines or CR produced errors');
    }, stop);
  });
});

test('notifications/cancelled is forwarded: no response for the cancelled id (compare)', T, async () => {
  const r = await both(everythingSpec(), async (peer) => {
    await rawHandshake(peer);
    peer.send(call('long', 'trigger-long-running-operation', { duration: 1, steps: 10 }, { _meta: { progressToken: 'tok-1' } }));
    await peer.waitMessage((m) => m.method === 'notifications/progress' && m.params.progressToken === 'tok-1', 5000, 'first progress');
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'long', reason: 'test' } });
    // started after the cancelled one and equally long: when it answers, the first would have too
    peer.send(call('later', 'trigger-long-running-operation', { duration: 1, steps: 2 }));
    await peer.waitResponse('later', 10_000);
    return { longAnswered: peer.parsed().some((m) => m.id === 'long' && !m.method) };
  });
  assert.equal(r.direct.longAnswered, false, 'baseline: server-everything suppresses cancelled responses');
  assert.equal(r.proxied.longAnswered, false, 'response for a cancelled request reached the client');
});

test('stateless revision 2026-07-28 requests (no initialize, _meta keys) pass through as the server answers them', T, async () => {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw-stateless', version: '1' },
  };
  const r = await both(everythingSpec(), async (peer) => {
    peer.send({ jsonrpc: '2.0', id: 'disc', method: 'server/discover', params: { _meta: meta } });
    peer.send(call('sl-echo', 'echo', { message: 'stateless' }, { _meta: meta }));
    peer.send({ jsonrpc: '2.0', id: 'sl-tools', method: 'tools/list', params: { _meta: meta } });
    const out = {};
    for (const id of ['disc', 'sl-echo', 'sl-tools']) out[id] = (await peer.waitLine((m) => m.id === id, 5000, `answer to ${id}`)).toString('utf8');
    return out;
  });
  assert.match(r.direct['sl-echo'], /Echo: stateless/);
  assert.deepEqual(r.proxied, r.direct);
});

test('tasks (2025-11-25): task-augmented tools/call, tasks/get, blocking tasks/result, tasks/list (compare)', T, async () => {
  const norm = (m, taskId) => JSON.parse(JSON.stringify(m).split(taskId).join('<TASK>')
    .replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z/g, '<TS>'));
  const r = await both(everythingSpec(), async (peer) => {
    await rawHandshake(peer, { protocolVersion: '2025-11-25' });
    peer.send({ jsonrpc: '2.0', id: 'task-call', method: 'tools/call', params: { name: 'simulate-research-query', arguments: { topic: 'proxies' }, task: { ttl: 60000 } } });
    const created = await peer.waitResponse('task-call');
    const taskId = created.result?.task?.taskId;
    assert.ok(taskId, `no task created: ${JSON.stringify(created)}`);
    peer.send({ jsonrpc: '2.0', id: 'task-get', method: 'tasks/get', params: { taskId } });
    peer.send({ jsonrpc: '2.0', id: 'task-result', method: 'tasks/result', params: { taskId } });
    const got = await peer.waitResponse('task-get');
    const result = await peer.waitResponse('task-result', 15_000);
    peer.send({ jsonrpc: '2.0', id: 'task-list', method: 'tasks/list' });
    const list = await peer.waitResponse('task-list');
    return norm({ created, got, result, list }, taskId);
  });
  assert.equal(r.direct.created.result.task.status, 'working');
  assert.match(r.direct.result.result.content[0].text, /Research Report: proxies/);
  assert.equal(r.direct.list.result.tasks[0].status, 'completed');
  assert.deepEqual(r.proxied, r.direct);
});
