// Browser suite: the sweep view and the capacity search (web/src/sweep).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  test,
  check,
  notes,
  openPage,
  tid,
  encodeScenario,
  MINIMAL,
  editorText,
  waitValid,
  artifacts,
  repoDir,
} from './harness.mjs';

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
  // The search either ends cancelled or, if it outran the click, done: then it is tried again.
  let status = '';
  for (let attempt = 0; attempt < 3 && !status.startsWith('cancelled'); attempt++) {
    await p.page.click(tid('capacity-run'));
    await p.page.click(tid('capacity-cancel'), { timeout: 10000 }).catch(() => undefined);
    await p.page.waitForFunction(
      (sel) => /^(cancelled after|done:) \d+ probes?$/.test(document.querySelector(sel)?.textContent ?? ''),
      tid('capacity-status'),
      { timeout: 30000 },
    );
    status = (await p.page.textContent(tid('capacity-status'))) ?? '';
  }
  check(/^cancelled after \d+ probes?$/.test(status), `cancel did not stop the search: status "${status}"`);
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
  const grid = JSON.parse(readFileSync(path.join(repoDir, 'examples/default-grid.sweep.json'), 'utf8'));
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
