import { describe, expect, it } from 'vitest';
import { heatGrid } from './heatmap';
import type { RunData } from './views';

describe('heat map', () => {
  it('averages each instance over time buckets', () => {
    const cols: Record<string, Float64Array> = {
      time_s: Float64Array.from([1, 2, 3, 4]),
      'p-0.kv_usage': Float64Array.from([0, 1, 1, 1]),
      'p-1.kv_usage': Float64Array.from([0.5, 0.5, NaN, NaN]),
    };
    const run: RunData = { label: '', columns: Object.keys(cols), instances: ['p-0', 'p-1'], column: (n) => cols[n]! };
    const g = heatGrid(run, 'kv_usage', 2);
    expect(g.rows).toEqual(['p-0', 'p-1']);
    expect(Array.from(g.values.slice(0, 2))).toEqual([0.5, 1]);
    expect(g.values[2]).toBe(0.5);
    expect(Number.isNaN(g.values[3]!)).toBe(true);
    expect(g.max).toBe(1);
  });
});
