// The Embind Simulation API under node: load errors, advancing, stepping, series views,
// summary, exports, reset, misuse, and that the WASM digest equals the native one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBlisModule } from './load_module.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const blis = await loadBlisModule();
const smallPath = path.join(here, 'fixtures/small.json');
const small = readFileSync(smallPath, 'utf8');

function loaded(json = small) {
  const sim = new blis.Simulation();
  const d = sim.load(json);
  assert.deepEqual(d.filter((x) => x.severity === 'error'), [], 'the fixture scenario should be valid');
  return sim;
}

function runToEnd(sim, sliceUs = 500_000) {
  let guard = 0;
  while (!sim.done()) {
    sim.advance(sim.nowUs() + sliceUs, 100_000);
    assert.ok(++guard < 100_000, 'run does not end');
  }
}

test('load reports errors with JSON pointers, the same as validateScenario', () => {
  const bad = JSON.parse(small);
  bad.pools[0].engine.args.max_num_seqs = -3;
  bad.surprise = 1;
  const text = JSON.stringify(bad);
  const sim = new blis.Simulation();
  const d = sim.load(text);
  assert.ok(d.length >= 2, JSON.stringify(d));
  for (const x of d) {
    assert.equal(typeof x.pointer, 'string');
    assert.equal(typeof x.message, 'string');
    assert.ok(x.severity === 'error' || x.severity === 'warning');
  }
  assert.ok(d.some((x) => x.pointer === '/pools/0/engine/args/max_num_seqs' && x.severity === 'error'), JSON.stringify(d));
  assert.ok(d.some((x) => x.pointer === '/surprise' && x.severity === 'error'), JSON.stringify(d));
  assert.deepEqual(blis.validateScenario(text), d);
  // Not loaded: using it is an Error, not an abort.
  assert.throws(() => sim.advance(1000, 10), /no scenario is loaded/);
  sim.delete();
});

test('malformed JSON is a diagnostic at the root, not a crash', () => {
  const sim = new blis.Simulation();
  const d = sim.load('{"schema": ');
  assert.equal(d.length >= 1, true);
  assert.equal(d[0].severity, 'error');
  assert.equal(d[0].pointer, '');
  sim.delete();
});

test('advance moves simulated time, bounded by maxEvents', () => {
  const sim = loaded();
  assert.equal(sim.nowUs(), 0);
  assert.equal(sim.done(), false);
  const n = sim.advance(10_000_000, 5);
  assert.ok(n <= 5 && n >= 1, `processed ${n} events with maxEvents 5`);
  assert.equal(sim.events(), n);
  sim.advance(1_000_000, 1_000_000);
  assert.ok(sim.nowUs() <= 1_000_000 && sim.nowUs() > 0, `now ${sim.nowUs()}`);
  assert.ok(sim.steps() > 0);
  sim.delete();
});

test('advanceOneStep completes exactly one engine step', () => {
  const sim = loaded();
  for (let k = 1; k <= 5; k++) {
    assert.equal(sim.advanceOneStep(), true);
    assert.equal(sim.steps(), k);
  }
  sim.delete();
});

test('series: columns, views re-fetched after each advance, values in range', () => {
  const sim = loaded();
  const cols = sim.seriesColumns();
  assert.equal(cols[0], 'time_s');
  const names = sim.instanceNames();
  assert.deepEqual(names, ['main-0', 'main-1']);
  for (const inst of names) {
    for (const m of ['kv_usage', 'running', 'waiting']) assert.ok(cols.includes(`${inst}.${m}`), `${inst}.${m} missing`);
  }
  for (const c of ['ttft_p50_ms', 'ttft_p99_ms', 'itl_p50_ms', 'itl_p99_ms']) assert.ok(cols.includes(c), `${c} missing`);
  let rows = 0;
  while (!sim.done()) {
    sim.advance(sim.nowUs() + 1_000_000, 1_000_000);
    const n = sim.seriesLength();
    assert.ok(n >= rows);
    rows = n;
    const t = sim.seriesView(0);
    assert.equal(t.length, n);
    if (n > 1) assert.ok(t[n - 1] > t[n - 2]);
  }
  assert.ok(rows > 4, `only ${rows} rows`);
  const kv = sim.seriesView(cols.indexOf('main-0.kv_usage'));
  assert.ok(kv.every((v) => v >= 0 && v <= 1), 'kv_usage outside [0, 1]');
  assert.ok(kv.some((v) => v > 0), 'kv_usage never above 0');
  assert.throws(() => sim.seriesView(cols.length), /does not exist/);
  assert.throws(() => sim.seriesView(-1), /does not exist/);
  sim.delete();
});

