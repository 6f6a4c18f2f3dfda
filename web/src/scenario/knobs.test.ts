import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PRESETS } from './presets';
import { getAt, KNOBS, parseKnobInput, setAt, type Json } from './knobs';

const knob = (id: string) => KNOBS.find((k) => k.id === id)!;

describe('scenario knobs', () => {
  const doc = JSON.parse(PRESETS[0]!.scenario) as Json;

  it('read every main knob of the default preset', () => {
    for (const k of KNOBS) expect(k.get(doc), k.id).not.toBeUndefined();
    expect(knob('instances').get(doc)).toBe(1);
    expect(knob('router').get(doc)).toBe('round-robin');
    expect(knob('prompt_tokens').get(doc)).toBe(1200);
  });

  it('write into a copy, leaving the original alone', () => {
    const next = knob('max_num_seqs').set(doc, 64);
    expect(knob('max_num_seqs').get(next)).toBe(64);
    expect(knob('max_num_seqs').get(doc)).toBe(256);
  });

  it("scale a distribution's spread with its mean", () => {
    const next = knob('prompt_tokens').set(doc, 2400);
    expect(getAt(next, '/workload/clients/0/prompt_tokens')).toEqual({ dist: 'lognormal', mean: 2400, std: 1200, max: 6000 });
  });

  it('edit a constant length by its value', () => {
    const d = setAt(doc, '/workload/clients/0/output_tokens', { dist: 'constant', value: 10 });
    expect(knob('output_tokens').get(d)).toBe(10);
    expect(getAt(knob('output_tokens').set(d, 20), '/workload/clients/0/output_tokens')).toEqual({ dist: 'constant', value: 20 });
  });

  it('report a knob the document does not have in that shape', () => {
    const staged = JSON.parse(PRESETS.find((p) => p.name === 'overload')!.scenario) as Json;
    expect(knob('rate').get(staged)).toBeUndefined();
  });

  it('create missing objects on write', () => {
    expect(getAt(setAt({}, '/a/b/c', 1), '/a/b')).toEqual({ c: 1 });
    expect(setAt({ a: 1 }, '/a/b', 2)).toEqual({ a: { b: 2 } }); // a scalar on the path becomes an object
  });

  it('parse form input by kind', () => {
    expect(parseKnobInput(knob('instances'), '4')).toBe(4);
    expect(parseKnobInput(knob('instances'), '4.5')).toBeUndefined();
    expect(parseKnobInput(knob('instances'), '-1')).toBe(-1); // the validator says why
    expect(parseKnobInput(knob('rate'), '2.5')).toBe(2.5);
    expect(parseKnobInput(knob('rate'), '')).toBeUndefined();
    expect(parseKnobInput(knob('enable_prefix_caching'), false)).toBe(false);
    expect(parseKnobInput(knob('model'), '  m  ')).toBe('m');
  });
});

describe('presets', () => {
  it('are at least six, uniquely named, and parse as JSON with the v1 schema', () => {
    expect(PRESETS.length).toBeGreaterThanOrEqual(6);
    expect(new Set(PRESETS.map((p) => p.name)).size).toBe(PRESETS.length);
    // docs/playground.md's URL table names every preset.
    const row = readFileSync(new URL('../../../docs/playground.md', import.meta.url), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('| `preset=NAME`'));
    for (const p of PRESETS) expect(row, p.name).toContain('`' + p.name + '`');
    for (const p of PRESETS) {
      for (const text of [p.scenario, p.compare?.scenario].filter((t): t is string => !!t)) {
        const d = JSON.parse(text) as { schema: string; name: string };
        expect(d.schema, p.name).toBe('blis/scenario/v1');
        expect(d.name.length, p.name).toBeGreaterThan(0);
      }
    }
  });
});
