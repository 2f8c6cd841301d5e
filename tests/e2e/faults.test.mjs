// Fault injection: hung, flooding and over-producing servers, slow clients, signals, hostile
// environments, odd ids. Each checks that mcp-warden stays up (or exits cleanly with a reason),
// that pending requests get answers, and that its memory stays bounded.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { everythingSpec, fixtureSpec, proxiedArgv, sanitized, wardenBin } from './support/peers.mjs';
import { rawHandshake, waitPidGone, startProxied, reap, withPeer } from './support/raw.mjs';

wardenBin();
const T = { timeout: 60_000 };
const call = (id, name, args = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

const proxy = (spec, proxyArgs = [], env = {}) => startProxied(proxiedArgv(spec, proxyArgs), { ...spec.env, ...env });


/** Resident set of a process in KiB (Linux /proc). */
function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
}
/** Highest resident set of the proxy, sampled while `work` runs. */
async function peakRss(pid, work) {
  let peak = rssKiB(pid);
  const timer = setInterval(() => { try { peak = Math.max(peak, rssKiB(pid)); } catch { /* exited */ } }, 20);
  try { await work(); } finally { clearInterval(timer); }
  return peak;
}

describe('a server that hangs', () => {
  test('--request-timeout-ms: the client gets -32002, the server gets notifications/cancelled, the session goes on', T, async () => {
    await withPeer(proxy(fixtureSpec('fault-server.mjs'), ['--request-timeout-ms', '300']), async (peer) => {
      await rawHandshake(peer);
      const started = Date.now();
      peer.send(call('h1', 'hang'));
      const timedOut = await peer.waitResponse('h1', 10000);
      assert.equal(timedOut.error.code, -32002);
      assert.match(timedOut.error.message, /did not answer 'tools\/call' within 300 ms/);
      assert.ok(Date.now() - started >= 250, 'not answered before the timeout');
      await peer.waitStderr(/fault-server: cancelled "h1"/, 5000);
      peer.send(call('e1', 'echo', { message: 'still here' }));
      assert.equal((await peer.waitResponse('e1')).result.content[0].text, 'still here');
    });
  });
  test('without a timeout the request simply stays pending (transparent default), and gets an error at exit', T, async () => {
    await withPeer(proxy(fixtureSpec('fault-server.mjs'), ['--stdin-grace-ms', '200']), async (peer) => {
      await rawHandshake(peer);
      peer.send(call('h2', 'hang'));
      peer.send(call('e2', 'echo', { message: 'x' }));
      await peer.waitResponse('e2');
      assert.equal(peer.parsed().find((m) => m.id === 'h2'), undefined);
      peer.endInput();
      const answer = await peer.waitResponse('h2', 10000);
      assert.equal(answer.error.code, -32000);
      await peer.waitExit(10000);
    });
  });
});

describe('servers that produce too much', () => {
  test('a notification flood to a client that stops reading: back-pressure, bounded memory, nothing lost', T, async () => {
    await withPeer(proxy(fixtureSpec('fault-server.mjs'), ['--log-level', 'warn']), async (peer) => {
      await rawHandshake(peer);
      const before = rssKiB(peer.pid);
      const seen = peer.lines.length;
      peer.child.stdout.pause();  // the client stops reading; ~46 MB of notifications are coming
      peer.send(call('f1', 'flood', { count: 200000 }));
      const peak = await peakRss(peer.pid, () => new Promise((r) => setTimeout(r, 2500)));
      peer.child.stdout.resume();
      // Count lines rather than parse them all: 200,000 notifications, then the answer, in order.
      await peer.waitUntil(() => peer.lines.length >= seen + 200001, 40000, 'the flood and its answer');
      const tail = JSON.parse(peer.lines[seen + 200000].toString('utf8'));
      assert.equal(tail.id, 'f1');
      assert.equal(tail.result.content[0].text, 'flooded 200000');
      const sample = JSON.parse(peer.lines[seen + 199999].toString('utf8'));
      assert.equal(sample.method, 'notifications/message');
      if (!sanitized) assert.ok(peak - before < 48 * 1024, `proxy grew by ${peak - before} KiB while the client was not reading`);
    });
  });
  test('a 1 GiB answer line: refused with -32001 for its id, memory stays bounded, the session goes on', T, async () => {
    let peer;
    try {
      // Memory is bounded by the message limit (a line is held until it proves too long).
      peer = await proxy(fixtureSpec('fault-server.mjs'), ['--log-level', 'warn', '--max-message-bytes', String(8 << 20)]);
      await rawHandshake(peer);
      const before = rssKiB(peer.pid);
      let answer;
      const peak = await peakRss(peer.pid, async () => {
        peer.send(call('big', 'huge', { mib: 1024 }));
        answer = await peer.waitResponse('big', 55000);
      });
      assert.equal(answer.error.code, -32001);
      assert.match(answer.error.message, /exceeds the message size limit/);
      if (!sanitized) assert.ok(peak - before < 40 * 1024, `proxy grew by ${peak - before} KiB for a 1 GiB line under an 8 MiB limit`);
      peer.send(call('after', 'echo', { message: 'ok' }));
      assert.equal((await peer.waitResponse('after')).result.content[0].text, 'ok');
    } finally { await reap(peer); }
  });
});

