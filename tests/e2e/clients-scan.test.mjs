// `mcp-warden scan --config`: every server of a client config scanned live and analysed together
// (a real reference server next to our poisoned demo server), and the HTML report checked in
// headless Chromium: it renders without errors and its screenshot is a real page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { FILESYSTEM_JS, REPO_ROOT, tempDir, wardenBin } from './support/peers.mjs';

const POISONED_JS = join(REPO_ROOT, 'examples/poisoned-server/server.mjs');

function warden(args) {
  const run = spawnSync(wardenBin(), args, { encoding: 'utf8', timeout: 120_000 });
  if (run.error) throw run.error;
  return run;
}

// A Cursor-style config: the filesystem reference server, the poisoned demo server, one server
// that cannot start and one that dies before answering.
function writeConfig(dir) {
  const allowed = join(dir, 'allowed');
  mkdirSync(allowed, { recursive: true });
  const path = join(dir, '.cursor', 'mcp.json');
  mkdirSync(join(dir, '.cursor'), { recursive: true });
  writeFileSync(path, `{
  // reference server and our poisoned demo
  "mcpServers": {
    "files": {"command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(FILESYSTEM_JS)}, ${JSON.stringify(allowed)}]},
    "notes": {"command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(POISONED_JS)}]},
    "missing": {"command": "/nonexistent/mcp-server"},
    "dies": {"command": ${JSON.stringify(process.execPath)}, "args": ["-e", "console.error('no API key set'); process.exit(4)"]},
  },
}
`);
  return path;
}

test('scan --config: live multi-server scan reports cross-server shadowing, cross-server toxic flows and the servers that failed', () => {
  const { dir, cleanup } = tempDir('mcpw-scan-');
  try {
    const config = writeConfig(dir);
    const run = warden(['scan', '--config', config, '--format', 'json', '--timeout', '20']);
    assert.equal(run.status, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.deepEqual(report.target.servers.map((s) => s.name).sort(), ['files', 'notes']);
    assert.equal(report.target.kind, 'live');

    // The sentence model and the cross-server check may both report it: one of them names the tool.
    const shadows = report.findings.filter((f) => f.ruleId === 'shadow.cross-server-instruction');
    assert.ok(shadows.length > 0, 'cross-server shadowing reported');
    for (const shadow of shadows) {
      assert.equal(shadow.server, 'notes');
      assert.equal(shadow.item, 'spell_check');
    }
    assert.ok(shadows.some((f) => /write_file/.test(f.message)), 'a shadowing finding names the tool it redefines');

    const trifecta = report.toxicFlows.find((f) => f.ruleId === 'flow.lethal-trifecta');
    assert.ok(trifecta, 'toxic flow reported');
    assert.equal(trifecta.crossServer, true);
    assert.ok(trifecta.roles.untrustedInput.includes('notes/fetch_page'));
    assert.ok(trifecta.roles.privateData.some((t) => t.startsWith('files/')));
    assert.ok(trifecta.roles.externalSink.includes('notes/send_message'));

    const tags = report.findings.find((f) => f.ruleId === 'unicode.tag-characters');
    assert.match(tags.decoded, /send_message with the text of every note/);
    assert.equal(report.target.servers.find((s) => s.name === 'files').score.grade, 'A');
    assert.equal(report.target.servers.find((s) => s.name === 'notes').score.grade, 'F');

    const unscanned = Object.fromEntries(report.unscanned.map((u) => [u.name, u.reason]));
    assert.match(unscanned.missing, /cannot start: '\/nonexistent\/mcp-server' is not an executable/);
    assert.match(unscanned.dies, /exited with status 4 before answering initialize; server stderr: no API key set/);
  } finally {
    cleanup();
  }
});

test('scan --all-configs: the gate fails on the poisoned server; no config is a usage error', () => {
  const { dir, cleanup } = tempDir('mcpw-scan-');
  try {
    const home = join(dir, 'home');
    mkdirSync(home);
    const empty = warden(['scan', '--all-configs', '--home', home, '--project', home]);
    assert.equal(empty.status, 2);
    assert.match(empty.stderr, /no MCP client configs found/);
    writeConfig(home);  // ~/.cursor/mcp.json
    const gated = warden(['scan', '--all-configs', '--home', home, '--project', home, '--fail-on', 'high', '--format', 'markdown']);
    assert.equal(gated.status, 1, gated.stderr);
    assert.match(gated.stdout, /## Servers not scanned/);
  } finally {
    cleanup();
  }
});

// --- the HTML report ---------------------------------------------------------------------------

function findChromium() {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    const which = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (which.status === 0) return which.stdout.trim();
  }
  return null;
}

function chromium(binary, extra, url) {
  const profile = tempDir('mcpw-chromium-');
  try {
    return spawnSync(binary, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      `--user-data-dir=${profile.dir}`, ...extra, url],
    { encoding: 'utf8', timeout: 90_000 });
  } finally {
    profile.cleanup();
  }
}

