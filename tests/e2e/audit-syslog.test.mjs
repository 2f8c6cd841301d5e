// --audit-syslog against a real rsyslog (docs/fleet.md, "Shipping to syslog"): each test starts its
// own rsyslogd (imtcp on loopback, the template writes each message's MSG alone, one per line),
// runs mcp-warden over server-everything with tool calls, and checks that what rsyslog wrote is the
// audit log, byte for byte and in order, and verifies: with rsyslog stopped and restarted
// mid-run, with mcp-warden killed (SIGKILL) while rsyslog is down, through serve, and over TLS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { connectClient, everythingSpec, tempDir, wardenBin } from './support/peers.mjs';
import { connectHttp, startServe } from './support/http.mjs';

const which = (name) => spawnSync('sh', ['-c', `command -v ${name} || ls /usr/sbin/${name} 2>/dev/null`], { encoding: 'utf8' }).stdout.trim().split('\n')[0];
const RSYSLOGD = which('rsyslogd');
const SKIP = RSYSLOGD ? false : 'rsyslogd is not installed (Debian: apt-get install rsyslog; scripts/bootstrap.sh does)';
const OSSL = ['/usr/lib/x86_64-linux-gnu/rsyslog/lmnsd_ossl.so', '/usr/lib/aarch64-linux-gnu/rsyslog/lmnsd_ossl.so', '/usr/lib/rsyslog/lmnsd_ossl.so']
  .some((p) => existsSync(p));

const warden = (...args) => spawnSync(wardenBin(), args, { encoding: 'utf8' });
const lines = (file) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
const seqOf = (line) => JSON.parse(line).seq;

