// An error thrown from C++ to JS leaks nothing (docs/reliability.md "Fuzzing"): the heap in
// use and the stack pointer are the same after 20,000 throwing calls as before. Embind
// allocates each std::string argument's wire buffer on the heap and frees it after the C++
// call returns; the binding's own frames hold a std::string copy of it too. A JS throw from
// inside the C++ frames skipped both, and every error leaked about twice its arguments' size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadBlisModule } from './load_module.mjs';

const blis = await loadBlisModule();
const kCalls = 20000;

// Calls `call` kCalls times, each one must throw an Error matching `message`; returns the
// growth of the heap in use and of the stack pointer.
function growth(call, message) {
  for (let i = 0; i < 10; i++) assert.throws(call, message);  // warm-up: one-time buffers
  const heap = blis.heapBytesInUse();
  const stack = blis.stackSave();
  let thrown = 0;
  for (let i = 0; i < kCalls; i++) {
    try {
      call();
    } catch (e) {
      assert.ok(e instanceof Error && message.test(e.message), String(e));
      thrown++;
    }
  }
  assert.equal(thrown, kCalls);
  return { heap: blis.heapBytesInUse() - heap, stack: blis.stackSave() - stack };
}

// A 2 KB argument: leaking it per call would be 40 MB (or more) over the loop.
const bad = JSON.stringify({ base: 'not a scenario', pad: 'x'.repeat(2048) });

test('a free function with string arguments that throws leaks no heap', () => {
  const g = growth(() => blis.sweepPointScenario(bad, 0), /the sweep has errors/);
  assert.deepEqual(g, { heap: 0, stack: 0 });
});

test('a free function with two string arguments that throws leaks no heap', () => {
  const g = growth(() => blis.sweepRank(bad, bad), /the sweep has errors/);
  assert.deepEqual(g, { heap: 0, stack: 0 });
});

test('an overloaded function that throws leaks no heap', () => {
  const g = growth(() => blis.capacitySearch(bad, bad), /./);
  assert.deepEqual(g, { heap: 0, stack: 0 });
});

test('a method that throws leaks no heap, and the object stays usable', () => {
  const sim = new blis.Simulation();
  const g = growth(() => sim.advance(1, 1), /no scenario is loaded/);
  assert.deepEqual(g, { heap: 0, stack: 0 });
  assert.throws(() => sim.metricsText(0), /no scenario is loaded/);
  sim.delete();
});

test('a throwing call returns no value and the next call works', () => {
  assert.throws(() => blis.samplerDigestHex(1, -3), /draws must be >= 0, got -3/);
  assert.match(blis.samplerDigestHex(2026, 10), /^[0-9a-f]{16}$/);
});
