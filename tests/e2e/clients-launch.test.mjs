// How a client's launch line is read: `mcp-warden [SUBCOMMAND] [options] [--] COMMAND [ARGS...]`.
// Options end at "--" or at COMMAND (like env, nice, strace), every word from COMMAND on reaches
// the server untouched, mistakes before COMMAND are clear errors, and a server that cannot be
// started answers the client's initialize with the cause.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixture, sdk, tempDir, wardenBin } from './support/peers.mjs';
import { INITIALIZE, MCP_HEADERS, connectHttp, rawRequest, startServe, v2 } from './support/http.mjs';

const INTROSPECT = fixture('introspect-server.mjs');

function warden(args, opts = {}) {
  const run = spawnSync(wardenBin(), args, { encoding: 'utf8', timeout: 60_000, ...opts });
  if (run.error) throw run.error;
  return run;
}

/** Starts `mcp-warden ARGS` as an SDK v1 stdio client would; resolves what the introspect server saw. */
async function whoami(args, client = 'v1') {
  const lib = client === 'v1' ? sdk : v2;
  const c = new lib.client.Client({ name: 'mcpw-launch-e2e', version: '1.0.0' });
  await c.connect(new lib.stdio.StdioClientTransport({ command: wardenBin(), args, stderr: 'pipe' }));
  try {
    const r = await c.callTool({ name: 'whoami', arguments: {} });
    return JSON.parse(r.content[0].text);
  } finally {
    await c.close();
  }
}

// Words a server may well take that are also mcp-warden's own options.
const LOOKALIKES = ['--env', 'X=1', '--log-level', 'trace', '--', '--help', '--version', '-h', '--upstream', 'http://x'];

test('without "--": COMMAND is the first word that is not an option; all after it is the server\'s', async () => {
  const seen = await whoami(['--log-level', 'warn', '--env', 'INTROSPECT_MARKER=bare', process.execPath, INTROSPECT, ...LOOKALIKES]);
  assert.deepEqual(seen.argv, LOOKALIKES);
  assert.equal(seen.env.INTROSPECT_MARKER, 'bare', '--env took its value; the word after it started the server');
  assert.equal(seen.env.X, undefined, 'the server\'s --env X=1 is not ours');
});

test('with "--": the documented form is unchanged, and a second "--" belongs to the server', async () => {
  for (const client of ['v1', 'v2']) {
    const seen = await whoami(['--env=INTROSPECT_MARKER=sep', '--', process.execPath, INTROSPECT, ...LOOKALIKES], client);
    assert.deepEqual(seen.argv, LOOKALIKES, client);
    assert.equal(seen.env.INTROSPECT_MARKER, 'sep');
  }
});

test('serve and scan read their argv the same way', async () => {
  const serve = await startServe(['--log-level', 'warn'], [process.execPath, INTROSPECT, '--listen', 'x', '--']);
  try {
    const { client, close } = await connectHttp(serve.url);
    const r = await client.callTool({ name: 'whoami', arguments: {} });
    assert.deepEqual(JSON.parse(r.content[0].text).argv, ['--listen', 'x', '--']);
    await close();
  } finally {
    assert.equal(await serve.stop(), 0);
  }
  // --config and --format after COMMAND are the server's: a live scan, reported as JSON.
  const scan = warden(['scan', '--format', 'json', '--timeout', '20', process.execPath, INTROSPECT, '--config', 'x', '--format', 'text']);
  assert.equal(scan.status, 0, scan.stderr);
  const report = JSON.parse(scan.stdout);
  assert.equal(report.target.kind, 'live');
  assert.equal(report.target.servers[0].identity, `${process.execPath} ${INTROSPECT} --config x --format text`);
});

