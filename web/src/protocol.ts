// Messages between the page and the simulation worker. The worker owns the WASM module and
// up to two simulations (slot A, and B in compare mode); the page never calls into WASM.
//
// Flow: `load` → `loaded` (diagnostics; on success the series column names); then the page
// asks `advance` (to a simulated instant, bounded events per message so the worker answers
// quickly) or `step` (one engine step) and gets `progress` with the rows of the time series
// added since the previous message. `gen` is chosen by the page at each load/reset and
// echoed back, so answers to an older run are recognised and dropped.

import type { SeriesDelta } from './lib/series_store';

export type SlotId = 'a' | 'b';
export type Severity = 'error' | 'warning';

export interface Diagnostic {
  pointer: string; // JSON pointer into the scenario ("" = the document)
  message: string;
  severity: Severity;
}

/** `steps`: the run's engine steps per instance (stepTrace), for the Perfetto trace. */
export type ExportKind = 'summary' | 'requests' | 'metrics' | 'timeseries' | 'steps';

export type WorkerRequest =
  | { kind: 'hello' }
  | { kind: 'validate'; id: number; json: string }
  /** A pasted Hugging Face config.json as a catalog model entry (`blis catalog import`). */
  | { kind: 'import'; id: number; config: string; modelId: string }
  | { kind: 'load'; slot: SlotId; gen: number; json: string }
  | { kind: 'unload'; slot: SlotId }
  | { kind: 'advance'; slot: SlotId; gen: number; untilUs: number; maxEvents: number; wantSummary: boolean; snapshotOf?: number }
  | { kind: 'step'; slot: SlotId; gen: number; snapshotOf?: number }
  | { kind: 'reset'; slot: SlotId; gen: number }
  | { kind: 'export'; slot: SlotId; what: ExportKind; instance?: number }
  | { kind: 'snapshot'; slot: SlotId; gen: number; instance: number };

/** What the page needs to know about a run once it finished: latency samples per request. */
export interface RunLatencies {
  ttftMs: Float64Array;
  e2eMs: Float64Array;
  itlMs: Float64Array; // per request mean inter-token latency
}

export interface Progress {
  kind: 'progress';
  slot: SlotId;
  gen: number;
  nowUs: number;
  steps: number;
  events: number;
  done: boolean;
  delta: SeriesDelta;
  /** summary.json as parsed, when asked for (wantSummary) or when the run is done. */
  summary?: Summary;
  /** Per-request latencies, once the run is done. */
  latencies?: RunLatencies;
  /** The engine snapshot of the instance asked for (snapshotOf), as JSON text. */
  snapshot?: string;
}

export type WorkerResponse =
  | { kind: 'ready'; version: string; catalog: { gpus: string[]; models: string[]; fabrics: string[] } }
  | { kind: 'validated'; id: number; diagnostics: Diagnostic[]; effective: string }
  | { kind: 'imported'; id: number; entry: string; diagnostics: Diagnostic[] }
  | { kind: 'loaded'; slot: SlotId; gen: number; diagnostics: Diagnostic[]; ok: boolean; columns: string[]; instances: string[] }
  | Progress
  | { kind: 'exported'; slot: SlotId; what: ExportKind; files: { name: string; text: string }[] }
  | { kind: 'snapshot'; slot: SlotId; gen: number; json: string }
  | { kind: 'error'; slot?: SlotId; gen?: number; message: string };

/** A latency distribution as summary.json reports it (milliseconds). */
export interface LatencyStats {
  mean?: number;
  p50?: number;
  p90?: number;
  p95?: number;
  p99?: number;
  max?: number;
}

/** The parts of summary.json the page reads (docs/results.md). */
export interface Summary {
  requests?: { arrived?: number; finished?: number; aborted?: number; rejected?: number };
  ttft_ms?: LatencyStats;
  itl_ms?: LatencyStats;
  e2e_ms?: LatencyStats;
  tpot_ms?: LatencyStats;
  queue_ms?: LatencyStats;
  throughput?: { requests_per_s?: number; output_tokens_per_s?: number; input_tokens_per_s?: number };
  /** null when no SLO target is set (it would only restate throughput). */
  goodput_requests_per_s?: number | null;
  /** The scenario's SLO targets that are set (ms), and the classes' when any. */
  slo?: {
    ttft_ms?: number;
    itl_ms?: number;
    e2e_ms?: number;
    classes?: Record<string, { ttft_ms?: number; itl_ms?: number; e2e_ms?: number }>;
  };
  saturation?: {
    verdict: 'stable' | 'backlogged' | 'overloaded';
    reason: string;
    waiting_mean_first_half?: number;
    waiting_mean_second_half?: number;
    timed_out_or_rejected?: number;
  };
  preemptions?: number;
  prefix_cache_hit_rate?: number;
  kv_usage?: { mean?: number; max?: number };
  sim?: { events?: number; steps?: number; simulated_s?: number };
  /** Present when some pass's transfers between nodes were slowed by flows sharing their
   *  NICs (docs/networking.md "Collectives"). */
  network?: {
    passes_slowed?: number;
    collective_extra_ms?: number;
    passes_repriced?: number;
    kv_pulls?: number;
    kv_pull_ms_mean?: number;
    kv_pull_alone_ms_mean?: number;
  };
  digest?: string;
  [key: string]: unknown;
}

/** Transferable buffers of a response, so big arrays move instead of being copied. */
export function transferablesOf(r: WorkerResponse): Transferable[] {
  if (r.kind !== 'progress') return [];
  const out: Transferable[] = r.delta.columns.map((c) => c.buffer);
  if (r.latencies) out.push(r.latencies.ttftMs.buffer, r.latencies.e2eMs.buffer, r.latencies.itlMs.buffer);
  return out;
}

export function describeResponse(r: WorkerResponse): string {
  switch (r.kind) {
    case 'ready':
      return r.version;
    case 'error':
      return `error: ${r.message}`;
    case 'validated':
      return `${r.diagnostics.length} diagnostics`;
    case 'imported':
      return r.entry ? 'imported a model entry' : `not imported: ${r.diagnostics.length} diagnostics`;
    case 'loaded':
      return r.ok ? `loaded ${r.slot}` : `not loaded: ${r.diagnostics.length} errors`;
    case 'progress':
      return `${r.slot} at ${(r.nowUs / 1e6).toFixed(3)} s${r.done ? ' (done)' : ''}`;
    case 'exported':
      return `exported ${r.files.map((f) => f.name).join(', ')}`;
    case 'snapshot':
      return `snapshot of ${r.slot}`;
  }
}
