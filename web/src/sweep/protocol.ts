// Messages between the sweep view and its Web Workers. Every request carries the sweep
// document's text: the WASM calls are stateless (wasm/sweep_bindings.cpp), so any worker can
// run any point, and the answer to request `id` is `{id, ok, ...}`.

import type { Diagnostic } from '../protocol';

export type SweepRequest =
  | { id: number; kind: 'check'; text: string }
  | { id: number; kind: 'run'; text: string; index: number }
  | { id: number; kind: 'rank'; text: string; rows: string }
  | { id: number; kind: 'scenario'; text: string; index: number }
  | { id: number; kind: 'capacity'; scenario: string; query: string }
  /** How long to pause between slices of a point (pacer.ts); not answered. */
  | { id: number; kind: 'pace'; pauseMs: number };

export interface SweepCheck {
  diagnostics: Diagnostic[];
  /** Grid size (0 when the document does not decode). */
  points: number;
  /** The normalized document (base inlined), "" when there are errors. */
  document: string;
}

export type SweepResponse =
  | { id: number; ok: true; kind: 'check'; check: SweepCheck }
  | { id: number; ok: true; kind: 'text'; text: string }
  /** Sent before the answer to a capacity request: one probe done (its JSON text). */
  | { id: number; ok: true; kind: 'probe'; text: string }
  | { id: number; ok: false; message: string };

/** One row of points.jsonl (docs/sweeps.md), as `blis sweep` writes it. */
export interface PointRow {
  index: number;
  point: Record<string, unknown>;
  digest: string | null;
  feasible: boolean;
  violations: string[];
  objective: number | null;
  metrics: Record<string, number | null>;
}

/** What sweepRank answers: ranking.json, the front flag per row, ranking.md's table. */
export interface RankResult {
  ranking: {
    objective: Record<string, string>;
    pareto: Record<string, string>[];
    ranked: {
      rank: number;
      index: number;
      feasible: boolean;
      objective: number | null;
      pareto: boolean;
    }[];
  };
  pareto: { index: number; pareto: boolean }[];
  table: string;
}

/** One probe of a capacity search: one run at a rate or an instance count. */
export interface CapacityProbe {
  value: number;
  pass: boolean;
  saturated: boolean;
  why: string;
  digest: string;
}

/** blis capacity's result (wasm capacitySearch). */
export interface CapacityResult {
  vary: 'rate' | 'instances';
  probes: CapacityProbe[];
  answer: number | null;
  first_fail: number | null;
  /** The scenario at the answer (absent in older modules, null without an answer). */
  answer_scenario?: unknown;
  diagnostics: string[];
}
