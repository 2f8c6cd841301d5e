// Client configs end to end: `mcp-warden wrap` rewrites real config files in a fake home, the wrapped
// entries start and proxy real MCP servers for an SDK client, and `unwrap` restores the bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FILESYSTEM_JS, REPO_ROOT, sdk, tempDir, wardenBin } from './support/peers.mjs';

const POISONED_JS = join(REPO_ROOT, 'examples/poisoned-server/server.mjs');

function warden(args, opts = {}) {
  const run = spawnSync(wardenBin(), args, { encoding: 'utf8', timeout: 60_000, ...opts });
  if (run.error) throw run.error;
  return run;
}

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Starts a server entry exactly as a client would (command, args, env) and returns an SDK client. */
async function connectEntry(entry) {
  const { Client } = sdk.client;
  const { StdioClientTransport, getDefaultEnvironment } = sdk.stdio;
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args ?? [],
    env: { ...getDefaultEnvironment(), ...(entry.env ?? {}) },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'mcpw-clients-e2e', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

// JSON with a comment-free but hand-formatted layout; env must reach the server untouched.
function claudeDesktopConfig(allowed) {
  return `{
  "globalShortcut": "",
  "mcpServers": {
    "files":   { "command": ${JSON.stringify(process.execPath)}, "args": [ ${JSON.stringify(FILESYSTEM_JS)}, ${JSON.stringify(allowed)} ] },
    "notes": {
      "command": ${JSON.stringify(process.execPath)},
      "args": [${JSON.stringify(POISONED_JS)}],
      "env": {"ACME_NOTES_MARKER": "kept"}
    }
  }
}
`;
}

test('wrap: a wrapped Claude Desktop entry starts and proxies the real server; wrap again is a no-op; unwrap restores the bytes', async () => {
  const { dir, cleanup } = tempDir('mcpw-clients-');
  try {
    const home = join(dir, 'home');
    const allowed = join(dir, 'allowed');
    mkdirSync(allowed, { recursive: true });
    writeFileSync(join(allowed, 'hello.txt'), 'hello from the allowed dir');
    const configPath = join(home, '.config/Claude/claude_desktop_config.json');
    const original = claudeDesktopConfig(allowed);
    write(configPath, original);

    const dry = warden(['wrap', '--all', '--dry-run', '--home', home, '--project', dir]);
    assert.equal(dry.status, 0, dry.stderr);
    assert.match(dry.stdout, /^--- .*claude_desktop_config\.json$/m);
    assert.match(dry.stdout, /^\+.*"--", /m);
    assert.equal(readFileSync(configPath, 'utf8'), original, '--dry-run must not write');

    const wrap = warden(['wrap', '--all', '--home', home, '--project', dir]);
    assert.equal(wrap.status, 0, wrap.stderr);
    assert.match(wrap.stdout, /files\s+wrapped/);
    assert.match(wrap.stdout, /notes\s+wrapped/);
    assert.equal(readFileSync(`${configPath}.mcp-warden.bak`, 'utf8'), original, 'backup holds the original');

    const wrappedText = readFileSync(configPath, 'utf8');
    const wrapped = JSON.parse(wrappedText);
    assert.equal(wrapped.globalShortcut, '', 'other members untouched');
    const files = wrapped.mcpServers.files;
    assert.equal(files.command, wardenBin());
    assert.deepEqual(files.args, ['--', process.execPath, FILESYSTEM_JS, allowed]);
    assert.deepEqual(wrapped.mcpServers.notes.env, { ACME_NOTES_MARKER: 'kept' });

    // The wrapped entry, started the way Claude Desktop starts it, is the real filesystem server.
    const client = await connectEntry(files);
    try {
      assert.equal(client.getServerVersion().name, 'secure-filesystem-server');
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'read_text_file'));
      const read = await client.callTool({ name: 'read_text_file', arguments: { path: join(allowed, 'hello.txt') } });
      assert.equal(read.content[0].text, 'hello from the allowed dir');
    } finally {
      await client.close();
    }
    const notes = await connectEntry(wrapped.mcpServers.notes);
    try {
      assert.equal(notes.getServerVersion().name, 'acme-notes');
      const weather = await notes.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
      assert.match(weather.content[0].text, /^Paris: /);
    } finally {
      await notes.close();
    }

    const again = warden(['wrap', '--all', '--home', home, '--project', dir]);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /files\s+already wrapped/);
    assert.equal(readFileSync(configPath, 'utf8'), wrappedText, 'wrap twice changes nothing');

    const unwrap = warden(['unwrap', configPath]);
    assert.equal(unwrap.status, 0, unwrap.stderr);
    assert.equal(readFileSync(configPath, 'utf8'), original, 'unwrap gives the original bytes');
  } finally {
    cleanup();
  }
});

test('wrap: a Codex TOML entry (comments, no args member) runs under mcp-warden and unwraps exactly', async () => {
  const { dir, cleanup } = tempDir('mcpw-clients-');
  try {
    const home = join(dir, 'home');
    const configPath = join(home, '.codex/config.toml');
    const original = `# my codex config
model = "o4-mini"

[mcp_servers.notes]   # the demo server
command = ${JSON.stringify(process.execPath)}
args = [
  ${JSON.stringify(POISONED_JS)},  # path to the script
]
env = { ACME = "1" }
`;
    write(configPath, original);
    const wrap = warden(['wrap', configPath, '--audit-log', join(dir, 'audit')]);
    assert.equal(wrap.status, 0, wrap.stderr);
    assert.ok(existsSync(join(dir, 'audit')), 'audit directory is created');

    const listing = warden(['discover', '--json', '--home', home, '--project', dir]);
    assert.equal(listing.status, 0, listing.stderr);
    const [codex] = JSON.parse(listing.stdout);
    assert.equal(codex.client, 'codex');
    const entry = codex.servers[0];
    assert.equal(entry.wrapped, true);
    assert.deepEqual(entry.inner_argv, [process.execPath, POISONED_JS]);
    assert.deepEqual(entry.argv.slice(1, 3), ['--audit-log', join(dir, 'audit', 'codex-notes.jsonl')]);

    // The audit-log option belongs to the policy work; run the entry without it to prove the splice.
    const argv = entry.argv.filter((_, i) => i !== 1 && i !== 2);
    const client = await connectEntry({ command: argv[0], args: argv.slice(1) });
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'fetch_page'));
    } finally {
      await client.close();
    }

    const unwrap = warden(['unwrap', '--all', '--home', home, '--project', dir]);
    assert.equal(unwrap.status, 0, unwrap.stderr);
    assert.equal(readFileSync(configPath, 'utf8'), original);
  } finally {
    cleanup();
  }
});

test('wrap: a broken config is reported with file:line:col and left untouched', () => {
  const { dir, cleanup } = tempDir('mcpw-clients-');
  try {
    const configPath = join(dir, '.cursor', 'mcp.json');
    const broken = '{\n  "mcpServers": {\n    "a": {"command": "x" "args": []}\n  }\n}\n';
    write(configPath, broken);
    const run = warden(['wrap', configPath]);
    assert.equal(run.status, 1);
    assert.match(run.stderr, new RegExp(`${configPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:26: expected ',' or '}' in object`));
    assert.equal(readFileSync(configPath, 'utf8'), broken);
    assert.equal(existsSync(`${configPath}.mcp-warden.bak`), false);
  } finally {
    cleanup();
  }
});
