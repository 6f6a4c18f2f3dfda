// The Embind module under node: version, the native/WASM digest, and C++ exceptions as Errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadBlisModule } from './load_module.mjs';

const blis = await loadBlisModule();

test('version is a semantic version', () => {
  assert.match(blis.version(), /^\d+\.\d+\.\d+$/);
});

test('sampler digest equals the native one', () => {
  // 7691420654784420497 in hex; tests/util/rng_test.cpp asserts the same value natively.
  assert.equal(blis.samplerDigestHex(2026, 5000), (7691420654784420497n).toString(16).padStart(16, '0'));
});

test('a C++ exception reaches JS as an Error with its message', () => {
  assert.throws(() => blis.samplerDigestHex(1, -3), (e) => e instanceof Error && e.message === 'draws must be >= 0, got -3');
  assert.throws(() => blis.samplerDigestHex(1, 2 ** 31 - 1), (e) => e instanceof Error && e.message === 'draws must be at most 1000000, got 2147483647');
  assert.throws(() => blis.samplerDigestHex(1.5, 3), /seed must be an integer/);
});
