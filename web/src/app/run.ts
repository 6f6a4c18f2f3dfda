// One simulation run as the page sees it (slot A or B): its time series, progress, summary
// and, once done, per-request latencies. Talks to the worker through SimClient and keeps at
// most one request in flight (two advances at max speed, so the worker finds the next one
// queued), so the worker never queues up stale work.

import { SeriesStore } from '../lib/series_store';
import type { Diagnostic, ExportKind, Progress, RunLatencies, SlotId, Summary } from '../protocol';
import { EventBudget, serviceMs } from './playback';
import type { RunResponse, SimClient } from './sim_client';

export type RunStatus = 'empty' | 'loading' | 'invalid' | 'ready' | 'running' | 'done' | 'failed';

export class Run {
  status: RunStatus = 'empty';
  gen = 0;
  columns: string[] = [];
  instances: string[] = [];
  store = new SeriesStore([]);
  nowUs = 0;
  steps = 0;
  events = 0;
  summary?: Summary;
  latencies?: RunLatencies;
  diagnostics: Diagnostic[] = [];
  error?: string;
  /** The mechanism view's instance (undefined: closed) and its latest engine snapshot. */
  snapshotOf?: number;
  snapshot?: string;
  /** Bumped whenever what the charts show changed. */
  version = 0;

  /** When each outstanding request was sent (ms, oldest first): answers come in order. */
  private sentAt: number[] = [];
  private lastAnswerAt = 0;
  private lastSummaryAt = 0;
  private readonly budget = new EventBudget();
  private loadWaiters: ((ok: boolean) => void)[] = [];
  private exportWaiters: ((files: { name: string; text: string }[]) => void)[] = [];

  constructor(
    readonly slot: SlotId,
    private readonly client: SimClient,
    private readonly onChange: (run: Run) => void,
  ) {
    client.listen(slot, (r) => this.receive(r));
  }

  get active(): boolean {
    return this.status === 'ready' || this.status === 'running' || this.status === 'done';
  }

  get done(): boolean {
    return this.status === 'done';
  }

  /** Loads a scenario; resolves true when it is valid and the run is ready at time 0. */
  load(json: string): Promise<boolean> {
    this.gen++;
    this.status = 'loading';
    this.sentAt = [];
    this.clearResults();
    this.client.post({ kind: 'load', slot: this.slot, gen: this.gen, json });
    this.onChange(this);
    return new Promise((resolve) => this.loadWaiters.push(resolve));
  }

  /** The scenario has errors: drop the run and keep its diagnostics. */
  invalidate(diagnostics: Diagnostic[]): void {
    this.unload();
    this.diagnostics = diagnostics;
    this.status = 'invalid';
    this.onChange(this);
  }

  unload(): void {
    this.gen++;
    this.status = 'empty';
    this.sentAt = [];
    this.clearResults();
    this.client.post({ kind: 'unload', slot: this.slot });
    this.onChange(this);
  }

  /** True while the run can still move forward (loaded, not finished). */
  get runnable(): boolean {
    return this.status === 'ready' || this.status === 'running';
  }

  /**
   * Called every animation frame while playing (and, at max speed, when an answer arrives):
   * asks the worker to advance towards `targetUs` (simulated µs), unless `inFlight` requests
   * are already outstanding.
   */
  advanceTo(targetUs: number, inFlight = 1): void {
    while (this.sentAt.length < inFlight && this.sendAdvance(targetUs));
  }

  private sendAdvance(targetUs: number): boolean {
    if (!this.runnable || targetUs <= this.nowUs) return false;
    const now = performance.now();
    const wantSummary = now - this.lastSummaryAt > 500;
    if (wantSummary) this.lastSummaryAt = now;
    this.status = 'running';
    this.send({
      kind: 'advance',
      slot: this.slot,
      gen: this.gen,
      untilUs: Math.floor(targetUs),
      maxEvents: this.budget.value,
      wantSummary,
      ...(this.snapshotOf !== undefined ? { snapshotOf: this.snapshotOf } : {}),
    });
    return true;
  }