test('an unknown option or a missing value before COMMAND is a usage error that says so', () => {
  const unknown = "unknown option '--frobnicate' (options come before COMMAND; a COMMAND that starts with '-' goes after '--')";
  const cases = [
    [['--frobnicate', 'node', 's.js'], `mcp-warden: ${unknown}\n`],
    [['--log-level', 'warn', '--frobnicate=1', 'node'], `mcp-warden: ${unknown}\n`],
    [['--env'], 'mcp-warden: option --env needs a value\n'],
    [['--env', '--', 'node', 's.js'], 'mcp-warden: option --env needs a value\n'],
    [['--log-level'], 'mcp-warden: option --log-level needs a value\n'],
    [['serve', '--frobnicate', 'node'], `mcp-warden serve: ${unknown}\n`],
    [['serve', '--listen'], 'mcp-warden serve: option --listen needs a value\n'],
    [['scan', '--frobnicate', 'node'], `mcp-warden: scan: ${unknown} (see mcp-warden scan --help)\n`],
    [['scan', '--format', 'json', '--timeout'], 'mcp-warden: scan: option --timeout needs a value (see mcp-warden scan --help)\n'],
    [['--log-level', 'warn'], 'mcp-warden: no server command: use mcp-warden [options] [--] COMMAND [ARGS...] or --upstream URL\n'],
  ];
  for (const [args, stderr] of cases) {
    const run = warden(args, { input: '' });
    assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.equal(run.stderr, stderr, args.join(' '));
    assert.equal(run.stdout, '', `${args.join(' ')}: nothing on stdout`);
  }
  // --help and --version are ours only before COMMAND.
  const help = warden(['--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^Usage: mcp-warden \[options\] \[--\] COMMAND \[ARGS\.\.\.\]/m);
});

test('a server that cannot be started: the client\'s initialize gets the cause, stderr one line, exit 127', async () => {
  const { dir } = tempDir('mcpw-launch-');
  const notExecutable = join(dir, 'server.sh');
  writeFileSync(notExecutable, '#!/bin/sh\necho never\n');
  chmodSync(notExecutable, 0o644);
  const badInterpreter = join(dir, 'interp.sh');
  writeFileSync(badInterpreter, '#!/nonexistent/mcpw-interpreter\n');
  chmodSync(badInterpreter, 0o755);
  const cases = [
    [[join(dir, 'missing-server'), '--stdio'], `cannot execute '${join(dir, 'missing-server')}': No such file or directory`],
    [['--', notExecutable], `cannot execute '${notExecutable}': Permission denied`],
    [['mcpw-no-such-command-on-path'], "command not found on PATH: 'mcpw-no-such-command-on-path'"],
    [[badInterpreter], `cannot execute '${badInterpreter}': No such file or directory (its interpreter '/nonexistent/mcpw-interpreter' was not found)`],
  ];
  for (const [args, cause] of cases) {
    for (const lib of [sdk, v2]) {
      const transport = new lib.stdio.StdioClientTransport({ command: wardenBin(), args: ['--log-level', 'warn', ...args], stderr: 'pipe' });
      let stderr = '';
      transport.stderr?.on('data', (d) => { stderr += d; });
      const exited = new Promise((resolve) => { transport.onclose = resolve; });
      const client = new lib.client.Client({ name: 'mcpw-launch-e2e', version: '1.0.0' });
      await assert.rejects(client.connect(transport), (e) => {
        assert.match(String(e.message), new RegExp(`mcp-warden cannot start the server: ${cause.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
        return true;
      }, args.join(' '));
      await client.close();
      await exited;
      assert.equal(stderr, `mcp-warden: cannot start the server: ${cause}\n`);
    }
  }
  // The exit status, seen by a plain parent that closes our stdin.
  const run = warden([join(dir, 'missing-server')], { input: '' });
  assert.equal(run.status, 127);
});

test('serve: a server that cannot be started answers the HTTP client\'s initialize with the cause', async () => {
  const { dir } = tempDir('mcpw-launch-');
  const missing = join(dir, 'missing-server');
  const serve = await startServe([], [missing]);
  try {
    await assert.rejects(connectHttp(serve.url), (e) => {
      assert.match(String(e.message), new RegExp(`mcp-warden cannot start the server: cannot execute '${missing}': No such file or directory`));
      return true;
    });
    // serve writes the reason to stderr beside the HTTP answer: the line may arrive just after it.
    const reason = new RegExp(`cannot start a server for a new session: cannot execute '${missing}'`);
    for (let waited = 0; !reason.test(serve.output()) && waited < 5000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    assert.match(serve.output(), reason);
    // On the wire: 502 Bad Gateway, and a JSON-RPC error with the initialize request's id.
    const raw = await rawRequest(serve.port, { headers: { ...MCP_HEADERS, Host: `127.0.0.1:${serve.port}` }, body: INITIALIZE });
    assert.equal(raw.status, 502);
    assert.deepEqual(JSON.parse(raw.body), {
      jsonrpc: '2.0', id: 1,
      error: { code: -32000, message: `mcp-warden cannot start the server: cannot execute '${missing}': No such file or directory` },
    });
  } finally {
    assert.equal(await serve.stop(), 0);
  }
});

test('wrapped client entries are read as the proxy reads its argv: every option of --help, with and without "--"', () => {
  const { dir } = tempDir('mcpw-launch-');
  const help = warden(['--help']);
  // "  --name TYPE..." takes a value, "  --name   description" is a flag.
  const options = [...help.stdout.matchAll(/^ {2}(?:-\w,)?(--[\w-]+)( [A-Z]+)?/gm)].map((m) => ({ name: m[1], value: Boolean(m[2]) }));
  assert.ok(options.length > 40 && options.some((o) => !o.value) && options.some((o) => o.value), help.stdout);
  const servers = {};
  for (const [i, { name, value }] of options.entries()) {
    servers[`bare-${i}`] = { command: wardenBin(), args: [name, ...(value ? ['V'] : []), 'node', 's.js', '--policy', 'p'] };
    servers[`sep-${i}`] = { command: wardenBin(), args: [name, ...(value ? ['V'] : []), '--', 'node', 's.js'] };
  }
  const home = join(dir, 'home');
  mkdirSync(join(home, '.cursor'), { recursive: true });
  writeFileSync(join(home, '.cursor/mcp.json'), JSON.stringify({ mcpServers: servers }, null, 2));
  const listing = warden(['discover', '--json', '--home', home, '--project', join(dir, 'none')]);
  assert.equal(listing.status, 0, listing.stderr);
  const cursor = JSON.parse(listing.stdout).find((c) => c.client === 'cursor');
  for (const entry of cursor.servers) {
    const option = options[Number(entry.name.split('-')[1])].name;
    if (option === '--upstream') continue;  // fronts a URL: no inner command
    assert.equal(entry.wrapped, true, `${entry.name} (${option})`);
    const want = entry.name.startsWith('bare') ? ['node', 's.js', '--policy', 'p'] : ['node', 's.js'];
    assert.deepEqual(entry.inner_argv, want, `${entry.name}: ${option} read as ${entry.argv.slice(1).join(' ')}`);
  }
  assert.ok(readFileSync(join(home, '.cursor/mcp.json'), 'utf8').includes('bare-0'), 'discover does not write');
});
