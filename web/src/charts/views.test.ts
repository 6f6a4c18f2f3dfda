import { describe, expect, it } from 'vitest';
import { latencyView, withGaps, type RunData } from './views';

const f = (...v: number[]) => Float64Array.from(v);

function run(label: string, cols: Record<string, Float64Array>): RunData {
  return { label, columns: Object.keys(cols), instances: ['p-0'], column: (n) => cols[n] ?? new Float64Array(0) };
}

describe('latency view', () => {
  it('draws a window with no sample as a gap (null), never as 0', () => {
    const r = run('', {
      time_s: f(1, 2, 3),
      ttft_p50_ms: f(10, NaN, 30),
      ttft_p99_ms: f(12, NaN, 33),
      itl_p50_ms: f(5, NaN, NaN),
      itl_p99_ms: f(6, NaN, NaN),
    });
    const v = latencyView([r], 1000);
    expect(v.data[1]).toEqual([10, null, 30]);
    expect(v.data[3]).toEqual([5, null, null]);
    expect(v.spec.series.every((s) => s.gaps)).toBe(true);
  });

  it('keeps gaps when A and B are joined on time', () => {
    const a = run('A', {
      time_s: f(1, 2),
      ttft_p50_ms: f(1, NaN),
      ttft_p99_ms: f(1, NaN),
      itl_p50_ms: f(1, 1),
      itl_p99_ms: f(1, 1),
    });
    const b = run('B', {
      time_s: f(1, 2),
      ttft_p50_ms: f(NaN, 2),
      ttft_p99_ms: f(2, 2),
      itl_p50_ms: f(1, 1),
      itl_p99_ms: f(1, 1),
    });
    const v = latencyView([a, b], 1000);
    expect(v.data[1]).toEqual([1, null]);
    expect(v.data[5]).toEqual([null, 2]);
  });

  it('leaves a column without gaps as it is', () => {
    const v = f(1, 2);
    expect(withGaps(v)).toBe(v);
  });
});