  step(): void {
    if (!(this.status === 'ready' || this.status === 'running') || this.busy) return;
    this.status = 'running';
    this.send({
      kind: 'step',
      slot: this.slot,
      gen: this.gen,
      ...(this.snapshotOf !== undefined ? { snapshotOf: this.snapshotOf } : {}),
    });
  }

  reset(): void {
    if (!this.active) return;
    this.gen++;
    this.sentAt = [];
    this.clearResults();
    this.status = 'ready';
    this.send({ kind: 'reset', slot: this.slot, gen: this.gen });
    this.onChange(this);
  }

  /** Asks the worker for export files (summary.json, requests.csv, an instance's metrics). */
  export(what: ExportKind, instance?: number): Promise<{ name: string; text: string }[]> {
    return new Promise((resolve) => {
      this.exportWaiters.push(resolve);
      this.client.post({ kind: 'export', slot: this.slot, what, ...(instance !== undefined ? { instance } : {}) });
    });
  }

  /** Asks for the mechanism view's snapshot now (without advancing). */
  requestSnapshot(): void {
    if (!this.active || this.snapshotOf === undefined) return;
    this.client.post({ kind: 'snapshot', slot: this.slot, gen: this.gen, instance: this.snapshotOf });
  }

  get busy(): boolean {
    return this.sentAt.length > 0;
  }

  private send(req: Parameters<SimClient['post']>[0]): void {
    this.sentAt.push(performance.now());
    this.client.post(req);
  }

  private clearResults(): void {
    this.store = new SeriesStore(this.columns);
    this.nowUs = 0;
    this.steps = 0;
    this.events = 0;
    this.summary = undefined;
    this.latencies = undefined;
    this.snapshot = undefined;
    this.error = undefined;
    this.version++;
  }

  private receive(r: RunResponse): void {
    if (r.kind === 'error') {
      if (r.gen !== undefined && r.gen !== this.gen) return;
      if (r.gen === undefined && this.exportWaiters.length) {
        this.exportWaiters.shift()?.([]);
        this.error = r.message;
        this.onChange(this);
        return;
      }
      this.sentAt = [];
      this.status = 'failed';
      this.error = r.message;
      const waiters = this.loadWaiters;
      this.loadWaiters = [];
      waiters.forEach((w) => w(false));
      this.onChange(this);
      return;
    }
    if ('gen' in r && r.gen !== this.gen) return; // an answer about an older run
    switch (r.kind) {
      case 'loaded': {
        this.diagnostics = r.diagnostics;
        this.columns = r.columns;
        this.instances = r.instances;
        this.status = r.ok ? 'ready' : 'invalid';
        this.clearResults();
        const waiters = this.loadWaiters;
        this.loadWaiters = [];
        waiters.forEach((w) => w(r.ok));
        this.onChange(this);
        return;
      }
      case 'progress':
        this.applyProgress(r);
        return;
      case 'exported':
        this.exportWaiters.shift()?.(r.files);
        return;
      case 'snapshot':
        this.snapshot = r.json;
        this.version++;
        this.onChange(this);
        return;
      default:
        return;
    }
  }

  private applyProgress(p: Progress): void {
    const eventsBefore = this.events;
    const now = performance.now();
    this.budget.update(serviceMs(this.sentAt.shift() ?? now, this.lastAnswerAt, now), p.events - eventsBefore);
    this.lastAnswerAt = now;
    this.store.append(p.delta);
    this.nowUs = p.nowUs;
    this.steps = p.steps;
    this.events = p.events;
    if (p.summary) this.summary = p.summary;
    if (p.latencies) this.latencies = p.latencies;
    if (p.snapshot !== undefined) this.snapshot = p.snapshot;
    if (p.done) this.status = 'done';
    else if (this.status === 'done') this.status = 'ready'; // after a reset
    this.version++;
    this.onChange(this);
  }
}
