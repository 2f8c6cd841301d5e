// Transparency: an SDK client must not be able to tell mcp-warden from the server it wraps.
// Every scenario runs twice — SDK client -> server, and SDK client -> mcp-warden -> server —
// and the two transcripts (normalised only for run-dependent values) must be equal. Each
// scenario also asserts the expected content so that an empty/broken run cannot pass.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import {
  sdk, connectClient, everythingSpec, filesystemSpec, memorySpec, fixtureSpec, tempDir, wardenBin,
} from './support/peers.mjs';

const {
  CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema,
} = sdk.types;

wardenBin(); // fail early and clearly if MCP_WARDEN_BIN is missing

const T = { timeout: 30_000 };

/** Replace run-dependent values (temp paths, clock times) in every string of a value. */
function normalise(value, replacements = []) {
  const fix = (s) => {
    for (const [from, to] of replacements) s = s.split(from).join(to);
    return s
      .replace(/\b\d{1,2}:\d{2}:\d{2}(\s?[AP]M)?/g, '<TIME>')
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z?/g, '<ISO-TIME>');
  };
  const walk = (v) => {
    if (typeof v === 'string') {
      // base64 blobs can hide times too: decode when it round-trips as text
      if (/^[A-Za-z0-9+/]{16,}={0,2}$/.test(v)) {
        const txt = Buffer.from(v, 'base64').toString('utf8');
        if (Buffer.from(txt, 'utf8').toString('base64') === v) return `b64:${fix(txt)}`;
      }
      return fix(v);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value);
}

/** Runs fn; returns {ok: result} or {error: {code, message}} so failures are comparable too. */
async function outcome(fn) {
  try {
    return { ok: await fn() };
  } catch (e) {
    return { error: { name: e?.name, code: e?.code, message: String(e?.message ?? e), data: e?.data } };
  }
}

/**
 * Runs `scenario(session, ctx)` directly and through the proxy. `makeCtx()` prepares per-run
 * state (temp dirs, server spec, client options) and returns {spec, clientOpts, replacements, cleanup}.
 * Returns {direct, proxied} normalised transcripts after asserting they are deep-equal and
 * that the proxied client saw no protocol errors (e.g. stray responses to the proxy's own ids).
 */
async function compareRuns(makeCtx, scenario) {
  const run = async (mode) => {
    const ctx = makeCtx(mode);
    const session = await connectClient(ctx.spec, { ...ctx.clientOpts, proxied: mode === 'proxied' });
    try {
      const transcript = await scenario(session, ctx);
      assert.deepEqual(session.errors, [], `${mode}: SDK client reported protocol errors`);
      return normalise(transcript, ctx.replacements ?? []);
    } finally {
      await session.fastClose();
      ctx.cleanup?.();
    }
  };
  // direct and proxied sessions are independent processes: run them side by side
  const [direct, proxied] = await Promise.all([run('direct'), run('proxied')]);
  assert.deepEqual(proxied, direct, 'proxied transcript differs from direct transcript');
  return { direct, proxied };
}

