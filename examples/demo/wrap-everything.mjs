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

// The same analysis a CI pipeline runs, on the live server.
const scan = spawnSync(warden, ['scan', '--format', 'text', '--', process.execPath, server, 'stdio'], {
  encoding: 'utf8',
});
if (scan.error || /unknown|not a command|no server command/i.test(scan.stderr ?? '')) {
  console.log('\n(scan is not available in this build)');
} else {
  console.log(`\n$ mcp-warden scan -- node server-everything stdio\n${scan.stdout}`);
}
