// What each chart shows, computed from runs' time series: the chart spec (series, axes,
// units) and the aligned data for uPlot. One run: a line per instance. Two runs (compare):
// cluster aggregates of A (solid) and B (dashed), joined on time.

import uPlot from 'uplot';
import { perInstance, THROUGHPUT_COLUMN, TIME_COLUMN } from '../lib/columns';
import { decimate, empiricalCdf } from '../lib/series_store';
import type { RunLatencies } from '../protocol';
import { fmtMs } from '../ui/format';
import type { ChartSpec, SeriesSpec } from './chart_panel';

export interface RunData {
  label: string; // "A", "B" (compare) or "" (single)
  columns: readonly string[];
  instances: readonly string[];
  column(name: string): Float64Array;
  latencies?: RunLatencies;
}

export interface ChartView {
  spec: ChartSpec;
  data: uPlot.AlignedData;
}

export const INSTANCE_COLORS = ['#2563eb', '#16a34a', '#d97706', '#9333ea', '#db2777', '#0891b2', '#65a30d', '#dc2626'];
const RUN_DASH: (number[] | undefined)[] = [undefined, [7, 4]];
const TTFT = ['#60a5fa', '#1d4ed8']; // p50, p99
const ITL = ['#fbbf24', '#c2410c'];
const RUNNING = '#2563eb';
const WAITING = '#dc2626';

const timeAxis = { label: 'simulated time (s)', format: (v: number) => `${+v.toFixed(1)}` };
const pctFmt = (v: number) => `${+v.toFixed(1)}%`;
const countFmt = (v: number) => `${+v.toFixed(1)}`;
const msFmt = (v: number) => fmtMs(v);
const tokFmt = (v: number) => (Math.abs(v) >= 1000 ? `${+(v / 1000).toFixed(1)}k` : `${+v.toFixed(0)}`);

function instanceColor(i: number): string {
  return INSTANCE_COLORS[i % INSTANCE_COLORS.length]!;
}

function suffix(run: RunData): string {
  return run.label ? ` ${run.label}` : '';
}

/** Sum or mean across the given columns, row by row. */
function combine(run: RunData, cols: string[], how: 'sum' | 'mean', scale = 1): Float64Array {
  const n = run.column(TIME_COLUMN).length;
  const out = new Float64Array(n);
  if (cols.length === 0) return out.fill(NaN);
  for (const c of cols) {
    const v = run.column(c);
    for (let i = 0; i < n; i++) out[i]! += v[i]!;
  }
  const k = (how === 'mean' ? 1 / cols.length : 1) * scale;
  for (let i = 0; i < n; i++) out[i]! *= k;
  return out;
}

function scaled(v: Float64Array, k: number): Float64Array {
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * k;
  return out;
}

function col(run: RunData, name: string): Float64Array {
  return run.columns.includes(name) ? run.column(name) : new Float64Array(run.column(TIME_COLUMN).length).fill(NaN);
}

/** NaN (a window with no sample) as null, which uPlot draws as a gap, never as 0. */
export function withGaps(v: Float64Array): (number | null)[] | Float64Array {
  if (!v.some((x) => Number.isNaN(x))) return v;
  return Array.from(v, (x) => (Number.isNaN(x) ? null : x));
}

/** Decimates each run's table, then joins them on x (compare) or returns it (single). */
export function assemble(tables: [Float64Array, Float64Array[]][], maxPoints: number): uPlot.AlignedData {
  const dec = tables.map(([x, ys]) => {
    const [dx, dys] = decimate(x, ys, maxPoints);
    return [dx, ...dys.map(withGaps)] as uPlot.AlignedData;
  });
  if (dec.length === 1) return dec[0]!;
  // Keep the nulls of gaps (nullMode 1); rows only one run has are spanned (undefined).
  return uPlot.join(
    dec,
    dec.map((t) => t.map(() => 1)),
  );
}

/** How per-instance metrics are drawn: one line per pool (aggregate) or per instance. */
export type InstanceMode = 'pool' | 'instance';

/** Instances grouped by pool (`<pool>-<i>`), in first-seen order: P/D prefill and decode apart. */
export function poolsOf(instances: readonly string[]): [string, string[]][] {
  const m = new Map<string, string[]>();
  for (const i of instances) {
    const pool = i.replace(/-\d+$/, '');
    if (!m.has(pool)) m.set(pool, []);
    m.get(pool)!.push(i);
  }
  return [...m];
}

