// The sweep bindings under node (wasm/sweep_bindings.cpp): checking a sweep document with
// JSON-pointer errors, running points, ranking, and capacity search, all through the C++
// sweep core, and the same rows (digests included) as the native `blis sweep`.
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
const sweepPath = path.join(here, 'fixtures/sweep_2x2.json');
const sweepText = readFileSync(sweepPath, 'utf8');
const cli = process.env.BLIS_NATIVE_CLI ?? path.join(here, '../../build/native/cli/blis');

// Recorded from `blis sweep wasm/tests/fixtures/sweep_2x2.json --out DIR` (points.jsonl's
// digests, by index); used when the native CLI is not built. Update them when the model changes.
const RECORDED_NATIVE_DIGESTS = ['5d6d5449e40d59ff', '606d778e94c5c1b4', '1acb152fddeda8c2', '2a1c917a062f838e'];

const wasmRows = [0, 1, 2, 3].map((i) => blis.sweepRunPoint(sweepText, i));

test('sweepCheck: a valid sweep has its grid size and the normalized document', () => {
  const c = blis.sweepCheck(sweepText);
  assert.deepEqual(c.diagnostics, []);
  assert.equal(c.points, 4);
  const doc = JSON.parse(c.document);
  assert.equal(doc.schema, 'blis/sweep/v1');
  assert.equal(doc.base.name, 'wasm-api-small');
  assert.deepEqual(doc.axes[1].values, [512, 2048]);
  assert.equal(doc.budget.max_runs, 1000);
});

test('sweepCheck: errors name their JSON pointer, as `blis sweep` reports them', () => {
  const bad = JSON.parse(sweepText);
  bad.axes[1] = { pointer: '/pools/0/engine/args/max_num_batched_tokens', range: { from: 2048, to: 1, step: 512 } };
  bad.surprise = true;
  const c = blis.sweepCheck(JSON.stringify(bad));
  assert.equal(c.document, '');
  assert.ok(c.diagnostics.some((d) => d.pointer === '/axes/1/range/to' && d.severity === 'error'), JSON.stringify(c.diagnostics));
  assert.ok(c.diagnostics.some((d) => d.pointer === '/surprise'), JSON.stringify(c.diagnostics));
  // A base given as a path cannot be read in the browser.
  const path_ = blis.sweepCheck(JSON.stringify({ ...JSON.parse(sweepText), base: 'default.json' }));
  assert.ok(path_.diagnostics.some((d) => d.pointer === '/base' && /inline/.test(d.message)), JSON.stringify(path_.diagnostics));
  // A key the base lacks, and a point that is not a valid scenario (check_points).
  const unset = JSON.parse(sweepText);
  unset.axes[0].pointer = '/pools/3/instances';
  assert.ok(blis.sweepCheck(JSON.stringify(unset)).diagnostics.some((d) => d.pointer === '/axes/0/pointer'));
  const invalid = JSON.parse(sweepText);
  invalid.axes[0].values = [1, 0];
  assert.ok(blis.sweepCheck(JSON.stringify(invalid)).diagnostics.some((d) => d.pointer === '/axes' && /point 2/.test(d.message)));
  // Malformed JSON is a diagnostic at the root, not an abort.
  const m = blis.sweepCheck('{"schema": ');
  assert.equal(m.diagnostics[0].pointer, '');
  assert.equal(m.points, 0);
});

