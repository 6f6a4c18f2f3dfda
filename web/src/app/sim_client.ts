// The page's side of the worker: posts requests, routes answers. Validation requests are
// answered by id (a promise each); run answers go to the listener of their slot.

import type { Diagnostic, SlotId, WorkerRequest, WorkerResponse } from '../protocol';

type RunResponse = Extract<WorkerResponse, { slot: SlotId }> | Extract<WorkerResponse, { kind: 'error' }>;

export class SimClient {
  readonly ready: Promise<string>;
  /** The built-in catalog's GPU, model and fabric ids (known once ready). */
  catalog: { gpus: string[]; models: string[]; fabrics: string[] } = { gpus: [], models: [], fabrics: [] };
  private nextId = 1;
  private readonly pending = new Map<number, (v: Validation) => void>();
  private readonly imports = new Map<number, (v: Imported) => void>();
  private readonly listeners = new Map<SlotId, (r: RunResponse) => void>();
  private onFatal: (message: string) => void = () => {};

  constructor(private readonly worker: Worker) {
    let resolveReady!: (v: string) => void;
    let rejectReady!: (e: Error) => void;
    this.ready = new Promise((res, rej) => {
      resolveReady = res;
      rejectReady = rej;
    });
    worker.onmessage = (ev: MessageEvent<WorkerResponse>) => {
      const r = ev.data;
      switch (r.kind) {
        case 'ready':
          this.catalog = r.catalog;
          resolveReady(r.version);
          return;
        case 'validated':
          this.pending.get(r.id)?.({ diagnostics: r.diagnostics, effective: r.effective });
          this.pending.delete(r.id);
          return;
        case 'imported':
          this.imports.get(r.id)?.({ entry: r.entry, diagnostics: r.diagnostics });
          this.imports.delete(r.id);
          return;
        case 'error':
          if (r.slot) this.listeners.get(r.slot)?.(r);
          else {
            rejectReady(new Error(r.message));
            this.onFatal(r.message);
          }
          return;
        default:
          this.listeners.get(r.slot)?.(r);
      }
    };
    worker.onerror = (ev) => {
      const message = ev.message || 'the simulation worker failed to start';
      rejectReady(new Error(message));
      this.onFatal(message);
    };
    this.post({ kind: 'hello' });
  }

  setFatalHandler(fn: (message: string) => void): void {
    this.onFatal = fn;
  }

  listen(slot: SlotId, fn: (r: RunResponse) => void): void {
    this.listeners.set(slot, fn);
  }

  post(req: WorkerRequest): void {
    this.worker.postMessage(req);
  }

  validate(json: string): Promise<Validation> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.post({ kind: 'validate', id, json });
    });
  }

  /** A pasted Hugging Face config.json as a catalog model entry named `modelId`. */
  importConfig(config: string, modelId: string): Promise<Imported> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.imports.set(id, resolve);
      this.post({ kind: 'import', id, config, modelId });
    });
  }
}

/** A scenario's diagnostics and, when it has no errors, its resolved form (every default). */
export interface Validation {
  diagnostics: Diagnostic[];
  effective: string;
}

/** An imported model entry (its JSON text, "" when the config has errors) and diagnostics. */
export interface Imported {
  entry: string;
  diagnostics: Diagnostic[];
}

export type { RunResponse };