export function kvView(runs: RunData[], maxPoints: number, mode: InstanceMode = 'instance'): ChartView {
  const y = { label: 'KV cache used (%)', format: pctFmt, range: [0, 100] as [number, number] };
  if (runs.length === 1 && mode === 'pool') {
    const run = runs[0]!;
    const pools = poolsOf(run.instances);
    const series: SeriesSpec[] = [];
    const cols: Float64Array[] = [];
    pools.forEach(([pool, insts], p) => {
      const c = perInstance(run.columns, 'kv_usage', insts);
      series.push({ label: `${pool} mean`, color: instanceColor(p) });
      cols.push(combine(run, c, 'mean', 100));
    });
    return { spec: { x: timeAxis, y, series }, data: assemble([[run.column(TIME_COLUMN), cols]], maxPoints) };
  }
  if (runs.length === 1) {
    const run = runs[0]!;
    const cols = perInstance(run.columns, 'kv_usage', run.instances);
    return {
      spec: { x: timeAxis, y, series: cols.map((_, i) => ({ label: run.instances[i]!, color: instanceColor(i) })) },
      data: assemble([[run.column(TIME_COLUMN), cols.map((c) => scaled(run.column(c), 100))]], maxPoints),
    };
  }
  const series: SeriesSpec[] = [];
  const tables: [Float64Array, Float64Array[]][] = [];
  runs.forEach((run, r) => {
    const cols = perInstance(run.columns, 'kv_usage', run.instances);
    series.push({ label: `mean${suffix(run)}`, color: INSTANCE_COLORS[0]!, dash: RUN_DASH[r] });
    series.push({ label: `max${suffix(run)}`, color: INSTANCE_COLORS[4]!, dash: RUN_DASH[r], width: 1.2 });
    const n = run.column(TIME_COLUMN).length;
    const max = new Float64Array(n).fill(cols.length ? -Infinity : NaN);
    for (const c of cols) {
      const v = run.column(c);
      for (let i = 0; i < n; i++) max[i] = Math.max(max[i]!, v[i]! * 100);
    }
    tables.push([run.column(TIME_COLUMN), [combine(run, cols, 'mean', 100), max]]);
  });
  return { spec: { x: timeAxis, y, series }, data: assemble(tables, maxPoints) };
}

export function queueView(runs: RunData[], maxPoints: number, mode: InstanceMode = 'instance'): ChartView {
  const y = { label: 'requests', format: countFmt, range: [0, null] as [number, null] };
  if (runs.length === 1 && mode === 'pool') {
    const run = runs[0]!;
    const series: SeriesSpec[] = [];
    const cols: Float64Array[] = [];
    poolsOf(run.instances).forEach(([pool, insts], p) => {
      series.push(
        { label: `running ${pool}`, color: instanceColor(p) },
        { label: `waiting ${pool}`, color: instanceColor(p), dash: [5, 3] },
      );
      cols.push(
        combine(run, perInstance(run.columns, 'running', insts), 'sum'),
        combine(run, perInstance(run.columns, 'waiting', insts), 'sum'),
      );
    });
    return { spec: { x: timeAxis, y, series }, data: assemble([[run.column(TIME_COLUMN), cols]], maxPoints) };
  }
  if (runs.length === 1) {
    const run = runs[0]!;
    const running = perInstance(run.columns, 'running', run.instances);
    const waiting = perInstance(run.columns, 'waiting', run.instances);
    const many = run.instances.length > 1;
    const series: SeriesSpec[] = [
      ...running.map((_, i) => ({ label: `running ${run.instances[i]}`, color: many ? instanceColor(i) : RUNNING })),
      ...waiting.map((_, i) => ({
        label: `waiting ${run.instances[i]}`,
        color: many ? instanceColor(i) : WAITING,
        dash: [5, 3],
      })),
    ];
    return {
      spec: { x: timeAxis, y, series },
      data: assemble([[run.column(TIME_COLUMN), [...running, ...waiting].map((c) => run.column(c))]], maxPoints),
    };
  }
  const series: SeriesSpec[] = [];
  const tables: [Float64Array, Float64Array[]][] = [];
  runs.forEach((run, r) => {
    series.push({ label: `running${suffix(run)}`, color: RUNNING, dash: RUN_DASH[r] });
    series.push({ label: `waiting${suffix(run)}`, color: WAITING, dash: RUN_DASH[r] });
    tables.push([
      run.column(TIME_COLUMN),
      [
        combine(run, perInstance(run.columns, 'running', run.instances), 'sum'),
        combine(run, perInstance(run.columns, 'waiting', run.instances), 'sum'),
      ],
    ]);
  });
  return { spec: { x: timeAxis, y, series }, data: assemble(tables, maxPoints) };
}

