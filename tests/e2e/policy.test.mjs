// Runtime policy end to end: an SDK client talks to fixtures/policy-server.mjs through mcp-warden
// with --policy / --audit-log / --lockfile, and the audit log is checked with `log verify`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectClient, fixtureSpec, tempDir, wardenBin, sdk } from './support/peers.mjs';

const DENIED = 'This tool call was blocked by the security policy.';
const WITHHELD = 'The tool result was withheld by the security policy because it contained unsafe content.';

const POLICY = {
  version: 1,
  default: 'allow',
  tools: [
    { tool: 'delete_all', action: 'deny', reason: 'never delete everything' },
    { tool: 'read_path', arguments: { path: { paths: { allow: ['/srv/data/**'], deny: ['**/.ssh/**'] } } } },
  ],
  roles: { fetch_page: ['untrusted_content'], send_message: ['external_sink'] },
  secrets: { arguments: 'deny' },
  flows: { untrustedThenSink: 'deny' },
};

function setup(policy = POLICY) {
  const t = tempDir('mcpw-policy-');
  const policyPath = join(t.dir, 'policy.json');
  writeFileSync(policyPath, JSON.stringify(policy, null, 2));
  return { ...t, policyPath, audit: join(t.dir, 'audit.jsonl'), lock: join(t.dir, 'pins.lock.json') };
}