const textOf = (callResult) => (callResult?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

// ---------------------------------------------------------------------------------------------
describe('server-everything', () => {
  // Client capabilities that make server-everything register its conditional tools.
  const fullCaps = { sampling: {}, elicitation: {}, roots: { listChanged: true } };

  function everythingCtx({ roots = [{ uri: 'file:///srv/project-a', name: 'Project A' }] } = {}) {
    return () => {
      const state = { sampling: [], elicitation: [], rootsRequests: 0, roots: [...roots] };
      return {
        spec: everythingSpec(),
        state,
        clientOpts: {
          capabilities: fullCaps,
          setup: (client) => {
            client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
              state.sampling.push(req.params);
              const prompt = req.params.messages.map((m) => m.content.text).join(' | ');
              return { model: 'e2e-fake-model', role: 'assistant', stopReason: 'endTurn',
                content: { type: 'text', text: `sampled<${prompt}>` } };
            });
            client.setRequestHandler(ElicitRequestSchema, async (req) => {
              state.elicitation.push(req.params);
              return state.elicitation.length === 1
                ? { action: 'accept', content: { name: 'Ada Lovelace', check: true } }
                : { action: 'decline' };
            });
            client.setRequestHandler(ListRootsRequestSchema, async () => {
              state.rootsRequests++;
              return { roots: state.roots };
            });
          },
        },
      };
    };
  }

  test('initialize, lists, prompts, resources, tool calls, completion and ping are identical', T, async () => {
    const { direct } = await compareRuns(everythingCtx(), async ({ client }) => {
      const t = {};
      t.serverVersion = client.getServerVersion();
      t.capabilities = client.getServerCapabilities();
      t.instructions = client.getInstructions();
      t.tools = (await client.listTools()).tools;
      t.prompts = (await client.listPrompts()).prompts;
      t.simplePrompt = await client.getPrompt({ name: 'simple-prompt' });
      t.argsPrompt = await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Zürich', state: 'ZH' } });
      t.resourcePrompt = await outcome(() => client.getPrompt({ name: 'resource-prompt', arguments: { resourceType: 'Text', resourceId: '2' } }));
      t.badPrompt = await outcome(() => client.getPrompt({ name: 'no-such-prompt' }));
      t.resources = (await client.listResources()).resources;
      t.templates = (await client.listResourceTemplates()).resourceTemplates;
      t.readStatic = await client.readResource({ uri: t.resources[0].uri });
      t.readText = await client.readResource({ uri: 'demo://resource/dynamic/text/3' });
      t.readBlob = await client.readResource({ uri: 'demo://resource/dynamic/blob/4' });
      t.echo = await client.callTool({ name: 'echo', arguments: { message: 'héllo 😀 "q" \\ \u2028 \n end' } });
      t.sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40.5 } });
      t.structured = await client.callTool({ name: 'get-structured-content', arguments: { location: 'Chicago' } });
      t.image = await client.callTool({ name: 'get-tiny-image', arguments: {} });
      t.annotated = await client.callTool({ name: 'get-annotated-message', arguments: { messageType: 'error', includeImage: false } });
      t.links = await client.callTool({ name: 'get-resource-links', arguments: { count: 3 } });
      t.invalidArgs = await outcome(() => client.callTool({ name: 'echo', arguments: {} }));
      t.unknownTool = await outcome(() => client.callTool({ name: 'no-such-tool', arguments: {} }));
      t.complete = await client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } });
      t.ping = await client.ping();
      // big payload: 1 MiB round trip
      const big = 'x'.repeat(1 << 20);
      const bigEcho = await client.callTool({ name: 'echo', arguments: { message: big } });
      t.bigEchoOk = textOf(bigEcho) === `Echo: ${big}`;
      return t;
    });
    const names = direct.tools.map((x) => x.name);
    for (const n of ['echo', 'get-sum', 'trigger-long-running-operation', 'trigger-sampling-request', 'trigger-elicitation-request', 'get-roots-list']) {
      assert.ok(names.includes(n), `tools/list lacks ${n}: ${names}`);
    }
    assert.equal(direct.serverVersion.name, 'mcp-servers/everything');
    assert.ok(direct.instructions.length > 20, 'instructions missing');
    assert.equal(textOf(direct.echo), 'Echo: héllo 😀 "q" \\ \u2028 \n end');
    assert.equal(textOf(direct.sum), 'The sum of 2 and 40.5 is 42.5.');
    assert.equal(direct.argsPrompt.messages[0].content.text, "What's weather in Zürich, ZH?");
    assert.deepEqual(direct.complete.completion.values, ['Engineering']);
    assert.equal(direct.bigEchoOk, true, '1 MiB echo did not round-trip');
    assert.equal(direct.unknownTool.ok?.isError ?? !!direct.unknownTool.error, true);
    assert.ok(direct.prompts.length >= 4 && direct.templates.length >= 2 && direct.resources.length >= 1);
  });

  test('many concurrent calls with large payloads, interleaved with small ones', T, async () => {
    const { direct } = await compareRuns(everythingCtx(), async ({ client }) => {
      const calls = [];
      for (let i = 0; i < 6; i++) {
        const big = String.fromCharCode(97 + i).repeat((2 << 20) + i);
        calls.push(client.callTool({ name: 'echo', arguments: { message: big } }).then((r) => textOf(r) === `Echo: ${big}`));
        calls.push(client.callTool({ name: 'get-sum', arguments: { a: i, b: 1 } }).then(textOf));
      }
      return Promise.all(calls);
    });
    assert.deepEqual(direct.filter((x) => typeof x === 'boolean'), [true, true, true, true, true, true]);
    assert.equal(direct[3], 'The sum of 1 and 1 is 2.');
  });

  test('progress notifications reach onprogress in order', T, async () => {
    const { direct } = await compareRuns(everythingCtx(), async (session) => {
      const { client } = session;
      const progress = [];
      const result = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.6, steps: 4 } },
        undefined, { onprogress: (p) => progress.push(p), timeout: 15_000 });
      // The SDK client dispatches notifications asynchronously but responses synchronously, so
      // the final progress (sent just before the response) can lose the race even without a
      // proxy and is then reported as "unknown token". Compare only the earlier steps.
      const lastLost = session.errors.filter((e) => /progress notification for an unknown token.*"progress":4,"total":4/.test(e));
      session.errors.splice(0, session.errors.length, ...session.errors.filter((e) => !lastLost.includes(e)));
      return { progress: progress.filter((p) => p.progress < p.total), result };
    });
    assert.deepEqual(direct.progress.map((p) => [p.progress, p.total]), [[1, 4], [2, 4], [3, 4]]);
    assert.match(textOf(direct.result), /Long running operation completed/);
  });

  test('sampling/createMessage from the server is answered by the client', T, async () => {
    const { direct } = await compareRuns(everythingCtx(), async ({ client }, ctx) => {
      const result = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'Say hi', maxTokens: 7 } });
      return { result, requests: ctx.state.sampling };
    });
    assert.equal(direct.requests.length, 1);
    assert.equal(direct.requests[0].maxTokens, 7);
    assert.match(textOf(direct.result), /sampled<Resource trigger-sampling-request context: Say hi>/);
    assert.match(textOf(direct.result), /e2e-fake-model/);
  });

  test('elicitation/create accept and decline', T, async () => {
    const { direct } = await compareRuns(everythingCtx(), async ({ client }, ctx) => {
      const accepted = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
      const declined = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
      return { accepted, declined, requests: ctx.state.elicitation };
    });
    assert.equal(direct.requests.length, 2);
    assert.equal(direct.requests[0].requestedSchema.type, 'object');
    assert.match(textOf(direct.accepted), /Name: Ada Lovelace/);
    assert.match(textOf(direct.declined), /declined/);
  });

  test('URL-mode elicitation: -32042 error with data passes through, then elicitation/create (url)', T, async () => {
    const { direct } = await compareRuns(() => {
      const state = { requests: [] };
      return {
        spec: everythingSpec(),
        state,
        // random UUIDs in the error data
        replacements: [],
        clientOpts: {
          capabilities: { elicitation: { form: {}, url: {} } },
          setup: (client) => client.setRequestHandler(ElicitRequestSchema, async (req) => {
            state.requests.push(req.params);
            return { action: 'accept' };
          }),
        },
      };
    }, async ({ client }, ctx) => {
      const args = { url: 'https://example.com/authorize', elicitationId: 'e2e-elicitation-1', errorPath: true };
      const err = await outcome(() => client.callTool({ name: 'trigger-url-elicitation', arguments: args }));
      const data = err.error ? JSON.parse(JSON.stringify(err.error)) : null;
      const retry = await client.callTool({ name: 'trigger-url-elicitation', arguments: args });
      const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
      return JSON.parse(JSON.stringify({ err: data, retry, requests: ctx.state.requests }).replace(uuid, '<UUID>'));
    });
    assert.equal(direct.err?.code, -32042, `expected UrlElicitationRequiredError: ${JSON.stringify(direct.err)}`);
    assert.equal(direct.err.data?.elicitations?.[0]?.url, 'https://modelcontextprotocol.io', 'error data must survive');
    assert.equal(direct.requests.length, 1);
    assert.equal(direct.requests[0].mode, 'url');
    assert.equal(direct.requests[0].url, 'https://example.com/authorize');
  });

  test('roots/list and roots/list_changed', T, async () => {
    const { direct } = await compareRuns(everythingCtx(), async (session, ctx) => {
      const { client } = session;
      const first = await client.callTool({ name: 'get-roots-list', arguments: {} });
      // change roots, notify; server re-requests and logs the new count
      ctx.state.roots.push({ uri: 'file:///srv/project-b', name: 'Project B' });
      await client.sendRootsListChanged();
      await session.waitNotification((n) => n.method === 'notifications/message' && /Roots updated: 2 root/.test(String(n.params?.data)),
        10_000, 'log message "Roots updated: 2 root(s)"');
      const second = await client.callTool({ name: 'get-roots-list', arguments: {} });
      return { first, second, rootsRequestsAtLeast2: ctx.state.rootsRequests >= 2 };
    });
    assert.match(textOf(direct.first), /file:\/\/\/srv\/project-a/);
    assert.match(textOf(direct.second), /Current MCP Roots \(2 total\)[\s\S]*project-b/);
    assert.equal(direct.rootsRequestsAtLeast2, true);
  });

  test('cancellation via AbortSignal; the session keeps working afterwards', T, async () => {
    const { direct } = await compareRuns(everythingCtx(), async ({ client }) => {
      const ac = new AbortController();
      const seen = [];
      const call = client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 3, steps: 30 } },
        undefined, {
          signal: ac.signal,
          timeout: 15_000,
          onprogress: (p) => { seen.push(p.progress); if (p.progress === 2) ac.abort('user pressed stop'); },
        });
      const aborted = await outcome(() => call);
      const after = await client.callTool({ name: 'echo', arguments: { message: 'still alive' } });
      const ping = await client.ping();
      return { aborted, firstProgress: seen.slice(0, 2), after, ping };
    });
    assert.ok(direct.aborted.error, 'aborted call should reject');
    assert.match(direct.aborted.error.message, /user pressed stop|abort/i);
    assert.equal(textOf(direct.after), 'Echo: still alive');
  });

  test('logging/setLevel, logging notifications, resource subscribe + updated', T, async () => {
    const uri = 'demo://resource/dynamic/text/1';
    const { direct } = await compareRuns(everythingCtx(), async (session) => {
      const { client } = session;
      const t = {};
      t.setLevel = await client.setLoggingLevel('debug');
      t.subscribe = await client.subscribeResource({ uri });
      const subLog = await session.waitNotification((n) => n.method === 'notifications/message' && String(n.params?.data).includes('Subscribe Resource request'),
        5000, 'subscribe log message');
      t.subLog = subLog.params;
      t.toggleOn = await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
      const updated = await session.waitNotification((n) => n.method === 'notifications/resources/updated', 5000, 'resources/updated');
      t.updated = updated.params;
      t.toggleOff = await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
      t.logToggleOn = await client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
      const simLog = await session.waitNotification((n) => n.method === 'notifications/message' && /-level message|level-message/.test(String(n.params?.data)),
        5000, 'simulated log message');
      // level and text are random (e.g. "Alert level-message"): compare only the shape
      t.simLogShape = { hasLevel: typeof simLog.params.level === 'string', isLevelMessage: /^\w+[- ]level[- ]message/i.test(String(simLog.params.data)) };
      t.logToggleOff = await client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
      t.unsubscribe = await client.unsubscribeResource({ uri });
      return t;
    });
    assert.equal(direct.updated.uri, uri);
    assert.match(direct.subLog.data, /demo:\/\/resource\/dynamic\/text\/1/);
    assert.equal(direct.subLog.level, 'info');
  });
});

