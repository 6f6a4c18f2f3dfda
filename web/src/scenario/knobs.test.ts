import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PRESETS } from './presets';
import { choiceProbe, readChoices } from './choices';
import { EPP_EXAMPLES } from './epp_examples';
import { deleteAt, getAt, KNOBS, knobsFor, knobState, parseKnobInput, setAt, type Json } from './knobs';

const knob = (id: string) => KNOBS.find((k) => k.id === id)!;

describe('scenario knobs', () => {
  const doc = JSON.parse(PRESETS[0]!.scenario) as Json;

  it('read every main knob of the default preset', () => {
    for (const k of KNOBS.filter((x) => (x.group ?? 'main') === 'main')) expect(k.get(doc), k.id).not.toBeUndefined();
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

  it("edit a shared_prefix client's question and output tokens", () => {
    const sp = JSON.parse(PRESETS.find((p) => p.name === 'prefix-cache')!.scenario) as Json;
    expect(knob('prompt_tokens').get(sp)).toBe(300);
    expect(knob('output_tokens').get(sp)).toBe(200);
    const next = knob('output_tokens').set(knob('prompt_tokens').set(sp, 450), 120);
    expect(getAt(next, '/workload/clients/0/shared_prefix/question_tokens')).toBe(450);
    expect(getAt(next, '/workload/clients/0/shared_prefix/output_tokens')).toBe(120);
    expect(getAt(next, '/workload/clients/0/prompt_tokens')).toBeUndefined();
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

// Each group knob: the pointer it writes, and the value it reads back from there.
describe('the scale-out, adapter and router knobs', () => {
  const base = JSON.parse(PRESETS[0]!.scenario) as Json;
  const cases: [id: string, input: string | boolean, pointer: string, stored: Json][] = [
    ['pp', '2', '/pools/0/parallelism/pp', 2],
    ['dp', '4', '/pools/0/parallelism/dp', 4],
    ['enable_expert_parallel', true, '/pools/0/engine/args/enable_expert_parallel', true],
    ['gpus_per_node', '4', '/network/gpus_per_node', 4],
    ['nic', 'per_node', '/network/nic', 'per_node'],
    ['switch_hops', '2', '/network/switch_hops', 2],
    ['fabric', 'ib-ndr', '/fabric', 'ib-ndr'],
    ['placement', '{"main": [0, 1]}', '/network/placement', { main: [0, 1] }],
    ['enable_lora', true, '/pools/0/engine/args/enable_lora', true],
    ['max_loras', '2', '/pools/0/engine/args/max_loras', 2],
    ['max_lora_rank', '32', '/pools/0/engine/args/max_lora_rank', 32],
    ['max_cpu_loras', '4', '/pools/0/engine/args/max_cpu_loras', 4],
    ['lora', '1', '/workload/clients/0/lora', 1],
    [
      'adapters',
      '[{"name": "a", "rank": 8, "share": 0.5}]',
      '/workload/clients/0/adapters',
      [{ name: 'a', rank: 8, share: 0.5 }],
    ],
    ['spec_method', 'ngram', '/pools/0/engine/args/speculative_config', { method: 'ngram' }],
    ['signal_staleness_ms', '50', '/router/signal_staleness_ms', 50],
  ];
  for (const [id, input, pointer, stored] of cases) {
    it(`${id} → ${pointer}`, () => {
      const k = knob(id);
      const v = parseKnobInput(k, input);
      expect(v, id).not.toBeUndefined();
      const next = k.set(base, v!);
      expect(getAt(next, pointer)).toEqual(stored);
      // A json knob reads back as compact JSON of the same value.
      if (k.kind === 'json') expect(JSON.parse(String(k.get(next)))).toEqual(stored);
      else expect(k.get(next)).toBe(v);
      expect(knobState(k, next, null).source).toBe('document');
    });
  }

  it('speculative decoding: off is null; a method keeps the other keys; drafts need a method', () => {
    const on = setAt(base, '/pools/0/engine/args/speculative_config', { method: 'ngram', num_speculative_tokens: 3 });
    const spec = '/pools/0/engine/args/speculative_config';
    expect(getAt(knob('spec_method').set(on, 'suffix'), spec)).toEqual({ method: 'suffix', num_speculative_tokens: 3 });
    expect(getAt(knob('spec_method').set(on, 'off'), spec)).toBeNull();
    expect(getAt(knob('num_speculative_tokens').set(on, 5), `${spec}/num_speculative_tokens`)).toBe(5);
    // Off in the resolved document (vLLM's default null): the method shows "off" as a
    // default, the draft knobs wait for a method.
    const resolvedOff = setAt(base, spec, null);
    expect(knobState(knob('spec_method'), base, resolvedOff)).toEqual({ value: 'off', source: 'default' });
    expect(knobState(knob('num_speculative_tokens'), base, resolvedOff).disabledBecause).toMatch(/method first/);
    expect(knobState(knob('num_speculative_tokens'), on, on)).toEqual({ value: 3, source: 'document' });
    // A client's acceptance rate defaults to its pool's.
    const resolvedOn = setAt(on, `${spec}/acceptance_rate`, 0.7);
    expect(knobState(knob('client_acceptance_rate'), on, resolvedOn)).toEqual({ value: 0.7, source: 'default' });
    const own = knob('client_acceptance_rate').set(on, 0.4);
    expect(getAt(own, '/workload/clients/0/spec_acceptance')).toEqual({ acceptance_rate: 0.4 });
  });

  it('a key the resolved document writes only when set shows its absence as the default', () => {
    expect(knobState(knob('enable_expert_parallel'), base, base)).toEqual({ value: false, source: 'default' });
    // Unset with no such value: shown empty, its placeholder saying what that means.
    expect(knobState(knob('adapters'), base, base)).toEqual({ value: undefined, source: 'none' });
    expect(knob('adapters').placeholder).toMatch(/base model/);
  });

  it('an empty json or optional text knob removes its key; text that is not JSON is no value', () => {
    const placed = knob('placement').set(base, '{"main": [0]}');
    expect(getAt(knob('placement').set(placed, ''), '/network/placement')).toBeUndefined();
    expect(parseKnobInput(knob('placement'), '{"main": [0')).toBeUndefined();
    expect(getAt(knob('fabric').set(knob('fabric').set(base, 'ib-ndr'), ''), '/fabric')).toBeUndefined();
    expect(deleteAt({ a: { b: 1, c: 2 } }, '/a/b')).toEqual({ a: { c: 2 } });
    expect(deleteAt({ a: 1 }, '/x/y')).toEqual({ a: 1 });
  });

  it('the EPP config: JSON becomes an object, other text stays YAML; either selects policy epp', () => {
    const epp = knob('epp_config');
    const asJson = epp.set(base, '{"plugins": []}');
    expect(getAt(asJson, '/router')).toMatchObject({ policy: 'epp', epp_config: { plugins: [] } });
    const asYaml = epp.set(base, 'plugins:\n- type: queue-scorer\n');
    expect(getAt(asYaml, '/router/epp_config')).toBe('plugins:\n- type: queue-scorer\n');
    expect(epp.get(asYaml)).toBe('plugins:\n- type: queue-scorer\n');
    expect(getAt(epp.set(asJson, ''), '/router/epp_config')).toBeUndefined();
  });

  it("the EPP examples are the example scenarios' configs", () => {
    expect(EPP_EXAMPLES.map((e) => e.file)).toEqual([
      'epp-config.json',
      'epp-pd-threshold.json',
      'epp-lora-affinity.json',
      'epp-data-parallel.json',
    ]);
    for (const e of EPP_EXAMPLES) expect(e.text.length, e.file).toBeGreaterThan(20);
    // An object config is shown as JSON, a YAML one as its text.
    expect(JSON.parse(EPP_EXAMPLES[0]!.text)).toHaveProperty('plugins');
  });

  it("read a select's options from the decoder's message", () => {
    const probe = JSON.parse(choiceProbe(base, KNOBS)) as Json;
    expect(getAt(probe, '/router/policy')).toBe(0);
    expect(getAt(probe, '/network/nic')).toBe(0);
    expect(getAt(probe, '/pools/0/engine/args/speculative_config/method')).toBe(0);
    const choices = readChoices(
      [
        { pointer: '/network/nic', message: '0 is an integer, expected one of: "per_gpu", "per_node"', severity: 'error' },
        { pointer: '/router/policy', message: 'something else', severity: 'error' },
      ],
      KNOBS,
    );
    expect(choices).toEqual({ nic: ['per_gpu', 'per_node'] });
  });
});

describe('the pool and client the form edits', () => {
  const two = setAt(
    setAt(JSON.parse(PRESETS[0]!.scenario) as Json, '/pools/1', { name: 'second', instances: 3 }),
    '/workload/clients/1',
    { name: 'batch', load: { rate: 7 } },
  );
  const at = (pool: number, client: number, id: string) => knobsFor(pool, client).find((k) => k.id === id)!;

  it('point the pool knobs at the chosen pool and the client knobs at the chosen client', () => {
    expect(at(1, 0, 'instances').get(two)).toBe(3);
    expect(at(0, 1, 'rate').get(two)).toBe(7);
    expect(getAt(at(1, 1, 'max_num_seqs').set(two, 8), '/pools/1/engine/args/max_num_seqs')).toBe(8);
    expect(getAt(at(1, 1, 'lora').set(two, 2), '/workload/clients/1/lora')).toBe(2);
    // Top-level knobs are the same for every target; the ids are the same everywhere.
    expect(at(1, 1, 'duration_s').pointer).toBe('/horizon/duration_s');
    expect(knobsFor(1, 1).map((k) => k.id)).toEqual(KNOBS.map((k) => k.id));
    expect(knobsFor(1, 1)).toBe(knobsFor(1, 1));
  });
});

describe('the weighted router scorers', () => {
  const base = JSON.parse(PRESETS[0]!.scenario) as Json;

  it('ticking a scorer adds it and selects policy weighted; unticking removes it', () => {
    const one = knob('scorer_prefix-cache').set(base, true);
    expect(getAt(one, '/router')).toMatchObject({ policy: 'weighted', scorers: [{ name: 'prefix-cache' }] });
    expect(knob('scorer_prefix-cache').get(one)).toBe(true);
    expect(knob('scorer_queue-depth').get(one)).toBe(false);
    const both = knob('scorer_queue-depth').set(one, true);
    expect(getAt(knob('scorer_prefix-cache').set(both, false), '/router/scorers')).toEqual([{ name: 'queue-depth' }]);
    // Nothing to remove: the document stays as it is.
    expect(knob('scorer_kv-utilization').set(base, false)).toBe(base);
  });

  it('a weight edits its entry, wherever it sits; a weight for an absent scorer adds it', () => {
    const doc = setAt(base, '/router', {
      policy: 'weighted',
      scorers: [{ name: 'queue-depth' }, { name: 'prefix-cache', weight: 2 }],
    });
    const w = knob('scorer_prefix-cache_weight');
    expect(w.get(doc)).toBe(2);
    expect(getAt(w.set(doc, 3), '/router/scorers/1/weight')).toBe(3);
    // Absent weight: the resolved document's (the decoder's default 1), marked as default.
    const resolved = setAt(doc, '/router/scorers/0/weight', 1);
    expect(knobState(knob('scorer_queue-depth_weight'), doc, resolved)).toEqual({ value: 1, source: 'default' });
    // Not in the list: no value (the placeholder says so), and typing one adds the scorer.
    expect(knobState(knob('scorer_kv-utilization_weight'), doc, resolved)).toEqual({ value: undefined, source: 'none' });
    expect(getAt(knob('scorer_kv-utilization_weight').set(doc, 0.5), '/router/scorers/2')).toEqual({
      name: 'kv-utilization',
      weight: 0.5,
    });
  });

  it("claim their entry's diagnostics by name; the first shows the list's own", () => {
    const doc = setAt(base, '/router', { policy: 'weighted', scorers: [{ name: 'prefix-cache', weight: -1 }, { name: 'nope' }] });
    expect(knob('scorer_prefix-cache_weight').ownsAt!(doc, '/router/scorers/0/weight')).toBe(true);
    expect(knob('scorer_prefix-cache').ownsAt!(doc, '/router/scorers/0/weight')).toBe(false);
    expect(knob('scorer_prefix-cache').ownsAt!(doc, '/router/scorers/0')).toBe(true);
    expect(knob('scorer_queue-depth').ownsAt!(doc, '/router/scorers')).toBe(true);
    expect(knob('scorer_queue-depth').ownsAt!(doc, '/router/scorers/1/name')).toBe(true);
    expect(knob('scorer_kv-utilization').ownsAt!(doc, '/router/scorers/1/name')).toBe(false);
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
