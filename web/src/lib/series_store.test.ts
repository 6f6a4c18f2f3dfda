import { describe, expect, it } from 'vitest';
import { decimate, empiricalCdf, SeriesStore } from './series_store';

const f = (...v: number[]) => Float64Array.from(v);

describe('SeriesStore', () => {
  it('appends deltas and grows past its capacity', () => {
    const s = new SeriesStore(['t', 'y'], 2);
    s.append({ from: 0, columns: [f(0, 1), f(10, 11)] });
    s.append({ from: 2, columns: [f(2, 3, 4), f(12, 13, 14)] });
    expect(s.length).toBe(5);
    expect(s.capacity).toBeGreaterThanOrEqual(5);
    expect(Array.from(s.column('y'))).toEqual([10, 11, 12, 13, 14]);
    expect(s.last('t')).toBe(4);
  });

  it('rejects out-of-sync or malformed deltas', () => {
    const s = new SeriesStore(['t', 'y']);
    expect(() => s.append({ from: 1, columns: [f(0), f(1)] })).toThrow(/starts at row 1/);
    expect(() => s.append({ from: 0, columns: [f(0)] })).toThrow(/1 columns, expected 2/);
    expect(() => s.append({ from: 0, columns: [f(0), f(1, 2)] })).toThrow(/differ in length/);
    expect(() => s.column('z')).toThrow(/no series column/);
  });

  it('clears without losing its columns', () => {
    const s = new SeriesStore(['t']);
    s.append({ from: 0, columns: [f(1, 2)] });
    s.clear();
    expect(s.length).toBe(0);
    s.append({ from: 0, columns: [f(5)] });
    expect(Array.from(s.column('t'))).toEqual([5]);
  });
});

describe('decimate', () => {
  it('returns small inputs untouched', () => {
    const [x, [y]] = decimate(f(1, 2, 3), [f(4, 5, 6)], 100);
    expect(Array.from(x)).toEqual([1, 2, 3]);
    expect(Array.from(y!)).toEqual([4, 5, 6]);
  });

  it("keeps every bucket's extremes in order", () => {
    const n = 1000;
    const x = new Float64Array(n).map((_, i) => i);
    const y = new Float64Array(n).map((_, i) => Math.sin(i / 10));
    y[500] = 50; // a spike
    const [dx, [dy]] = decimate(x, [y], 100);
    expect(dx.length).toBe(100);
    expect(Math.max(...dy!)).toBe(50);
    expect(Math.min(...dy!)).toBeCloseTo(Math.min(...y), 6);
    for (let i = 1; i < dx.length; i++) expect(dx[i]!).toBeGreaterThanOrEqual(dx[i - 1]!);
  });

  it('keeps all-NaN buckets as gaps', () => {
    const y = new Float64Array(100).fill(NaN);
    const [, [dy]] = decimate(
      new Float64Array(100).map((_, i) => i),
      [y],
      10,
    );
    expect(dy!.every(Number.isNaN)).toBe(true);
  });
});

describe('empiricalCdf', () => {
  it('sorts and accumulates', () => {
    const [x, p] = empiricalCdf(f(3, 1, NaN, 2, 4));
    expect(Array.from(x)).toEqual([1, 2, 3, 4]);
    expect(Array.from(p)).toEqual([0.25, 0.5, 0.75, 1]);
  });

  it('thins large samples to evenly spaced quantiles ending at 100%', () => {
    const samples = new Float64Array(10000).map((_, i) => 10000 - i);
    const [x, p] = empiricalCdf(samples, 101);
    expect(x.length).toBe(101);
    expect(x[0]).toBe(1);
    expect(x[100]).toBe(10000);
    expect(p[100]).toBe(1);
    expect(p[50]).toBeCloseTo(0.5, 3);
  });

  it('is empty for no samples', () => {
    expect(empiricalCdf(f())[0].length).toBe(0);
  });
});
