// The worker core against a scripted backend (a test double that records calls), so the
// protocol logic is checked independently of the simulator: deltas, generations, exports.
import { describe, expect, it } from 'vitest';
import type { Diagnostic, Progress, WorkerResponse } from '../protocol';
import type { SimulationBackend, SimulationModule } from './backend';
import { StaleRequest, WorkerCore } from './worker_core';

class ScriptedSim implements SimulationBackend {
  now = 0;
  rows: number[] = [];
  calls: string[] = [];
  constructor(private readonly horizonUs = 3_000_000) {}
  load(json: string): Diagnostic[] {
    this.calls.push('load');
    const doc = JSON.parse(json) as { bad?: boolean };
    return doc.bad ? [{ pointer: '/bad', message: 'is bad', severity: 'error' }] : [];
  }
  advance(untilUs: number) {
    this.calls.push(`advance ${untilUs}`);
    while (this.now + 1_000_000 <= Math.min(untilUs, this.horizonUs)) {
      this.now += 1_000_000;
      this.rows.push(this.now / 1e6);
    }
  }
  advanceOneStep() {
    this.calls.push('step');
    this.now += 10;
  }
  done() {
    return this.now >= this.horizonUs;
  }
  nowUs() {
    return this.now;
  }
  steps() {
    return this.now / 10;
  }
  events() {
    return this.now / 5;
  }
  seriesColumns() {
    return ['time_s', 'kv_usage[main-0]'];
  }
  seriesLength() {
    return this.rows.length;
  }
  seriesColumn(i: number, from: number) {
    return Float64Array.from(this.rows.slice(from), (v) => (i === 0 ? v : v / 10));
  }
  instanceNames() {
    return ['main-0', 'main-1'];
  }
  summaryJson() {
    return JSON.stringify({ sim: { simulated_s: this.now / 1e6 } });
  }
  timeseriesJson() {
    return JSON.stringify({ rows: this.rows.length });
  }
  metricsText(i: number) {
    return `# instance ${i}\n`;
  }
  engineSnapshot(i: number) {
    return JSON.stringify({ instance: i });
  }
  requestsCsv() {
    return 'arrival_s,first_token_s,finish_s,output_tokens\n0,0.1,1.1,11\n';
  }
  reset() {
    this.now = 0;
    this.rows = [];
    this.calls.push('reset');
  }
  dispose() {}
}

function makeCore() {
  const sims: ScriptedSim[] = [];
  const module: SimulationModule = {
    version: () => '9.9.9',
    catalogIds: () => ({ gpus: ['G1'], models: ['m/1'], fabrics: [] }),
    validate: (json) => (json.includes('"bad"') ? [{ pointer: '/bad', message: 'is bad', severity: 'error' }] : []),
    effective: (json) => JSON.stringify({ ...(JSON.parse(json) as object), defaulted: true }),
    importHfConfig: (config, id) =>
      config.includes('hidden_size')
        ? { entry: JSON.stringify({ id }), diagnostics: [] }
        : { entry: '', diagnostics: [{ pointer: '/hidden_size', message: 'missing', severity: 'error' }] },
    stepTrace: (json, maxSteps) => JSON.stringify({ instances: ['i0'], steps: [], truncated: false, json, maxSteps }),
    create: () => {
      const s = new ScriptedSim();
      sims.push(s);
      return s;
    },
  };
  return { core: new WorkerCore(module), sims };
}

const progress = (rs: WorkerResponse[]) => rs[0] as Progress;