async function until(what, check, timeoutMs = 45_000) {
  for (const deadline = Date.now() + timeoutMs; !check();) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const reachable = (port) => new Promise((resolve) => {
  const s = createConnection({ host: '127.0.0.1', port }, () => { s.destroy(); resolve(true); });
  s.on('error', () => resolve(false));
});

// A private rsyslogd: its own config, work directory and pid file in `dir`; never the system's.
class Rsyslog {
  constructor(dir, { tls } = {}) {
    this.dir = dir;
    this.tls = tls;
    this.port = 0;
    this.received = join(dir, 'received.jsonl');
    mkdirSync(join(dir, 'work'), { recursive: true });
  }

  config() {
    const driver = this.tls
      ? `global(defaultNetstreamDriver="ossl" defaultNetstreamDriverCAFile="${this.tls.ca}"
               defaultNetstreamDriverCertFile="${this.tls.cert}" defaultNetstreamDriverKeyFile="${this.tls.key}")
module(load="imtcp" streamDriver.name="ossl" streamDriver.mode="1" streamDriver.authMode="anon")`
      : 'module(load="imtcp")';
    // One queue worker keeps the file in arrival order; MSG is written exactly as received.
    return `global(workDirectory="${join(this.dir, 'work')}" maxMessageSize="1m"
       parser.escapeControlCharactersOnReceive="off")
${driver}
main_queue(queue.workerThreads="1")
template(name="msg_only" type="string" string="%msg%\\n")
input(type="imtcp" address="127.0.0.1" port="${this.port}" listenPortFileName="${join(this.dir, 'port')}")
action(type="omfile" file="${this.received}" template="msg_only")
`;
  }

  async start() {
    const conf = join(this.dir, 'rsyslog.conf');
    const portFile = join(this.dir, 'port');
    rmSync(portFile, { force: true });
    writeFileSync(conf, this.config());
    this.output = '';
    this.proc = spawn(RSYSLOGD, ['-n', '-f', conf, '-i', join(this.dir, 'rsyslogd.pid')], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.proc.stdout.on('data', (d) => { this.output += d; });
    this.proc.stderr.on('data', (d) => { this.output += d; });
    const exited = () => this.proc.exitCode !== null || this.proc.signalCode !== null;
    if (this.port === 0) {
      // Port 0: rsyslog picks one and writes it down; a restart takes the same one.
      await until('rsyslogd to listen', () => exited() || (existsSync(portFile) && readFileSync(portFile, 'utf8').trim() !== ''), 15_000);
      if (!exited()) this.port = Number(readFileSync(portFile, 'utf8').trim());
    } else {
      for (const deadline = Date.now() + 15_000; !exited() && !(await reachable(this.port));) {
        if (Date.now() > deadline) throw new Error(`rsyslogd does not listen on ${this.port}: ${this.output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    assert.ok(!exited(), `rsyslogd exited at start: ${this.output}`);
  }

  async stop() {
    if (!this.proc || this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const closed = new Promise((r) => this.proc.once('close', r));
    this.proc.kill('SIGTERM');
    await closed;
  }
}

// What rsyslog received, with records sent twice dropped (same seq: see log verify --received).
function firstOfEachSeq(received) {
  const seen = new Set();
  return received.filter((l) => { const s = seqOf(l); if (seen.has(s)) return false; seen.add(s); return true; });
}

// Every local record arrived, in order; repeats only as a resend (a run of seqs already seen).
async function allArrived(rs, audit) {
  // The audit record of the last call can land just after its response: wait until the copy equals
  // the file and the file has stopped growing (four polls in a row), not for one equal moment.
  let previous = '', steady = 0;
  const settled = () => {
    const written = JSON.stringify(lines(audit));
    steady = written === previous && JSON.stringify(firstOfEachSeq(lines(rs.received))) === written ? steady + 1 : 0;
    previous = written;
    return steady >= 4;
  };
  await until(`rsyslog to receive the records of ${audit}`, settled).catch(() => {});
  assert.deepEqual(firstOfEachSeq(lines(rs.received)), lines(audit));
  const check = warden('log', 'verify', '--received', rs.received);
  assert.equal(check.status, 0, check.stdout + check.stderr);
  return check.stdout;
}

const echo = (s, text) => s.client.callTool({ name: 'echo', arguments: { message: text } });

test('stdio: records arrive byte for byte and verify; rsyslog stopped and restarted mid-run; mcp-warden killed while it is down',
  { skip: SKIP, timeout: 240_000 }, async () => {
    const t = tempDir('mcpw-syslog-');
    const rs = new Rsyslog(t.dir);
    let s;
    try {
      await rs.start();
      const audit = join(t.dir, 'audit.jsonl');
      const proxyArgs = ['--audit-log', audit, '--audit-syslog', `tcp://127.0.0.1:${rs.port}`, '--log-level', 'warn'];
      s = await connectClient(everythingSpec(), { proxied: true, proxyArgs });
      for (let i = 0; i < 5; i++) await echo(s, `before ${i}`);
      await allArrived(rs, audit);
      // So far one connection: each record exactly once, and the copy verifies as it is.
      assert.deepEqual(lines(rs.received), lines(audit));
      const plain = warden('log', 'verify', rs.received);
      assert.equal(plain.status, 0, plain.stdout);
      assert.match(plain.stdout, /^ok: \d+ record\(s\) in 1 file\(s\), hash chain intact\n$/);

      // The receiver goes away mid-run: the calls go on, the records wait, then arrive in order.
      await rs.stop();
      for (let i = 0; i < 5; i++) await echo(s, `while down ${i}`);
      await rs.start();
      await allArrived(rs, audit);

      // Down again, and mcp-warden is killed: the next mcp-warden on the same audit file resumes
      // from the spool and ships what the first one could not, and its own records after them.
      await rs.stop();
      for (let i = 0; i < 3; i++) await echo(s, `before kill ${i}`);
      // Killed once its records are in the file (so in the spool), not shipped.
      await until('the last call in the audit log', () => readFileSync(audit, 'utf8').includes('before kill 2'));
      const killed = s.transport.pid;
      process.kill(killed, 'SIGKILL');
      await s.close().catch(() => {});
      s = await connectClient(everythingSpec(), { proxied: true, proxyArgs });
      for (let i = 0; i < 3; i++) await echo(s, `after restart ${i}`);
      await rs.start();
      await allArrived(rs, audit);
      await s.close();
      const verdict = await allArrived(rs, audit);
      assert.match(verdict, /^ok: (\d+) record\(s\) in 1 file\(s\), hash chain intact; \d+ record\(s\) received twice, skipped\n$/);
      assert.equal(Number(verdict.match(/^ok: (\d+)/)[1]), lines(audit).length);
      const local = warden('log', 'verify', audit);
      assert.equal(local.status, 0, local.stdout);
      const texts = lines(audit).map((l) => JSON.parse(l)).filter((r) => r.event === 'call').map((r) => JSON.stringify(r.arguments));
      for (const m of ['before 0', 'while down 4', 'before kill 2', 'after restart 2']) assert.ok(texts.some((x) => x.includes(m)), m);
    } finally {
      if (s?.transport.pid) try { process.kill(s.transport.pid, 'SIGKILL'); } catch { /* gone */ }
      await rs.stop();
      t.cleanup();
    }
  });

test('serve: the sessions sharing one signed audit file ship it through one spool; the copy\'s signatures verify',
  { skip: SKIP, timeout: 120_000 }, async () => {
    const t = tempDir('mcpw-syslog-serve-');
    const rs = new Rsyslog(t.dir);
    try {
      await rs.start();
      const audit = join(t.dir, 'audit.jsonl');
      const key = join(t.dir, 'audit');
      assert.equal(warden('log', 'keygen', '--out', key).status, 0);
      const serve = await startServe(['--audit-log', audit, '--audit-syslog', `tcp://127.0.0.1:${rs.port}`,
        '--audit-sign-key', `${key}.key`, '--audit-checkpoint-records', '5', '--log-level', 'warn']);
      try {
        const sessions = [await connectHttp(serve.url), await connectHttp(serve.url)];
        for (let i = 0; i < 3; i++) for (const c of sessions) await echo(c, `m${i}`);
        for (const c of sessions) await c.close();
      } finally {
        await serve.stop('SIGTERM');
      }
      const records = lines(audit).map((l) => JSON.parse(l));
      assert.equal(new Set(records.filter((r) => r.event === 'session_start').map((r) => r.session)).size, 2);
      await allArrived(rs, audit);
      assert.deepEqual(lines(rs.received), lines(audit));
      const signed = warden('log', 'verify', '--received', '--pubkey', `${key}.pub`, rs.received);
      assert.equal(signed.status, 0, signed.stdout + signed.stderr);
      assert.match(signed.stdout, /hash chain intact; 0 record\(s\) received twice, skipped; \d+ checkpoint signature\(s\) verified/);
    } finally {
      await rs.stop();
      t.cleanup();
    }
  });

test('tls: the receiver\'s certificate is checked against --audit-syslog-ca; a wrong CA ships nothing and keeps the records',
  { skip: SKIP || (!OSSL && 'rsyslog has no OpenSSL driver (Debian: apt-get install rsyslog-openssl)'), timeout: 120_000 }, async () => {
    const t = tempDir('mcpw-syslog-tls-');
    const openssl = (...args) => {
      const r = spawnSync('openssl', args, { encoding: 'utf8', cwd: t.dir });
      assert.equal(r.status, 0, r.stderr);
    };
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=mcpw test CA');
    openssl('req', '-x509', ...ec, '-keyout', 'other.key', '-out', 'other.pem', '-days', '2', '-subj', '/CN=another CA');
    openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
    writeFileSync(join(t.dir, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
    openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem',
      '-days', '2', '-extfile', 'san.ext');
    const rs = new Rsyslog(t.dir, { tls: { ca: join(t.dir, 'ca.pem'), cert: join(t.dir, 'server.pem'), key: join(t.dir, 'server.key') } });
    try {
      await rs.start();
      const audit = join(t.dir, 'audit.jsonl');
      const wrong = join(t.dir, 'wrong.jsonl');
      const session = async (file, ca) => {
        const s = await connectClient(everythingSpec(), {
          proxied: true,
          proxyArgs: ['--audit-log', file, '--audit-syslog', `tls://localhost:${rs.port}`, '--audit-syslog-ca', ca, '--log-level', 'warn'],
        });
        for (let i = 0; i < 3; i++) await echo(s, `tls ${i}`);
        await s.close();
        return s.stderr();
      };
      await session(audit, join(t.dir, 'ca.pem'));
      await allArrived(rs, audit);
      assert.deepEqual(lines(rs.received), lines(audit));

      const refused = await session(wrong, join(t.dir, 'other.pem'));
      assert.match(refused, /audit syslog: tls:\/\/localhost:\d+: TLS handshake failed: certificate verify failed/);
      assert.match(refused, /byte\(s\) of records not confirmed by tls:\/\/localhost:\d+ wait in the spool '.*wrong\.jsonl\.spool' for the next run/);
      assert.deepEqual(lines(rs.received), lines(audit), 'nothing of the second log arrived');
    } finally {
      await rs.stop();
      t.cleanup();
    }
  });