test('summary, requests.csv and Prometheus text at the end of a run', () => {
  const sim = loaded();
  runToEnd(sim);
  const s = JSON.parse(sim.summaryJson());
  assert.equal(s.requests.arrived, 60);
  assert.equal(s.requests.finished, 60);
  assert.ok(s.ttft_ms.p50 > 0 && s.ttft_ms.p99 >= s.ttft_ms.p50);
  assert.ok(s.throughput.output_tokens_per_s > 0);
  assert.match(s.digest, /^[0-9a-f]{16}$/);
  assert.equal(sim.digest(), s.digest);
  const csv = sim.requestsCsv().trim().split('\n');
  assert.match(csv[0], /^id,client,instance,arrival_s,first_token_s,finish_s/);
  assert.equal(csv.length, 61);
  const prom = sim.metricsText(0);
  assert.match(prom, /^# HELP vllm:/m);
  assert.match(prom, /^vllm:num_requests_running/m);
  assert.throws(() => sim.metricsText(2), /instance 2 does not exist/);
  const ts = JSON.parse(sim.timeseriesJson());
  assert.equal(ts.rows, sim.seriesLength());
  sim.delete();
});

test('reset returns to time zero and reproduces the run exactly', () => {
  const sim = loaded();
  runToEnd(sim);
  const first = sim.digest();
  sim.reset();
  assert.equal(sim.nowUs(), 0);
  assert.equal(sim.steps(), 0);
  assert.equal(sim.seriesLength(), 0);
  assert.equal(sim.done(), false);
  runToEnd(sim, 123_457);  // a different slicing must not change the results
  assert.equal(sim.digest(), first);
  sim.delete();
});

test('bad arguments are Errors and leave the module usable', () => {
  const sim = loaded();
  assert.throws(() => sim.advance(-1, 10), /untilUs must be a whole number/);
  assert.throws(() => sim.advance(1.5, 10), /untilUs must be a whole number/);
  assert.throws(() => sim.advance(1000, 0), /maxEvents must be at least 1/);
  assert.throws(() => sim.advance(Number.NaN, 10), /untilUs/);
  sim.advance(1000, 10);  // still fine
  sim.delete();
  const other = loaded();
  assert.equal(other.nowUs(), 0);
  other.delete();
});

// The same scenario and seed give the same digest natively and in WASM. When the native CLI is
// built (scripts/test builds it before the WASM tier), the test runs `blis run` on the same
// file and compares; otherwise it compares with the digest recorded from a native run
// (update it with `blis run wasm/tests/fixtures/small.json --out DIR` when the model changes).
const RECORDED_NATIVE_DIGEST = '871193e2d3210ca4';
test('the WASM digest equals the native blis run digest', () => {
  const sim = loaded();
  runToEnd(sim);
  const wasm = sim.digest();
  sim.delete();
  const cli = process.env.BLIS_NATIVE_CLI ?? path.join(here, '../../build/native/cli/blis');
  if (!existsSync(cli)) {
    assert.equal(wasm, RECORDED_NATIVE_DIGEST);
    return;
  }
  const out = mkdtempSync(path.join(os.tmpdir(), 'blis-wasm-digest-'));
  execFileSync(cli, ['run', smallPath, '--out', out], { stdio: 'ignore' });
  const native = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8')).digest;
  assert.match(native, /^[0-9a-f]{16}$/);
  assert.equal(wasm, native);
});

test('effectiveScenario writes every default out (the rules pack\'s engine args included)', () => {
  const doc = JSON.parse(small);
  delete doc.pools[0].engine.args.enable_prefix_caching;
  const eff = JSON.parse(blis.effectiveScenario(JSON.stringify(doc)));
  const args = eff.pools[0].engine.args;
  assert.equal(typeof args.enable_prefix_caching, 'boolean');
  assert.equal(typeof args.max_num_batched_tokens, 'number');
  assert.equal(typeof eff.outputs.timeseries_interval_ms, 'number');
  // A document with errors has no effective form.
  doc.pools[0].engine.args.max_num_seqs = -3;
  assert.equal(blis.effectiveScenario(JSON.stringify(doc)), '');
});
