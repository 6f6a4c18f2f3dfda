// Browser suite: the playground's core loop (load, presets, play, step, the editor and the
// form, scale-out knobs, windows, verdict, layout, dark mode).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  test,
  check,
  notes,
  openPage,
  tid,
  encodeScenario,
  MINIMAL,
  simTime,
  simSteps,
  points,
  status,
  waitStatus,
  waitValid,
  framesDrawn,
  waitIdle,
  pauseIfPlaying,
  setSpeed,
  artifacts,
  base,
} from './harness.mjs';

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
  await p.page.waitForFunction(
    (sel) => document.querySelector(sel)?.closest('.knob')?.dataset.source === 'document',
    tid('knob-enable_prefix_caching'),
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
  // dp 2 on a dense model: accepted (independent DP ranks, as vLLM runs them), no error shown.
  await p.page.fill(tid('knob-dp'), '2');
  await p.page.waitForFunction(() =>
    /"dp": 2/.test(
      [...document.querySelectorAll('[data-testid="scenario-editor"] .cm-line')].map((l) => l.textContent).join('\n'),
    ),
  );
  await waitValid(p.page);
  check(await p.page.isHidden(tid('knob-error-dp')), 'dp 2 on a dense model shows an error');
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
    // Long outputs: ITL windows have samples while a request decodes, gaps between requests.
    workload: {
      clients: [
        {
          ...MINIMAL.workload.clients[0],
          load: { rate: 0.2, arrival: 'constant' },
          output_tokens: { dist: 'constant', value: 300 },
        },
      ],
    },
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
  const zeros = Number(await p.page.getAttribute(tid('chart-latency'), 'data-zeros'));
  check(zeros === 0, `the latency chart drew ${zeros} windows without samples as 0`);
  await p.page.locator(tid('chart-latency')).screenshot({ path: path.join(artifacts, 'chart-gaps.png') });
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
  await pauseIfPlaying(q.page); // at max speed the run may have finished meanwhile
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
  // Both at once, for docs/screenshots: dark mode at 375 px.
  await page.setViewportSize({ width: 375, height: 740 });
  await page.waitForFunction(() => document.documentElement.scrollWidth <= 375);
  await page.screenshot({ path: path.join(artifacts, 'mobile-dark.png') });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${base}?theme=light`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  check((await bg(page)) === 'rgb(246, 247, 249)', 'theme=light did not override the dark system scheme');
  await context.close();
});
