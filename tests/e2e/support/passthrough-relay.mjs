#!/usr/bin/env node
// Stand-in for mcp-warden while the C++ binary does not exist yet.
// Same CLI shape: `passthrough-relay.mjs [options] -- COMMAND [ARGS...]`.
// Options are ignored except --env K=V (added to the child's environment) and
// --server-log FILE. It relays bytes both ways unchanged and exits with the child's
// status. It deliberately implements none of the proxy-specific behaviour
// (no -32700 answers, no surface file, no limits), so tests for those fail here.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';

const argv = process.argv.slice(2);
const sep = argv.indexOf('--');
if (sep < 0 || sep === argv.length - 1) {
  process.stderr.write('passthrough-relay: usage: passthrough-relay.mjs [options] -- COMMAND [ARGS...]\n');
  process.exit(2);
}
const opts = argv.slice(0, sep);
const [command, ...args] = argv.slice(sep + 1);
const env = { ...process.env };
let serverLog = null;
for (let i = 0; i < opts.length; i++) {
  if (opts[i] === '--env' && i + 1 < opts.length) {
    const kv = opts[++i];
    const eq = kv.indexOf('=');
    if (eq > 0) env[kv.slice(0, eq)] = kv.slice(eq + 1);
  } else if (opts[i] === '--server-log' && i + 1 < opts.length) {
    serverLog = opts[++i];
  }
}

const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', serverLog ? 'pipe' : 'inherit'] });
if (serverLog) child.stderr.pipe(createWriteStream(serverLog));
child.on('error', (err) => {
  process.stderr.write(`passthrough-relay: cannot start ${command}: ${err.message}\n`);
  process.exit(127);
});
process.stdin.pipe(child.stdin);
child.stdin.on('error', () => {});
child.stdout.pipe(process.stdout);

let stdinEnded = false;
process.stdin.on('end', () => {
  stdinEnded = true;
  setTimeout(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM'); }, 2000).unref();
  setTimeout(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); }, 4000).unref();
});
for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => {
    child.stdin.end();
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 2000).unref();
  });
}
child.on('close', (code, signal) => {
  void stdinEnded;
  // let stdout drain before leaving
  process.stdout.write('', () => process.exit(code ?? (signal ? 128 + ({ SIGKILL: 9, SIGTERM: 15, SIGINT: 2 }[signal] ?? 1) : 1)));
});
