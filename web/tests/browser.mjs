// Browser tier: serves the built site (vite preview: the app at /, the docs at /docs/) on
// 127.0.0.1, drives Debian's Chromium with playwright-core, and checks what a user sees.
// Screenshots and downloads go to the artifacts folder given as the first argument. The
// last line printed is `N passed, N failed`.
//
// BLIS_UPDATE_SCREENSHOT=1 also writes docs/images/playground.png (the README's picture).
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const webDir = path.resolve(here, '..');
const repoDir = path.resolve(webDir, '..');
const artifacts = path.resolve(process.argv[2] ?? path.join(webDir, 'test-results'));
mkdirSync(artifacts, { recursive: true });
const port = Number(process.env.BLIS_BROWSER_PORT ?? 4173);
const base = `http://127.0.0.1:${port}/`;

const tests = [];
const test = (name, fn) => tests.push({ name, fn });
const notes = [];  // figures worth reporting (frame times), printed before the tally

function check(cond, message) {
  if (!cond) throw new Error(message);
}

async function startServer() {
  const server = spawn('npx', ['vite', 'preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], {
    cwd: webDir, detached: true, stdio: 'ignore',
  });
  for (let i = 0; i < 300; i++) {
    try {
      const r = await fetch(base);
      if (r.ok) return server;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  process.kill(-server.pid);
  throw new Error(`vite preview did not answer on ${base}`);
}

// Opens a page, collecting console errors and page errors; `done()` fails on any.
async function openPage(browser, query = '', viewport = { width: 1280, height: 800 }) {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  await page.goto(base + query);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  return {
    page,
    errors,
    async done() {
      await context.close();
      check(errors.length === 0, `errors on the page:\n${errors.join('\n')}`);
    },
  };
}

const tid = (id) => `[data-testid="${id}"]`;
const simTime = async (page) => Number(await page.textContent(tid('sim-time')));
const simSteps = async (page) => Number(await page.textContent(tid('sim-steps')));
const points = async (page, chart) => Number(await page.getAttribute(tid(chart), 'data-points'));
const status = async (page) => (await page.textContent(tid('run-status')))?.trim();

async function waitStatus(page, wanted, timeout = 20000) {
  await page.waitForFunction(
    ([sel, w]) => w.includes(document.querySelector(sel)?.textContent?.trim() ?? ''),
    [tid('run-status'), wanted], { timeout });
}

async function waitValid(page) {
  await page.waitForFunction((sel) => {
    const ul = document.querySelector(sel);
    return ul && ul.dataset.count === '0' && ul.querySelector('li.ok');
  }, tid('validation-errors'), { timeout: 20000 });
}

async function setSpeed(page, value) {
  await page.selectOption(tid('speed'), value);
}

// ---------------------------------------------------------------------------------------

test('loads: module version, default preset, valid scenario, charts waiting', async (browser) => {
  const p = await openPage(browser);
  const version = (await p.page.textContent(tid('module-version')))?.trim();
  check(/^\d+\.\d+\.\d+$/.test(version ?? ''), `unexpected version text: ${version}`);
  check(await p.page.getAttribute(tid('preset-single-instance'), 'aria-pressed') === 'true', 'default preset not selected');
  await waitValid(p.page);
  check(await simTime(p.page) === 0, 'sim-time is not 0 at load');
  for (const c of ['chart-kv', 'chart-queue', 'chart-latency']) check(await p.page.isVisible(tid(c)), `${c} not visible`);
  await p.done();
});

test('every preset loads and validates', async (browser) => {
  const p = await openPage(browser);
  const names = await p.page.$$eval('[data-testid^="preset-"]', (els) => els.map((e) => e.dataset.testid.slice(7)));
  check(names.length >= 6, `only ${names.length} presets`);
  for (const name of names) {
    await p.page.click(tid(`preset-${name}`));
    await waitStatus(p.page, ['ready']);
    await waitValid(p.page);
    check(await p.page.getAttribute(tid(`preset-${name}`), 'aria-pressed') === 'true', `${name} not marked chosen`);
    await p.page.waitForFunction((n) => new URL(location.href).searchParams.get('preset') === n, name);
  }
  await p.done();
});

test('play advances simulated time and draws the charts; frames stay short', async (browser) => {
  const p = await openPage(browser);
  await waitStatus(p.page, ['ready']);
  await p.page.click(tid('play'));
  await p.page.waitForFunction((sel) => Number(document.querySelector(sel)?.textContent) > 1, tid('sim-time'), { timeout: 20000 });
  const t1 = await simTime(p.page);
  await p.page.waitForTimeout(4000);
  const t2 = await simTime(p.page);
  check(t2 > t1, `sim-time did not advance while playing (${t1} → ${t2})`);
  for (const c of ['chart-kv', 'chart-queue', 'chart-latency', 'chart-throughput']) {
    const n = await points(p.page, c);
    check(n > 0, `${c} has no points`);
    check(await p.page.$(`${tid(c)} canvas`) !== null, `${c} has no canvas`);
  }
  const stats = await p.page.evaluate(() => window.__blisFrameStats());
  notes.push(`frame time while playing the default preset: p95 ${stats.p95.toFixed(1)} ms, max ${stats.max.toFixed(1)} ms over ${stats.n} frames`);
  check(stats.n > 60, `too few frames measured: ${stats.n}`);
  check(stats.p95 < 50, `frame time p95 ${stats.p95.toFixed(1)} ms ≥ 50 ms`);
  const cards = await p.page.textContent(tid('summary-cards'));
  check(/TTFT p50/.test(cards ?? ''), 'summary cards missing');
  await p.page.screenshot({ path: path.join(artifacts, 'playing.png') });
  await p.page.click(tid('pause'));
  // An advance the worker had already started still lands (its time is real); once no run is
  // busy (step enabled again) the time must stand still.
  await p.page.waitForFunction((sel) => !document.querySelector(sel)?.disabled, tid('step'), { timeout: 10000 });
  const paused = await simTime(p.page);
  await p.page.waitForTimeout(600);
  check(await simTime(p.page) === paused, 'sim-time moved while paused');
  await p.done();
});

test('step runs exactly one engine step; reset returns to zero', async (browser) => {
  const p = await openPage(browser);
  await waitStatus(p.page, ['ready']);
  check(await simSteps(p.page) === 0, 'steps not 0 at load');
  for (let k = 1; k <= 3; k++) {
    await p.page.click(tid('step'));
    await p.page.waitForFunction(([sel, want]) => Number(document.querySelector(sel)?.textContent) >= want, [tid('sim-steps'), k]);
    await p.page.waitForTimeout(150);
    const s = await simSteps(p.page);
    check(s === k, `after ${k} step clicks, ${s} engine steps ran`);
  }
  check(await simTime(p.page) > 0, 'sim-time did not move on step');
  await p.page.click(tid('reset'));
  await p.page.waitForFunction((sel) => document.querySelector(sel)?.textContent === '0', tid('sim-steps'));
  check(await simTime(p.page) === 0, 'reset did not return sim-time to 0');
  await p.done();
});

test('a bad edit in the JSON editor shows its error at the right pointer', async (browser) => {
  const p = await openPage(browser);
  await waitValid(p.page);
  // Type into CodeMirror like a user: go to the end of the max_num_seqs line, replace the value.
  await p.page.click(`${tid('scenario-editor')} .cm-line:has-text('"max_num_seqs"')`);
  await p.page.keyboard.press('End');
  for (let i = 0; i < 4; i++) await p.page.keyboard.press('Backspace');  // "256,"
  await p.page.keyboard.type('-3,');
  const pointer = '/pools/0/engine/args/max_num_seqs';
  await p.page.waitForSelector(`${tid('validation-errors')} li[data-pointer="${pointer}"]`, { timeout: 10000 });
  const marked = await p.page.$$eval('.cm-lintRange-error', (els) => els.map((e) => e.textContent));
  check(marked.includes('-3'), `the editor did not underline the bad value (marked: ${JSON.stringify(marked)})`);
  check(await p.page.getAttribute(tid('knob-max_num_seqs'), 'aria-invalid') === 'true', 'the form knob is not marked invalid');
  check(await status(p.page) === 'invalid', 'run not marked invalid');
  // A syntax error is located too.
  await p.page.keyboard.press('Backspace');  // drop the comma: the next line breaks the syntax
  await p.page.waitForFunction((sel) => /JSON syntax error/.test(document.querySelector(sel)?.textContent ?? ''), tid('validation-errors'));
  await p.page.screenshot({ path: path.join(artifacts, 'bad-edit.png') });
  // Fixing it makes the scenario valid again.
  await p.page.keyboard.type(',');
  await p.page.keyboard.press('End');
  for (let i = 0; i < 3; i++) await p.page.keyboard.press('Backspace');
  await p.page.keyboard.type('64,');
  await waitValid(p.page);
  check(await p.page.inputValue(tid('knob-max_num_seqs')) === '64', 'the form did not follow the JSON edit');
  await p.done();
});

test('the URL round-trips the scenario', async (browser) => {
  const p = await openPage(browser);
  await waitValid(p.page);
  await p.page.fill(tid('knob-instances'), '3');
  await p.page.fill(tid('knob-rate'), '21.5');
  await p.page.waitForFunction(() => new URL(location.href).searchParams.has('s'), null, { timeout: 5000 });
  await p.page.waitForTimeout(400);  // the URL is written after a short debounce
  const url = p.page.url();
  await p.done();
  const q = await openPage(browser, url.slice(base.length));
  check(await q.page.inputValue(tid('knob-instances')) === '3', 'instances did not survive the URL');
  check(await q.page.inputValue(tid('knob-rate')) === '21.5', 'rate did not survive the URL');
  const text = await q.page.textContent(`${tid('scenario-editor')} .cm-content`);
  check(/"instances": 3/.test(text ?? ''), 'editor text did not survive the URL');
  await waitStatus(q.page, ['ready']);
  const instances = await q.page.$$eval(`${tid('export-instance')} option`, (os) => os.map((o) => o.textContent));
  check(instances.length === 3, `expected 3 instances in the run, got ${instances.length}`);
  await q.done();
});

test('compare mode runs A and B and overlays them', async (browser) => {
  const p = await openPage(browser);
  await p.page.click(tid('preset-prefix-cache'));
  check(await p.page.getAttribute(tid('compare'), 'aria-pressed') === 'true', 'compare not on for an A/B preset');
  await waitStatus(p.page, ['ready']);
  await setSpeed(p.page, '100');
  await p.page.click(tid('play'));
  await p.page.waitForFunction((sel) => Number(document.querySelector(sel)?.textContent) > 5, tid('sim-time'), { timeout: 30000 });
  await p.page.waitForTimeout(1500);
  const legend = await p.page.textContent(`${tid('chart-latency')} .u-legend`);
  check(/TTFT p99 A/.test(legend ?? '') && /TTFT p99 B/.test(legend ?? ''), `latency legend lacks A/B: ${legend}`);
  const cards = await p.page.$$eval(`${tid('summary-cards')} .card-rows .slot`, (els) => els.map((e) => e.textContent));
  check(cards.includes('A') && cards.includes('B'), 'summary cards do not show A and B');
  await p.page.screenshot({ path: path.join(artifacts, 'compare.png') });
  // The URL names the preset, so the comparison reopens as it was.
  check(new URL(p.page.url()).searchParams.get('preset') === 'prefix-cache', `URL does not name the preset: ${p.page.url()}`);
  // Toggling compare off leaves one run.
  await p.page.click(tid('compare'));
  check(await p.page.isHidden(`${tid('edit-b')}`), 'B tab still shown');
  await p.done();
});

test('exports download summary.json, requests.csv and Prometheus text', async (browser) => {
  const p = await openPage(browser);
  await waitStatus(p.page, ['ready']);
  await setSpeed(p.page, 'Infinity');
  await p.page.click(tid('play'));
  await waitStatus(p.page, ['done'], 120000);
  const grab = async (id) => {
    const [dl] = await Promise.all([p.page.waitForEvent('download'), p.page.click(tid(id))]);
    const file = path.join(artifacts, dl.suggestedFilename());
    await dl.saveAs(file);
    return { name: dl.suggestedFilename(), text: readFileSync(file, 'utf8') };
  };
  const summary = await grab('export-summary');
  check(summary.name.endsWith('-summary.json'), `summary file name ${summary.name}`);
  const s = JSON.parse(summary.text);
  check(s.requests?.finished > 0 && typeof s.ttft_ms?.p50 === 'number', 'summary.json lacks results');
  const csv = await grab('export-requests');
  const lines = csv.text.trim().split('\n');
  check(/^id,/.test(lines[0]), `requests.csv header: ${lines[0]}`);
  const rows = lines.length - 1;
  check(rows === s.requests.finished + (s.requests.aborted ?? 0), `requests.csv has ${rows} rows for ${s.requests.finished} finished requests`);
  const prom = await grab('export-metrics');
  check(prom.name.endsWith('.prom') && /^# (HELP|TYPE) vllm:/m.test(prom.text), 'metrics file is not vLLM Prometheus text');
  check(await p.page.isVisible(tid('chart-cdf')), 'latency CDF not shown at the end');
  await p.done();
});

test('exports: timeseries.json with nulls, every .prom in one zip, a chart PNG, RFC 4180 requests.csv with ttft_ms/e2e_ms', async (browser) => {
  const p = await openPage(browser, '?preset=router-comparison');
  await waitStatus(p.page, ['ready']);
  await p.page.click(tid('compare'));  // one run: four instances
  await waitStatus(p.page, ['ready']);
  await setSpeed(p.page, 'Infinity');
  await p.page.click(tid('play'));
  await waitStatus(p.page, ['done'], 120000);
  const grab = async (id) => {
    const [dl] = await Promise.all([p.page.waitForEvent('download'), p.page.click(tid(id))]);
    const file = path.join(artifacts, dl.suggestedFilename());
    await dl.saveAs(file);
    return { name: dl.suggestedFilename(), bytes: readFileSync(file) };
  };
  const ts = await grab('export-timeseries');
  const series = JSON.parse(ts.bytes.toString('utf8'));
  check(ts.name.endsWith('-timeseries.json') && series.rows > 0 && 'e2e_p99_ms' in series.columns, `timeseries.json: ${ts.name}`);
  const zip = await grab('export-metrics-all');
  const entries = zip.bytes.readUInt16LE(zip.bytes.length - 22 + 10);
  check(zip.name.endsWith('.zip') && entries === 4, `${zip.name} holds ${entries} files, expected 4`);
  const png = await grab('chart-kv-png');
  check(png.bytes.subarray(1, 4).toString('latin1') === 'PNG', `${png.name} is not a PNG`);
  const csv = await grab('export-requests');
  const header = csv.bytes.toString('utf8').split('\n')[0];
  check(/,ttft_ms,e2e_ms$/.test(header), `requests.csv header: ${header}`);
  await p.done();
});

test('embed mode shows controls and three charts, and plays', async (browser) => {
  const p = await openPage(browser, '?embed=1&preset=preemption', { width: 900, height: 640 });
  check(await p.page.isHidden('.sidebar'), 'sidebar visible in embed mode');
  for (const c of ['chart-kv', 'chart-queue', 'chart-latency']) check(await p.page.isVisible(tid(c)), `${c} hidden in embed mode`);
  check(await p.page.isHidden(tid('chart-throughput')), 'throughput chart shown in embed mode');
  await waitStatus(p.page, ['ready']);
  await p.page.focus('body');
  await p.page.keyboard.press('Space');  // keyboard play
  await p.page.waitForFunction((sel) => Number(document.querySelector(sel)?.textContent) > 0.5, tid('sim-time'), { timeout: 20000 });
  const href = await p.page.getAttribute('#open-full', 'href');
  check(href && !href.includes('embed=1') && href.includes('preset=preemption'), `open-in-playground link: ${href}`);
  await p.page.screenshot({ path: path.join(artifacts, 'embed.png') });
  await p.done();
});

test('a docs demo page embeds a live playground, and the sidebar lists the guide', async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  const r = await page.goto(`${base}docs/demos/prefix-caching.html`);
  check(r?.ok(), `docs page answered ${r?.status()}`);
  check(/Prefix caching/.test(await page.textContent('h1') ?? ''), 'demo page title missing');
  const sidebar = await page.textContent('.VPSidebar');
  check(/Architecture/.test(sidebar ?? ''), 'the sidebar does not list the architecture page');
  for (const t of ['Chunked prefill and the token budget', 'Preemption under KV pressure', 'Routing across instances']) {
    check(sidebar?.includes(t), `the sidebar does not list “${t}”`);
  }
  const iframe = await page.waitForSelector(tid('docs-embed'));
  await iframe.scrollIntoViewIfNeeded();
  const frame = await iframe.contentFrame();
  await frame.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  check(await frame.getAttribute(tid('preset-prefix-cache'), 'aria-pressed') === 'true', 'embed did not load its preset');
  await frame.click(tid('play'));
  await frame.waitForFunction((sel) => Number(document.querySelector(sel)?.textContent) > 0.5, tid('sim-time'), { timeout: 20000 });
  await page.screenshot({ path: path.join(artifacts, 'docs-demo.png'), fullPage: false });
  await context.close();
  check(errors.length === 0, `errors on the docs page:\n${errors.join('\n')}`);
});

test('screenshot of the playground (1280×800)', async (browser) => {
  const p = await openPage(browser, '?preset=router-comparison', { width: 1440, height: 900 });
  await waitStatus(p.page, ['ready']);
  await setSpeed(p.page, '30');
  await p.page.click(tid('play'));
  await p.page.waitForFunction((sel) => Number(document.querySelector(sel)?.textContent) > 40, tid('sim-time'), { timeout: 60000 });
  await p.page.click(tid('pause'));
  await p.page.waitForTimeout(300);
  const file = path.join(artifacts, 'playground.png');
  await p.page.screenshot({ path: file });
  if (process.env.BLIS_UPDATE_SCREENSHOT === '1') {
    mkdirSync(path.join(repoDir, 'docs/images'), { recursive: true });
    copyFileSync(file, path.join(repoDir, 'docs/images/playground.png'));
  }
  check(existsSync(file), 'no screenshot');
  await p.done();
});

// ---------------------------------------------------------------------------------------

const server = await startServer();
let passed = 0, failed = 0;
const browser = await chromium.launch({
  executablePath: process.env.BLIS_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const only = process.env.BLIS_BROWSER_ONLY;
try {
  for (const t of tests) {
    if (only && !t.name.includes(only)) continue;
    try {
      await t.fn(browser);
      passed++;
      console.log(`ok   ${t.name}`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${t.name}\n     ${String(e?.stack ?? e).split('\n').join('\n     ')}`);
    }
  }
} finally {
  await browser.close();
  try { process.kill(-server.pid); } catch { /* already gone */ }
}
for (const n of notes) console.log(`note ${n}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
