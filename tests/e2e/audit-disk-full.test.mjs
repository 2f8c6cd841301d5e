// The audit log on a full disk. Documented choice (docs/policy.md, "When the disk is full"):
// fail open. Calls keep flowing; records that cannot be written are counted, and once the disk
// takes writes again a `records_dropped` record says how many were lost; the hash chain stays
// intact throughout. Needs root to mount a tiny tmpfs; skipped (with the reason) otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureSpec, proxiedArgv, tempDir, wardenBin } from './support/peers.mjs';
import { startRaw, rawHandshake } from './support/raw.mjs';

const call = (id, message) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { message } } });

function mountTiny(dir) {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'pipe' });
    return null;
  } catch (e) {
    return `cannot mount a tmpfs here (${String(e.stderr || e.message).trim()})`;
  }
}

// The disk fills at a different byte of a record in each round (filler sizes differ by odd
// amounts), so partial writes land in different places: inside a batch, inside the note that
// reports a torn tail (a partly written note once had the next record appended to it).
for (const filler of [40 * 1024, 40 * 1024 + 137, 40 * 1024 + 311, 40 * 1024 + 523]) {
test(`a full disk under the audit log (${filler} bytes of filler): calls keep flowing, the loss is recorded, the chain verifies`, { timeout: 60_000 }, async (t) => {
  const { dir } = tempDir();
  const disk = join(dir, 'disk');
  mkdirSync(disk);
  const why = mountTiny(disk);
  if (why) { t.skip(why); return; }
  let peer;
  try {
    const fillerPath = join(disk, 'filler');
    writeFileSync(fillerPath, Buffer.alloc(filler, 0x78));
    const audit = join(disk, 'audit.jsonl');
    peer = startRaw(proxiedArgv(fixtureSpec('fault-server.mjs'),
      ['--audit-log', audit, '--audit-sync', 'always', '--audit-rotate-mb', '0', '--log-level', 'error']));
    await rawHandshake(peer);
    // About 200 records of several hundred bytes each: far more than the 24 KiB left.
    for (let i = 0; i < 100; i++) {
      peer.send(call(`a${i}`, `message ${i} `.repeat(20)));
      const answer = await peer.waitResponse(`a${i}`, 10000);
      assert.ok(answer.result, `call ${i} answered while the disk is full (fail open)`);
    }
    // The writer may lag the calls: space comes back only once it has met the full disk.
    await peer.waitStderr(/audit log .*: a write failed \(No space left on device\)/, 10000);
    rmSync(fillerPath);  // space again
    for (let i = 0; i < 5; i++) {
      peer.send(call(`b${i}`, 'after'));
      await peer.waitResponse(`b${i}`, 10000);
    }
    peer.endInput();
    await peer.waitExit(15000);
    const records = readFileSync(audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const dropped = records.filter((r) => r.event === 'records_dropped');
    // A full disk takes a batch up to its last free byte; the whole records in it stay.
    assert.ok(records.filter((r) => r.event === 'call').length > 20, 'the records that fit are kept');
    assert.ok(dropped.length >= 1, 'the lost records are announced');
    assert.ok(dropped.reduce((n, r) => n + r.count, 0) > 0);
    const verify = execFileSync(wardenBin(), ['log', 'verify', audit], { encoding: 'utf8' });
    assert.match(verify, /hash chain intact/);
  } finally {
    if (peer && !peer.exitInfo) peer.kill('SIGKILL');
    try { execFileSync('umount', ['-l', disk]); } catch { /* not mounted */ }
  }
});
}
