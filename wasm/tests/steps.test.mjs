// The engine's batches as the playground reads them: the snapshot's in-flight batches (the
// mechanism view's batch panel) and stepTrace (the Perfetto export's engine steps).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBlisModule } from './load_module.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const blis = await loadBlisModule();
const small = readFileSync(path.join(here, 'fixtures/small.json'), 'utf8');

test('the snapshot lists each in-flight batch with entries that add up to it', () => {
  const sim = new blis.Simulation();
  assert.deepEqual(sim.load(small).filter((d) => d.severity === 'error'), []);
  let batches = 0;
  for (let k = 0; k < 60 && sim.advanceOneStep(); k++) {
    const snap = JSON.parse(sim.engineSnapshot(0));
    for (const b of snap.batches) {
      batches++;
      assert.equal(b.entries.reduce((n, e) => n + e.tokens, 0), b.tokens);
      assert.equal(b.entries.reduce((n, e) => n + e.prefill_tokens, 0), b.prefill_tokens);
      assert.equal(b.prefills + b.decodes, b.entries.length);
      assert.ok(b.tokens <= snap.token_budget, `batch of ${b.tokens} over the budget ${snap.token_budget}`);
      for (const e of b.entries) assert.ok(e.k < snap.requests.length);
    }
  }
  assert.ok(batches > 0, 'no batch was ever in flight');
  sim.delete();
});

test('stepTrace: one slice per engine step of the run, each inside the run and on its instance', () => {
  const sim = new blis.Simulation();
  sim.load(small);
  while (sim.advanceOneStep());
  const trace = JSON.parse(blis.stepTrace(small, 1e6));
  assert.deepEqual(trace.instances, sim.instanceNames());
  assert.equal(trace.truncated, false);
  assert.equal(trace.steps.length, sim.steps());
  for (const s of trace.steps) {
    assert.ok(s.start_us < s.end_us && s.end_us <= sim.nowUs(), JSON.stringify(s));
    assert.ok(s.instance >= 0 && s.instance < trace.instances.length);
    assert.ok(s.requests > 0 && s.tokens >= s.prefill_tokens);
  }
  // The same scenario gives the same steps (the simulation is deterministic).
  assert.deepEqual(JSON.parse(blis.stepTrace(small, 1e6)), trace);
  assert.equal(JSON.parse(blis.stepTrace(small, 3)).steps.length, 3);
  assert.throws(() => blis.stepTrace(small, 0), /maxSteps/);
  assert.throws(() => blis.stepTrace('{}', 10), /errors/);
  sim.delete();
});
