import { describe, expect, it } from 'vitest';
import { PANELS, panelApplies, rate, windowRatio } from './grafana_views';
import { poolsOf, type RunData } from './views';

const f = (...v: number[]) => Float64Array.from(v);

describe('Grafana panels', () => {
  it('turn counters into per-second rates over each window', () => {
    expect(Array.from(rate(f(0.5, 1, 2), f(1, 3, 3)))).toEqual([2, 4, 0]);
  });

  it('leave a window without prefix-cache queries as a gap', () => {
    const r = windowRatio(f(0, 50, 50), f(0, 100, 100));
    expect(Number.isNaN(r[0]!)).toBe(true);
    expect(r[1]).toBe(50);
    expect(Number.isNaN(r[2]!)).toBe(true);
  });

  it('title each panel with the vllm:* metric it corresponds to', () => {
    for (const p of PANELS.filter((x) => x.id !== 'kv-transfers')) expect(p.subtitle, p.id).toMatch(/vllm:/);
  });

  it('show KV transfers only when something moved', () => {
    const cols: Record<string, Float64Array> = {
      time_s: f(1, 2),
      kv_transfer_blocks_total: f(0, 0),
      kv_transfers_in_flight: f(0, 0),
    };
    const run: RunData = { label: '', columns: Object.keys(cols), instances: [], column: (n) => cols[n]! };
    const kv = PANELS.find((p) => p.id === 'kv-transfers')!;
    expect(panelApplies(kv, [run])).toBe(false);
    cols['kv_transfer_blocks_total'] = f(0, 8);
    expect(panelApplies(kv, [run])).toBe(true);
  });

  it('group instances by pool, prefill and decode apart', () => {
    expect(poolsOf(['prefill-0', 'prefill-1', 'decode-0'])).toEqual([
      ['prefill', ['prefill-0', 'prefill-1']],
      ['decode', ['decode-0']],
    ]);
  });
});
