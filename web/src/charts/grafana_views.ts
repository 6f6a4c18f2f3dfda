// The panels of vLLM's Grafana dashboard, from the time series' added columns
// (docs/results.md): each is titled with the vllm:* metric it corresponds to. Counters
// (`*_total` columns) are shown as per-second rates over each tumbling window; a window in
// which a ratio has no denominator (no prefix-cache query) is a gap, not 0.

import { perInstance, TIME_COLUMN } from '../lib/columns';
import { fmtMs } from '../ui/format';
import type { ChartSpec, SeriesSpec } from './chart_panel';
import { assemble, type ChartView, type RunData } from './views';

const RUN_DASH: (number[] | undefined)[] = [undefined, [7, 4]];
const timeAxis = { label: 'simulated time (s)', format: (v: number) => `${+v.toFixed(1)}` };
const rateFmt = (v: number) => (Math.abs(v) >= 1000 ? `${+(v / 1000).toFixed(1)}k` : `${+v.toFixed(1)}`);

/** One panel's definition: its title (the vllm:* metric), and the series it draws. */
export interface PanelDef {
  id: string;
  title: string;
  subtitle: string;
  /** Shown only when a run has this column (and, for `nonzero`, a value other than 0 in it). */
  needs: string;
  nonzero?: boolean;
  view(runs: RunData[], maxPoints: number, slo?: SloLines): ChartView;
}

export interface SloLines {
  e2eMs?: number;
}

function has(run: RunData, c: string): boolean {
  return run.columns.includes(c);
}

function sum(run: RunData, cols: string[]): Float64Array {
  const n = run.column(TIME_COLUMN).length;
  const out = new Float64Array(n);
  for (const c of cols) {
    const v = run.column(c);
    for (let i = 0; i < n; i++) out[i]! += v[i]!;
  }
  return out;
}

/**
 * `f(num window delta, den window delta)` per row of two cumulative series: each window's
 * increase (the first row: since t = 0).
 */
function perWindow(num: Float64Array, den: Float64Array, f: (dn: number, dd: number) => number): Float64Array {
  const out = new Float64Array(den.length);
  for (let i = 0; i < den.length; i++) {
    const dd = i === 0 ? den[0]! : den[i]! - den[i - 1]!;
    const dn = i === 0 ? num[0]! : num[i]! - num[i - 1]!;
    out[i] = f(dn, dd);
  }
  return out;
}

/** Per-second rate of a cumulative counter over each window (the first row: since t = 0). */
export function rate(t: Float64Array, total: Float64Array): Float64Array {
  return perWindow(total, t, (dv, dt) => (dt > 0 ? dv / dt : NaN));
}

/** Hits / queries over each window, in %; NaN where the window has no query. */
export function windowRatio(hits: Float64Array, queries: Float64Array): Float64Array {
  return perWindow(hits, queries, (dh, dq) => (dq > 0 ? (100 * dh) / dq : NaN));
}

function constant(n: number, v: number): Float64Array {
  return new Float64Array(n).fill(v);
}

/** Builds a panel: `series(run)` returns [label, color, values, gaps?, positive?] per line
 *  of a run (SeriesSpec.gaps, SeriesSpec.positive). */
function panel(
  runs: RunData[],
  maxPoints: number,
  y: ChartSpec['y'],
  lines: (run: RunData) => [string, string, Float64Array, boolean?, boolean?][],
): ChartView {
  const series: SeriesSpec[] = [];
  const tables: [Float64Array, Float64Array[]][] = [];
  runs.forEach((run, r) => {
    const ls = lines(run);
    for (const [label, color, , gaps, positive] of ls) {
      series.push({
        label: `${label}${run.label ? ` ${run.label}` : ''}`,
        color,
        dash: RUN_DASH[r],
        ...(gaps ? { gaps: true } : {}),
        ...(positive ? { positive: true } : {}),
      });
    }
    tables.push([run.column(TIME_COLUMN), ls.map((l) => l[2])]);
  });
  return { spec: { x: timeAxis, y, series }, data: assemble(tables, maxPoints) };
}

