// Browser tier: serves the built site (vite preview: the app at /, the docs at /docs/) on
// 127.0.0.1, drives Debian's Chromium with playwright-core, and checks what a user sees.
// Screenshots and downloads go to the artifacts folder given as the first argument. The
// last line printed is `N passed, N failed`.
//
// BLIS_UPDATE_SCREENSHOT=1 also writes docs/images/playground.png (the README's picture).
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
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
const notes = []; // figures worth reporting (frame times), printed before the tally

function check(cond, message) {
  if (!cond) throw new Error(message);
}

// Starts vite preview and resolves once it printed its address (a condition, not a delay).
async function startServer() {
  const server = spawn('npx', ['vite', 'preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], {
    cwd: webDir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Plain text: with CI set, vite colours its output and splits the address with escapes.
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  let output = '';
  const listening = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`vite preview did not start on ${base}:\n${output}`)), 30000);
    const read = (chunk) => {
      output += chunk.toString();
      // eslint-disable-next-line no-control-regex
      if (output.replace(/\x1b\[[0-9;]*m/g, '').includes(`127.0.0.1:${port}`)) {
        clearTimeout(timer);
        resolve();
      }
    };
    server.stdout.on('data', read);
    server.stderr.on('data', read);
    server.on('exit', (code) => reject(new Error(`vite preview exited (${code}):\n${output}`)));
  });
  try {
    await listening;
    const r = await fetch(base);
    check(r.ok, `vite preview answered ${r.status} on ${base}`);
  } catch (e) {
    try {
      process.kill(-server.pid);
    } catch {
      /* already gone */
    }
    throw e;
  }
  return server;
}

// Opens a page, collecting console errors and page errors; `done()` fails on any.
async function openPage(browser, query = '', viewport = { width: 1280, height: 800 }) {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
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
const encodeScenario = (doc) => deflateRawSync(Buffer.from(JSON.stringify(doc))).toString('base64url');
// The smallest valid scenario: every knob but the pool's ids and the load is a default (shared
// with the WASM module's unit tests).
const MINIMAL = JSON.parse(readFileSync(path.join(here, 'fixtures/minimal-scenario.json'), 'utf8'));
const editorText = async (page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('[data-testid="scenario-editor"] .cm-line')].map((l) => l.textContent).join('\n'),
  );
const simTime = async (page) => Number(await page.textContent(tid('sim-time')));
const simSteps = async (page) => Number(await page.textContent(tid('sim-steps')));
const points = async (page, chart) => Number(await page.getAttribute(tid(chart), 'data-points'));
const status = async (page) => (await page.textContent(tid('run-status')))?.trim();

async function waitStatus(page, wanted, timeout = 20000) {
  await page.waitForFunction(
    ([sel, w]) => w.includes(document.querySelector(sel)?.textContent?.trim() ?? ''),
    [tid('run-status'), wanted],
    { timeout },
  );
}

async function waitValid(page) {
  await page.waitForFunction(
    (sel) => {
      const ul = document.querySelector(sel);
      return ul && ul.dataset.count === '0' && ul.querySelector('li.ok');
    },
    tid('validation-errors'),
    { timeout: 20000 },
  );
}

// Resolves once the page has drawn `n` more animation frames: "nothing moved while n frames
// were drawn" is the condition a paused run must meet (every frame would advance a playing one).
async function framesDrawn(page, n) {
  await page.evaluate(
    (k) =>
      new Promise((resolve) => {
        let i = 0;
        const f = () => (++i >= k ? resolve() : requestAnimationFrame(f));
        requestAnimationFrame(f);
      }),
    n,
  );
}

// No request to the worker outstanding: Step is enabled again (it is disabled while a run is busy).
async function waitIdle(page) {
  await page.waitForFunction((sel) => !document.querySelector(sel)?.disabled, tid('step'), { timeout: 10000 });
}

async function setSpeed(page, value) {
  await page.selectOption(tid('speed'), value);
}

// ---------------------------------------------------------------------------------------

test('loads: module version, default preset, valid scenario, charts waiting', async (browser) => {
  const p = await openPage(browser);
  const version = (await p.page.textContent(tid('module-version')))?.trim();
  check(/^\d+\.\d+\.\d+$/.test(version ?? ''), `unexpected version text: ${version}`);
  check((await p.page.getAttribute(tid('preset-single-instance'), 'aria-pressed')) === 'true', 'default preset not selected');
  await waitValid(p.page);
  check((await simTime(p.page)) === 0, 'sim-time is not 0 at load');
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
    check((await p.page.getAttribute(tid(`preset-${name}`), 'aria-pressed')) === 'true', `${name} not marked chosen`);
    await p.page.waitForFunction((n) => new URL(location.href).searchParams.get('preset') === n, name);
  }
  await p.done();
});

test('play advances simulated time and draws the charts; frames stay short', async (browser) => {
  const p = await openPage(browser);
  await waitStatus(p.page, ['ready']);
  await p.page.click(tid('play'));
  await p.page.waitForFunction((sel) => Number(document.querySelector(sel)?.textContent) > 1, tid('sim-time'), {
    timeout: 20000,
  });
  const t1 = await simTime(p.page);
  // Enough frames for the frame-time figure, the time moving on, and every chart drawn.
  await p.page.waitForFunction(
    ([sel, t, charts]) =>
      window.__blisFrameStats().n > 200 &&
      Number(document.querySelector(sel)?.textContent) > t &&
      charts.every((c) => Number(document.querySelector(`[data-testid="${c}"]`)?.dataset.points) > 0),
    [tid('sim-time'), t1, ['chart-kv', 'chart-queue', 'chart-latency', 'chart-throughput']],
    { timeout: 30000 },
  );
  const t2 = await simTime(p.page);
  check(t2 > t1, `sim-time did not advance while playing (${t1} → ${t2})`);
  for (const c of ['chart-kv', 'chart-queue', 'chart-latency', 'chart-throughput']) {
    const n = await points(p.page, c);
    check(n > 0, `${c} has no points`);
    check((await p.page.$(`${tid(c)} canvas`)) !== null, `${c} has no canvas`);
  }
  const stats = await p.page.evaluate(() => window.__blisFrameStats());
  notes.push(
    `frame time while playing the default preset: p95 ${stats.p95.toFixed(1)} ms, max ${stats.max.toFixed(1)} ms over ${stats.n} frames`,
  );
  check(stats.n > 60, `too few frames measured: ${stats.n}`);
  check(stats.p95 < 50, `frame time p95 ${stats.p95.toFixed(1)} ms ≥ 50 ms`);
  const cards = await p.page.textContent(tid('summary-cards'));
  check(/TTFT p50/.test(cards ?? ''), 'summary cards missing');
  await p.page.screenshot({ path: path.join(artifacts, 'playing.png') });
  await p.page.click(tid('pause'));
  // An advance the worker had already started still lands (its time is real); once no run is
  // busy (step enabled again) the time must stand still.
  await waitIdle(p.page);
  const paused = await simTime(p.page);
  await framesDrawn(p.page, 30);
  check((await simTime(p.page)) === paused, 'sim-time moved while paused');
  await p.done();
});

test('a click on Play right after load is never lost (8 fresh loads)', async (browser) => {
  for (let k = 0; k < 8; k++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(base);
    // Play is disabled until a run can play; playwright's click waits for it to be enabled.
    check((await page.isDisabled(tid('play'))) || (await status(page)) !== 'loading', 'Play enabled while loading');
    await page.click(tid('play'), { timeout: 30000 });
    await page
      .waitForFunction((sel) => Number(document.querySelector(sel)?.textContent) > 0, tid('sim-time'), { timeout: 20000 })
      .catch(async () => {
        throw new Error(`load ${k + 1}: Play was clicked but the time stayed at 0 (status ${await status(page)})`);
      });
    await context.close();
  }
});