test('sweepRunPoint: each point\'s row, deterministic in any order', () => {
  const again = [3, 1, 2, 0].map((i) => [i, blis.sweepRunPoint(sweepText, i)]);
  for (const [i, row] of again) assert.equal(row, wasmRows[i]);
  const rows = wasmRows.map((r) => JSON.parse(r));
  assert.deepEqual(rows.map((r) => r.index), [0, 1, 2, 3]);
  assert.deepEqual(rows[2].point, { '/pools/0/instances': 2, '/pools/0/engine/args/max_num_batched_tokens': 512 });
  for (const r of rows) assert.match(r.digest, /^[0-9a-f]{16}$/);
  assert.throws(() => blis.sweepRunPoint(sweepText, 4), /point 4 does not exist \(the sweep has 4 points/);
  assert.throws(() => blis.sweepRunPoint(sweepText, 0.5), /does not exist/);
  assert.throws(() => blis.sweepRunPoint('{}', 0), /the sweep has errors: .*schema/);
});

test('the WASM rows equal native `blis sweep` points.jsonl, byte for byte (digests too)', () => {
  const digests = wasmRows.map((r) => JSON.parse(r).digest);
  if (!existsSync(cli)) {
    assert.deepEqual(digests, RECORDED_NATIVE_DIGESTS);
    return;
  }
  const out = mkdtempSync(path.join(os.tmpdir(), 'blis-wasm-sweep-'));
  execFileSync(cli, ['sweep', sweepPath, '--out', out, '--jobs', '2', '--quiet'], { stdio: 'ignore' });
  const native = readFileSync(path.join(out, 'points.jsonl'), 'utf8').trimEnd().split('\n');
  assert.deepEqual(wasmRows, native);
  // Ranking through WASM is the native ranking: same ranking.json and table.
  const ranked = JSON.parse(blis.sweepRank(sweepText, `[${[...wasmRows].reverse().join(',')}]`));
  assert.deepEqual(ranked.ranking, JSON.parse(readFileSync(path.join(out, 'ranking.json'), 'utf8')));
  assert.ok(readFileSync(path.join(out, 'ranking.md'), 'utf8').endsWith(ranked.table));
});

test('sweepRank: the core\'s order and front, on any subset and order of rows', () => {
  const r = JSON.parse(blis.sweepRank(sweepText, `[${wasmRows.join(',')}]`));
  assert.deepEqual(r.ranking.ranked.map((x) => x.rank), [1, 2, 3, 4]);
  assert.deepEqual(r.pareto.map((p) => p.index), [0, 1, 2, 3]);
  assert.equal(r.pareto.filter((p) => p.pareto).length >= 1, true);
  for (const x of r.ranking.ranked) assert.equal(x.pareto, r.pareto[x.index].pareto);
  const two = JSON.parse(blis.sweepRank(sweepText, `[${wasmRows[3]},${wasmRows[0]}]`));
  assert.deepEqual(two.ranking.ranked.map((x) => x.index).sort(), [0, 3]);
  assert.deepEqual(JSON.parse(blis.sweepRank(sweepText, '[]')).ranking.ranked, []);
  assert.throws(() => blis.sweepRank(sweepText, '{}'), /JSON array/);
  assert.throws(() => blis.sweepRank(sweepText, '[{"index": 0}]'), /lacks/);
  assert.throws(() => blis.sweepRank(sweepText, '[oops'), /parse/);
});

test('sweepPointScenario: the base with the point\'s values set', () => {
  const s = JSON.parse(blis.sweepPointScenario(sweepText, 3));
  assert.equal(s.pools[0].instances, 2);
  assert.equal(s.pools[0].engine.args.max_num_batched_tokens, 2048);
  assert.deepEqual(blis.validateScenario(JSON.stringify(s)).filter((d) => d.severity === 'error'), []);
});

test('capacitySearch: blis capacity\'s bisection, the same probes as natively', () => {
  const scenario = readFileSync(path.join(here, 'fixtures/small.json'), 'utf8');
  const r = JSON.parse(blis.capacitySearch(scenario, JSON.stringify({ vary: 'instances', slo: ['ttft_ms.p99<=80'], max_probes: 6 })));
  assert.equal(r.vary, 'instances');
  assert.ok(r.probes.length >= 1);
  assert.equal(r.answer, Math.min(...r.probes.filter((p) => p.pass).map((p) => p.value)));
  if (existsSync(cli)) {
    const text = execFileSync(cli, ['capacity', path.join(here, 'fixtures/small.json'), '--slo', 'ttft_ms.p99<=80', '--vary', 'instances', '--max-probes', '6'], { encoding: 'utf8' });
    const native = [...text.matchAll(/digest ([0-9a-f]{16})/g)].map((m) => m[1]);
    assert.deepEqual(r.probes.map((p) => p.digest), native);
  }
  assert.throws(() => blis.capacitySearch(scenario, JSON.stringify({ slo: [] })), /non-empty/);
  assert.throws(() => blis.capacitySearch(scenario, JSON.stringify({ slo: ['ttft_ms.p99 about 5'] })), /slo/);
  assert.throws(() => blis.capacitySearch('{"a": ', JSON.stringify({ slo: ['ttft_ms.p99<=80'] })), /line 1/);
});

test('sweepPointRow: a point run in slices on a Simulation gives sweepRunPoint\'s row', () => {
  for (const i of [0, 3]) {
    const sim = new blis.Simulation();
    try {
      assert.deepEqual(sim.load(blis.sweepPointScenario(sweepText, i)).filter((d) => d.severity === 'error'), []);
      while (!sim.done()) sim.advance(Number.MAX_SAFE_INTEGER, 500);
      assert.equal(blis.sweepPointRow(sweepText, i, sim.summaryJson()), wasmRows[i]);
    } finally {
      sim.delete();
    }
  }
  assert.throws(() => blis.sweepPointRow(sweepText, 9, '{}'), /point 9 does not exist/);
  assert.throws(() => blis.sweepPointRow(sweepText, 0, '{}'), /sim object/);
});

test('capacitySearch: onProbe sees every probe as it runs; the scenario at the answer', () => {
  const scenario = readFileSync(path.join(here, 'fixtures/small.json'), 'utf8');
  const query = JSON.stringify({ vary: 'instances', slo: ['ttft_ms.p99<=80'], max_probes: 6 });
  const seen = [];
  const r = JSON.parse(blis.capacitySearch(scenario, query, (t) => seen.push(JSON.parse(t))));
  assert.deepEqual(seen, r.probes);
  assert.deepEqual(JSON.parse(blis.capacitySearch(scenario, query)), r);
  if (r.answer !== null) {
    assert.equal(r.answer_scenario.pools[0].instances, r.answer);
    assert.deepEqual(blis.validateScenario(JSON.stringify(r.answer_scenario)).filter((d) => d.severity === 'error'), []);
  } else {
    assert.equal(r.answer_scenario, null);
  }
});