// ---------------------------------------------------------------------------------------------
test('ping in both directions (server -> client via an SDK-built fixture server)', T, async () => {
  const { direct } = await compareRuns(() => ({ spec: fixtureSpec('sdk-pinging-server.mjs'), clientOpts: {} }), async ({ client }) => {
    const clientToServer = await client.ping();
    const serverToClient = await client.callTool({ name: 'ping-client', arguments: {} });
    return { clientToServer, serverToClient };
  });
  assert.deepEqual(direct.clientToServer, {});
  assert.equal(textOf(direct.serverToClient), 'client answered ping: {}');
});

// ---------------------------------------------------------------------------------------------
describe('server-filesystem', () => {
  function fsCtx(withRoots = false) {
    return () => {
      const tmp = tempDir('mcpw-fs-');
      const dir = realpathSync(tmp.dir);
      mkdirSync(join(dir, 'sub dir'));
      writeFileSync(join(dir, 'hello.txt'), 'line one\nline two\nline three\n');
      writeFileSync(join(dir, 'sub dir', 'nested.md'), '# Nested\nünïcödé ✓\n');
      mkdirSync(join(dir, 'rooted'));
      writeFileSync(join(dir, 'rooted', 'inside.txt'), 'inside root\n');
      const state = { rootsRequests: 0 };
      return {
        dir,
        state,
        spec: filesystemSpec(dir),
        replacements: [[dir, '<DIR>']],
        cleanup: tmp.cleanup,
        clientOpts: withRoots ? {
          capabilities: { roots: { listChanged: true } },
          setup: (client) => client.setRequestHandler(ListRootsRequestSchema, async () => {
            state.rootsRequests++;
            return { roots: [{ uri: `file://${join(dir, 'rooted')}`, name: 'rooted' }] };
          }),
        } : {},
      };
    };
  }

  test('surface and file tools are identical', T, async () => {
    const { direct } = await compareRuns(fsCtx(), async ({ client }, { dir }) => {
      const t = {};
      t.serverVersion = client.getServerVersion();
      t.capabilities = client.getServerCapabilities();
      t.instructions = client.getInstructions() ?? null;
      t.tools = (await client.listTools()).tools;
      t.prompts = await outcome(() => client.listPrompts());
      t.resources = await outcome(() => client.listResources());
      t.allowed = await client.callTool({ name: 'list_allowed_directories', arguments: {} });
      t.read = await client.callTool({ name: 'read_text_file', arguments: { path: join(dir, 'hello.txt') } });
      t.head = await client.callTool({ name: 'read_text_file', arguments: { path: join(dir, 'hello.txt'), head: 2 } });
      t.write = await client.callTool({ name: 'write_file', arguments: { path: join(dir, 'new.txt'), content: 'written through MCP ✓\n' } });
      t.readBack = await client.callTool({ name: 'read_text_file', arguments: { path: join(dir, 'new.txt') } });
      t.edit = await client.callTool({ name: 'edit_file', arguments: { path: join(dir, 'new.txt'), edits: [{ oldText: 'written', newText: 'edited' }], dryRun: true } });
      t.mkdir = await client.callTool({ name: 'create_directory', arguments: { path: join(dir, 'made/deep') } });
      t.list = await client.callTool({ name: 'list_directory', arguments: { path: dir } });
      t.tree = await client.callTool({ name: 'directory_tree', arguments: { path: dir } });
      t.search = await client.callTool({ name: 'search_files', arguments: { path: dir, pattern: '**/*.md' } });
      t.multi = await client.callTool({ name: 'read_multiple_files', arguments: { paths: [join(dir, 'hello.txt'), join(dir, 'sub dir', 'nested.md')] } });
      t.outside = await outcome(() => client.callTool({ name: 'read_text_file', arguments: { path: '/etc/hostname' } }));
      t.missing = await outcome(() => client.callTool({ name: 'read_text_file', arguments: { path: join(dir, 'nope.txt') } }));
      return t;
    });
    assert.equal(direct.serverVersion.name, 'secure-filesystem-server');
    assert.equal(textOf(direct.read), 'line one\nline two\nline three\n');
    assert.equal(textOf(direct.readBack), 'written through MCP ✓\n');
    assert.match(textOf(direct.list), /\[FILE\] hello\.txt/);
    assert.match(textOf(direct.list), /\[DIR\] sub dir/);
    assert.match(textOf(direct.multi), /ünïcödé ✓/);
    assert.match(textOf(direct.allowed), /<DIR>/);
    assert.ok(direct.outside.error || direct.outside.ok.isError, 'reading outside the allowed dir must fail');
  });

  test('roots from the client replace the allowed directories', T, async () => {
    const { direct } = await compareRuns(fsCtx(true), async ({ client }, { dir, state }) => {
      // The server fetches roots right after initialization and applies them asynchronously:
      // poll the observable effect (bounded) instead of sleeping.
      let allowed = '';
      const deadline = Date.now() + 10_000;
      while (!allowed.includes(join(dir, 'rooted'))) {
        if (Date.now() > deadline) throw new Error(`roots never applied; last: ${allowed}`);
        allowed = textOf(await client.callTool({ name: 'list_allowed_directories', arguments: {} }));
      }
      const inside = await client.callTool({ name: 'read_text_file', arguments: { path: join(dir, 'rooted', 'inside.txt') } });
      const outsideNow = await outcome(() => client.callTool({ name: 'read_text_file', arguments: { path: join(dir, 'hello.txt') } }));
      return { allowed, inside, outsideNow, askedForRoots: state.rootsRequests >= 1 };
    });
    assert.equal(direct.askedForRoots, true);
    assert.equal(textOf(direct.inside), 'inside root\n');
    assert.ok(direct.outsideNow.error || direct.outsideNow.ok.isError, 'old allowed dir should no longer be allowed');
  });
});