export const PANELS: readonly PanelDef[] = [
  {
    id: 'preemptions',
    title: 'Preemptions',
    subtitle: 'vllm:num_preemptions, per second',
    needs: TIME_COLUMN,
    view: (runs, mp) =>
      panel(runs, mp, { label: 'preemptions/s', format: rateFmt, range: [0, null] }, (run) => {
        const t = run.column(TIME_COLUMN);
        return [['preemptions/s', '#dc2626', rate(t, sum(run, perInstance(run.columns, 'preempted_total', run.instances)))]];
      }),
  },
  {
    id: 'prefix-hit-rate',
    title: 'Prefix-cache hit rate',
    subtitle: 'vllm:prefix_cache_hits / vllm:prefix_cache_queries, per window',
    needs: 'prompt_tokens_per_s',
    view: (runs, mp) =>
      panel(runs, mp, { label: 'hit rate (%)', format: (v) => `${+v.toFixed(0)}%`, range: [0, 100] }, (run) => {
        const hits = sum(run, perInstance(run.columns, 'prefix_hits_total', run.instances));
        const queries = sum(run, perInstance(run.columns, 'prefix_queries_total', run.instances));
        return [['hit rate', '#0891b2', windowRatio(hits, queries), true]];
      }),
  },
  {
    id: 'tokens',
    title: 'Prompt vs generation tokens',
    subtitle: 'vllm:prompt_tokens_total, vllm:generation_tokens_total, per second',
    needs: 'prompt_tokens_per_s',
    view: (runs, mp) =>
      panel(runs, mp, { label: 'tokens/s', format: rateFmt, range: [0, null] }, (run) => [
        ['prompt tok/s', '#9333ea', run.column('prompt_tokens_per_s')],
        ['generation tok/s', '#0f766e', run.column('throughput_tokens_per_s')],
      ]),
  },
  {
    id: 'requests',
    title: 'Arrivals and finishes by reason',
    subtitle: 'vllm:request_success_total{finished_reason}, aborts, rejections, per second',
    needs: 'arrived_total',
    view: (runs, mp) =>
      panel(runs, mp, { label: 'requests/s', format: rateFmt, range: [0, null] }, (run) => {
        const t = run.column(TIME_COLUMN);
        return [
          ['arrived/s', '#2563eb', rate(t, run.column('arrived_total'))],
          ['finished/s', '#16a34a', rate(t, run.column('finished_total'))],
          ['aborted/s', '#d97706', rate(t, run.column('aborted_total'))],
          ['rejected/s', '#db2777', rate(t, run.column('rejected_total'))],
        ];
      }),
  },
  {
    id: 'e2e-queue',
    title: 'E2E and queue time',
    subtitle: 'vllm:e2e_request_latency_seconds, vllm:request_queue_time_seconds, p50/p99 per window',
    needs: 'e2e_p50_ms',
    view: (runs, mp, slo) => {
      const v = panel(runs, mp, { label: 'latency', format: (x) => fmtMs(x), range: [0, null] }, (run) => {
        const ls: [string, string, Float64Array, boolean?, boolean?][] = [
          ['E2E p50', '#34d399', run.column('e2e_p50_ms'), true, true],
          ['E2E p99', '#047857', run.column('e2e_p99_ms'), true, true],
          ['queue p50', '#fca5a5', run.column('queue_p50_ms'), true],
          ['queue p99', '#b91c1c', run.column('queue_p99_ms'), true],
        ];
        if (slo?.e2eMs !== undefined && run === runs[0])
          ls.push(['SLO E2E', '#6b7280', constant(run.column(TIME_COLUMN).length, slo.e2eMs)]);
        return ls;
      });
      return v;
    },
  },
  {
    id: 'kv-transfers',
    title: 'KV transfers',
    subtitle: 'NIXL pulls (prefill → decode) and CPU offload: in flight, and blocks moved per second',
    needs: 'kv_transfer_blocks_total',
    nonzero: true,
    view: (runs, mp) =>
      panel(runs, mp, { label: 'transfers / blocks/s', format: rateFmt, range: [0, null] }, (run) => [
        ['in flight', '#7c3aed', run.column('kv_transfers_in_flight')],
        ['blocks/s', '#0891b2', rate(run.column(TIME_COLUMN), run.column('kv_transfer_blocks_total'))],
      ]),
  },
];

/** Whether a panel has something to show for these runs. */
export function panelApplies(p: PanelDef, runs: RunData[]): boolean {
  return runs.some((r) => has(r, p.needs) && (!p.nonzero || r.column(p.needs).some((v) => v !== 0)));
}
