// Signed checkpoints end to end: `log keygen`, a session through mcp-warden with --audit-sign-key,
// and `log verify --pubkey` on the result: intact, a wrong key, an edited record with the whole
// chain recomputed after it; and `serve`, whose HTTP sessions share one signed file (docs/fleet.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { connectClient, fixture, fixtureSpec, proxiedArgv, tempDir, wardenBin } from './support/peers.mjs';
import { connectHttp, startServe } from './support/http.mjs';

const warden = (...args) => spawnSync(wardenBin(), args, { encoding: 'utf8' });

// Keys sorted at every level, no whitespace: the writer's canonical text for these plain records.
const canonical = (v) => Array.isArray(v) ? `[${v.map(canonical).join(',')}]`
  : v && typeof v === 'object' ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`
  : JSON.stringify(v);

// What a forger without the key does: re-hashes every record so the chain is intact again.
function rechain(records) {
  let prev = '0'.repeat(64);
  return records.map((r) => {
    const { hash, ...body } = r;
    body.prev = prev;
    const text = canonical(body);
    prev = createHash('sha256').update(text).digest('hex');
    return `${text.slice(0, -1)},"hash":"${prev}"}`;
  }).join('\n') + '\n';
}

test('log keygen, a signed session, log verify --pubkey: wrong key and a recomputed chain fail', async () => {
  const t = tempDir('mcpw-signed-');
  try {
    const prefix = join(t.dir, 'audit');
    const audit = join(t.dir, 'audit.jsonl');
    const keygen = warden('log', 'keygen', '--out', prefix);
    assert.equal(keygen.status, 0, keygen.stderr);
    assert.match(keygen.stdout, /^wrote .*audit\.key \(private, mode 0600\) and .*audit\.pub; key id [0-9a-f]{16}\n$/);
    assert.equal(statSync(`${prefix}.key`).mode & 0o777, 0o600);
    const again = warden('log', 'keygen', '--out', prefix);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /audit\.key' already exists; not overwriting it/);

    // A key others may read stops the proxy before it starts the server.
    chmodSync(`${prefix}.key`, 0o644);
    const [bin, ...argv] = proxiedArgv(fixtureSpec('policy-server.mjs'), ['--audit-log', audit, '--audit-sign-key', `${prefix}.key`]);
    const refused = spawnSync(bin, argv, { encoding: 'utf8', input: '' });
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /is accessible by group or others \(mode 0644\); a private key must be readable by its owner only/);
    chmodSync(`${prefix}.key`, 0o600);

    const s = await connectClient(fixtureSpec('policy-server.mjs'), {
      proxied: true,
      proxyArgs: ['--audit-log', audit, '--audit-sign-key', `${prefix}.key`, '--audit-checkpoint-records', '3'],
    });
    for (let i = 0; i < 5; i++) await s.client.callTool({ name: 'echo', arguments: { text: `m${i}` } });
    await s.close();
    const records = readFileSync(audit, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.ok(records.filter((r) => r.event === 'checkpoint').length >= 2);
    assert.equal(records.at(-1).event, 'checkpoint', 'the log closes with a checkpoint');

    const ok = warden('log', 'verify', '--pubkey', `${prefix}.pub`, audit);
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /^ok: (\d+) record\(s\) in 1 file\(s\), hash chain intact; \d+ checkpoint signature\(s\) verified, covering \d+ record\(s\)\n$/);
    const plain = warden('log', 'verify', audit);
    assert.equal(plain.status, 0);
    assert.match(plain.stdout, /note: \d+ signed checkpoint\(s\) not checked \(give --pubkey to check them\)/);

    assert.equal(warden('log', 'keygen', '--out', join(t.dir, 'other')).status, 0);
    const wrong = warden('log', 'verify', '--pubkey', join(t.dir, 'other.pub'), audit);
    assert.equal(wrong.status, 1);
    assert.match(wrong.stdout, /FAILED after \d+ valid record\(s\): .*audit\.jsonl:\d+: checkpoint \(seq \d+\): signed by key [0-9a-f]{16}, not by the given key [0-9a-f]{16} \(wrong key\?\)/);

    const edited = records.map((r) => ({ ...r }));
    const call = edited.find((r) => r.event === 'call');
    call.decision = 'deny';
    writeFileSync(audit, rechain(edited));
    assert.equal(warden('log', 'verify', audit).status, 0, 'the chain alone cannot tell');
    const forged = warden('log', 'verify', '--pubkey', `${prefix}.pub`, audit);
    assert.equal(forged.status, 1);
    assert.match(forged.stdout, /checkpoint \(seq \d+\): records up to seq \d+ were changed, removed or inserted after they were signed/);
  } finally { t.cleanup(); }
});

test('serve: sessions share one signed log; a key others may read stops serve at start-up', { timeout: 60_000 }, async () => {
  const t = tempDir('mcpw-signed-serve-');
  try {
    const prefix = join(t.dir, 'audit');
    const audit = join(t.dir, 'audit.jsonl');
    assert.equal(warden('log', 'keygen', '--out', prefix).status, 0);
    chmodSync(`${prefix}.key`, 0o640);
    const refused = warden('serve', '--listen', '127.0.0.1:0', '--audit-log', audit, '--audit-sign-key', `${prefix}.key`,
      '--', process.execPath, fixture('policy-server.mjs'));
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /the audit signing key '.*audit\.key' is accessible by group or others \(mode 0640\)/);
    chmodSync(`${prefix}.key`, 0o600);

    const serve = await startServe(['--audit-log', audit, '--audit-sign-key', `${prefix}.key`, '--audit-checkpoint-records', '2',
      '--log-level', 'warn'], ['--', process.execPath, fixture('policy-server.mjs')]);
    try {
      const sessions = [await connectHttp(serve.url), await connectHttp(serve.url)];
      for (let i = 0; i < 3; i++) {
        for (const c of sessions) await c.client.callTool({ name: 'echo', arguments: { text: `m${i}` } });
      }
      for (const c of sessions) await c.close();
    } finally {
      await serve.stop('SIGTERM');
    }
    const records = readFileSync(audit, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.equal(new Set(records.filter((r) => r.event === 'session_start').map((r) => r.session)).size, 2);
    assert.equal(records.at(-1).event, 'checkpoint');
    const ok = warden('log', 'verify', '--pubkey', `${prefix}.pub`, audit);
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /hash chain intact; \d+ checkpoint signature\(s\) verified/);
    assert.doesNotMatch(ok.stdout, /not covered by a signature/);
  } finally { t.cleanup(); }
});
