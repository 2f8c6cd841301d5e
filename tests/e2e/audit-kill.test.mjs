// kill -9 of mcp-warden while it writes the audit log as fast as it can: the log verifies up to
// its last complete record (a torn last line is reported as such, never as tampering), and the
// next mcp-warden appending to the same file continues the chain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureSpec, proxiedArgv, tempDir, wardenBin } from './support/peers.mjs';
import { startRaw, rawHandshake } from './support/raw.mjs';

const call = (id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { message: `m${id} `.repeat(50) } } });

const recordsIn = (file) => {
  try { return readFileSync(file, 'utf8').split('\n').filter(Boolean).length; } catch { return 0; }
};

async function hammer(audit, { kill }) {
  const peer = startRaw(proxiedArgv(fixtureSpec('fault-server.mjs'), ['--audit-log', audit, '--audit-sync', 'never', '--log-level', 'error']));
  try {
    await rawHandshake(peer);
    const start = recordsIn(audit);
    for (let i = 0; i < 2000; i++) peer.send(call(i));  // pipelined: the writer is busy when we strike
    // Strike once the writer has written a good number of records (it gathers records for a few
    // ms after each write, so the answers run ahead of the file): it is in the middle of the rest.
    for (const deadline = Date.now() + 20000; recordsIn(audit) < start + 50;) {
      assert.ok(Date.now() < deadline, `the audit log did not grow past ${start + 50} records; answers: ${peer.lines.length}`);
      await new Promise((r) => setTimeout(r, 2));
    }
    if (kill) peer.kill('SIGKILL');
    else peer.endInput();
    await peer.waitExit(15000);
  } finally {
    if (!peer.exitInfo) peer.kill('SIGKILL');
  }
}

test('kill -9 during heavy audit logging: the log verifies up to its last complete record', { timeout: 90_000 }, async () => {
  const { dir } = tempDir();
  const audit = join(dir, 'audit.jsonl');
  await hammer(audit, { kill: true });
  const first = spawnSync(wardenBin(), ['log', 'verify', audit], { encoding: 'utf8' });
  assert.equal(first.status, 0, `verify after kill -9: ${first.stdout}${first.stderr}`);
  assert.match(first.stdout, /hash chain intact/);
  const before = recordsIn(audit);  // at least 50 more than the handshake's: hammer waited for them

  // A new writer on the same file continues the chain (removing a torn line if there was one).
  await hammer(audit, { kill: false });
  const second = spawnSync(wardenBin(), ['log', 'verify', audit], { encoding: 'utf8' });
  assert.equal(second.status, 0, `verify after a second session: ${second.stdout}${second.stderr}`);
  assert.match(second.stdout, /hash chain intact/);
  assert.doesNotMatch(second.stdout, /warning: .*torn/i, 'the torn tail is gone once a writer has appended');
  const after = recordsIn(audit);
  assert.ok(after > before, 'the second session appended to the same chain');
});