function records(path) {
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

function warden(...args) {
  return spawnSync(wardenBin(), args, { encoding: 'utf8' });
}

const textOf = (result) => result.content.map((c) => c.text).join('\n');

async function session(env, extra = [], opts = {}) {
  return connectClient(fixtureSpec('policy-server.mjs'), {
    proxied: true,
    proxyArgs: ['--policy', env.policyPath, '--audit-log', env.audit, '--mode', 'enforce', ...extra],
    ...opts,
  });
}

test('a denied tool gets a generic error result; the audit log has the precise reason', async () => {
  const env = setup();
  try {
    const s = await session(env);
    const result = await s.client.callTool({ name: 'delete_all', arguments: {} });
    assert.equal(result.isError, true);
    assert.equal(textOf(result), DENIED);
    assert.equal((await s.client.callTool({ name: 'echo', arguments: { text: 'hi' } })).content[0].text, 'echo: hi');
    await s.close();
    const call = records(env.audit).find((r) => r.event === 'call' && r.tool === 'delete_all');
    assert.equal(call.decision, 'deny');
    assert.match(call.reason, /rule tools\[0\] \(.*policy\.json:\d+:\d+\): deny - never delete everything/);
    assert.deepEqual(call.rules, ['tools[0]']);
    const ok = records(env.audit).find((r) => r.event === 'call' && r.tool === 'echo');
    assert.equal(ok.decision, 'allow');
    assert.equal(ok.reason, 'allowed by default');
    assert.ok(ok.latency_us >= 0);
    assert.ok(records(env.audit).some((r) => r.event === 'session_start'));
    assert.ok(records(env.audit).some((r) => r.event === 'session_end'));
  } finally { env.cleanup(); }
});

test('an argument outside its constraint is refused (.. normalised first)', async () => {
  const env = setup();
  try {
    const s = await session(env);
    assert.equal(textOf(await s.client.callTool({ name: 'read_path', arguments: { path: '/srv/data/a.txt' } })), 'contents of /srv/data/a.txt');
    const escaped = await s.client.callTool({ name: 'read_path', arguments: { path: '/srv/data/../../etc/passwd' } });
    assert.equal(textOf(escaped), DENIED);
    await s.close();
    const call = records(env.audit).find((r) => r.tool === 'read_path' && r.decision === 'deny');
    assert.match(call.reason, /path \/etc\/passwd is outside the allowed paths/);
    assert.equal(records(env.audit).find((r) => r.tool === 'read_path' && r.decision === 'allow').reason, 'allowed by tools[1]');
  } finally { env.cleanup(); }
});

test('a secret in the arguments of a sink tool is blocked and redacted in the audit log', async () => {
  const env = setup();
  try {
    const s = await session(env);
    const result = await s.client.callTool({ name: 'send_message', arguments: { to: 'bob', body: 'key AKIAIOSFODNN7EXAMPLE' } });
    assert.equal(textOf(result), DENIED);
    await s.close();
    const log = readFileSync(env.audit, 'utf8');
    assert.ok(!log.includes('AKIAIOSFODNN7EXAMPLE'), 'the credential must not reach the audit log');
    const call = records(env.audit).find((r) => r.tool === 'send_message');
    assert.deepEqual(call.rules, ['secrets.arguments']);
    assert.equal(call.arguments.body, 'key [REDACTED:aws-access-key-id]');
  } finally { env.cleanup(); }
});

test('a poisoned tool is hidden from tools/list and its calls refused', async () => {
  const env = setup();
  try {
    const s = await session(env);
    const names = (await s.client.listTools()).tools.map((t) => t.name);
    assert.ok(!names.includes('weather'), `weather must be hidden: ${names}`);
    assert.ok(names.includes('echo'));
    assert.equal(textOf(await s.client.callTool({ name: 'weather', arguments: { city: 'Paris' } })), DENIED);
    await s.close();
    const listing = records(env.audit).find((r) => r.method === 'tools/list' && r.hidden);
    assert.match(listing.hidden[0], /^weather: surface finding /);
  } finally { env.cleanup(); }
});

test('result scanning: an injection is blocked, hidden text and escapes are sanitised', async () => {
  const env = setup();
  try {
    const s = await session(env);
    const injected = await s.client.callTool({ name: 'fetch_page', arguments: { url: 'https://x.example/inject' } });
    assert.equal(injected.isError, true);
    assert.equal(textOf(injected), WITHHELD);
    const hidden = await s.client.callTool({ name: 'fetch_page', arguments: { url: 'https://x.example/hidden' } });
    const t = textOf(hidden);
    assert.ok(!/[\u{E0000}-\u{E007F}]/u.test(t), 'tag characters removed');
    assert.ok(!t.includes('\u001b'), 'escape sequences removed');
    assert.match(t, /Plain page text\. concealed end/);
    assert.match(t, /\[mcp-warden: removed 13 invisible character\(s\) and 2 terminal escape/);
    await s.close();
    const blocked = records(env.audit).find((r) => r.tool === 'fetch_page' && r.result_action === 'block');
    assert.ok(blocked.result_rules.length > 0);
  } finally { env.cleanup(); }
});

test('session flow: after untrusted content entered, a sink call is denied', async () => {
  const env = setup();
  try {
    const s = await session(env);
    assert.equal(textOf(await s.client.callTool({ name: 'send_message', arguments: { to: 'bob', body: 'hello' } })), 'sent to bob');
    await s.client.callTool({ name: 'fetch_page', arguments: { url: 'https://x.example/plain' } });
    assert.equal(textOf(await s.client.callTool({ name: 'send_message', arguments: { to: 'bob', body: 'hello' } })), DENIED);
    await s.close();
    const denied = records(env.audit).find((r) => r.tool === 'send_message' && r.decision === 'deny');
    assert.equal(denied.reason, "external sink after untrusted content from 'fetch_page' entered the session");
  } finally { env.cleanup(); }
});

test('ask: the user is asked through elicitation and the answer is followed', async () => {
  const env = setup({ version: 1, tools: [{ tool: 'send_message', action: 'ask', reason: 'sends data out' }] });
  try {
    const questions = [];
    let answer = true;
    const s = await session(env, [], {
      capabilities: { elicitation: {} },
      setup: (client) => client.setRequestHandler(sdk.types.ElicitRequestSchema, async (request) => {
        questions.push(request.params.message);
        return { action: 'accept', content: { approve: answer } };
      }),
    });
    assert.equal(textOf(await s.client.callTool({ name: 'send_message', arguments: { to: 'bob', body: 'hi' } })), 'sent to bob');
    answer = false;
    assert.equal(textOf(await s.client.callTool({ name: 'send_message', arguments: { to: 'eve', body: 'hi' } })), DENIED);
    await s.close();
    assert.equal(questions.length, 2);
    assert.match(questions[0], /allow the tool 'send_message'.*"to":"bob".*Reason: sends data out/);
    const calls = records(env.audit).filter((r) => r.tool === 'send_message');
    assert.deepEqual(calls.map((c) => [c.asked, c.decision]), [['accept', 'allow'], ['accept-without-approval', 'deny']]);
  } finally { env.cleanup(); }
});

test('ask without the elicitation capability denies', async () => {
  const env = setup({ version: 1, tools: [{ tool: 'send_message', action: 'ask' }] });
  try {
    const s = await session(env);
    assert.equal(textOf(await s.client.callTool({ name: 'send_message', arguments: { to: 'bob', body: 'hi' } })), DENIED);
    await s.close();
    assert.equal(records(env.audit).find((r) => r.tool === 'send_message').asked, 'no-elicitation');
  } finally { env.cleanup(); }
});

test('rug pull: a changed description after list_changed is hidden until pins approve', async () => {
  const env = setup({ version: 1 });
  try {
    const s = await session(env, ['--lockfile', env.lock]);
    await s.client.listTools();
    // TOFU pins are written once the proxy has enumerated the whole surface.
    for (let i = 0; i < 100 && !JSON.parse(readFileSyncSafe(env.lock) || '{}').servers; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(textOf(await s.client.callTool({ name: 'echo', arguments: { text: 'a' } })), 'echo: a');
    await s.client.callTool({ name: 'rug_pull', arguments: {} });
    await s.waitNotification((n) => n.method === 'notifications/tools/list_changed');
    let names = [];
    for (let i = 0; i < 100; i++) {
      names = (await s.client.listTools()).tools.map((t) => t.name);
      if (!names.includes('echo')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(!names.includes('echo'), 'the changed tool is hidden');
    assert.equal(textOf(await s.client.callTool({ name: 'echo', arguments: { text: 'b' } })), DENIED);
    await s.close();
    const drift = records(env.audit).find((r) => r.event === 'pin_drift');
    assert.equal(drift.drift[0].name, 'echo');
    assert.equal(drift.drift[0].fields[0].field, 'description');

    const diff = warden('pins', 'diff', '--lockfile', env.lock);
    assert.equal(diff.status, 1);
    assert.match(diff.stdout, /changed tool 'echo'[\s\S]*description:[\s\S]*\+ "Echoes the given text back\. Also forward/);
    const approve = warden('pins', 'approve', '--lockfile', env.lock);
    assert.equal(approve.status, 0, approve.stderr);
    assert.equal(warden('pins', 'diff', '--lockfile', env.lock).status, 0);
  } finally { env.cleanup(); }
});

function readFileSyncSafe(path) {
  try { return readFileSync(path, 'utf8'); } catch { return ''; }
}

test('log verify: intact passes; an edited, a deleted and a reordered record fail', async () => {
  const env = setup();
  try {
    const s = await session(env);
    for (let i = 0; i < 3; i++) await s.client.callTool({ name: 'echo', arguments: { text: `m${i}` } });
    await s.close();
    const ok = warden('log', 'verify', env.audit);
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /^ok: \d+ record\(s\) in 1 file\(s\), hash chain intact/);
    const lines = readFileSync(env.audit, 'utf8').split('\n').filter(Boolean);
    const check = (mutated, pattern) => {
      writeFileSync(env.audit, mutated.join('\n') + '\n');
      const r = warden('log', 'verify', env.audit);
      assert.equal(r.status, 1, r.stdout);
      assert.match(r.stdout, pattern);
    };
    const edited = [...lines];
    edited[2] = edited[2].replace('"event":"', '"event":"x');
    check(edited, /FAILED after 2 valid record\(s\): .*audit\.jsonl:3: record content does not match its hash/);
    const deleted = [...lines];
    deleted.splice(2, 1);
    check(deleted, /FAILED after 2 valid record\(s\): .*audit\.jsonl:3: chain broken/);
    const reordered = [...lines];
    [reordered[2], reordered[3]] = [reordered[3], reordered[2]];
    check(reordered, /FAILED after 2 valid record\(s\): .*audit\.jsonl:3: chain broken/);
    // A torn last line (a crash mid-write) is reported but is not tampering.
    writeFileSync(env.audit, lines.join('\n') + '\n' + lines[1].slice(0, 30));
    const torn = warden('log', 'verify', env.audit);
    assert.equal(torn.status, 0);
    assert.match(torn.stdout, /warning: .*incomplete last record/);
  } finally { env.cleanup(); }
});

test('policy check reports file:line:col', () => {
  const env = setup();
  try {
    writeFileSync(env.policyPath, '{\n  "tools": [{"tool": "x", "action": "alow"}]\n}\n');
    const r = warden('policy', 'check', env.policyPath);
    assert.equal(r.status, 1);
    assert.equal(r.stderr.trim(), `${env.policyPath}:2:37: tools[0].action: expected one of "allow", "deny", "ask", got "alow"`);
    writeFileSync(env.policyPath, JSON.stringify(POLICY));
    assert.equal(warden('policy', 'check', env.policyPath).status, 0);
  } finally { env.cleanup(); }
});
