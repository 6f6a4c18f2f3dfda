// What the sweep view shows, computed from the C++ core's answers only: the normalized
// document (axes and their values), the points.jsonl rows and sweepRank's ranking and front.
// Nothing here decides an order or a front; it lays out what the core decided.

import type { Json } from '../scenario/knobs';
import type { PointRow, RankResult } from './protocol';

export interface Goal {
  metric: string;
  maximize: boolean;
}

export interface SweepAxis {
  name: string;
  /** The members' pointers (one, or the linked keys) and the axis's values per member. */
  pointers: string[];
  values: Json[][];
}

export interface SweepDoc {
  name: string;
  axes: SweepAxis[];
  pareto: Goal[];
}

export function goalOf(g: unknown): Goal {
  const o = (g ?? {}) as Record<string, unknown>;
  if (typeof o['maximize'] === 'string') return { metric: o['maximize'], maximize: true };
  return {
    metric: typeof o['minimize'] === 'string' ? o['minimize'] : '',
    maximize: false,
  };
}

/** Reads sweepCheck's normalized document (its shape is fixed by normalized_document). */
export function sweepDoc(normalized: string): SweepDoc {
  const d = JSON.parse(normalized) as {
    name?: string;
    axes?: {
      name: string;
      pointer?: string;
      values?: Json[];
      linked?: { pointer: string; values: Json[] }[];
    }[];
    pareto?: unknown[];
  };
  const axes = (d.axes ?? []).map((a) => {
    const members = a.linked ?? [{ pointer: a.pointer ?? '', values: a.values ?? [] }];
    return {
      name: a.name,
      pointers: members.map((m) => m.pointer),
      values: members.map((m) => m.values),
    };
  });
  return { name: d.name ?? '', axes, pareto: (d.pareto ?? []).map(goalOf) };
}

/** Six significant digits, as ranking.md prints numbers ("-" for none). */
export function fmtValue(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (typeof v === 'number') return String(Number(v.toPrecision(6)));
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

export interface TableRow {
  /** 1-based rank, or undefined while the point is not yet ranked. */
  rank?: number;
  index: number;
  axes: string[];
  objective: number | null;
  goals: (number | null)[];
  feasible: boolean;
  why: string;
  pareto: boolean;
  digest: string;
}

function axisCells(doc: SweepDoc, row: PointRow): string[] {
  return doc.axes.map((a) => a.pointers.map((p) => fmtValue(row.point[p])).join(', '));
}

/** Rows in rank order; rows the last ranking does not cover yet follow by index. */
export function tableRows(doc: SweepDoc, rows: PointRow[], ranking?: RankResult): TableRow[] {
  const byIndex = new Map(rows.map((r) => [r.index, r]));
  const front = new Map((ranking?.pareto ?? []).map((p) => [p.index, p.pareto]));
  const out: TableRow[] = [];
  const make = (row: PointRow, rank?: number): TableRow => ({
    rank,
    index: row.index,
    axes: axisCells(doc, row),
    objective: row.objective,
    goals: doc.pareto.map((g) => row.metrics[g.metric] ?? null),
    feasible: row.feasible,
    why: row.violations.join('; '),
    pareto: front.get(row.index) ?? false,
    digest: row.digest ?? '',
  });
  const seen = new Set<number>();
  for (const r of ranking?.ranking.ranked ?? []) {
    const row = byIndex.get(r.index);
    if (!row) continue;
    seen.add(r.index);
    out.push(make(row, r.rank));
  }
  const rest = rows.filter((r) => !seen.has(r.index)).sort((a, b) => a.index - b.index);
  for (const row of rest) out.push(make(row));
  return out;
}

export interface ScatterPoint {
  index: number;
  x: number;
  y: number;
  feasible: boolean;
  pareto: boolean;
}

/** The Pareto plot's points: every row with both goals (the front as the core marked it). */
export function scatterPoints(doc: SweepDoc, table: TableRow[]): ScatterPoint[] {
  if (doc.pareto.length < 2) return [];
  const out: ScatterPoint[] = [];
  for (const r of table) {
    const [x, y] = r.goals;
    if (typeof x !== 'number' || typeof y !== 'number') continue;
    out.push({ index: r.index, x, y, feasible: r.feasible, pareto: r.pareto });
  }
  return out;
}

export interface HeatCell {
  index: number;
  value: number | null;
  feasible: boolean;
}

export interface HeatMap {
  /** Axis 0 (rows) and axis 1 (columns; one column for a one-axis sweep). */
  rowAxis: SweepAxis;
  colAxis?: SweepAxis;
  cells: (HeatCell | undefined)[][];
}

function stepOf(axis: SweepAxis, row: PointRow): number {
  const pointer = axis.pointers[0] ?? '';
  const want = JSON.stringify(row.point[pointer]);
  return (axis.values[0] ?? []).findIndex((v) => JSON.stringify(v) === want);
}

/** The objective over a one- or two-axis grid (undefined for more axes). Each row is placed
 *  by its own axis values, so no grid arithmetic is restated here. */
export function heatMap(doc: SweepDoc, rows: PointRow[]): HeatMap | undefined {
  const [rowAxis, colAxis] = doc.axes;
  if (!rowAxis || doc.axes.length > 2) return undefined;
  const nr = rowAxis.values[0]?.length ?? 0;
  const nc = colAxis ? (colAxis.values[0]?.length ?? 0) : 1;
  const cells: (HeatCell | undefined)[][] = Array.from({ length: nr }, () => Array.from({ length: nc }, () => undefined));
  for (const row of rows) {
    const i = stepOf(rowAxis, row);
    const j = colAxis ? stepOf(colAxis, row) : 0;
    const line = cells[i];
    if (!line || j < 0 || j >= nc) continue;
    line[j] = {
      index: row.index,
      value: row.objective,
      feasible: row.feasible,
    };
  }
  return { rowAxis, colAxis, cells };
}