describe('WorkerCore', () => {
  it('answers hello and validate', () => {
    const { core } = makeCore();
    expect(core.handle({ kind: 'hello' })).toEqual([
      { kind: 'ready', version: '9.9.9', catalog: { gpus: ['G1'], models: ['m/1'], fabrics: [] } },
    ]);
    expect(core.handle({ kind: 'validate', id: 4, json: '{"bad": 1}' })).toEqual([
      { kind: 'validated', id: 4, diagnostics: [{ pointer: '/bad', message: 'is bad', severity: 'error' }], effective: '' },
    ]);
    // A valid document comes back with its resolved form (every default written out).
    expect(core.handle({ kind: 'validate', id: 5, json: '{"good": 1}' })).toEqual([
      { kind: 'validated', id: 5, diagnostics: [], effective: '{"good":1,"defaulted":true}' },
    ]);
  });

  it('reports load errors and refuses to advance an invalid scenario', () => {
    const { core } = makeCore();
    const [loaded] = core.handle({ kind: 'load', slot: 'a', gen: 1, json: '{"bad": true}' });
    expect(loaded).toMatchObject({ kind: 'loaded', ok: false, columns: [] });
    expect(() => core.handle({ kind: 'advance', slot: 'a', gen: 1, untilUs: 1e6, maxEvents: 10, wantSummary: false })).toThrow(
      /no scenario is loaded in slot A/,
    );
  });

  it('posts only the new rows of the series after each advance', () => {
    const { core } = makeCore();
    const [loaded] = core.handle({ kind: 'load', slot: 'a', gen: 1, json: '{"name": "My Run"}' });
    expect(loaded).toMatchObject({ ok: true, columns: ['time_s', 'kv_usage[main-0]'], instances: ['main-0', 'main-1'] });
    const p1 = progress(core.handle({ kind: 'advance', slot: 'a', gen: 1, untilUs: 2e6, maxEvents: 10, wantSummary: false }));
    expect(p1.delta.from).toBe(0);
    expect(Array.from(p1.delta.columns[0]!)).toEqual([1, 2]);
    expect(p1.summary).toBeUndefined();
    const p2 = progress(core.handle({ kind: 'advance', slot: 'a', gen: 1, untilUs: 5e6, maxEvents: 10, wantSummary: true }));
    expect(p2.delta.from).toBe(2);
    expect(Array.from(p2.delta.columns[1]!)).toEqual([0.3]);
    expect(p2.done).toBe(true);
    expect(p2.summary).toEqual({ sim: { simulated_s: 3 } });
    expect(Array.from(p2.latencies!.ttftMs)).toEqual([100]);
  });

  it('steps once and resets to time zero under a new generation', () => {
    const { core, sims } = makeCore();
    core.handle({ kind: 'load', slot: 'a', gen: 1, json: '{}' });
    const p = progress(core.handle({ kind: 'step', slot: 'a', gen: 1 }));
    expect(p.steps).toBe(1);
    const r = progress(core.handle({ kind: 'reset', slot: 'a', gen: 2 }));
    expect(r).toMatchObject({ gen: 2, nowUs: 0, delta: { from: 0 } });
    expect(sims[0]!.calls).toEqual(['load', 'step', 'reset']);
    // An advance still carrying the old generation is stale and dropped.
    expect(() => core.handle({ kind: 'advance', slot: 'a', gen: 1, untilUs: 1e6, maxEvents: 1, wantSummary: false })).toThrow(
      StaleRequest,
    );
  });

  it('keeps slots A and B apart', () => {
    const { core, sims } = makeCore();
    core.handle({ kind: 'load', slot: 'a', gen: 1, json: '{}' });
    core.handle({ kind: 'load', slot: 'b', gen: 1, json: '{}' });
    core.handle({ kind: 'advance', slot: 'b', gen: 1, untilUs: 1e6, maxEvents: 1, wantSummary: false });
    expect(sims.map((s) => s.now)).toEqual([0, 1e6]);
  });

  it('exports summary, requests and one Prometheus file per instance', () => {
    const { core } = makeCore();
    core.handle({ kind: 'load', slot: 'b', gen: 1, json: '{"name": "Prefix cache: ON"}' });
    const [s] = core.handle({ kind: 'export', slot: 'b', what: 'summary' });
    expect(s).toMatchObject({ files: [{ name: 'prefix-cache-on-b-summary.json' }] });
    const [m] = core.handle({ kind: 'export', slot: 'b', what: 'metrics' });
    expect(m).toMatchObject({
      files: [{ name: 'prefix-cache-on-b-main-0.prom', text: '# instance 0\n' }, { name: 'prefix-cache-on-b-main-1.prom' }],
    });
    const [one] = core.handle({ kind: 'export', slot: 'b', what: 'metrics', instance: 1 });
    expect(one).toMatchObject({ files: [{ name: 'prefix-cache-on-b-main-1.prom', text: '# instance 1\n' }] });
  });
});
