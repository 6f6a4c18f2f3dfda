import { describe, expect, it } from 'vitest';
import { fmtCount, fmtDelta, fmtMs, fmtPct, fmtRate, fmtSimSeconds } from './format';

describe('format', () => {
  it('milliseconds switch to seconds when large', () => {
    expect(fmtMs(1.234)).toBe('1.23 ms');
    expect(fmtMs(45.67)).toBe('45.7 ms');
    expect(fmtMs(456.7)).toBe('457 ms');
    expect(fmtMs(4567)).toBe('4.57 s');
    expect(fmtMs(45670)).toBe('45.7 s');
    expect(fmtMs(undefined)).toBe('–');
  });
  it('counts, rates, percentages, deltas and simulated seconds', () => {
    expect(fmtCount(12)).toBe('12');
    expect(fmtCount(12345)).toBe('12.3 k');
    expect(fmtRate(1234.56, 'tok/s')).toBe('1235 tok/s');
    expect(fmtRate(12.34, 'req/s')).toBe('12.3 req/s');
    expect(fmtPct(0.456)).toBe('46%');
    expect(fmtPct(0.0123)).toBe('1.2%');
    expect(fmtDelta(100, 112)).toBe('+12%');
    expect(fmtDelta(100, 92)).toBe('−8%');
    expect(fmtDelta(0, 5)).toBe('');
    expect(fmtSimSeconds(12345678)).toBe('12.346');
  });
});
