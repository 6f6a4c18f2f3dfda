import { describe, expect, it } from 'vitest';
import { sloText } from './summary_cards';

describe('the SLO beside goodput', () => {
  it('lists the targets that are set', () => {
    expect(sloText({ slo: { ttft_ms: 500, itl_ms: 50 } })).toMatch(/TTFT ≤ 500.*TPOT ≤ 50/);
  });
  it('says none without targets', () => {
    expect(sloText({ slo: {} })).toBe('none');
  });
});
