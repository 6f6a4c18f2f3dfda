import { describe, expect, it } from 'vitest';
import { capacityAnswer } from './capacity_panel';
import type { CapacityResult } from './protocol';

const probe = (value: number, pass: boolean) => ({
  value,
  pass,
  saturated: !pass,
  why: pass ? 'ok' : 'saturated',
  digest: '0',
});

describe('the capacity answer, worded as blis capacity prints it', () => {
  it('rate: the highest passing rate and where it fails', () => {
    const r: CapacityResult = {
      vary: 'rate',
      probes: [probe(20, true), probe(40, false)],
      answer: 20,
      first_fail: 40,
      diagnostics: [],
    };
    expect(capacityAnswer(r)).toBe('highest rate within the SLO: 20 req/s (fails at 40)');
  });
  it('instances: the fewest, and none within the probes', () => {
    const r: CapacityResult = {
      vary: 'instances',
      probes: [probe(2, true), probe(1, false)],
      answer: 2,
      first_fail: 1,
      diagnostics: [],
    };
    expect(capacityAnswer(r)).toBe('fewest instances within the SLO: 2 (1 fails)');
    expect(capacityAnswer({ ...r, answer: null, first_fail: null })).toBe('no instance count passes within 2 probes');
  });
});
