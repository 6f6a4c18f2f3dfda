// The browser build of the WASM module, loaded in node: the real validator over every preset,
// and its diagnostics mapped onto the JSON text the editor shows.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { locateJson } from '../lib/json_locate';
import { choiceProbe, readChoices } from '../scenario/choices';
import { EPP_EXAMPLES } from '../scenario/epp_examples';
import { getAt, KNOBS, knobState, setAt, type Json } from '../scenario/knobs';
import { SCORER_NAMES } from '../scenario/scorer_knobs';
import { PRESETS } from '../scenario/presets';
import createBlisModule, { type BlisModule } from '../wasm/blis.mjs';

let blis: BlisModule;
beforeAll(async () => {
  const wasmBinary = readFileSync(fileURLToPath(new URL('../wasm/blis.wasm', import.meta.url)));
  blis = await createBlisModule({ wasmBinary });
});

describe('the validator behind the editor', () => {
  it('accepts every preset (A and B) without errors', () => {
    for (const p of PRESETS) {
      for (const text of [p.scenario, p.compare?.scenario].filter((t): t is string => !!t)) {
        const errors = blis.validateScenario(text).filter((d) => d.severity === 'error');
        expect(errors, `${p.name}: ${JSON.stringify(errors)}`).toEqual([]);
      }
    }
  });

  it('locates a bad value at its pointer in the text', () => {
    const text = PRESETS[0]!.scenario.replace('"max_num_seqs": 256', '"max_num_seqs": -3');
    const d = blis.validateScenario(text).find((x) => x.pointer === '/pools/0/engine/args/max_num_seqs');
    expect(d?.severity).toBe('error');
    const r = locateJson(text).locate(d!.pointer);
    expect(text.slice(r.from, r.to)).toBe('-3');
  });

  it('locates an unknown key', () => {
    const text = PRESETS[0]!.scenario.replace('"seed": 1,', '"seed": 1,\n  "sede": 2,');
    const d = blis.validateScenario(text).find((x) => x.pointer === '/sede');
    expect(d, JSON.stringify(blis.validateScenario(text))).toBeDefined();
    const r = locateJson(text).locate(d!.pointer);
    expect(text.slice(r.from, r.to)).toBe('2');
  });

  it('reports malformed JSON as an error, not a crash', () => {
    const d = blis.validateScenario('{"schema": ');
    expect(d.length).toBeGreaterThan(0);
    expect(d[0]!.severity).toBe('error');
  });

  it('lists the catalog ids the form suggests', () => {
    const ids = blis.catalogIds();
    expect(ids.gpus).toContain('H100-SXM-80GB');
    expect(ids.models).toContain('meta-llama/Llama-3.1-8B-Instruct');
  });
});

// The smallest document the validator accepts: everything else is a default (shared with the
// browser tests).
const MINIMAL = readFileSync(fileURLToPath(new URL('../../tests/fixtures/minimal-scenario.json', import.meta.url)), 'utf8');