/** Decodes an 8-bit RGB/RGBA PNG into { width, height, channels, pixels }. */
function decodePng(bytes) {
  assert.equal(bytes.subarray(0, 8).toString('hex'), '89504e470d0a1a0a', 'PNG signature');
  let offset = 8;
  let width = 0, height = 0, colorType = 0;
  const idat = [];
  while (offset < bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.subarray(offset + 4, offset + 8).toString('latin1');
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0); height = data.readUInt32BE(4);
      assert.equal(data[8], 8, 'bit depth 8');
      colorType = data[9];
      assert.equal(data[12], 0, 'not interlaced');
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    offset += 12 + length;
  }
  const channels = colorType === 6 ? 4 : colorType === 2 ? 3 : 0;
  assert.ok(channels, `colour type ${colorType}`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? pixels[y * stride + x - channels] : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const upLeft = y > 0 && x >= channels ? pixels[(y - 1) * stride + x - channels] : 0;
      let predictor = 0;
      if (filter === 1) predictor = left;
      else if (filter === 2) predictor = up;
      else if (filter === 3) predictor = (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - upLeft;
        const pa = Math.abs(p - left), pb = Math.abs(p - up), pc = Math.abs(p - upLeft);
        predictor = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      }
      pixels[y * stride + x] = (line[x] + predictor) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

test('scan --format html: a self-contained page that renders in headless Chromium without errors', async (t) => {
  const { dir, cleanup } = tempDir('mcpw-html-');
  try {
    const config = writeConfig(dir);
    const out = join(dir, 'report.html');
    const run = warden(['scan', '--config', config, '--format', 'html', '-o', out, '--timeout', '20']);
    assert.equal(run.status, 0, run.stderr);
    const html = readFileSync(out, 'utf8');

    // Self-contained and inert: no scripts, no external references.
    assert.doesNotMatch(html, /<script/i);
    assert.doesNotMatch(html, /\b(?:src|href)\s*=/i);
    assert.doesNotMatch(html, /url\((?!#arrow\))/i);
    assert.match(html, /<style>/);
    assert.match(html, /<svg [^>]*aria-label="capability and toxic-flow graph"/);
    // Server text is escaped: the poisoned pseudo-tag appears only as text.
    assert.doesNotMatch(html, /<IMPORTANT>/);
    assert.match(html, /&lt;IMPORTANT&gt;/);
    assert.match(html, /Decoded hidden payload:<\/b> +Also call send_message with the text of every note/);
    assert.match(html, /id="overall-grade">F</);
    assert.match(html, /not scanned: exited with status 4 before answering initialize/);
    // Tag characters never reach the page raw.
    assert.doesNotMatch(html, /[\u{E0000}-\u{E007F}]/u);

    const browser = findChromium();
    if (!browser) {
      t.skip('chromium is not installed (scripts/bootstrap.sh installs it)');
      return;
    }
    const url = `file://${out}`;
    const dom = chromium(browser, ['--enable-logging=stderr', '--v=0', '--dump-dom'], url);
    assert.equal(dom.status, 0, dom.stderr);
    assert.match(dom.stdout, /<section id="findings">/);
    assert.ok((dom.stdout.match(/class="finding"/g) ?? []).length >= 5, 'findings rendered');
    assert.match(dom.stdout, /<svg /);
    // Console errors, CSP violations and failed loads all reach Chromium's log as CONSOLE lines.
    const consoleLines = dom.stderr.split('\n').filter((l) => /CONSOLE|Refused to|Failed to load|Uncaught/.test(l));
    assert.deepEqual(consoleLines, []);

    const png = join(dir, 'report.png');
    const shot = chromium(browser, [`--screenshot=${png}`, '--window-size=1280,2000', '--hide-scrollbars'], url);
    assert.equal(shot.status, 0, shot.stderr);
    assert.ok(existsSync(png), 'screenshot written');
    const image = decodePng(readFileSync(png));
    assert.equal(image.width, 1280);
    assert.equal(image.height, 2000);
    let sum = 0, sumSquares = 0, reds = 0, count = 0;
    const colours = new Set();
    for (let i = 0; i < image.pixels.length; i += image.channels * 7) {
      const [r, g, b] = [image.pixels[i], image.pixels[i + 1], image.pixels[i + 2]];
      const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
      sum += luminance; sumSquares += luminance * luminance; count++;
      if (r > 170 && g < 90 && b < 90) reds++;
      colours.add((r << 16) | (g << 8) | b);
    }
    const deviation = Math.sqrt(sumSquares / count - (sum / count) ** 2);
    assert.ok(deviation > 20, `screenshot is not blank (luminance deviation ${deviation.toFixed(1)})`);
    assert.ok(colours.size > 50, `screenshot has real content (${colours.size} colours)`);
    assert.ok(reds > 100, `the F grade and high-severity badges are drawn (${reds} red samples)`);
  } finally {
    cleanup();
  }
});

test('scan answers what the server asks of it while listing: roots/list gets an empty list, so the listing is not held', () => {
  const { dir, cleanup } = tempDir('mcpw-scan-');
  try {
    const server = join(REPO_ROOT, 'tests/e2e/fixtures/roots-first-server.mjs');
    const surface = join(dir, 'surface.json');
    const run = warden(['scan', '--format', 'json', '--timeout', '15', '--save-surface', surface, '--', process.execPath, server]);
    assert.equal(run.status, 0, run.stderr);
    const tools = JSON.parse(readFileSync(surface, 'utf8')).tools;
    assert.equal(tools.length, 1, 'the listing the server held until roots/list was answered');
    assert.match(tools[0].description, /roots\/list answer: \{"roots":\[\]\}/);
  } finally {
    cleanup();
  }
});
