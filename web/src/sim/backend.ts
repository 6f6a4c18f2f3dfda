// What the worker needs from one simulation. WasmSimulation (wasm_backend.ts) implements it
// over the Embind `Simulation` class; the worker core depends only on this interface.

import type { Diagnostic } from '../protocol';

export interface SimulationBackend {
  /** Decodes and validates a scenario; on no errors the run is ready at time 0. */
  load(json: string): Diagnostic[];
  /** Runs events up to simulated time `untilUs` (µs) or `maxEvents` events, whichever first. */
  advance(untilUs: number, maxEvents: number): void;
  /** Runs until exactly one more engine step has completed (or the run is done). */
  advanceOneStep(): void;
  done(): boolean;
  nowUs(): number;
  steps(): number;
  events(): number;
  /** Names of the time-series columns (the first is time in seconds). */
  seriesColumns(): string[];
  seriesLength(): number;
  /** A copy of rows [from, seriesLength()) of column `index`. */
  seriesColumn(index: number, from: number): Float64Array;
  instanceNames(): string[];
  summaryJson(): string;
  /** timeseries.json (null for windows with no sample). */
  timeseriesJson(): string;
  metricsText(instance: number): string;
  requestsCsv(): string;
  /** The mechanism view's snapshot of one instance's engine (JSON text, "" if none). */
  engineSnapshot(instance: number): string;
  reset(): void;
  dispose(): void;
}

export interface CatalogIds {
  gpus: string[];
  models: string[];
  fabrics: string[];
}

export interface SimulationModule {
  version(): string;
  catalogIds(): CatalogIds;
  validate(json: string): Diagnostic[];
  /** The resolved document with every default written out; "" when it has errors. */
  effective(json: string): string;
  /** A Hugging Face config.json as a catalog model entry ("" on errors) and diagnostics. */
  importHfConfig(config: string, id: string): { entry: string; diagnostics: Diagnostic[] };
  /** The engine steps of a whole run of the scenario, per instance (JSON, see StepTrace). */
  stepTrace(json: string, maxSteps: number): string;
  create(): SimulationBackend;
}