/** SLO targets drawn as flat lines on the latency chart (ms). */
export interface LatencySlo {
  ttftMs?: number;
  itlMs?: number;
}

export function latencyView(runs: RunData[], maxPoints: number, slo: LatencySlo = {}): ChartView {
  const series: SeriesSpec[] = [];
  const tables: [Float64Array, Float64Array[]][] = [];
  runs.forEach((run, r) => {
    const n = run.column(TIME_COLUMN).length;
    const flat: Float64Array[] = [];
    if (r === 0 && slo.ttftMs !== undefined) {
      series.push({ label: 'SLO TTFT', color: '#6b7280', dash: [2, 3], width: 1.2 });
      flat.push(new Float64Array(n).fill(slo.ttftMs));
    }
    if (r === 0 && slo.itlMs !== undefined) {
      series.push({ label: 'SLO TPOT', color: '#a8a29e', dash: [2, 3], width: 1.2, scale: 'y2' });
      flat.push(new Float64Array(n).fill(slo.itlMs));
    }
    const dash = RUN_DASH[r];
    series.push(
      { label: `TTFT p50${suffix(run)}`, color: TTFT[0]!, dash, gaps: true, positive: true },
      { label: `TTFT p99${suffix(run)}`, color: TTFT[1]!, dash, gaps: true, positive: true },
      // Not positive: tokens delivered together (speculative decoding) have 0 ms gaps.
      { label: `ITL p50${suffix(run)}`, color: ITL[0]!, dash, scale: 'y2', gaps: true },
      { label: `ITL p99${suffix(run)}`, color: ITL[1]!, dash, scale: 'y2', gaps: true },
    );
    tables.push([
      run.column(TIME_COLUMN),
      [...flat, ...['ttft_p50_ms', 'ttft_p99_ms', 'itl_p50_ms', 'itl_p99_ms'].map((c) => col(run, c))],
    ]);
  });
  return {
    spec: {
      x: timeAxis,
      y: { label: 'TTFT', format: msFmt, range: [0, null] },
      y2: { label: 'ITL', format: msFmt, range: [0, null] },
      series,
    },
    data: assemble(tables, maxPoints),
  };
}

export function throughputView(runs: RunData[], maxPoints: number): ChartView {
  const series: SeriesSpec[] = [];
  const tables: [Float64Array, Float64Array[]][] = [];
  runs.forEach((run, r) => {
    series.push({ label: `generated tok/s${suffix(run)}`, color: r === 0 ? '#0f766e' : '#7c3aed', dash: RUN_DASH[r] });
    tables.push([run.column(TIME_COLUMN), [col(run, THROUGHPUT_COLUMN)]]);
  });
  return {
    spec: {
      x: timeAxis,
      y: { label: 'tokens/s', format: tokFmt, range: [0, null] },
      series,
    },
    data: assemble(tables, maxPoints),
  };
}

/** Latency CDFs at the end of a run: TTFT and end-to-end per request (log time axis). */
export function cdfView(runs: RunData[]): ChartView | undefined {
  const done = runs.filter((r) => r.latencies && r.latencies.ttftMs.length > 0);
  if (done.length === 0) return undefined;
  const series: SeriesSpec[] = [];
  const tables: uPlot.AlignedData[] = [];
  done.forEach((run, r) => {
    const lat = run.latencies!;
    const metrics: [string, Float64Array, string][] = [
      ['TTFT', lat.ttftMs, TTFT[1]!],
      ['ITL (mean per request)', lat.itlMs, ITL[1]!],
      ['end-to-end', lat.e2eMs, '#0f766e'],
    ];
    for (const [label, samples, color] of metrics) {
      const positive = samples.filter((v) => v > 0);
      if (positive.length === 0) continue;
      const [xs, ps] = empiricalCdf(positive, 400);
      series.push({ label: `${label}${suffix(run)}`, color, dash: RUN_DASH[runs.indexOf(run)] ?? RUN_DASH[r] });
      tables.push([xs, scaled(ps, 100)]);
    }
  });
  if (tables.length === 0) return undefined;
  return {
    spec: {
      x: { label: 'latency (log scale)', format: msFmt, log: true },
      y: { label: 'requests (%)', format: (v) => `${+v.toFixed(0)}%`, range: [0, 100] },
      series,
    },
    data: tables.length === 1 ? tables[0]! : uPlot.join(tables),
  };
}
