import { describe, expect, it } from 'vitest';
import { estimateNotes, networkText, sloText } from './summary_cards';

describe('the SLO beside goodput', () => {
  it('lists the targets that are set', () => {
    expect(sloText({ slo: { ttft_ms: 500, itl_ms: 50 } })).toMatch(/TTFT ≤ 500.*TPOT ≤ 50/);
  });
  it('says none without targets', () => {
    expect(sloText({ slo: {} })).toBe('none');
  });
});

describe('the estimate note', () => {
  it('names each model priced without a calibration run on its GPU', () => {
    const provenance = {
      catalog: [
        'gpu H100-SXM-80GB (catalog/gpus/h100.json)',
        'model acme/m (scenario /catalog/models/0); estimate: no calibration run covers it on H100-SXM-80GB',
        'model meta-llama/Llama-2-7b-hf (catalog/models/llama-2-7b.json)',
      ],
    };
    expect(estimateNotes({ provenance })).toEqual(['acme/m on H100-SXM-80GB']);
    expect(estimateNotes({})).toEqual([]);
  });
});

describe('the link-sharing card', () => {
  it('puts the pulls beside their time alone and counts the slowed passes', () => {
    const text = networkText({
      network: {
        passes_slowed: 24,
        collective_extra_ms: 347.3,
        passes_repriced: 5,
        kv_pulls: 17,
        kv_pull_ms_mean: 403.6,
        kv_pull_alone_ms_mean: 321.0,
      },
    });
    expect(text).toMatch(/321.*alone, 17 pulls · 24 passes slowed \+347.*\(5 re-priced\)/);
  });
  it('says nothing without contention, and leaves out what did not happen', () => {
    expect(networkText({})).toBe('');
    expect(networkText({ network: { passes_slowed: 3, collective_extra_ms: 1.2 } })).not.toMatch(/pulls|re-priced/);
    const pullsOnly = networkText({
      network: { passes_slowed: 0, kv_pulls: 468, kv_pull_ms_mean: 31.8, kv_pull_alone_ms_mean: 24.9 },
    });
    expect(pullsOnly).toBe('24.9 ms alone, 468 pulls');
  });
});
