import { describe, expect, it } from 'vitest';
import { jsonDiff, showValue } from './json_diff';

describe('the knob diff of B against A', () => {
  it('lists the pointers that differ, with both values', () => {
    const a = { name: 'x', pools: [{ engine: { args: { enable_prefix_caching: true, max_num_seqs: 256 } } }] };
    const b = { name: 'x', pools: [{ engine: { args: { enable_prefix_caching: false, max_num_seqs: 256 } } }], extra: 1 };
    expect(jsonDiff(a, b)).toEqual([
      { pointer: '/pools/0/engine/args/enable_prefix_caching', a: true, b: false },
      { pointer: '/extra', a: undefined, b: 1 },
    ]);
  });
  it('shows absent and long values', () => {
    expect(showValue(undefined)).toBe('(absent)');
    expect(showValue('x'.repeat(60)).length).toBe(38);
  });
});