// ---------------------------------------------------------------------------------------------
describe('server-memory', () => {
  test('knowledge-graph tools, resource read and subscription are identical', T, async () => {
    const { direct } = await compareRuns(() => {
      const tmp = tempDir('mcpw-mem-');
      const file = join(tmp.dir, 'memory.jsonl');
      return { spec: memorySpec(file), replacements: [[tmp.dir, '<DIR>']], cleanup: tmp.cleanup, clientOpts: {} };
    }, async (session) => {
      const { client } = session;
      const t = {};
      t.serverVersion = client.getServerVersion();
      t.capabilities = client.getServerCapabilities();
      t.tools = (await client.listTools()).tools;
      t.resources = await outcome(() => client.listResources());
      t.subscribe = await client.subscribeResource({ uri: 'memory://knowledge-graph' });
      t.create = await client.callTool({ name: 'create_entities', arguments: { entities: [
        { name: 'Ada', entityType: 'person', observations: ['wrote the first program', 'ünïcödé'] },
        { name: 'Analytical Engine', entityType: 'machine', observations: ['designed by Babbage'] },
      ] } });
      const upd = await session.waitNotification((n) => n.method === 'notifications/resources/updated', 5000, 'resources/updated for the graph');
      t.updated = upd.params;
      t.relate = await client.callTool({ name: 'create_relations', arguments: { relations: [{ from: 'Ada', to: 'Analytical Engine', relationType: 'programmed' }] } });
      t.observe = await client.callTool({ name: 'add_observations', arguments: { observations: [{ entityName: 'Ada', contents: ['born 1815'] }] } });
      t.graph = await client.callTool({ name: 'read_graph', arguments: {} });
      t.search = await client.callTool({ name: 'search_nodes', arguments: { query: 'Babbage' } });
      t.open = await client.callTool({ name: 'open_nodes', arguments: { names: ['Ada'] } });
      t.readResource = await outcome(() => client.readResource({ uri: 'memory://knowledge-graph' }));
      t.deleteMissing = await outcome(() => client.callTool({ name: 'add_observations', arguments: { observations: [{ entityName: 'Nobody', contents: ['x'] }] } }));
      return t;
    });
    assert.equal(direct.serverVersion.name, 'memory-server');
    assert.equal(direct.updated.uri, 'memory://knowledge-graph');
    const graph = direct.graph.structuredContent ?? JSON.parse(textOf(direct.graph));
    assert.deepEqual(graph.entities.map((e) => e.name).sort(), ['Ada', 'Analytical Engine']);
    assert.equal(graph.relations.length, 1);
    assert.match(textOf(direct.search), /Analytical Engine/);
  });
});