describe('signals', () => {
  test('SIGHUP: the server is shut down, mcp-warden exits 129', T, async () => {
    await withPeer(proxy(everythingSpec(), ['--stdin-grace-ms', '300', '--term-grace-ms', '300']), async (peer) => {
      await rawHandshake(peer);
      peer.kill('SIGHUP');
      const exit = await peer.waitExit(10000);
      assert.equal(exit.code, 129);
      await waitPidGone(peer.serverPid, 5000);
    });
  });
});

describe('environment', () => {
  const envOf = async (proxyArgs, env) => {
    return withPeer(proxy(everythingSpec(), proxyArgs, env), async (peer) => {
      await rawHandshake(peer);
      peer.send(call('env', 'get-env'));
      const text = (await peer.waitResponse('env', 10000)).result.content.map((c) => c.text).join('\n');
      return JSON.parse(text);
    });
  };
  const hostile = { NODE_OPTIONS: '--max-old-space-size=512', PYTHONSTARTUP: '/tmp/evil.py', BASH_ENV: '/tmp/evil.sh' };
  test('--scrub-env drops inherited code-injection variables; plain variables and explicit --env stay', T, async () => {
    const plain = await envOf([], { ...hostile, KEEP_ME: 'yes' });
    assert.equal(plain.PYTHONSTARTUP, '/tmp/evil.py', 'without --scrub-env the environment is passed as is');
    const scrubbed = await envOf(['--scrub-env', '--env', 'BASH_ENV=/etc/explicit'], { ...hostile, KEEP_ME: 'yes' });
    assert.equal(scrubbed.NODE_OPTIONS, undefined);
    assert.equal(scrubbed.PYTHONSTARTUP, undefined);
    assert.equal(scrubbed.BASH_ENV, '/etc/explicit');
    assert.equal(scrubbed.KEEP_ME, 'yes');
  });
});

describe('odd ids', () => {
  test('a 1 MiB string id and a duplicate id in flight both come back unchanged', T, async () => {
    await withPeer(proxy(fixtureSpec('fault-server.mjs')), async (peer) => {
      await rawHandshake(peer);
      const hugeId = 'i'.repeat(1 << 20);
      peer.send(call(hugeId, 'echo', { message: 'huge id' }));
      assert.equal((await peer.waitResponse(hugeId, 10000)).result.content[0].text, 'huge id');
      peer.send(call(7, 'echo', { message: 'first' }));
      peer.send(call(7, 'echo', { message: 'second' }));
      await peer.waitUntil(() => peer.parsed().filter((m) => m.id === 7).length === 2, 5000, 'both answers to id 7');
      const texts = peer.parsed().filter((m) => m.id === 7).map((m) => m.result.content[0].text);
      assert.deepEqual(texts, ['first', 'second']);
    });
  });
});

describe('secrets in our own log', () => {
  test('credentials inside a rejected line never reach mcp-warden\'s log', T, async () => {
    await withPeer(proxy(fixtureSpec('fault-server.mjs')), async (peer) => {
      await rawHandshake(peer);
      const key = 'AKIA' + 'Q3EXAMPLE7KEYZ2X';
      const token = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
      peer.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"aws":"${key}","gh":"${token}"`);  // malformed: cut short
      const answer = await peer.waitResponse(null, 5000);
      assert.equal(answer.error.code, -32700);
      await peer.waitStderr(/client sent an invalid message/, 5000);
      assert.doesNotMatch(peer.stderr, new RegExp(key));
      assert.doesNotMatch(peer.stderr, new RegExp(token));
      assert.match(peer.stderr, /REDACTED/);
    });
  });
});
