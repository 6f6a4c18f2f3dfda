// The browser tier's harness: the site served by vite preview on 127.0.0.1, Debian's
// Chromium driven by playwright-core, the helpers every suite shares, and the runner.
// Suites register tests with test(); tests/browser.mjs imports the suites and calls runAll().
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import { chromium } from 'playwright-core';

export const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'); // web/tests
export const webDir = path.resolve(here, '..');
export const repoDir = path.resolve(webDir, '..');
export const artifacts = path.resolve(process.argv[2] ?? path.join(webDir, 'test-results'));
mkdirSync(artifacts, { recursive: true });
export const port = Number(process.env.BLIS_BROWSER_PORT ?? 4173);
export const base = `http://127.0.0.1:${port}/`;

const tests = [];
export const test = (name, fn) => tests.push({ name, fn });
export const notes = []; // figures worth reporting (frame times), printed before the tally

export function check(cond, message) {
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
export async function openPage(browser, query = '', viewport = { width: 1280, height: 800 }) {
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

export const tid = (id) => `[data-testid="${id}"]`;
export const encodeScenario = (doc) => deflateRawSync(Buffer.from(JSON.stringify(doc))).toString('base64url');
// The smallest valid scenario: every knob but the pool's ids and the load is a default (shared
// with the WASM module's unit tests).
export const MINIMAL = JSON.parse(readFileSync(path.join(here, 'fixtures/minimal-scenario.json'), 'utf8'));
export const editorText = async (page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('[data-testid="scenario-editor"] .cm-line')].map((l) => l.textContent).join('\n'),
  );
export const simTime = async (page) => Number(await page.textContent(tid('sim-time')));
export const simSteps = async (page) => Number(await page.textContent(tid('sim-steps')));
export const points = async (page, chart) => Number(await page.getAttribute(tid(chart), 'data-points'));
export const status = async (page) => (await page.textContent(tid('run-status')))?.trim();

export async function waitStatus(page, wanted, timeout = 20000) {
  await page.waitForFunction(
    ([sel, w]) => w.includes(document.querySelector(sel)?.textContent?.trim() ?? ''),
    [tid('run-status'), wanted],
    { timeout },
  );
}

export async function waitValid(page) {
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
export async function framesDrawn(page, n) {
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

// No request to the worker outstanding: Step is enabled again (it is disabled while a run is
// busy), or the run is done (Step stays disabled then; an answer still out cannot move it).
export async function waitIdle(page) {
  await page.waitForFunction(
    ([step, st]) => !document.querySelector(step)?.disabled || document.querySelector(st)?.textContent?.trim() === 'done',
    [tid('step'), tid('run-status')],
    { timeout: 10000 },
  );
}

// Presses Pause if the runs are still playing and says whether it did. At max speed a run can
// finish (and stop by itself, Pause disabled) between a test's last look and its click, so the
// look and the click are one step in the page. `target` is a page or a frame.
export async function pauseIfPlaying(target) {
  return target.evaluate((sel) => {
    const b = document.querySelector(sel);
    if (!b || b.disabled) return false;
    b.click();
    return true;
  }, tid('pause'));
}

export async function setSpeed(page, value) {
  await page.selectOption(tid('speed'), value);
}

// What a new user would trip over in the form: a knob disabled without saying what it waits
// for, or one left blank where unset means nothing its placeholder explains.
export async function formProblems(page) {
  return page.$$eval('[data-testid^="knob-"]:is(input, select)', (els) =>
    els.flatMap((e) => {
      const knob = e.closest('.knob');
      const value = e.type === 'checkbox' ? String(e.checked) : e.value;
      if (e.disabled && !knob?.dataset.needs) return [`${e.dataset.testid} is disabled and says not why`];
      if (!e.disabled && value === '' && !e.placeholder) return [`${e.dataset.testid} is blank`];
      return [];
    }),
  );
}

// Errors a user cannot see: a shown field message or the banner outside the viewport (the
// viewport is what the user looks at; an error below the fold is one they miss).
export async function offscreenErrors(page, selectors) {
  return page.evaluate((sels) => {
    const out = [];
    for (const sel of sels) {
      const e = document.querySelector(sel);
      if (!e || e.hidden || e.getClientRects().length === 0) {
        out.push(`${sel} is not shown`);
        continue;
      }
      const r = e.getBoundingClientRect();
      if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
        out.push(`${sel} is off-screen (${Math.round(r.top)}..${Math.round(r.bottom)} of ${innerHeight})`);
      }
    }
    return out;
  }, selectors);
}

// Charts that draw a window without samples as 0 (data-zeros: zeros in series whose every
// sample is > 0, chart_panel.ts), by test id.
export async function zeroForMissing(page) {
  return page.$$eval('[data-testid^="chart-"][data-zeros]', (els) =>
    els.filter((e) => Number(e.dataset.zeros) > 0).map((e) => `${e.dataset.testid}: ${e.dataset.zeros} zeros`),
  );
}

// ---------------------------------------------------------------------------------------

// Runs every registered test (or those whose name contains BLIS_BROWSER_ONLY) and prints
// `N passed, N failed` last; exits non-zero on any failure.
export async function runAll() {
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
      const started = performance.now();
      try {
        await t.fn(browser);
        passed++;
        // The time beside each test: which ones the tier's minutes go to.
        console.log(`ok   ${t.name} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
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
}