describe('the form on a minimal scenario', () => {
  it('is valid', () => {
    expect(blis.validateScenario(MINIMAL).filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('has an effective value for every knob, from the resolved document', () => {
    const doc = JSON.parse(MINIMAL) as Json;
    const eff = JSON.parse(blis.effectiveScenario(MINIMAL)) as Json;
    for (const k of KNOBS) {
      expect(k.blocked?.(doc) ?? false, k.id).toBe(false);
      const st = knobState(k, doc, eff);
      if (st.disabledBecause !== undefined) {
        expect(k.needs, `${k.id}: ${st.disabledBecause}`).toBeDefined(); // waits for another knob
      } else if (st.value === undefined) {
        expect(k.placeholder, k.id).toBeDefined(); // unset has a meaning of its own, said in the field
      } else {
        expect(st.source, k.id).toBe(k.get(doc) === undefined ? 'default' : 'document');
      }
    }
    // vLLM's default, not an unchecked box: prefix caching is on unless the args say otherwise.
    expect(KNOBS.find((k) => k.id === 'enable_prefix_caching')!.get(eff)).toBe(true);
  });

  it('writes the key when a defaulted knob is edited, and the result is valid', () => {
    let doc = JSON.parse(MINIMAL) as Json;
    for (const k of KNOBS) {
      const eff = JSON.parse(blis.effectiveScenario(JSON.stringify(doc))) as Json;
      const v = knobState(k, doc, eff).value;
      if (v === undefined) continue; // unset, or waiting for another knob
      const next = k.set(doc, v);
      if (next === doc) continue; // an off scorer: nothing to write (no list to remove it from)
      doc = next;
      expect(k.get(doc), k.id).toBe(v);
    }
    expect(blis.validateScenario(JSON.stringify(doc)).filter((d) => d.severity === 'error')).toEqual([]);
  });
});

describe('the scale-out and router knobs against the decoder', () => {
  const knob = (id: string) => KNOBS.find((k) => k.id === id)!;
  const errorsOf = (doc: Json) => blis.validateScenario(JSON.stringify(doc)).filter((d) => d.severity === 'error');

  it("lists each select's options as the decoder accepts them", () => {
    const doc = JSON.parse(MINIMAL) as Json;
    const choices = readChoices(blis.validateScenario(choiceProbe(doc, KNOBS)), KNOBS);
    expect(choices['router']).toEqual(expect.arrayContaining(['round-robin', 'epp']));
    expect(choices['nic']).toEqual(['per_gpu', 'per_node']);
    expect(choices['spec_method']).toEqual(expect.arrayContaining(['ngram', 'eagle', 'draft_model']));
    for (const k of KNOBS.filter((x) => x.kind === 'select')) expect(choices[k.id], k.id).toBeDefined();
  });

  it('pp 2 from the form is valid and changes the run', () => {
    const doc = JSON.parse(MINIMAL) as Json;
    const pp2 = knob('pp').set(doc, 2);
    expect(errorsOf(pp2)).toEqual([]);
    const digest = (d: Json) => {
      const sim = new blis.Simulation();
      sim.load(JSON.stringify(d));
      sim.advance(3e6, 1e6);
      const out = sim.digest();
      sim.delete();
      return out;
    };
    expect(digest(pp2)).not.toBe(digest(doc));
  });

  it('dp 2 on a dense model is accepted (independent DP ranks, as vLLM runs them) and runs', () => {
    const dp2 = knob('dp').set(JSON.parse(MINIMAL) as Json, 2);
    expect(errorsOf(dp2)).toEqual([]);
    const sim = new blis.Simulation();
    sim.load(JSON.stringify(dp2));
    sim.advance(3e6, 1e6);
    expect(sim.steps()).toBeGreaterThan(0);
    sim.delete();
  });

  it('a speculative method needs its draft tokens: the error names the draft-token knob', () => {
    const doc = knob('spec_method').set(JSON.parse(MINIMAL) as Json, 'ngram');
    expect(errorsOf(doc).map((d) => d.pointer)).toEqual([knob('num_speculative_tokens').pointer]);
    expect(errorsOf(knob('num_speculative_tokens').set(doc, 3))).toEqual([]);
  });

  it('the scorer knobs name the scorers the decoder accepts, and a weighted router from them runs', () => {
    const probe = setAt(JSON.parse(MINIMAL) as Json, '/router', { policy: 'weighted', scorers: [{ name: 0 }] });
    const msg = errorsOf(probe).find((d) => d.pointer === '/router/scorers/0/name')?.message ?? '';
    expect([...msg.matchAll(/"([^"]+)"/g)].map((m) => m[1])).toEqual([...SCORER_NAMES]);
    let doc = JSON.parse(MINIMAL) as Json;
    doc = knob('scorer_prefix-cache').set(doc, true);
    doc = knob('scorer_queue-depth_weight').set(doc, 2);
    expect(errorsOf(doc)).toEqual([]);
    // Every weight 0: the error is the list's, which the first scorer's field shows.
    const zero = knob('scorer_queue-depth_weight').set(knob('scorer_prefix-cache_weight').set(doc, 0), 0);
    const e = errorsOf(zero);
    expect(e.map((d) => d.pointer)).toEqual(['/router/scorers']);
    expect(knob('scorer_queue-depth').ownsAt!(zero, e[0]!.pointer)).toBe(true);
  });

  it('every example EPP config from the picker, on a scenario it fits, is valid', () => {
    for (const e of EPP_EXAMPLES) {
      const raw = readFileSync(fileURLToPath(new URL(`../../../examples/${e.file}`, import.meta.url)), 'utf8');
      const doc = knob('epp_config').set(knob('epp_config').set(JSON.parse(raw) as Json, ''), e.text);
      expect(getAt(doc, '/router/policy'), e.file).toBe('epp');
      expect(errorsOf(doc), e.file).toEqual([]);
      const sim = new blis.Simulation();
      expect(
        sim.load(JSON.stringify(doc)).filter((d) => d.severity === 'error'),
        e.file,
      ).toEqual([]);
      sim.delete();
    }
    // A broken YAML config: the error is at /router/epp_config, which the EPP field shows;
    // the validator and the run's load report it alike (cluster::validate_scenario).
    const bad = JSON.stringify(knob('epp_config').set(JSON.parse(MINIMAL) as Json, 'plugins: ['));
    expect(blis.validateScenario(bad).find((d) => d.severity === 'error')).toMatchObject({
      pointer: '/router/epp_config',
      message: /line 1/,
    });
    const sim = new blis.Simulation();
    const diags = sim.load(bad);
    sim.delete();
    expect(diags.find((d) => d.severity === 'error')).toMatchObject({ pointer: '/router/epp_config', message: /line 1/ });
  });
});

describe('the mechanism view and the trace export', () => {
  it('the snapshot lists the batch in flight: its prefill chunks, decodes and tokens', () => {
    const sim = new blis.Simulation();
    expect(sim.load(MINIMAL).filter((d) => d.severity === 'error')).toEqual([]);
    let seen = false;
    for (let k = 0; k < 40 && !seen; k++) {
      sim.advanceOneStep();
      const s = JSON.parse(sim.engineSnapshot(0)) as {
        batches: {
          id: number;
          tokens: number;
          prefill_tokens: number;
          prefills: number;
          decodes: number;
          entries: { tokens: number; k: number }[];
        }[];
      };
      for (const b of s.batches) {
        expect(b.entries.reduce((n, e) => n + e.tokens, 0)).toBe(b.tokens);
        expect(b.prefills + b.decodes).toBe(b.entries.length);
        seen = seen || b.entries.length > 0;
      }
    }
    expect(seen).toBe(true);
    sim.delete();
  });

  it('stepTrace gives every step of the run per instance, each with its batch and time', () => {
    const sim = new blis.Simulation();
    sim.load(MINIMAL);
    while (sim.advanceOneStep());
    const trace = JSON.parse(blis.stepTrace(MINIMAL, 1e6)) as {
      instances: string[];
      truncated: boolean;
      steps: { start_us: number; end_us: number; tokens: number; requests: number }[];
    };
    expect(trace.instances).toEqual(sim.instanceNames());
    expect(trace.truncated).toBe(false);
    // Every engine step of the run is one slice (empty batches are not steps).
    expect(trace.steps.length).toBe(sim.steps());
    for (const s of trace.steps) {
      expect(s.end_us).toBeGreaterThan(s.start_us);
      expect(s.tokens).toBeGreaterThan(0);
    }
    expect(JSON.parse(blis.stepTrace(MINIMAL, 5)).truncated).toBe(true);
    expect(() => blis.stepTrace('{"schema": 1}', 10)).toThrow(/errors/);
    sim.delete();
  });
});

describe('a pasted config.json', () => {
  const config = readFileSync(
    fileURLToPath(new URL('../../../tests/catalog/fixtures/hf-configs/Llama-2-7b-hf.json', import.meta.url)),
    'utf8',
  );

  it('imports, runs inline in a scenario, and its prices say they are estimates', async () => {
    const { withImportedModel } = await import('../scenario/import_model');
    const r = blis.importHfConfig(config, 'acme/llama-copy');
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const doc = withImportedModel(JSON.parse(MINIMAL) as Json, JSON.parse(r.entry) as { [k: string]: Json });
    const text = JSON.stringify(doc);
    expect(blis.validateScenario(text).filter((d) => d.severity === 'error')).toEqual([]);
    const sim = new blis.Simulation();
    sim.load(text);
    sim.advance(2e6, 1e6);
    const prov = (JSON.parse(sim.summaryJson()) as { provenance: { catalog: string[] } }).provenance;
    expect(prov.catalog.some((l) => /^model acme\/llama-copy.*estimate: no calibration run covers it/.test(l))).toBe(true);
    sim.delete();
  });

  it('names what it cannot read', () => {
    const r = blis.importHfConfig('{"architectures": ["LlamaForCausalLM"]}', 'x');
    expect(r.entry).toBe('');
    expect(r.diagnostics.some((d) => d.severity === 'error' && d.pointer.length > 1)).toBe(true);
  });
});
