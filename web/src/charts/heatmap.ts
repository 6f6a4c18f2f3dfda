// A heat map of one per-instance metric over time: a row per instance, a column per time
// bucket, darker = higher. Readable at 16 instances and more, where 16 lines are not.

import { perInstance, TIME_COLUMN } from '../lib/columns';
import type { RunData } from './views';

export interface HeatGrid {
  rows: string[];
  cols: number;
  /** rows × cols values (row-major), NaN where a bucket has no sample; and the maximum. */
  values: Float64Array;
  max: number;
  t0: number;
  t1: number;
}

/** Bucket means of `metric` per instance (columns: at most `maxCols` buckets over time). */
export function heatGrid(run: RunData, metric: string, maxCols: number): HeatGrid {
  const t = run.column(TIME_COLUMN);
  const cols = perInstance(run.columns, metric, run.instances);
  const n = t.length;
  const nb = Math.max(1, Math.min(maxCols, n));
  const values = new Float64Array(cols.length * nb).fill(NaN);
  let max = 0;
  cols.forEach((c, r) => {
    const v = run.column(c);
    for (let b = 0; b < nb; b++) {
      const lo = Math.floor((b * n) / nb),
        hi = Math.max(lo + 1, Math.floor(((b + 1) * n) / nb));
      let s = 0,
        k = 0;
      for (let i = lo; i < hi && i < n; i++)
        if (!Number.isNaN(v[i]!)) {
          s += v[i]!;
          k++;
        }
      if (k > 0) {
        values[r * nb + b] = s / k;
        max = Math.max(max, s / k);
      }
    }
  });
  return {
    rows: run.instances.filter((_, i) => i < cols.length),
    cols: nb,
    values,
    max,
    t0: n ? t[0]! : 0,
    t1: n ? t[n - 1]! : 0,
  };
}

export class HeatMapPanel {
  readonly el: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly caption: HTMLElement;

  constructor(
    parent: HTMLElement,
    title: string,
    subtitle: string,
    testid: string,
    private readonly metric: string,
    private readonly scale = 1,
  ) {
    this.el = document.createElement('section');
    this.el.className = 'chart heat';
    this.el.dataset['testid'] = testid;
    const head = document.createElement('header');
    head.innerHTML = `<h3></h3><span class="chart-sub"></span>`;
    head.querySelector('h3')!.textContent = title;
    head.querySelector('.chart-sub')!.textContent = subtitle;
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'heat-canvas';
    this.caption = document.createElement('p');
    this.caption.className = 'chart-sub';
    this.el.append(head, this.canvas, this.caption);
    parent.append(this.el);
  }

  draw(run: RunData): void {
    const width = Math.max(240, this.el.clientWidth - 30);
    const g = heatGrid(run, this.metric, Math.floor(width / 3));
    const label = 64,
      rowH = Math.max(6, Math.min(16, Math.floor(200 / Math.max(1, g.rows.length))));
    const cw = (width - label) / g.cols;
    const dpr = window.devicePixelRatio || 1;
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${g.rows.length * rowH}px`;
    this.canvas.width = width * dpr;
    this.canvas.height = g.rows.length * rowH * dpr;
    const ctx = this.canvas.getContext('2d');
    this.el.dataset['rows'] = String(g.rows.length);
    if (!ctx) return;
    ctx.scale(dpr, dpr);
    ctx.font = `${Math.min(11, rowH)}px system-ui, sans-serif`;
    const ink = getComputedStyle(this.el).color;
    g.rows.forEach((name, r) => {
      ctx.fillStyle = ink;
      ctx.fillText(name, 0, r * rowH + rowH - 2, label - 4);
      for (let b = 0; b < g.cols; b++) {
        const v = g.values[r * g.cols + b]!;
        if (Number.isNaN(v)) continue;
        const x = g.max > 0 ? v / g.max : 0;
        ctx.fillStyle = `hsl(${220 - 200 * x}, 75%, ${92 - 50 * x}%)`;
        ctx.fillRect(label + b * cw, r * rowH, Math.ceil(cw), rowH - 1);
      }
    });
    this.caption.textContent = `${g.t0.toFixed(1)} s → ${g.t1.toFixed(1)} s; darkest = ${(g.max * this.scale).toFixed(1)}`;
  }
}