test('step runs exactly one engine step; reset returns to zero', async (browser) => {
  const p = await openPage(browser);
  await waitStatus(p.page, ['ready']);
  check((await simSteps(p.page)) === 0, 'steps not 0 at load');
  for (let k = 1; k <= 3; k++) {
    await p.page.click(tid('step'));
    await p.page.waitForFunction(
      ([sel, want]) => Number(document.querySelector(sel)?.textContent) >= want,
      [tid('sim-steps'), k],
    );
    // The step's answer is in once the run is idle again; a second step would need a new click.
    await waitIdle(p.page);
    const s = await simSteps(p.page);
    check(s === k, `after ${k} step clicks, ${s} engine steps ran`);
  }
  check((await simTime(p.page)) > 0, 'sim-time did not move on step');
  await p.page.click(tid('reset'));
  await p.page.waitForFunction((sel) => document.querySelector(sel)?.textContent === '0', tid('sim-steps'));
  check((await simTime(p.page)) === 0, 'reset did not return sim-time to 0');
  await p.done();
});

test('a bad edit in the JSON editor shows its error at the right pointer', async (browser) => {
  const p = await openPage(browser);
  await waitValid(p.page);
  // Type into CodeMirror like a user: go to the end of the max_num_seqs line, replace the value.
  await p.page.click(`${tid('scenario-editor')} .cm-line:has-text('"max_num_seqs"')`);
  await p.page.keyboard.press('End');
  for (let i = 0; i < 4; i++) await p.page.keyboard.press('Backspace'); // "256,"
  await p.page.keyboard.type('-3,');
  const pointer = '/pools/0/engine/args/max_num_seqs';
  await p.page.waitForSelector(`${tid('validation-errors')} li[data-pointer="${pointer}"]`, { timeout: 10000 });
  const marked = await p.page.$$eval('.cm-lintRange-error', (els) => els.map((e) => e.textContent));
  check(marked.includes('-3'), `the editor did not underline the bad value (marked: ${JSON.stringify(marked)})`);
  check((await p.page.getAttribute(tid('knob-max_num_seqs'), 'aria-invalid')) === 'true', 'the form knob is not marked invalid');
  check((await status(p.page)) === 'invalid', 'run not marked invalid');
  // A syntax error is located too.
  await p.page.keyboard.press('Backspace'); // drop the comma: the next line breaks the syntax
  await p.page.waitForFunction(
    (sel) => /JSON syntax error/.test(document.querySelector(sel)?.textContent ?? ''),
    tid('validation-errors'),
  );
  await p.page.screenshot({ path: path.join(artifacts, 'bad-edit.png') });
  // Fixing it makes the scenario valid again.
  await p.page.keyboard.type(',');
  await p.page.keyboard.press('End');
  for (let i = 0; i < 3; i++) await p.page.keyboard.press('Backspace');
  await p.page.keyboard.type('64,');
  await waitValid(p.page);
  check((await p.page.inputValue(tid('knob-max_num_seqs'))) === '64', 'the form did not follow the JSON edit');
  await p.done();
});

test('the form on a minimal scenario: knobs enabled (but those waiting for another), defaults shown and marked, an edit writes the key', async (browser) => {
  const p = await openPage(browser, `?s=${encodeScenario(MINIMAL)}`);
  await waitValid(p.page);
  // Defaults arrive with the validation (the resolved document from the WASM API).
  await p.page.waitForFunction(
    (sel) => document.querySelector(sel)?.closest('.knob')?.dataset.source === 'default',
    tid('knob-enable_prefix_caching'),
  );
  const knobs = await p.page.$$eval('[data-testid^="knob-"]:is(input, select)', (els) =>
    els.map((e) => ({
      id: e.dataset.testid,
      disabled: e.disabled,
      value: e.type === 'checkbox' ? String(e.checked) : e.value,
      source: e.closest('.knob').dataset.source,
      needs: e.closest('.knob').dataset.needs,
      placeholder: e.placeholder ?? '',
    })),
  );
  check(knobs.length >= 30, `only ${knobs.length} knobs`);
  for (const k of knobs) {
    // Only a knob that waits for another (draft tokens for a speculative method) is disabled,
    // and it says why.
    check(!k.disabled || !!k.needs, `${k.id} is disabled on a minimal scenario`);
    if (k.disabled) continue;
    // Blank only where unset means something the field's placeholder says (no adapters).
    check(k.value !== '' || k.placeholder !== '', `${k.id} is blank on a minimal scenario`);
  }
  for (const [id, want] of [
    ['knob-pp', '1'],
    ['knob-dp', '1'],
    ['knob-enable_expert_parallel', 'false'],
    ['knob-gpus_per_node', '8'],
    ['knob-nic', 'per_gpu'],
    ['knob-spec_method', 'off'],
  ]) {
    const k = knobs.find((x) => x.id === id);
    check(k?.value === want && k.source === 'default', `${id} shows ${k?.value} (${k?.source}), expected the default ${want}`);
  }
  const pc = knobs.find((k) => k.id === 'knob-enable_prefix_caching');
  check(
    pc.value === 'true' && pc.source === 'default',
    `prefix caching shows ${pc.value} (${pc.source}), expected vLLM's default (on)`,
  );
  check(knobs.find((k) => k.id === 'knob-max_num_seqs').source === 'default', 'max_num_seqs not marked as a default');
  check(await p.page.isVisible(`.knob:has(${tid('knob-max_num_seqs')}) .knob-default`), 'no visible default mark');
  // Editing a defaulted knob writes its key.
  await p.page.fill(tid('knob-max_num_seqs'), '48');
  await p.page.waitForFunction(() =>
    [...document.querySelectorAll('[data-testid="scenario-editor"] .cm-line')].some((l) =>
      /"max_num_seqs": 48/.test(l.textContent ?? ''),
    ),
  );
  await p.page.waitForFunction(
    (sel) => document.querySelector(sel)?.closest('.knob')?.dataset.source === 'document',
    tid('knob-max_num_seqs'),
  );
  await p.page.click(tid('knob-enable_prefix_caching'));
  await p.page.waitForFunction(() =>
    /"enable_prefix_caching": false/.test(
      [...document.querySelectorAll('[data-testid="scenario-editor"] .cm-line')].map((l) => l.textContent).join('\n'),
    ),
  );
  await waitValid(p.page);
  await p.page.screenshot({ path: path.join(artifacts, 'form-minimal.png') });
  await p.done();
});

test('a bad form edit: the message next to the field and a banner in the main pane', async (browser) => {
  const p = await openPage(browser);
  await waitValid(p.page);
  await p.page.fill(tid('knob-max_num_seqs'), '-3');
  await p.page.waitForSelector(`${tid('knob-error-max_num_seqs')}:not([hidden])`, { timeout: 10000 });
  const msg = await p.page.textContent(tid('knob-error-max_num_seqs'));
  check(/-3/.test(msg ?? ''), `the field's message does not name the value: ${msg}`);
  await p.page.waitForSelector(`${tid('error-banner')}:not([hidden])`);
  const banner = await p.page.textContent(tid('error-banner'));
  check(/max_num_seqs/.test(banner ?? '') && /does not run/.test(banner ?? ''), `banner: ${banner}`);
  // Both are on screen without scrolling.
  for (const sel of [tid('knob-error-max_num_seqs'), tid('error-banner')]) {
    const box = await p.page.locator(sel).boundingBox();
    check(box && box.y >= 0 && box.y + box.height <= 800, `${sel} is off-screen (${JSON.stringify(box)})`);
  }
  await p.page.screenshot({ path: path.join(artifacts, 'form-error.png') });
  await p.page.fill(tid('knob-max_num_seqs'), '64');
  await p.page.waitForSelector(`${tid('error-banner')}[hidden]`, { state: 'attached' });
  await waitValid(p.page);
  await p.done();
});

// Runs the page's scenario to the end at full speed and returns its summary.json (the export).
async function runToEnd(page) {
  await waitStatus(page, ['ready']);
  await setSpeed(page, 'Infinity');
  await page.click(tid('play'));
  await waitStatus(page, ['done'], 60000);
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(tid('export-summary'))]);
  return JSON.parse(readFileSync(await dl.path(), 'utf8'));
}

