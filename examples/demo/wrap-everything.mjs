// Demo: the official MCP SDK client talks to @modelcontextprotocol/server-everything through
// mcp-warden, exactly as Claude Desktop or Cursor would; then we show what mcp-warden confirmed.
// Usage: node examples/demo/wrap-everything.mjs path/to/mcp-warden
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';

const peers = fileURLToPath(new URL('../../tests/peers/node_modules/', import.meta.url));
const { Client } = await import(join(peers, '@modelcontextprotocol/sdk/dist/esm/client/index.js'));
const { StdioClientTransport } = await import(join(peers, '@modelcontextprotocol/sdk/dist/esm/client/stdio.js'));

const warden = process.argv[2] ?? 'build/app/mcp-warden';
const server = join(peers, '@modelcontextprotocol/server-everything/dist/index.js');
const work = mkdtempSync(join(tmpdir(), 'mcp-warden-demo-'));
const surfaceFile = join(work, 'surface.json');

console.log(`$ mcp-warden --save-surface ${surfaceFile} -- node server-everything stdio\n`);
const transport = new StdioClientTransport({
  command: warden,
  args: ['--log-level', 'warn', '--save-surface', surfaceFile, '--', process.execPath, server, 'stdio'],
  stderr: 'ignore',
});
const client = new Client({ name: 'mcp-warden-demo', version: '1.0.0' });
await client.connect(transport);
const info = client.getServerVersion();
console.log(`connected through mcp-warden to ${info.name} ${info.version}`);
const { tools } = await client.listTools();
console.log(`the client sees ${tools.length} tools: ${tools.map((t) => t.name).join(', ')}`);
const echo = await client.callTool({ name: 'echo', arguments: { message: 'hello through mcp-warden' } });
console.log(`tools/call echo -> ${echo.content[0].text}`);
await client.close();

const surface = JSON.parse(readFileSync(surfaceFile, 'utf8'));
console.log('\nconfirmed surface recorded by mcp-warden (enumerated from the running server):');
console.log(`  server     ${surface.server.name} ${surface.server.version}, protocol ${surface.server.protocolVersion}`);
for (const kind of ['tools', 'prompts', 'resources', 'resourceTemplates'])
  console.log(`  ${kind.padEnd(18)} ${surface[kind].length}`);

// The same analysis a CI pipeline runs, on the live server: honest, powerful, grade A.
const scan = spawnSync(warden, ['scan', '--format', 'text', '--', process.execPath, server, 'stdio'], {
  encoding: 'utf8',
});
console.log(`\n$ mcp-warden scan -- node server-everything stdio\n${scan.stdout}`);

// Now a deliberately poisoned server of ours (examples/poisoned-server): scan it, then put it
// behind mcp-warden in enforce mode and watch the client's view.
const poisoned = fileURLToPath(new URL('../poisoned-server/server.mjs', import.meta.url));
const poisonScan = spawnSync(warden, ['scan', '--format', 'text', '--', process.execPath, poisoned], { encoding: 'utf8' });
const summary = poisonScan.stdout.split('\n').filter((l) => /trust grade|CRITICAL|HIGH|decoded:/.test(l)).slice(0, 12);
console.log(`$ mcp-warden scan -- node examples/poisoned-server/server.mjs   (exit ${poisonScan.status})\n${summary.join('\n')}\n`);

const auditLog = join(work, 'audit.jsonl');
console.log(`$ mcp-warden --mode enforce --audit-log ${auditLog} -- node examples/poisoned-server/server.mjs`);
const guarded = new Client({ name: 'mcp-warden-demo', version: '1.0.0' });
await guarded.connect(new StdioClientTransport({
  command: warden,
  args: ['--log-level', 'error', '--mode', 'enforce', '--audit-log', auditLog, '--', process.execPath, poisoned],
  stderr: 'ignore',
}));
const seen = (await guarded.listTools()).tools.map((t) => t.name);
console.log(`the client sees ${seen.length} of 9 tools: ${seen.join(', ')} (poisoned ones hidden)`);
const refused = await guarded.callTool({ name: 'add', arguments: { a: 1, b: 2 } }).catch((e) => ({ error: e.message }));
console.log(`tools/call add (poisoned, hidden) -> ${JSON.stringify(refused.content?.[0]?.text ?? refused.error)}`);
const page = await guarded.callTool({ name: 'fetch_page', arguments: { url: 'https://example.com' } }).catch((e) => ({ error: e.message }));
console.log(`tools/call fetch_page (result carries an injection) -> ${JSON.stringify(page.content?.[0]?.text ?? page.error).slice(0, 160)}`);
await guarded.close();
const verify = spawnSync(warden, ['log', 'verify', auditLog], { encoding: 'utf8' });
console.log(`\n$ mcp-warden log verify ${auditLog}\n${(verify.stdout + verify.stderr).trim()}`);
