// The worker's logic, independent of the Worker global so unit tests drive it directly:
// one request in, responses out. Holds up to two simulations (slots A and B).

import { latenciesFromCsv } from '../lib/requests_csv';
import type { ExportKind, Progress, SlotId, Summary, WorkerRequest, WorkerResponse } from '../protocol';
import type { SimulationBackend, SimulationModule } from './backend';

interface Slot {
  sim: SimulationBackend;
  gen: number;
  loaded: boolean;
  sentRows: number; // rows of the time series already posted to the page
  json: string; // the scenario, for the step trace's replay
  name: string; // scenario name, for export file names
}

function slugify(s: string): string {
  return (
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 48) || 'scenario'
  );
}

/** Steps in a trace export at most (a trace viewer stays responsive; the trace says so). */
const MAX_TRACE_STEPS = 200_000;

export class WorkerCore {
  private readonly slots = new Map<SlotId, Slot>();

  constructor(private readonly module: SimulationModule) {}

  handle(req: WorkerRequest): WorkerResponse[] {
    switch (req.kind) {
      case 'hello': {
        const ids = this.module.catalogIds();
        return [
          {
            kind: 'ready',
            version: this.module.version(),
            catalog: { gpus: ids.gpus, models: ids.models, fabrics: ids.fabrics },
          },
        ];
      }
      case 'validate': {
        const diagnostics = this.module.validate(req.json);
        const effective = diagnostics.some((d) => d.severity === 'error') ? '' : this.module.effective(req.json);
        return [{ kind: 'validated', id: req.id, diagnostics, effective }];
      }
      case 'import':
        return [this.importConfig(req.id, req.config, req.modelId)];
      case 'load':
        return [this.load(req.slot, req.gen, req.json)];
      case 'unload':
        this.slots.get(req.slot)?.sim.dispose();
        this.slots.delete(req.slot);
        return [];
      case 'advance': {
        const slot = this.ready(req.slot, req.gen);
        if (!slot.sim.done()) slot.sim.advance(req.untilUs, req.maxEvents);
        return [this.withSnapshot(this.progress(req.slot, slot, req.wantSummary), slot, req.snapshotOf)];
      }
      case 'step': {
        const slot = this.ready(req.slot, req.gen);
        if (!slot.sim.done()) slot.sim.advanceOneStep();
        return [this.withSnapshot(this.progress(req.slot, slot, true), slot, req.snapshotOf)];
      }
      case 'reset': {
        const slot = this.ready(req.slot, undefined);
        slot.sim.reset();
        slot.gen = req.gen;
        slot.sentRows = 0;
        return [this.progress(req.slot, slot, true)];
      }
      case 'export':
        return [this.exportFiles(req.slot, req.what, req.instance)];
      case 'snapshot': {
        const slot = this.ready(req.slot, req.gen);
        return [{ kind: 'snapshot', slot: req.slot, gen: slot.gen, json: slot.sim.engineSnapshot(req.instance) }];
      }
    }
  }

  private importConfig(id: number, config: string, modelId: string): WorkerResponse {
    try {
      const r = this.module.importHfConfig(config, modelId);
      return { kind: 'imported', id, entry: r.entry, diagnostics: r.diagnostics };
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      return { kind: 'imported', id, entry: '', diagnostics: [{ pointer: '', message, severity: 'error' }] };
    }
  }

  private load(id: SlotId, gen: number, json: string): WorkerResponse {
    let slot = this.slots.get(id);
    if (!slot) {
      slot = { sim: this.module.create(), gen, loaded: false, sentRows: 0, name: 'scenario', json };
      this.slots.set(id, slot);
    }
    slot.gen = gen;
    slot.sentRows = 0;
    slot.json = json;
    const diagnostics = slot.sim.load(json);
    slot.loaded = !diagnostics.some((d) => d.severity === 'error');
    if (!slot.loaded) return { kind: 'loaded', slot: id, gen, diagnostics, ok: false, columns: [], instances: [] };
    try {
      const name = (JSON.parse(json) as { name?: unknown }).name;
      slot.name = typeof name === 'string' ? slugify(name) : 'scenario';
    } catch {
      slot.name = 'scenario';
    }
    return {
      kind: 'loaded',
      slot: id,
      gen,
      diagnostics,
      ok: true,
      columns: slot.sim.seriesColumns(),
      instances: slot.sim.instanceNames(),
    };
  }

  private withSnapshot(p: Progress, slot: Slot, instance: number | undefined): Progress {
    if (instance !== undefined && instance >= 0 && instance < slot.sim.instanceNames().length) {
      p.snapshot = slot.sim.engineSnapshot(instance);
    }
    return p;
  }

  private ready(id: SlotId, gen: number | undefined): Slot {
    const slot = this.slots.get(id);
    if (!slot || !slot.loaded) throw new Error(`no scenario is loaded in slot ${id.toUpperCase()}`);
    if (gen !== undefined && gen !== slot.gen) throw new StaleRequest();
    return slot;
  }

  private progress(id: SlotId, slot: Slot, wantSummary: boolean): Progress {
    const sim = slot.sim;
    const total = sim.seriesLength();
    const from = Math.min(slot.sentRows, total);
    const ncol = sim.seriesColumns().length;
    const columns: Float64Array[] = [];
    for (let i = 0; i < ncol; i++) columns.push(sim.seriesColumn(i, from));
    slot.sentRows = total;
    const done = sim.done();
    const out: Progress = {
      kind: 'progress',
      slot: id,
      gen: slot.gen,
      nowUs: sim.nowUs(),
      steps: sim.steps(),
      events: sim.events(),
      done,
      delta: { from, columns },
    };
    if (wantSummary || done) out.summary = JSON.parse(sim.summaryJson()) as Summary;
    if (done) out.latencies = latenciesFromCsv(sim.requestsCsv());
    return out;
  }

  private exportFiles(id: SlotId, what: ExportKind, instance?: number): WorkerResponse {
    const slot = this.ready(id, undefined);
    const base = `${slot.name}${id === 'b' ? '-b' : ''}`;
    switch (what) {
      case 'summary':
        return { kind: 'exported', slot: id, what, files: [{ name: `${base}-summary.json`, text: slot.sim.summaryJson() }] };
      case 'requests':
        return { kind: 'exported', slot: id, what, files: [{ name: `${base}-requests.csv`, text: slot.sim.requestsCsv() }] };
      case 'timeseries':
        return {
          kind: 'exported',
          slot: id,
          what,
          files: [{ name: `${base}-timeseries.json`, text: slot.sim.timeseriesJson() }],
        };
      case 'steps':
        // The whole run's steps, replayed apart (the page's run may be anywhere in time).
        return {
          kind: 'exported',
          slot: id,
          what,
          files: [{ name: `${base}-steps.json`, text: this.module.stepTrace(slot.json, MAX_TRACE_STEPS) }],
        };
      case 'metrics': {
        // One instance's exposition (a Prometheus scrape is per instance), or all of them.
        const names = slot.sim.instanceNames();
        const which = instance === undefined ? names.map((_, i) => i) : [instance];
        return {
          kind: 'exported',
          slot: id,
          what,
          files: which.map((i) => ({ name: `${base}-${names[i] ?? i}.prom`, text: slot.sim.metricsText(i) })),
        };
      }
    }
  }
}

/** A request for an older run (the page has since reloaded or reset the slot): dropped. */
export class StaleRequest extends Error {
  constructor() {
    super('stale request');
  }
}
