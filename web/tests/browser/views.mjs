// Browser suite: what the playground shows and exports (mechanism view, Grafana panels,
// instances, URL state, A/B, exports, model import, embeds, docs demos, the screenshot).
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import {
  test,
  check,
  openPage,
  tid,
  encodeScenario,
  MINIMAL,
  waitStatus,
  waitValid,
  framesDrawn,
  waitIdle,
  pauseIfPlaying,
  setSpeed,
  artifacts,
  repoDir,
  base,
} from './harness.mjs';

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
  await p.page.locator('#charts').screenshot({ path: path.join(artifacts, 'grafana-panels.png') });
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

test('link sharing: the pp-pd-contention preset shows its KV pulls against their time alone and the passes slowed', async (browser) => {
  const p = await openPage(browser, '?preset=pp-pd-contention');
  await waitStatus(p.page, ['ready']);
  await setSpeed(p.page, 'Infinity');
  await p.page.click(tid('play'));
  await waitStatus(p.page, ['done'], 120000);
  await p.page.waitForFunction(
    (sel) => /passes slowed/.test(document.querySelector(sel)?.textContent ?? ''),
    tid('card-network'),
  );
  const card = await p.page.textContent(tid('card-network'));
  check(/KV pull time\s*\d/.test(card ?? '') && /alone, \d+ pulls/.test(card ?? ''), `link-sharing card: ${card}`);
  await p.page.locator(tid('card-network')).screenshot({ path: path.join(artifacts, 'link-sharing-card.png') });
  await p.done();
});

// Clicks the export button `id`, saves the download into the artifacts folder and returns
// its suggested name and bytes.
async function download(page, id) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(tid(id))]);
  const file = path.join(artifacts, dl.suggestedFilename());
  await dl.saveAs(file);
  return { name: dl.suggestedFilename(), bytes: readFileSync(file) };
}

test('exports download summary.json, requests.csv and Prometheus text', async (browser) => {
  const p = await openPage(browser);
  await waitStatus(p.page, ['ready']);
  await setSpeed(p.page, 'Infinity');
  await p.page.click(tid('play'));
  await waitStatus(p.page, ['done'], 120000);
  const grab = async (id) => {
    const d = await download(p.page, id);
    return { name: d.name, text: d.bytes.toString('utf8') };
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
  const grab = (id) => download(p.page, id);
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
        // The chart lays out its canvas after the first results arrive, and replaces it when
        // its series change (a new plot): the height is read in the same evaluation that finds
        // it tall enough, so a canvas swapped between two queries cannot read as 0 px. A
        // loaded machine can take a while; on a timeout the height last seen is reported.
        const canvas = `${tid(where.chart)} canvas`;
        const tall = (sel) => {
          const hh = document.querySelector(sel)?.getBoundingClientRect().height ?? 0;
          return hh >= 100 ? hh : false;
        };
        const h = await frame
          .waitForFunction(tall, canvas, { timeout: 30000 })
          .then((handle) => handle.jsonValue())
          .catch(() => frame.evaluate((sel) => document.querySelector(sel)?.getBoundingClientRect().height ?? 0, canvas));
        check(h >= 100, `${file}: ${where.chart} is only ${h} px tall`);
      }
    }
    await pauseIfPlaying(frame); // a short demo may have finished by now
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