test('scale-out from the form: pp 2 runs and changes the result; dp and EPP errors show at their fields', async (browser) => {
  const p = await openPage(browser, `?s=${encodeScenario(MINIMAL)}`);
  await waitValid(p.page);
  const one = await runToEnd(p.page);
  // The group is folded on a scenario that sets none of its keys; the defaults are there.
  check(!(await p.page.getAttribute(tid('knob-group-scale'), 'open')), 'the scale-out group is open on a minimal scenario');
  await p.page.click(`${tid('knob-group-scale')} > summary`);
  await p.page.fill(tid('knob-pp'), '2');
  await p.page.waitForFunction(() =>
    /"pp": 2/.test(
      [...document.querySelectorAll('[data-testid="scenario-editor"] .cm-line')].map((l) => l.textContent).join('\n'),
    ),
  );
  await waitValid(p.page);
  const two = await runToEnd(p.page);
  check(two.cost?.gpus === 2 * one.cost?.gpus, `pp 2: ${two.cost?.gpus} GPUs, expected twice ${one.cost?.gpus}`);
  check(two.digest !== one.digest, 'pp 2 gave the same run as pp 1');
  check(two.itl_ms?.mean !== one.itl_ms?.mean, `pp 2 left the mean ITL at ${one.itl_ms?.mean} ms`);
  // dp 2 on a dense model: the decoder's message next to the field, with its pointer in the list.
  await p.page.fill(tid('knob-dp'), '2');
  await p.page.waitForSelector(`${tid('knob-error-dp')}:not([hidden])`, { timeout: 10000 });
  check(/dense model/.test((await p.page.textContent(tid('knob-error-dp'))) ?? ''), 'dp 2: no dense-model message');
  await p.page.waitForSelector(`${tid('validation-errors')} li[data-pointer="/pools/0/parallelism/dp"]`);
  await p.page.fill(tid('knob-dp'), '1');
  await waitValid(p.page);
  // The selects list what the decoder accepts (epp among the router policies).
  const opts = async (id) => p.page.$$eval(`${tid(id)} option`, (os) => os.map((o) => o.value));
  check((await opts('knob-nic')).join() === 'per_gpu,per_node', `nic options ${await opts('knob-nic')}`);
  check((await opts('knob-router')).includes('epp'), `router options ${await opts('knob-router')}`);
  check((await opts('knob-spec_method')).includes('ngram'), 'no ngram among the speculative methods');
  // An example EPP config: it fills the field, selects policy epp and runs.
  await p.page.click(`${tid('knob-group-router')} > summary`);
  await p.page.selectOption(tid('epp-example'), 'epp-config.json');
  await p.page.waitForFunction((sel) => document.querySelector(sel)?.value === 'epp', tid('knob-router'));
  check(/"plugins"/.test(await p.page.inputValue(tid('knob-epp_config'))), 'the EPP field does not show the example');
  await waitValid(p.page);
  await waitStatus(p.page, ['ready']);
  // Broken YAML: the decoder's message (line and column) under the field.
  await p.page.fill(tid('knob-epp_config'), 'plugins: [');
  await p.page.waitForSelector(`${tid('knob-error-epp_config')}:not([hidden])`, { timeout: 10000 });
  check(/line 1/.test((await p.page.textContent(tid('knob-error-epp_config'))) ?? ''), 'no YAML position in the message');
  await p.page.locator(tid('scenario-form')).screenshot({ path: path.join(artifacts, 'form-scale-out.png') });
  await p.done();
});

test('latency windows with no sample are gaps, not zeros; the window can be chosen', async (browser) => {
  // One request every 5 s and a 500 ms window: most windows see no first token.
  const sparse = {
    ...MINIMAL,
    workload: { clients: [{ ...MINIMAL.workload.clients[0], load: { rate: 0.2, arrival: 'constant' } }] },
    horizon: { duration_s: 30 },
  };
  const p = await openPage(browser, `?s=${encodeScenario(sparse)}`);
  await waitValid(p.page);
  await p.page.selectOption(tid('window'), '500');
  await p.page.waitForFunction(() =>
    /"timeseries_interval_ms": 500/.test(
      [...document.querySelectorAll('[data-testid="scenario-editor"] .cm-line')].map((l) => l.textContent).join('\n'),
    ),
  );
  await waitStatus(p.page, ['ready']);
  await setSpeed(p.page, 'Infinity');
  await p.page.click(tid('play'));
  await waitStatus(p.page, ['done'], 60000);
  await p.page.waitForFunction((sel) => Number(document.querySelector(sel)?.dataset.gaps) > 0, tid('chart-latency'));
  const sub = await p.page.textContent(`${tid('chart-latency')} .chart-sub`);
  check(/tumbling 500 ms window/.test(sub ?? ''), `latency subtitle: ${sub}`);
  await p.done();
});

test('the saturation verdict; goodput only with an SLO, shown beside it', async (browser) => {
  const p = await openPage(browser, `?s=${encodeScenario(MINIMAL)}`);
  await waitStatus(p.page, ['ready']);
  await setSpeed(p.page, 'Infinity');
  await p.page.click(tid('play'));
  await waitStatus(p.page, ['done'], 60000);
  await p.page.waitForSelector(`${tid('verdict')} [data-verdict="stable"]`);
  const cards = await p.page.textContent(tid('summary-cards'));
  check(!/Goodput/.test(cards ?? ''), 'a goodput card without an SLO');
  await p.done();
  const q = await openPage(browser, '?preset=overload');
  await waitStatus(q.page, ['ready']);
  await setSpeed(q.page, 'Infinity');
  await q.page.click(tid('play'));
  await q.page.waitForSelector(`${tid('verdict')} :is([data-verdict="backlogged"], [data-verdict="overloaded"])`, {
    timeout: 120000,
  });
  await q.page.waitForFunction(
    (sel) => /Goodput[\s\S]*TTFT ≤/.test(document.querySelector(sel)?.textContent ?? ''),
    tid('summary-cards'),
    { timeout: 60000 },
  );
  await q.page.click(tid('pause'));
  await q.page.screenshot({ path: path.join(artifacts, 'verdict.png') });
  await q.done();
});

test('375 px: nothing overflows sideways', async (browser) => {
  const p = await openPage(browser, '', { width: 375, height: 740 });
  await waitStatus(p.page, ['ready']);
  await p.page.click(tid('play'));
  await p.page.waitForFunction((sel) => Number(document.querySelector(sel)?.textContent) > 1, tid('sim-time'), {
    timeout: 20000,
  });
  await p.page.click(tid('pause'));
  const wide = await p.page.evaluate(() => document.documentElement.scrollWidth);
  check(wide <= 375, `the page is ${wide} px wide at a 375 px viewport`);
  await p.page.screenshot({ path: path.join(artifacts, 'mobile-375.png'), fullPage: true });
  await p.done();
});

test('dark mode follows the system, and ?theme= overrides it', async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
  const page = await context.newPage();
  await page.goto(base);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  const bg = (p) => p.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  const dark = await bg(page);
  check(dark === 'rgb(15, 20, 27)', `dark system scheme: background ${dark}`);
  await page.screenshot({ path: path.join(artifacts, 'dark.png') });
  await page.goto(`${base}?theme=light`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  check((await bg(page)) === 'rgb(246, 247, 249)', 'theme=light did not override the dark system scheme');
  await context.close();
});

