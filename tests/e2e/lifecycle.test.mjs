// Lifecycle, process handling, options, and the surface manifest.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import {
  everythingSpec, filesystemSpec, memorySpec, fixtureSpec, proxiedArgv, tempDir, wardenBin,
} from './support/peers.mjs';
import { startRaw, rawHandshake, waitSingleChild, waitPidGone, pidAlive, descendantsOf, startProxied, reap, withPeer } from './support/raw.mjs';

wardenBin();
const T = { timeout: 30_000 };

const proxy = (spec, proxyArgs = [], env = {}) => startProxied(proxiedArgv(spec, proxyArgs), { ...spec.env, ...env });


const call = (id, name, args = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const textOf = (resp) => resp.result.content.map((c) => c.text).join('\n');

/** Poll a file (bounded) until pred(content) holds; returns the content. */
async function waitFile(path, pred, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  let last = null;
  for (;;) {
    if (existsSync(path)) {
      last = readFileSync(path, 'utf8');
      try { if (pred(last)) return last; } catch { /* partial write: retry */ }
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} in ${path}; last content: ${String(last).slice(0, 3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('shutdown', () => {
  test('client EOF closes the server stdin; proxy exits with the server status (7), promptly, no orphan', T, async () => {
    await withPeer(proxy(fixtureSpec('introspect-server.mjs'), ['--stdin-grace-ms', '5000'], { INTROSPECT_EXIT_STATUS: '7' }), async (peer) => {
      await rawHandshake(peer);
      const t0 = Date.now();
      peer.endInput();
      const exit = await peer.waitExit(8000);
      const elapsed = Date.now() - t0;
      assert.match(peer.stderr, /introspect-server: got EOF, exiting with 7/, 'server did not see EOF on its stdin');
      assert.equal(exit.code, 7, `proxy exit ${JSON.stringify(exit)}; stderr: ${peer.stderr}`);
      assert.ok(elapsed < 3000, `proxy took ${elapsed} ms: it should exit when the server does, not after the grace time`);
      await waitPidGone(peer.serverPid, 2000);
    });
  });

  test('client EOF with server-everything: it exits by itself (status 0), so does the proxy', T, async () => {
    await withPeer(proxy(everythingSpec(), ['--stdin-grace-ms', '5000']), async (peer) => {
      await rawHandshake(peer);
      const t0 = Date.now();
      peer.endInput();
      const exit = await peer.waitExit(8000);
      assert.equal(exit.code, 0, `proxy exit ${JSON.stringify(exit)}`);
      assert.ok(Date.now() - t0 < 4000, 'proxy waited for the grace time although the server had exited');
      await waitPidGone(peer.serverPid, 2000);
    });
  });

  test('client EOF while server-everything awaits a roots/list answer (it then ignores EOF): SIGTERM after the stdin grace', T, async () => {
    await withPeer(proxy(everythingSpec(), ['--stdin-grace-ms', '300', '--term-grace-ms', '3000']), async (peer) => {
      await rawHandshake(peer, { capabilities: { roots: {} } });
      await peer.waitMessage((m) => m.method === 'roots/list', 5000, 'roots/list from the server');
      const t0 = Date.now();
      peer.endInput();
      const exit = await peer.waitExit(8000);
      const elapsed = Date.now() - t0;
      assert.ok(elapsed >= 250, `exited after ${elapsed} ms, before the stdin grace`);
      assert.ok(elapsed < 3000, `exited after ${elapsed} ms: SIGTERM should have ended server-everything well before SIGKILL`);
      assert.ok(exit.code !== 0, `server-everything was terminated by a signal; status 0 hides that: ${JSON.stringify(exit)}`);
      await waitPidGone(peer.serverPid, 2000);
    });
  });

  test('server ignoring EOF and SIGTERM is SIGKILLed after both grace times', T, async () => {
    await withPeer(proxy(fixtureSpec('ignores-eof-and-sigterm-server.mjs'), ['--stdin-grace-ms', '300', '--term-grace-ms', '400']), async (peer) => {
      await peer.waitStderr(/ignores-eof-and-sigterm-server: ready/);
      await rawHandshake(peer);
      const t0 = Date.now();
      peer.endInput();
      const exit = await peer.waitExit(8000);
      const elapsed = Date.now() - t0;
      assert.match(peer.stderr, /got EOF, ignoring[\s\S]*got SIGTERM, ignoring/, 'expected EOF then SIGTERM to reach the server');
      assert.ok(elapsed >= 600, `proxy gave up after ${elapsed} ms (< 300 + 400)`);
      assert.ok(elapsed < 4000, `proxy took ${elapsed} ms`);
      assert.notEqual(exit.code, 0, `a SIGKILLed server should not yield status 0: ${JSON.stringify(exit)}`);
      await waitPidGone(peer.serverPid, 2000);
    });
  });

  for (const sig of ['SIGTERM', 'SIGINT']) {
    test(`${sig} to the proxy terminates server-everything and the proxy`, T, async () => {
      await withPeer(proxy(everythingSpec(), ['--stdin-grace-ms', '300', '--term-grace-ms', '300']), async (peer) => {
        await rawHandshake(peer);
        peer.send(call('pending', 'trigger-long-running-operation', { duration: 20, steps: 2 }));
        peer.kill(sig);
        const exit = await peer.waitExit(8000);
        assert.ok(exit, 'proxy did not exit');
        await waitPidGone(peer.serverPid, 3000);
      });
    });
  }

  test('SIGTERM to the proxy also ends a server that ignores SIGTERM (no orphan)', T, async () => {
    await withPeer(proxy(fixtureSpec('ignores-eof-and-sigterm-server.mjs'), ['--stdin-grace-ms', '200', '--term-grace-ms', '300']), async (peer) => {
      await peer.waitStderr(/ready/);
      peer.kill('SIGTERM');
      await peer.waitExit(8000);
      await waitPidGone(peer.serverPid, 3000);
    });
  });
  test('server behind a wrapper (sh -c "node server; ...", like npx/uv): no grandchild outlives the proxy', T, async () => {
    let peer;
    let tree = [];
    try {
      const ev = everythingSpec();
      const quoted = [ev.command, ...ev.args].map((a) => `'${a}'`).join(' ');
      // the trailing command keeps sh from exec-ing node, so node is a grandchild of the proxy
      const wrapped = { name: 'wrapped-everything', command: '/bin/sh', args: ['-c', `${quoted}; echo wrapper-done >&2`], env: {} };
      peer = await proxy(wrapped, ['--stdin-grace-ms', '300', '--term-grace-ms', '500']);
      await rawHandshake(peer, { capabilities: { roots: {} } });
      await peer.waitMessage((m) => m.method === 'roots/list', 5000, 'roots/list (keeps server-everything alive after EOF)');
      tree = descendantsOf(peer.pid);
      assert.ok(tree.length >= 2, `expected sh and node below the proxy, got ${tree}`);
      peer.endInput();
      await peer.waitExit(8000);
      for (const pid of tree) await waitPidGone(pid, 3000);
    } finally {
      await reap(peer);
      for (const pid of tree) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    }
  });

  test('SIGKILL of the proxy: server-everything does not outlive it', T, async () => {
    await withPeer(proxy(everythingSpec()), async (peer) => {
      await rawHandshake(peer);
      peer.kill('SIGKILL');
      await peer.waitExit(5000);
      await waitPidGone(peer.serverPid, 5000);
    });
  });

  test('client stops reading (closes its end of our stdout): the server is shut down, proxy exits', T, async () => {
    await withPeer(proxy(everythingSpec(), ['--stdin-grace-ms', '200', '--term-grace-ms', '300']), async (peer) => {
      await rawHandshake(peer);
      peer.child.stdout.destroy();
      for (let i = 0; i < 40; i++) peer.send(call(i, 'echo', { message: 'x'.repeat(20_000) }));
      await peer.waitExit(8000);
      await waitPidGone(peer.serverPid, 3000);
    });
  });
});

describe('server crash', () => {
  test('pending requests get a -32000-family error naming the cause; proxy exits with status 3', T, async () => {
    await withPeer(proxy(fixtureSpec('crash-mid-call-server.mjs')), async (peer) => {
      await rawHandshake(peer);
      peer.send(call('h1', 'hang'));
      peer.send(call(77, 'hang'));
      peer.send(call('c1', 'crash'));
      const errs = [];
      for (const id of ['h1', 77, 'c1']) {
        const r = await peer.waitResponse(id, 5000);
        assert.ok(r.error, `expected an error for ${id}: ${JSON.stringify(r)}`);
        assert.ok(r.error.code <= -32000 && r.error.code >= -32099, `code ${r.error.code} not in -32000 family`);
        assert.match(r.error.message, /exit|terminat|crash|died|closed/i, `message does not name the cause: ${r.error.message}`);
        errs.push(r);
      }
      const exit = await peer.waitExit(5000);
      assert.equal(exit.code, 3, `proxy exit ${JSON.stringify(exit)}`);
      assert.match(peer.stderr, /crashing now with status 3/, "server's stderr should be on the proxy's stderr");
      for (const b of peer.lines) assert.doesNotThrow(() => JSON.parse(b.toString()), 'stdout must carry only JSON');
    });
  });
});

describe('pending requests', () => {
  test('cancelled requests free their --max-pending slot and get no error when the server dies', T, async () => {
    await withPeer(proxy(fixtureSpec('crash-mid-call-server.mjs'), ['--max-pending', '2']), async (peer) => {
      await rawHandshake(peer);
      peer.send(call('h1', 'hang'));
      peer.send(call('h2', 'hang'));
      peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'h1', reason: 'test' } });
      peer.send(call('e1', 'echo', { message: 'slot freed' }));
      const e1 = await peer.waitResponse('e1');
      assert.ok(e1.result, `request after a cancellation was refused: ${JSON.stringify(e1)}`);
      peer.send(call('c1', 'crash'));
      await peer.waitResponse('c1');
      await peer.waitResponse('h2');
      await peer.waitExit(5000);
      assert.equal(peer.parsed().some((m) => m.id === 'h1'), false, 'a cancelled request must not get a response');
    });
  });

  test('requests sent just before client EOF still get their answers', T, async () => {
    await withPeer(proxy(everythingSpec(), ['--stdin-grace-ms', '5000']), async (peer) => {
      peer.send({ jsonrpc: '2.0', id: 'init-1', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
      peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      peer.send(call('slow', 'trigger-long-running-operation', { duration: 0.5, steps: 1 }));
      peer.endInput();
      const r = await peer.waitResponse('slow', 8000);
      assert.match(r.result.content[0].text, /Long running operation completed/);
      await peer.waitExit(8000);
      await waitPidGone(peer.serverPid, 2000);
    });
  });
});

describe('server output, environment, argv', () => {
  test("server stderr goes to the proxy's stderr; stdout carries only JSON", T, async () => {
    await withPeer(proxy(everythingSpec(), ['--stdin-grace-ms', '200']), async (peer) => {
      await peer.waitStderr(/Starting default \(STDIO\) server\.\.\./);
      await rawHandshake(peer);
      peer.endInput();
      await peer.waitExit(8000);
      for (const b of peer.lines) assert.doesNotThrow(() => JSON.parse(b.toString()), `non-JSON on stdout: ${b}`);
    });
  });

  test('--server-log FILE receives the server stderr', T, async () => {
    const tmp = tempDir();
    let peer;
    try {
      const log = join(tmp.dir, 'server.log');
      peer = await proxy(fixtureSpec('introspect-server.mjs'), ['--server-log', log], { INTROSPECT_MARKER: 'srvlog-123' });
      await waitFile(log, (s) => s.includes('introspect-server: started') && s.includes('marker=srvlog-123'), 5000, 'server stderr');
      await rawHandshake(peer);
      peer.endInput();
      await peer.waitExit(8000);
      await waitFile(log, (s) => s.includes('got EOF'), 2000, 'EOF message');
      assert.doesNotMatch(peer.stderr, /marker=srvlog-123/, 'with --server-log the server stderr should not also go to our stderr');
    } finally { await reap(peer); tmp.cleanup(); }
  });

  test('--env K=V reaches the server (server-everything get-env), inherited env kept', T, async () => {
    let peer;
    try {
      peer = await proxy(everythingSpec(), ['--stdin-grace-ms', '200',
        '--env', 'MCPW_A=hello', '--env', "MCPW_B=with spaces = and 'quotes' \"dq\"", '--env', 'MCPW_EMPTY=', '--env', 'MCPW_OVERRIDE=new'],
      { MCPW_INHERITED: 'from-parent', MCPW_OVERRIDE: 'old' });
      await rawHandshake(peer);
      peer.send(call('env', 'get-env'));
      const r = await peer.waitResponse('env');
      const env = JSON.parse(textOf(r));
      assert.equal(env.MCPW_A, 'hello');
      assert.equal(env.MCPW_B, "with spaces = and 'quotes' \"dq\"");
      assert.equal(env.MCPW_EMPTY, '');
      assert.equal(env.MCPW_INHERITED, 'from-parent');
      assert.equal(env.MCPW_OVERRIDE, 'new', '--env must override an inherited variable');
      assert.equal(env.PATH, process.env.PATH);
    } finally { await reap(peer); }
  });

  test('argv with spaces, quotes, empty strings and shell characters is passed exactly', T, async () => {
    const args = ['plain', 'with space', "it's", '"dq"', '', '$HOME', '*', 'a\\b', 'ünï 😀', '--', '-x', ';ls'];
    await withPeer(proxy(fixtureSpec('introspect-server.mjs', ...args)), async (peer) => {
      await rawHandshake(peer);
      peer.send(call('who', 'whoami'));
      const info = JSON.parse(textOf(await peer.waitResponse('who')));
      assert.deepEqual(info.argv, args);
      assert.equal(info.pid, peer.serverPid, 'server should be a direct child of the proxy (no shell in between)');
    });
  });

  test('server-filesystem with an allowed dir named with spaces and quotes', T, async () => {
    const tmp = tempDir();
    let peer;
    try {
      const weird = join(realpathSync(tmp.dir), `dir with 'single' "double" $VAR *`);
      mkdirSync(weird);
      peer = await proxy(filesystemSpec(weird), ['--stdin-grace-ms', '200']);
      await rawHandshake(peer);
      peer.send(call('dirs', 'list_allowed_directories'));
      assert.equal(textOf(await peer.waitResponse('dirs')), `Allowed directories:\n${weird}`);
    } finally { await reap(peer); tmp.cleanup(); }
  });

  test('a command that does not exist: its initialize gets the cause as an error, one line on stderr, exit 127', T, async () => {
    const peer = startRaw(proxiedArgv({ command: '/nonexistent/mcpw-no-such-server', args: ['x'], env: {} }));
    try {
      peer.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
      const answer = await peer.waitResponse(1, 8000);
      assert.equal(answer.error.code, -32000);
      assert.equal(answer.error.message, "mcp-warden cannot start the server: cannot execute '/nonexistent/mcpw-no-such-server': No such file or directory");
      peer.endInput();  // the client gives up: only then do we exit
      const exit = await peer.waitExit(8000);
      assert.equal(exit.code, 127, `exit ${JSON.stringify(exit)}`);
      assert.equal(peer.stderr, "mcp-warden: cannot start the server: cannot execute '/nonexistent/mcpw-no-such-server': No such file or directory\n");
      for (const b of peer.lines) assert.doesNotThrow(() => JSON.parse(b.toString()), `non-JSON on stdout: ${b}`);
    } finally { await reap(peer); }
  });

  test('malformed lines from the server are dropped; valid messages still flow', T, async () => {
    await withPeer(proxy(fixtureSpec('garbage-output-server.mjs')), async (peer) => {
      const init = await rawHandshake(peer);
      assert.equal(init.result.serverInfo.name, 'garbage-output-server');
      peer.send(call('e1', 'echo', { message: 'one' }));
      peer.send({ jsonrpc: '2.0', id: 'p1', method: 'ping' });
      peer.send(call('e2', 'echo', { message: 'two' }));
      assert.equal(textOf(await peer.waitResponse('e1')), 'echo:one');
      assert.deepEqual((await peer.waitResponse('p1')).result, {});
      assert.equal(textOf(await peer.waitResponse('e2')), 'echo:two');
      for (const b of peer.lines) {
        assert.doesNotThrow(() => JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(b)), `garbage forwarded to the client: ${JSON.stringify(b.toString())}`);
      }
      assert.equal(peer.exitInfo, null);
    });
  });

  test('a server response with invalid UTF-8 inside a string: the client still gets an answer for that id', T, async () => {
    await withPeer(proxy(fixtureSpec('garbage-output-server.mjs')), async (peer) => {
      await rawHandshake(peer);
      peer.send(call('u8', 'bad-utf8'));
      peer.send({ jsonrpc: '2.0', id: 'p2', method: 'ping' });
      await peer.waitResponse('p2');
      // Either forwarded unchanged (as the server sent it) or replaced by an error: never silence.
      const line = await peer.waitUntil(() => peer.lines.find((b) => /"id":"u8"/.test(b.toString('latin1'))), 5000, 'an answer for id u8');
      const msg = JSON.parse(line.toString('utf8'));
      assert.ok(msg.result || msg.error);
      assert.equal(peer.exitInfo, null);
    });
  });

  test('--max-pending 2: a third concurrent request is refused with an error, others unaffected', T, async () => {
    await withPeer(proxy(fixtureSpec('crash-mid-call-server.mjs'), ['--max-pending', '2']), async (peer) => {
      await rawHandshake(peer);
      peer.send(call('h1', 'hang'));
      peer.send(call('h2', 'hang'));
      peer.send(call('h3', 'hang'));
      const r3 = await peer.waitResponse('h3', 5000);
      assert.ok(r3.error, `expected an error for the third pending request: ${JSON.stringify(r3)}`);
      assert.equal(peer.parsed().some((m) => (m.id === 'h1' || m.id === 'h2')), false);
    });
  });
});

describe('surface manifest', () => {
  const rootsCaps = { sampling: {}, elicitation: {}, roots: { listChanged: true } };

  /** Answers the server's roots/list requests on a raw peer. */
  function answerRoots(peer) {
    const answered = new Set();
    const t = setInterval(() => {
      for (const m of peer.parsed()) {
        if (m.method === 'roots/list' && !answered.has(JSON.stringify(m.id))) {
          answered.add(JSON.stringify(m.id));
          peer.send({ jsonrpc: '2.0', id: m.id, result: { roots: [{ uri: 'file:///srv/x', name: 'x' }] } });
        }
      }
    }, 20);
    return () => clearInterval(t);
  }

  test('--save-surface writes the real surface of server-everything; own enumeration never reaches the client', T, async () => {
    const tmp = tempDir();
    let peer;
    let stopRoots = () => {};
    try {
      const file = join(tmp.dir, 'surface.json');
      peer = await proxy(everythingSpec(), ['--save-surface', file]);
      stopRoots = answerRoots(peer);
      const sent = new Set(['c-init']);
      const init = await rawHandshake(peer, { id: 'c-init', capabilities: rootsCaps });
      for (const [id, method] of [['c-tools', 'tools/list'], ['c-prompts', 'prompts/list'], ['c-res', 'resources/list'], ['c-tpl', 'resources/templates/list']]) {
        sent.add(id);
        peer.send({ jsonrpc: '2.0', id, method });
      }
      const tools = (await peer.waitResponse('c-tools')).result.tools.map((t) => t.name).sort();
      const prompts = (await peer.waitResponse('c-prompts')).result.prompts.map((p) => p.name).sort();
      const resources = (await peer.waitResponse('c-res')).result.resources.map((r) => r.uri).sort();
      const templates = (await peer.waitResponse('c-tpl')).result.resourceTemplates.map((r) => r.uriTemplate).sort();
      assert.ok(tools.includes('trigger-sampling-request') && tools.includes('echo'));

      const text = await waitFile(file, (s) => {
        const m = JSON.parse(s);
        return JSON.stringify(m.tools.map((t) => t.name).sort()) === JSON.stringify(tools);
      }, 10_000, 'a manifest whose tools equal tools/list');
      const m = JSON.parse(text);
      assert.equal(m.server.name, 'mcp-servers/everything');
      assert.equal(m.server.version, '2.0.0');
      assert.equal(m.server.instructions, init.result.instructions);
      assert.equal(m.server.protocolVersion, init.result.protocolVersion);
      assert.deepEqual(m.server.capabilities, init.result.capabilities);
      assert.deepEqual(m.prompts.map((p) => p.name).sort(), prompts);
      assert.deepEqual(m.resources.map((r) => r.uri).sort(), resources);
      assert.deepEqual(m.resourceTemplates.map((r) => r.uriTemplate).sort(), templates);
      const echo = m.tools.find((t) => t.name === 'echo');
      assert.equal(echo.inputSchema.properties.message.type, 'string', 'tool schemas should be recorded in full');

      // Only responses to the client's own ids may reach it.
      sent.add('c-final');
      peer.send({ jsonrpc: '2.0', id: 'c-final', method: 'ping' });
      await peer.waitResponse('c-final');
      const responses = peer.parsed().filter((x) => !('method' in x));
      const stray = responses.filter((x) => !sent.has(x.id));
      assert.deepEqual(stray, [], "the proxy's own enumeration responses leaked to the client");
    } finally { stopRoots(); await reap(peer); tmp.cleanup(); }
  });

  test('--save-surface follows resources/list_changed (session resource added by a tool)', T, async () => {
    const tmp = tempDir();
    let peer;
    try {
      const file = join(tmp.dir, 'surface.json');
      peer = await proxy(everythingSpec(), ['--save-surface', file]);
      await rawHandshake(peer);
      await waitFile(file, (s) => JSON.parse(s).tools.length > 0, 10_000, 'initial manifest');
      peer.send(call('gz', 'gzip-file-as-resource', { name: 'probe.txt.gz', data: 'data:text/plain;base64,aGVsbG8gd2FyZGVu' }));
      const r = await peer.waitResponse('gz', 10_000);
      assert.ok(!r.error && !r.result.isError, `gzip tool failed: ${JSON.stringify(r)}`);
      await peer.waitMessage((x) => x.method === 'notifications/resources/list_changed', 5000, 'resources/list_changed');
      await waitFile(file, (s) => JSON.parse(s).resources.some((x) => x.uri === 'demo://resource/session/probe.txt.gz'),
        10_000, 'manifest listing the new session resource');
    } finally { await reap(peer); tmp.cleanup(); }
  });

  test('enumeration follows nextCursor (paginated fixture); client pagination unchanged', T, async () => {
    const tmp = tempDir();
    let peer;
    try {
      const file = join(tmp.dir, 'surface.json');
      peer = await proxy(fixtureSpec('paginated-server.mjs'), ['--save-surface', file]);
      await rawHandshake(peer);
      const m = JSON.parse(await waitFile(file, (s) => JSON.parse(s).tools.length === 5 && JSON.parse(s).prompts.length === 3 && JSON.parse(s).resources.length === 3,
        10_000, 'all pages in the manifest'));
      assert.deepEqual(m.tools.map((t) => t.name), ['tool-1', 'tool-2', 'tool-3', 'tool-4', 'tool-5']);
      assert.deepEqual(m.resourceTemplates.map((t) => t.uriTemplate), ['page://tpl/{id}']);
      // the client's own paging still works and sees no foreign pages
      peer.send({ jsonrpc: '2.0', id: 'pg1', method: 'tools/list' });
      const p1 = (await peer.waitResponse('pg1')).result;
      assert.deepEqual(p1, { tools: [{ name: 'tool-1', inputSchema: { type: 'object' } }, { name: 'tool-2', inputSchema: { type: 'object' } }], nextCursor: 'cursor-2' });
      peer.send({ jsonrpc: '2.0', id: 'pg2', method: 'tools/list', params: { cursor: p1.nextCursor } });
      assert.equal((await peer.waitResponse('pg2')).result.nextCursor, 'cursor-4');
      const stray = peer.parsed().filter((x) => !('method' in x) && !['init-1', 'pg1', 'pg2'].includes(x.id));
      assert.deepEqual(stray, []);
    } finally { await reap(peer); tmp.cleanup(); }
  });

  test('enumeration of servers without prompts/resources (filesystem) or with them (memory) never leaks', T, async () => {
    const tmp = tempDir();
    const peers = [];
    try {
      for (const spec of [filesystemSpec(realpathSync(tmp.dir)), { ...memorySpec(join(tmp.dir, 'mem.jsonl')) }]) {
        const file = join(tmp.dir, `${spec.name}-surface.json`);
        const peer = await proxy(spec, ['--save-surface', file, '--stdin-grace-ms', '200']);
        peers.push(peer);
        await rawHandshake(peer);
        peer.send({ jsonrpc: '2.0', id: 'lt', method: 'tools/list' });
        const tools = (await peer.waitResponse('lt')).result.tools.map((t) => t.name).sort();
        await waitFile(file, (s) => JSON.stringify(JSON.parse(s).tools.map((t) => t.name).sort()) === JSON.stringify(tools),
          10_000, `${spec.name} manifest tools`);
        peer.send({ jsonrpc: '2.0', id: 'fin', method: 'ping' });
        await peer.waitResponse('fin');
        const stray = peer.parsed().filter((x) => !('method' in x) && !['init-1', 'lt', 'fin'].includes(x.id));
        assert.deepEqual(stray, [], `${spec.name}: proxy's own responses leaked`);
      }
    } finally { for (const p of peers) await reap(p); tmp.cleanup(); }
  });

  test('--no-enumerate: the manifest holds only what the client itself listed', T, async () => {
    const tmp = tempDir();
    let peer;
    try {
      const file = join(tmp.dir, 'surface.json');
      peer = await proxy(everythingSpec(), ['--no-enumerate', '--save-surface', file]);
      await rawHandshake(peer);
      peer.send({ jsonrpc: '2.0', id: 'p0', method: 'ping' });
      await peer.waitResponse('p0');
      const before = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { tools: [] };
      assert.deepEqual(before.tools ?? [], [], 'tools recorded although nobody listed them');
      peer.send({ jsonrpc: '2.0', id: 'lt', method: 'tools/list' });
      const tools = (await peer.waitResponse('lt')).result.tools.map((t) => t.name).sort();
      await waitFile(file, (s) => JSON.stringify(JSON.parse(s).tools.map((t) => t.name).sort()) === JSON.stringify(tools),
        5000, 'manifest with the client-listed tools');
    } finally { await reap(peer); tmp.cleanup(); }
  });

  test('--log-file receives the proxy diagnostics, not stdout', T, async () => {
    const tmp = tempDir();
    let peer;
    try {
      const log = join(tmp.dir, 'warden.log');
      peer = await proxy(fixtureSpec('introspect-server.mjs'), ['--log-file', log, '--log-level', 'debug']);
      await rawHandshake(peer);
      peer.endInput();
      await peer.waitExit(8000);
      await waitFile(log, (s) => s.trim().length > 0, 3000, 'some log output');
      for (const b of peer.lines) assert.doesNotThrow(() => JSON.parse(b.toString()), `non-JSON on stdout: ${b}`);
      assert.equal(pidAlive(peer.serverPid), false);
    } finally { await reap(peer); tmp.cleanup(); }
  });
});
