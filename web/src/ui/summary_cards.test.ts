import { describe, expect, it } from 'vitest';
import { estimateNotes, sloText } from './summary_cards';

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