test('the mechanism view: KV blocks, queues and the budget, on every Step; hover links a request to its blocks', async (browser) => {
  const p = await openPage(browser, '?preset=preemption');
  await waitStatus(p.page, ['ready']);
  await p.page.click(tid('mech-toggle'));
  await p.page.waitForFunction((sel) => Number(document.querySelector(sel)?.dataset.blocks) > 0, tid('mech-body'));
  for (let k = 1; k <= 3; k++) {
    await p.page.click(tid('step'));
    await p.page.waitForFunction(
      ([sel, want]) => Number(document.querySelector(sel)?.textContent) >= want,
      [tid('sim-steps'), k],
    );
  }
  await p.page.waitForFunction((sel) => document.querySelectorAll(`${sel} tbody tr`).length > 0, tid('mech-running'));
  const budget = await p.page.textContent(tid('mech-budget'));
  check(/budget of \d+ tokens/.test(budget ?? ''), `budget: ${budget}`);
  // The batch panel shows what the scheduler put into the last batch: prefill chunks and
  // decodes, one row each, whose tokens add up to the batch's.
  await waitIdle(p.page);
  await p.page.waitForFunction((sel) => document.querySelectorAll(`${sel} tbody tr`).length > 0, tid('mech-batch'));
  const batch = await p.page.evaluate((sel) => {
    const rows = [...document.querySelectorAll(`${sel} tbody tr`)];
    const sum = (i) => rows.reduce((n, r) => n + Number(r.children[i].textContent), 0);
    return {
      text: document.querySelector('[data-testid="mech-budget"] p').textContent,
      tokens: sum(3),
      prefill: sum(4),
      prefills: rows.filter((r) => r.dataset.phase === 'prefill').length,
      decodes: rows.filter((r) => r.dataset.phase === 'decode').length,
    };
  }, tid('mech-batch'));
  const m =
    /Last scheduled batch \(#\d+\): (\d+) prefill chunks? \((\d+) tokens\) \+ (\d+) decodes? \((\d+) tokens.*= (\d+) of a budget of (\d+) tokens/.exec(
      batch.text,
    );
  check(m, `batch panel: ${batch.text}`);
  const [, prefills, prefillTokens, decodes, decodeTokens, tokens, tokenBudget] = m.map(Number);
  check(prefills === batch.prefills && decodes === batch.decodes, `batch rows ${JSON.stringify(batch)} vs ${batch.text}`);
  check(
    tokens === batch.tokens && prefillTokens === batch.prefill && tokens === prefillTokens + decodeTokens,
    `batch tokens: ${JSON.stringify(batch)}`,
  );
  check(tokens > 0 && tokens <= tokenBudget, `batch of ${tokens} tokens against a budget of ${tokenBudget}`);
  const batchBefore = await p.page.getAttribute(tid('mech-budget'), 'data-batch');
  const before = await p.page.getAttribute(tid('mech-body'), 'data-requests');
  // Playing updates it too.
  await p.page.click(tid('play'));
  await p.page.waitForFunction(([sel, b]) => document.querySelector(sel)?.dataset.requests !== b, [tid('mech-body'), before], {
    timeout: 20000,
  });
  await p.page.waitForFunction(
    ([sel, b]) => document.querySelector(sel)?.dataset.batch !== b,
    [tid('mech-budget'), batchBefore],
    {
      timeout: 20000,
    },
  );
  await p.page.click(tid('pause'));
  await waitIdle(p.page);
  await p.page.hover(`${tid('mech-running')} tbody tr`);
  check((await p.page.$(`${tid('mech-running')} tbody tr.hover`)) !== null, 'hovering a request does not highlight its row');
  await p.page.locator(tid('mechanism')).screenshot({ path: path.join(artifacts, 'mechanism.png') });
  await p.done();
});

test("vLLM's Grafana panels, each titled with its vllm:* metric; crosshair and zoom synced", async (browser) => {
  const p = await openPage(browser);
  await waitStatus(p.page, ['ready']);
  const panels = ['kv', 'queue', 'throughput', 'preemptions', 'prefix-hit-rate', 'tokens', 'requests', 'e2e-queue'];
  for (const id of panels) {
    const sub = await p.page.textContent(`${tid(`chart-${id}`)} .chart-sub`);
    check(/vllm:[a-z_]+/.test(sub ?? ''), `chart-${id} is not titled with a vllm:* metric: ${sub}`);
  }
  await p.page.click(tid('play'));
  await p.page.waitForFunction((sel) => Number(document.querySelector(sel)?.textContent) > 5, tid('sim-time'), {
    timeout: 30000,
  });
  await p.page.click(tid('pause'));
  await waitIdle(p.page);
  await framesDrawn(p.page, 5);
  // Crosshair: hovering one chart moves the cursor of the others to the same time.
  const over = async (id) => p.page.locator(`${tid(`chart-${id}`)} .u-over`).boundingBox();
  const legendTime = (id) => p.page.textContent(`${tid(`chart-${id}`)} .u-legend .u-series:first-child .u-value`);
  const kv = await over('kv');
  for (const f of [0.3, 0.7]) {
    await p.page.mouse.move(kv.x + f * kv.width, kv.y + kv.height / 2);
    await p.page.waitForFunction(
      ([a, b]) => {
        const t = (id) =>
          document.querySelector(`[data-testid="chart-${id}"] .u-legend .u-series:first-child .u-value`)?.textContent;
        return t(a) === t(b) && t(a) !== '–';
      },
      ['kv', 'tokens'],
      { timeout: 5000 },
    );
  }
  check((await legendTime('kv')) === (await legendTime('tokens')), 'the crosshair is not shared');
  // Zoom: a drag on one chart narrows the time range of every time chart.
  const full = Number(await p.page.getAttribute(tid('chart-tokens'), 'data-x-max'));
  await p.page.mouse.move(kv.x + 0.2 * kv.width, kv.y + kv.height / 2);
  await p.page.mouse.down();
  await p.page.mouse.move(kv.x + 0.5 * kv.width, kv.y + kv.height / 2, { steps: 5 });
  await p.page.mouse.up();
  await p.page.waitForFunction(
    ([sel, max]) => Number(document.querySelector(sel)?.dataset.xMax) < max,
    [tid('chart-tokens'), full],
    { timeout: 5000 },
  );
  const range = async (id) => {
    const el = tid(`chart-${id}`);
    return [Number(await p.page.getAttribute(el, 'data-x-min')), Number(await p.page.getAttribute(el, 'data-x-max'))];
  };
  const [a, b] = [await range('kv'), await range('tokens')];
  check(Math.abs(a[0] - b[0]) < 1e-6 && Math.abs(a[1] - b[1]) < 1e-6, `zoom not shared: kv ${a}, tokens ${b}`);
  await p.done();
});

test('16 instances: one line per pool by default, a heat map on request', async (browser) => {
  const many = {
    ...MINIMAL,
    pools: [{ ...MINIMAL.pools[0], instances: 16 }],
    workload: { clients: [{ ...MINIMAL.workload.clients[0], load: { rate: 40 } }] },
  };
  const p = await openPage(browser, `?s=${encodeScenario(many)}`);
  await waitStatus(p.page, ['ready']);
  await p.page.click(tid('play'));
  await p.page.waitForFunction((sel) => Number(document.querySelector(sel)?.textContent) > 2, tid('sim-time'), {
    timeout: 30000,
  });
  const legend = await p.page.$$eval(`${tid('chart-queue')} .u-legend .u-series`, (els) => els.length);
  check(legend <= 3, `the queue chart has ${legend} legend entries at 16 instances`);
  await p.page.selectOption(tid('instance-mode'), 'heat');
  await p.page.waitForFunction((sel) => document.querySelector(sel)?.dataset.rows === '16', tid('heat-kv'));
  check(await p.page.isHidden(tid('chart-kv')), 'the KV lines are still shown beside the heat map');
  await p.page.click(tid('pause'));
  await p.page.locator(tid('heat-kv')).screenshot({ path: path.join(artifacts, 'heatmap.png') });
  await p.done();
});

