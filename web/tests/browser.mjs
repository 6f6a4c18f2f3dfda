// Browser tier: serves the built site (vite preview) on 127.0.0.1, drives Debian's Chromium
// with playwright-core, and checks what a user sees. Screenshots go to the artifacts folder
// given as the first argument. The last line printed is `N passed, N failed`.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const webDir = path.resolve(here, '..');
const artifacts = path.resolve(process.argv[2] ?? path.join(webDir, 'test-results'));
mkdirSync(artifacts, { recursive: true });
const port = Number(process.env.BLIS_BROWSER_PORT ?? 4173);
const base = `http://127.0.0.1:${port}/`;

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

async function startServer() {
  const server = spawn('npx', ['vite', 'preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], {
    cwd: webDir, detached: true, stdio: 'ignore',
  });
  for (let i = 0; i < 100; i++) {
    try {
      const r = await fetch(base);
      if (r.ok) return server;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  process.kill(-server.pid);
  throw new Error(`vite preview did not answer on ${base}`);
}

async function openPage(browser) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  await page.goto(base);
  return { page, errors };
}

test('the page shows the module version computed in the worker', async (browser) => {
  const { page, errors } = await openPage(browser);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 15000 });
  const version = (await page.textContent('[data-testid="module-version"]'))?.trim();
  if (!/^\d+\.\d+\.\d+$/.test(version ?? '')) throw new Error(`unexpected version text: ${version}`);
  await page.screenshot({ path: path.join(artifacts, 'home.png'), fullPage: true });
  if (errors.length) throw new Error(errors.join('\n'));
  await page.close();
});

const server = await startServer();
let passed = 0, failed = 0;
const browser = await chromium.launch({
  executablePath: process.env.BLIS_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  for (const t of tests) {
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
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
