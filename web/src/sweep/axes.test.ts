import { describe, expect, it } from 'vitest';
import { axisJson, axisName, buildSweep, parseValues, type AxisInput } from './axes';

const axis = (over: Partial<AxisInput>): AxisInput => ({
  pointer: '/pools/0/instances',
  mode: 'values',
  values: '',
  from: '',
  to: '',
  step: '',
  ...over,
});

describe('the axis form', () => {
  it('reads values as JSON, or as bare words split on commas', () => {
    expect(parseValues('1, 2, 4')).toEqual([1, 2, 4]);
    expect(parseValues('"H100-SXM-80GB", "A100-SXM-80GB"')).toEqual(['H100-SXM-80GB', 'A100-SXM-80GB']);
    expect(parseValues('H100-SXM-80GB, A100-SXM-80GB')).toEqual(['H100-SXM-80GB', 'A100-SXM-80GB']);
    expect(parseValues('1, two, ')).toEqual([1, 'two']);
    expect(parseValues('')).toEqual([]);
  });

  it('writes a range as numbers, passing anything else through for the decoder to name', () => {
    expect(axisJson(axis({ mode: 'range', from: '1', to: '4', step: '1' }))).toEqual({
      name: 'instances',
      pointer: '/pools/0/instances',
      range: { from: 1, to: 4, step: 1 },
    });
    expect(axisJson(axis({ mode: 'range', from: 'x', to: '4', step: '1' }))['range']).toEqual({ from: 'x', to: 4, step: 1 });
  });

  it("names an axis after its pointer's last token", () => {
    expect(axisName('/pools/0/engine/args/max_num_seqs')).toBe('max_num_seqs');
    expect(axisName('/a~1b')).toBe('a/b');
  });

  it('builds a blis/sweep/v1 document over the scenario, skipping empty axes', () => {
    const scenario = { name: 'demo', pools: [{ instances: 1 }] };
    const doc = buildSweep(scenario, [axis({ values: '1, 2' }), axis({ pointer: ' ' })], 'min_gpus');
    expect(doc).toMatchObject({
      schema: 'blis/sweep/v1',
      name: 'demo: instances',
      base: scenario,
      axes: [{ pointer: '/pools/0/instances', values: [1, 2] }],
      objective: 'min_gpus',
    });
    expect((doc['constraints'] as unknown[]).length).toBeGreaterThan(0);
  });

  it('writes linked keys as one axis whose members move together, the axis key first', () => {
    const a = axis({
      values: '1, 2, 4',
      linked: [{ ...axis({ pointer: '/workload/clients/0/load/rate', values: '10, 20, 40' }) }, { ...axis({ pointer: '  ' }) }],
    });
    expect(axisJson(a)).toEqual({
      name: 'instances + rate',
      linked: [
        { pointer: '/pools/0/instances', values: [1, 2, 4] },
        { pointer: '/workload/clients/0/load/rate', values: [10, 20, 40] },
      ],
    });
    expect(buildSweep({ name: 'demo' }, [a], 'min_cost')['name']).toBe('demo: instances + rate');
  });
});