test('the URL round-trips the scenario', async (browser) => {
  const p = await openPage(browser);
  await waitValid(p.page);
  await p.page.fill(tid('knob-instances'), '3');
  await p.page.fill(tid('knob-rate'), '21.5');
  // The URL is written after a short debounce: wait for each rewrite until its scenario has both edits.
  const urlDoc = (u) => {
    const q = new URL(u).searchParams.get('s');
    return q ? JSON.parse(inflateRawSync(Buffer.from(q, 'base64url')).toString('utf8')) : undefined;
  };
  for (let seen = p.page.url(); ;) {
    const doc = urlDoc(seen);
    if (doc?.pools?.[0]?.instances === 3 && doc.workload?.clients?.[0]?.load?.rate === 21.5) break;
    await p.page.waitForFunction((u) => location.href !== u, seen, { timeout: 5000 });
    seen = p.page.url();
  }
  const url = p.page.url();
  await p.done();
  const q = await openPage(browser, url.slice(base.length));
  check((await q.page.inputValue(tid('knob-instances'))) === '3', 'instances did not survive the URL');
  check((await q.page.inputValue(tid('knob-rate'))) === '21.5', 'rate did not survive the URL');
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
  check((await p.page.getAttribute(tid('compare'), 'aria-pressed')) === 'true', 'compare not on for an A/B preset');
  await waitStatus(p.page, ['ready']);
  await setSpeed(p.page, '100');
  await p.page.click(tid('play'));
  await p.page.waitForFunction((sel) => Number(document.querySelector(sel)?.textContent) > 5, tid('sim-time'), {
    timeout: 30000,
  });
  // Both runs' latency series appear once each has finished requests.
  await p.page.waitForFunction(
    (sel) =>
      /TTFT p99 A/.test(document.querySelector(sel)?.textContent ?? '') &&
      /TTFT p99 B/.test(document.querySelector(sel)?.textContent ?? ''),
    `${tid('chart-latency')} .u-legend`,
    { timeout: 20000 },
  );
  await p.page.waitForFunction((sel) => document.querySelectorAll(sel).length >= 2, `${tid('summary-cards')} .card-rows .slot`);
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

test('A/B: the knob diff of B against A, named runs, swap; the real-run card compares like with like', async (browser) => {
  const p = await openPage(browser, '?preset=prefix-cache');
  await waitStatus(p.page, ['ready']);
  await p.page.waitForFunction(
    (sel) => /enable_prefix_caching/.test(document.querySelector(sel)?.textContent ?? ''),
    tid('ab-diff'),
  );
  const before = await p.page.textContent(tid('ab-diff'));
  check(/true → false/.test(before ?? ''), `diff before the swap: ${before}`);
  const tabB = await p.page.textContent(tid('edit-b'));
  check(/^B · /.test(tabB ?? ''), `B's tab is not named: ${tabB}`);
  await p.page.click(tid('swap'));
  await p.page.waitForFunction((sel) => /false → true/.test(document.querySelector(sel)?.textContent ?? ''), tid('ab-diff'));
  await waitStatus(p.page, ['ready']);
  await p.page.screenshot({ path: path.join(artifacts, 'ab-diff.png') });
  await p.done();
  const q = await openPage(browser, '?preset=h100-llama2-7b-general');
  const card = await q.page.textContent(tid('measured'));
  check(/TPOT mean/.test(card ?? '') && !/ITL/.test(card ?? ''), `real-run card: ${card}`);
  await q.done();
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
  check(
    rows === s.requests.finished + (s.requests.aborted ?? 0),
    `requests.csv has ${rows} rows for ${s.requests.finished} finished requests`,
  );
  const prom = await grab('export-metrics');
  check(prom.name.endsWith('.prom') && /^# (HELP|TYPE) vllm:/m.test(prom.text), 'metrics file is not vLLM Prometheus text');
  check(await p.page.isVisible(tid('chart-cdf')), 'latency CDF not shown at the end');
  await p.done();
});

test('exports: timeseries.json, every .prom in one zip, a chart PNG, requests.csv with ttft_ms/e2e_ms', async (browser) => {
  const p = await openPage(browser, '?preset=router-comparison');
  await waitStatus(p.page, ['ready']);
  await p.page.click(tid('compare')); // one run: four instances
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
  const trace = await grab('export-trace');
  const events = JSON.parse(trace.bytes.toString('utf8')).traceEvents;
  const processes = events.filter((e) => e.name === 'process_name');
  check(
    trace.name.endsWith('-trace.json') && processes.length === 4 && events.some((e) => e.cat === 'request'),
    `${trace.name}: ${events.length} events, ${processes.length} processes`,
  );
  // Engine steps per instance: every step of the run, with its batch size, tokens and time.
  const steps = events.filter((e) => e.cat === 'step');
  const summary = JSON.parse((await grab('export-summary')).bytes.toString('utf8'));
  check(steps.length === summary.sim.steps, `${steps.length} step slices for ${summary.sim.steps} engine steps`);
  check(new Set(steps.map((e) => e.pid)).size === 4, 'not every instance has engine steps');
  const bad = steps.find((e) => !(e.dur > 0 && e.args.batch_size > 0 && e.args.tokens > 0 && e.args.step_us === e.dur));
  check(!bad, `a step slice without its batch: ${JSON.stringify(bad)}`);
  await p.done();
});

test('a pasted config.json: errors named, else a model the scenario runs, priced as an estimate', async (browser) => {
  const p = await openPage(browser, `?s=${encodeScenario(MINIMAL)}`);
  await waitValid(p.page);
  await p.page.click(`${tid('hf-details')} summary`);
  const importing = async (config) => {
    await p.page.fill(tid('hf-config'), config);
    await p.page.click(tid('hf-import'));
    await p.page.waitForFunction((sel) => document.querySelector(sel)?.dataset.state, tid('hf-result'));
  };
  // What the importer cannot read: the errors, each with its pointer into the config.
  await importing('{"architectures": ["LlamaForCausalLM"]}');
  await p.page.waitForSelector(`${tid('hf-errors')} li`);
  const errors = await p.page.$$eval(`${tid('hf-errors')} li code`, (els) => els.map((e) => e.textContent));
  check(
    errors.some((c) => /^\/\w+/.test(c ?? '')),
    `import errors without pointers: ${errors}`,
  );
  check(await p.page.isHidden(tid('hf-use')), '"Use in scenario" offered for a config with errors');
  await p.page.evaluate((sel) => delete document.querySelector(sel).dataset.state, tid('hf-result'));
  await importing('{"hidden_size": ');
  check(/not valid JSON/.test((await p.page.textContent(tid('hf-errors'))) ?? ''), 'a broken config is not called invalid JSON');
  // A real config.json imports; the scenario runs it and its prices say they are estimates.
  await p.page.evaluate((sel) => delete document.querySelector(sel).dataset.state, tid('hf-result'));
  await p.page.fill(tid('hf-id'), 'acme/llama-copy');
  await importing(readFileSync(path.join(repoDir, 'tests/catalog/fixtures/hf-configs/Llama-2-7b-hf.json'), 'utf8'));
  const entry = JSON.parse((await p.page.textContent(tid('hf-entry'))) ?? '{}');
  check(entry.id === 'acme/llama-copy' && entry.num_hidden_layers === 32, `imported entry: ${JSON.stringify(entry)}`);
  check(
    /estimates/.test((await p.page.textContent(tid('hf-estimate'))) ?? ''),
    'the import does not say its prices are estimates',
  );
  await p.page.click(tid('hf-use'));
  await p.page.waitForFunction((sel) => document.querySelector(sel)?.value === 'acme/llama-copy', tid('knob-model'));
  const text = await p.page.textContent(`${tid('scenario-editor')} .cm-content`);
  check(/"catalog"/.test(text ?? '') && /"id": "acme\/llama-copy"/.test(text ?? ''), 'the entry is not inline in the scenario');
  await setSpeed(p.page, '100');
  await p.page.click(tid('play')); // remembered if the new run is still loading
  await p.page.waitForFunction(
    (sel) => /acme\/llama-copy on H100-SXM-80GB/.test(document.querySelector(sel)?.textContent ?? ''),
    tid('estimate-note'),
    { timeout: 30000 },
  );
  await waitValid(p.page);
  await p.page.screenshot({ path: path.join(artifacts, 'model-import.png') });
  await p.done();
});

test('embed mode shows controls and three charts, and plays', async (browser) => {
  const p = await openPage(browser, '?embed=1&preset=preemption', { width: 900, height: 640 });
  check(await p.page.isHidden('.sidebar'), 'sidebar visible in embed mode');
  for (const c of ['chart-kv', 'chart-queue', 'chart-latency'])
    check(await p.page.isVisible(tid(c)), `${c} hidden in embed mode`);
  check(await p.page.isHidden(tid('chart-throughput')), 'throughput chart shown in embed mode');
  await waitStatus(p.page, ['ready']);
  await p.page.focus('body');
  await p.page.keyboard.press('Space'); // keyboard play
  await p.page.waitForFunction((sel) => Number(document.querySelector(sel)?.textContent) > 0.5, tid('sim-time'), {
    timeout: 20000,
  });
  const href = await p.page.getAttribute('#open-full', 'href');
  check(href && !href.includes('embed=1') && href.includes('preset=preemption'), `open-in-playground link: ${href}`);
  await p.page.screenshot({ path: path.join(artifacts, 'embed.png') });
  await p.done();
});

// What the demo pages' "What to look for" lists cite, and where the embed shows it.
const CITED = {
  'KV cache usage': { chart: 'chart-kv' },
  'Running and waiting': { chart: 'chart-queue' },
  TTFT: { chart: 'chart-latency', card: 'TTFT p50' },
  ITL: { chart: 'chart-latency', card: 'ITL p50' },
  'End-to-end latency': { card: 'E2E p50' },
  Throughput: { card: 'Output throughput' },
  Preemptions: { card: 'Preemptions' },
  'Prefix cache hits': { card: 'Prefix cache hits' },
};

test('every docs demo page embeds a live playground that shows what its text cites', async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  const demos = {
    'prefix-caching': 'Prefix caching',
    'chunked-prefill': 'Chunked prefill',
    preemption: 'Preemption',
    routing: 'Routing',
  };
  for (const [file, title] of Object.entries(demos)) {
    const r = await page.goto(`${base}docs/demos/${file}.html`);
    check(r?.ok(), `docs page ${file} answered ${r?.status()}`);
    check(new RegExp(title).test((await page.textContent('h1')) ?? ''), `${file}: title missing`);
    if (file === 'prefix-caching') {
      const sidebar = await page.textContent('.VPSidebar');
      check(/Architecture/.test(sidebar ?? ''), 'the sidebar does not list the architecture page');
      for (const t of ['Chunked prefill and the token budget', 'Preemption under KV pressure', 'Routing across instances']) {
        check(sidebar?.includes(t), `the sidebar does not list “${t}”`);
      }
    }
    const cited = await page.$$eval('h2:has-text("What to look for") + ul > li > strong:first-child', (els) =>
      els.map((e) => e.textContent.trim()),
    );
    check(cited.length > 0, `${file}: no "What to look for" list`);
    const iframe = await page.waitForSelector(tid('docs-embed'));
    await iframe.scrollIntoViewIfNeeded();
    const preset = new URL(await iframe.getAttribute('src'), base).searchParams.get('preset');
    const frame = await iframe.contentFrame();
    await frame.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
    check(
      (await frame.getAttribute(tid(`preset-${preset}`), 'aria-pressed')) === 'true',
      `${file}: embed did not load ${preset}`,
    );
    await frame.click(tid('play'));
    await frame.waitForFunction((sel) => Number(document.querySelector(sel)?.textContent) > 0.5, tid('sim-time'), {
      timeout: 20000,
    });
    await frame.waitForSelector(`${tid('summary-cards')}[data-ready="1"]`, { timeout: 20000 });
    const labels = await frame.$$eval(`${tid('summary-cards')} .card-label`, (els) => els.map((e) => e.textContent));
    for (const term of cited) {
      const where = CITED[term];
      check(where, `${file} cites “${term}”, which this test does not know where to find`);
      if (where.chart)
        check(await frame.isVisible(tid(where.chart)), `${file} cites “${term}” but the embed hides ${where.chart}`);
      if (where.card) check(labels.includes(where.card), `${file} cites “${term}” but the embed has no “${where.card}” card`);
      if (where.chart) {
        const h =
          (
            await frame
              .locator(`${tid(where.chart)} canvas`)
              .first()
              .boundingBox()
          )?.height ?? 0;
        check(h >= 100, `${file}: ${where.chart} is only ${h} px tall`);
      }
    }
    await frame.click(tid('pause'));
    if (file === 'prefix-caching') await page.screenshot({ path: path.join(artifacts, 'docs-demo.png'), fullPage: false });
  }
  await context.close();
  check(errors.length === 0, `errors on the docs pages:\n${errors.join('\n')}`);
});

test('screenshot of the playground (1280×800)', async (browser) => {
  const p = await openPage(browser, '?preset=router-comparison', { width: 1440, height: 900 });
  await waitStatus(p.page, ['ready']);
  await setSpeed(p.page, '30');
  await p.page.click(tid('play'));
  await p.page.waitForFunction((sel) => Number(document.querySelector(sel)?.textContent) > 40, tid('sim-time'), {
    timeout: 60000,
  });
  await p.page.click(tid('pause'));
  await waitIdle(p.page);
  await framesDrawn(p.page, 3); // the last answer drawn
  const file = path.join(artifacts, 'playground.png');
  await p.page.screenshot({ path: file });
  if (process.env.BLIS_UPDATE_SCREENSHOT === '1') {
    mkdirSync(path.join(repoDir, 'docs/images'), { recursive: true });
    copyFileSync(file, path.join(repoDir, 'docs/images/playground.png'));
  }
  check(existsSync(file), 'no screenshot');
  await p.done();
});

// ---- the sweep view (web/src/sweep) ----

// Frame gaps (ms) on the page from now until stopFrames(): the UI must stay responsive
// while the sweep workers run. Long tasks (main-thread work of 50 ms or more) are recorded
// too: a long frame with no long task is the page waiting for a core, not the page's work.
const startFrames = (page) =>
  page.evaluate(() => {
    const w = window;
    w.__sweepFrames = [];
    w.__sweepLong = [];
    w.__sweepStop = false;
    w.__sweepObs = new PerformanceObserver((l) => {
      for (const e of l.getEntries()) w.__sweepLong.push(e.duration);
    });
    try {
      w.__sweepObs.observe({ type: 'longtask' });
    } catch {
      /* no longtask timing */
    }
    let last = performance.now();
    const f = (t) => {
      w.__sweepFrames.push(t - last);
      last = t;
      if (!w.__sweepStop) requestAnimationFrame(f);
    };
    requestAnimationFrame(f);
  });
const stopFrames = (page) =>
  page.evaluate(() => {
    const w = window;
    w.__sweepStop = true;
    w.__sweepObs.disconnect();
    const s = [...w.__sweepFrames].sort((a, b) => a - b);
    const long = w.__sweepLong;
    return {
      n: s.length,
      p95: s[Math.floor(0.95 * (s.length - 1))] ?? 0,
      max: s[s.length - 1] ?? 0,
      over100: s.filter((x) => x > 100).length,
      longTasks: long.length,
      longestTask: long.length ? Math.max(...long) : 0,
    };
  });
const nativeCli = process.env.BLIS_NATIVE_CLI ?? path.join(repoDir, 'build/native/cli/blis');

// Runs `blis sweep` on a document; the digests of points.jsonl by index (undefined without
// the native build).
function nativeDigests(docText) {
  if (!existsSync(nativeCli)) return undefined;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'blis-browser-sweep-'));
  writeFileSync(path.join(dir, 'sweep.json'), docText);
  execFileSync(nativeCli, ['sweep', path.join(dir, 'sweep.json'), '--out', path.join(dir, 'out'), '--quiet'], {
    stdio: 'ignore',
  });
  return readFileSync(path.join(dir, 'out/points.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l).digest);
}

async function tableRowsOf(page) {
  return page.$$eval(`${tid('sweep-table')} tbody tr`, (trs) =>
    trs.map((tr) => {
      const cells = [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '');
      return {
        index: Number(tr.getAttribute('data-index')),
        rank: cells[0],
        pareto: cells[cells.length - 4],
        verdict: cells[cells.length - 3],
        digest: cells[cells.length - 2],
      };
    }),
  );
}

test('sweep: a 2x2 grid built from the scenario runs in the workers, ranks, and matches native', async (browser) => {
  const p = await openPage(browser, `?s=${encodeScenario(MINIMAL)}`);
  await waitValid(p.page);
  await p.page.click(tid('sweep-toggle'));
  await p.page.waitForSelector(`${tid('sweep-view')}:not([hidden])`);
  check(await p.page.isHidden(tid('summary-cards')), 'the playground is still shown under the sweep view');
  await p.page.fill(tid('sweep-axis0-pointer'), '/pools/0/instances');
  await p.page.fill(tid('sweep-axis0-values'), '1, 2');
  await p.page.fill(tid('sweep-axis1-pointer'), '/workload/clients/0/load/rate');
  await p.page.fill(tid('sweep-axis1-values'), '2, 6');
  await p.page.click(tid('sweep-build'));
  await p.page.waitForFunction(
    (sel) => /4 points, ready/.test(document.querySelector(sel)?.textContent ?? ''),
    tid('sweep-status'),
    { timeout: 20000 },
  );
  const docText = await p.page.inputValue(tid('sweep-editor'));
  check(JSON.parse(docText).base.horizon.duration_s === 10, 'the sweep base is not the scenario being edited');
  await p.page.waitForFunction(() => /#sweep=/.test(location.hash), null, { timeout: 5000 });
  await startFrames(p.page);
  const t0 = Date.now();
  await p.page.click(tid('sweep-run'));
  await p.page.waitForSelector(`${tid('sweep-view')}[data-done="4"]`, { timeout: 60000 });
  const secs = (Date.now() - t0) / 1000;
  const frames = await stopFrames(p.page);
  notes.push(
    `2x2 sweep in the browser: ${secs.toFixed(1)} s, frames max ${frames.max.toFixed(1)} ms (p95 ${frames.p95.toFixed(1)}) over ${frames.n}`,
  );
  const rows = await tableRowsOf(p.page);
  check(rows.length === 4, `table has ${rows.length} rows`);
  check(rows.map((r) => r.rank).join(',') === '1,2,3,4', `ranks ${rows.map((r) => r.rank)}`);
  check(
    rows.every((r) => /^[0-9a-f]{16}$/.test(r.digest)),
    `digests ${rows.map((r) => r.digest)}`,
  );
  check(
    rows.some((r) => r.pareto === 'yes'),
    'no point on the Pareto front',
  );
  check(
    rows.every((r) => /^(yes|no: .+)$/.test(r.verdict)),
    `verdicts ${rows.map((r) => r.verdict)}`,
  );
  check((await p.page.getAttribute(tid('sweep-pareto'), 'data-points')) !== '0', 'the Pareto plot is empty');
  check((await p.page.$$(`${tid('sweep-heat')} td[data-index]`)).length === 4, 'the heat map lacks cells');
  const native = nativeDigests(docText);
  if (native) {
    const byIndex = [...rows].sort((a, b) => a.index - b.index).map((r) => r.digest);
    check(JSON.stringify(byIndex) === JSON.stringify(native), `browser digests ${byIndex} != native ${native}`);
  }
  await p.page.screenshot({ path: path.join(artifacts, 'sweep.png') });
  // The sweep lives in the URL: a copied link reopens the view with the same document.
  const link = new URL(p.page.url());
  const again = await openPage(browser, `${link.search}${link.hash}`);
  await again.page.waitForSelector(`${tid('sweep-view')}:not([hidden])`, { timeout: 10000 });
  check(
    JSON.stringify(JSON.parse(await again.page.inputValue(tid('sweep-editor')))) === JSON.stringify(JSON.parse(docText)),
    'the link does not carry the sweep document',
  );
  await again.done();
  // Open the best point as the playground's scenario.
  const best = rows[0];
  await p.page.click(tid(`sweep-open-${best.index}`));
  await p.page.waitForSelector(tid('sweep-view'), { state: 'hidden' });
  await waitValid(p.page);
  const opened = JSON.parse(await editorText(p.page));
  const want = JSON.parse(docText).axes;
  const point = { instances: want[0].values[best.index >> 1], rate: want[1].values[best.index & 1] };
  check(
    opened.pools[0].instances === point.instances && opened.workload.clients[0].load.rate === point.rate,
    `opened ${JSON.stringify(opened)}, expected point ${best.index} ${JSON.stringify(point)}`,
  );
  await p.done();
});

test('sweep: errors show at their JSON pointer; a run can be cancelled', async (browser) => {
  const p = await openPage(browser, `?s=${encodeScenario(MINIMAL)}`);
  await waitValid(p.page);
  await p.page.click(tid('sweep-toggle'));
  const doc = {
    schema: 'blis/sweep/v1',
    base: MINIMAL,
    axes: [{ pointer: '/workload/clients/0/load/rate', range: { from: 8, to: 2, step: 1 } }],
    objective: 'min_cost',
  };
  await p.page.fill(tid('sweep-editor'), JSON.stringify(doc, null, 2));
  await p.page.waitForSelector(`${tid('sweep-errors')} li[data-pointer="/axes/0/range/to"]`, { timeout: 20000 });
  check(await p.page.isDisabled(tid('sweep-run')), 'run is enabled on a document with errors');
  doc.axes[0].range = { from: 2, to: 40, step: 2 };
  doc.base = { ...MINIMAL, horizon: { duration_s: 120 } };
  await p.page.fill(tid('sweep-editor'), JSON.stringify(doc, null, 2));
  await p.page.waitForFunction(
    (sel) => /20 points, ready/.test(document.querySelector(sel)?.textContent ?? ''),
    tid('sweep-status'),
    { timeout: 20000 },
  );
  await p.page.click(tid('sweep-run'));
  await p.page.waitForFunction(
    (sel) => /running [1-9]/.test(document.querySelector(sel)?.textContent ?? ''),
    tid('sweep-status'),
    { timeout: 60000 },
  );
  await p.page.click(tid('sweep-cancel'));
  await p.page.waitForFunction(
    (sel) => /cancelled after \d+ of 20/.test(document.querySelector(sel)?.textContent ?? ''),
    tid('sweep-status'),
    { timeout: 10000 },
  );
  check(!(await p.page.isDisabled(tid('sweep-run'))), 'run stays disabled after cancel');
  await p.done();
});

test('sweep form: a linked key moves with its axis (instances with rate)', async (browser) => {
  const p = await openPage(browser, `?s=${encodeScenario(MINIMAL)}`);
  await waitValid(p.page);
  await p.page.click(tid('sweep-toggle'));
  await p.page.fill(tid('sweep-axis0-pointer'), '/pools/0/instances');
  await p.page.fill(tid('sweep-axis0-values'), '1, 2');
  await p.page.click(tid('sweep-axis0-link'));
  await p.page.fill(tid('sweep-axis0-linked0-pointer'), '/workload/clients/0/load/rate');
  await p.page.fill(tid('sweep-axis0-linked0-values'), '2, 4');
  await p.page.fill(tid('sweep-axis1-pointer'), '');
  await p.page.click(tid('sweep-build'));
  await p.page.waitForFunction(
    (sel) => /2 points, ready/.test(document.querySelector(sel)?.textContent ?? ''),
    tid('sweep-status'),
    { timeout: 20000 },
  );
  const doc = JSON.parse(await p.page.inputValue(tid('sweep-editor')));
  check(doc.axes.length === 1 && doc.axes[0].linked?.length === 2, `axes ${JSON.stringify(doc.axes)}`);
  check(doc.axes[0].name === 'instances + rate', `axis name ${doc.axes[0].name}`);
  // A linked key with too few values: the decoder's error at its pointer.
  await p.page.fill(tid('sweep-axis0-linked0-values'), '2');
  await p.page.click(tid('sweep-build'));
  await p.page.waitForSelector(`${tid('sweep-errors')} li[data-pointer="/axes/0/linked/1"]`, { timeout: 20000 });
  await p.page.fill(tid('sweep-axis0-linked0-values'), '2, 4');
  await p.page.click(tid('sweep-build'));
  await p.page.waitForFunction(
    (sel) => /2 points, ready/.test(document.querySelector(sel)?.textContent ?? ''),
    tid('sweep-status'),
    { timeout: 20000 },
  );
  await p.page.click(tid('sweep-run'));
  await p.page.waitForSelector(`${tid('sweep-view')}[data-done="2"]`, { timeout: 60000 });
  await p.page.click(tid('sweep-open-1'));
  await p.page.waitForSelector(tid('sweep-view'), { state: 'hidden' });
  await waitValid(p.page);
  const opened = JSON.parse(await editorText(p.page));
  check(
    opened.pools[0].instances === 2 && opened.workload.clients[0].load.rate === 4,
    `point 1 opened as ${opened.pools[0].instances} instances at ${opened.workload.clients[0].load.rate} req/s`,
  );
  await p.done();
});

test('capacity search on the scenario: probes as they finish, the answer, open the found point; cancel', async (browser) => {
  const p = await openPage(browser, `?s=${encodeScenario(MINIMAL)}`);
  await waitValid(p.page);
  check(await p.page.isHidden(tid('sweep-view')), 'the sweep view is open');
  await p.page.click(`${tid('capacity')} summary`);
  await p.page.selectOption(tid('capacity-vary'), 'instances');
  await p.page.fill(tid('capacity-slo'), 'ttft_ms.p99<=2000');
  check(await p.page.isDisabled(tid('capacity-cancel')), 'cancel is enabled before a search');
  await p.page.click(tid('capacity-run'));
  // Each probe is listed as the worker finishes it, before the answer.
  await p.page.waitForSelector(`${tid('capacity-probes')} li`, { timeout: 60000 });
  await p.page.waitForSelector(`${tid('capacity')}[data-done]`, { timeout: 60000 });
  const answer = await p.page.textContent(tid('capacity-answer'));
  const m = /^fewest instances within the SLO: (\d+)/.exec(answer ?? '');
  check(m, `capacity answer: ${answer}`);
  const probes = await p.page.$$eval(`${tid('capacity-probes')} li`, (lis) => lis.map((li) => li.textContent));
  check(probes.length === Number(await p.page.getAttribute(tid('capacity'), 'data-done')), `probes ${probes}`);
  check(/^done: \d+ probes?$/.test((await p.page.textContent(tid('capacity-status'))) ?? ''), 'no done status');
  await p.page.locator(tid('capacity')).screenshot({ path: path.join(artifacts, 'capacity.png') });
  await p.page.click(tid('capacity-open'));
  await p.page.waitForFunction(
    (n) => {
      const t = document.querySelector('[data-testid="scenario-editor"] .cm-content')?.textContent ?? '';
      return new RegExp(`"instances":\\s*${n}\\b`).test(t);
    },
    m[1],
    { timeout: 10000 },
  );
  await waitValid(p.page);
  check(JSON.parse(await editorText(p.page)).pools[0].instances === Number(m[1]), 'the found point is not the scenario');
  // Cancel: a long rate search stops where it is. Cancel is clicked as soon as the search has
  // started (on a quiet machine the whole search can end before a first probe is awaited).
  await p.page.selectOption(tid('capacity-vary'), 'rate');
  await p.page.fill(tid('capacity-slo'), 'ttft_ms.p99<=100000');
  await p.page.click(tid('capacity-run'));
  await p.page.click(tid('capacity-cancel'), { timeout: 10000 });
  await p.page.waitForFunction(
    (sel) => /^cancelled after \d+ probes?$/.test(document.querySelector(sel)?.textContent ?? ''),
    tid('capacity-status'),
    { timeout: 10000 },
  );
  check(!(await p.page.isDisabled(tid('capacity-run'))), 'find stays disabled after cancel');
  await p.done();
});

// The CPU time (ms) of the longest task on the page's main thread in a Chromium trace (the
// "toplevel" category's RunTask events carry their thread time as tdur): the page's own work,
// apart from the time the thread waited for a core.
function longestMainTaskCpuMs(tracePath) {
  const events = JSON.parse(readFileSync(tracePath, 'utf8')).traceEvents ?? [];
  const main = new Set(
    events
      .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      .map((e) => `${e.pid}.${e.tid}`),
  );
  let longest = 0;
  for (const e of events) {
    if (e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' && main.has(`${e.pid}.${e.tid}`)) {
      longest = Math.max(longest, (e.tdur ?? 0) / 1000);
    }
  }
  return longest;
}

test('sweep: the 3x4 default grid in the browser (time and frames)', async (browser) => {
  const grid = JSON.parse(readFileSync(path.join(repoDir, 'examples/sweeps/default-grid.json'), 'utf8'));
  grid.base = JSON.parse(readFileSync(path.join(repoDir, 'examples/default.json'), 'utf8'));
  const p = await openPage(browser);
  await p.page.click(tid('sweep-toggle'));
  await p.page.fill(tid('sweep-editor'), JSON.stringify(grid, null, 2));
  await p.page.waitForFunction(
    (sel) => /12 points, ready/.test(document.querySelector(sel)?.textContent ?? ''),
    tid('sweep-status'),
    { timeout: 20000 },
  );
  const cores = await p.page.evaluate(() => navigator.hardwareConcurrency);
  const tracePath = path.join(artifacts, 'sweep-3x4-trace.json');
  await browser.startTracing(p.page, { path: tracePath, categories: ['toplevel'] });
  await startFrames(p.page);
  const load0 = os.loadavg()[0];
  const t0 = Date.now();
  await p.page.click(tid('sweep-run'));
  await p.page.waitForFunction(
    (sel) => /\((\d+) workers?\)/.test(document.querySelector(sel)?.textContent ?? ''),
    tid('sweep-status'),
    { timeout: 60000 },
  );
  const workers = Number(/\((\d+) workers?\)/.exec(await p.page.textContent(tid('sweep-status')))[1]);
  await p.page.waitForSelector(`${tid('sweep-view')}[data-done="12"]`, { timeout: 180000 });
  const secs = (Date.now() - t0) / 1000;
  const frames = await stopFrames(p.page);
  await browser.stopTracing();
  const load = Math.max(load0, os.loadavg()[0]);
  const taskCpu = longestMainTaskCpuMs(tracePath);
  notes.push(
    `3x4 default grid in the browser: ${secs.toFixed(1)} s with ${workers} workers on ${cores} cores, frames max ${frames.max.toFixed(1)} ms, ` +
      `p95 ${frames.p95.toFixed(1)} ms, ${frames.over100} over 100 ms, of ${frames.n}; longest main-thread task ` +
      `${taskCpu.toFixed(1)} ms of CPU (${frames.longTasks} long tasks, longest ${frames.longestTask.toFixed(0)} ms of wall time); ` +
      `load average ${load.toFixed(1)} on ${os.cpus().length} CPUs`,
  );
  check((await tableRowsOf(p.page)).length === 12, 'table lacks rows');
  check(workers === Math.min(8, cores), `${workers} workers on ${cores} cores (one per core expected)`);
  // The page's own work never holds a frame: no main-thread task uses 50 ms of CPU.
  check(taskCpu > 0 && taskCpu < 50, `a main-thread task used ${taskCpu.toFixed(1)} ms of CPU while sweeping`);
  // Frame gaps also include waiting for a core: on a machine other work oversubscribes
  // (load average above its CPUs) they say more about that work than about the page.
  if (load <= os.cpus().length) {
    check(frames.p95 < 50, `frame time p95 ${frames.p95.toFixed(1)} ms ≥ 50 ms while sweeping`);
    check(frames.max <= 100, `a frame took ${frames.max.toFixed(1)} ms while sweeping`);
  }
  const native = nativeDigests(JSON.stringify(grid));
  if (native) {
    const rows = (await tableRowsOf(p.page)).sort((a, b) => a.index - b.index).map((r) => r.digest);
    check(JSON.stringify(rows) === JSON.stringify(native), `browser digests ${rows} != native ${native}`);
  }
  await p.done();
});

// ---------------------------------------------------------------------------------------

const server = await startServer();
let passed = 0,
  failed = 0;
const browser = await chromium.launch({
  executablePath: process.env.BLIS_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
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
      console.log(
        `FAIL ${t.name}\n     ${String(e?.stack ?? e)
          .split('\n')
          .join('\n     ')}`,
      );
    }
  }
} finally {
  await browser.close();
  try {
    process.kill(-server.pid);
  } catch {
    /* already gone */
  }
}
for (const n of notes) console.log(`note ${n}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
