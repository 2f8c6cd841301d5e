#!/usr/bin/env node
// node_relay.mjs -- COMMAND [ARGS...]: a trivial Node line relay, the "peer in JavaScript"
// baseline. It frames messages (one JSON-RPC message per line) and forwards each line as it is,
// without parsing: the least a Node MCP proxy has to do.
import { spawn } from 'node:child_process';

const argv = process.argv.slice(2);
const sep = argv.indexOf('--');
const [command, ...args] = sep >= 0 ? argv.slice(sep + 1) : argv;
if (!command) {
  process.stderr.write('usage: node_relay.mjs -- COMMAND [ARGS...]\n');
  process.exit(2);
}
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
child.on('error', (err) => {
  process.stderr.write(`node_relay: cannot start ${command}: ${err.message}\n`);
  process.exit(127);
});
child.stdin.on('error', () => {});

// Calls `onLine` for each complete line of `stream` (a line may span chunks).
function lines(stream, onLine, onEnd) {
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    let start = 0;
    for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
      const line = partial + chunk.slice(start, nl);
      partial = '';
      if (line.length > 0) onLine(line);
      start = nl + 1;
    }
    partial += chunk.slice(start);
  });
  stream.on('end', onEnd);
}

lines(process.stdin, (line) => child.stdin.write(line + '\n'), () => child.stdin.end());
lines(child.stdout, (line) => process.stdout.write(line + '\n'), () => {});
child.on('exit', (code, signal) => process.exit(signal ? 128 : code ?? 0));
