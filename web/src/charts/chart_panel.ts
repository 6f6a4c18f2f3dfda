// One chart: a titled panel holding a uPlot canvas that follows its container's width. The
// series set can change (instances, compare mode); the plot is rebuilt only when it does.

import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { textEl } from '../ui/dom';
import { downloadBytes } from '../ui/download';

export interface SeriesSpec {
  label: string;
  color: string;
  dash?: number[];
  width?: number;
  scale?: string; // 'y' (default) or a second scale shown on the right axis
  /** A null (a window with no sample) breaks the line instead of being bridged. */
  gaps?: boolean;
  /** Every sampled value is > 0 (a latency): a 0 would be a window without samples drawn
   *  as zero. Counted in the panel's data-zeros, which the browser tests require to be 0. */
  positive?: boolean;
}

export interface AxisSpec {
  label: string;
  format?: (v: number) => string;
  range?: [number | null, number | null];
  log?: boolean;
}

export interface ChartSpec {
  x: AxisSpec;
  y: AxisSpec;
  y2?: AxisSpec; // scale 'y2', right-hand axis
  series: SeriesSpec[];
}

const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
// Axis and grid colours from the page's theme (light, or dark: styles.css).
function themeColor(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

function specKey(spec: ChartSpec): string {
  return JSON.stringify([spec.series, spec.x.label, spec.y.label, spec.y2?.label, spec.x.log, spec.y.range]);
}

/** Charts over simulated time share a crosshair (uPlot cursor sync) and a zoom. */
const TIME_SYNC_KEY = 'blis-time';
const timeGroup = new Set<ChartPanel>();

export class ChartPanel {
  readonly el: HTMLElement;
  private readonly plotEl: HTMLElement;
  private readonly emptyEl: HTMLElement;
  private plot?: uPlot;
  private key = '';
  private readonly height: number;

  private readonly synced: boolean;
  /** Per uPlot series, the samples between two missing windows (drawn as dots). */
  private lone: (number[] | undefined)[] = [];

  constructor(
    parent: HTMLElement,
    opts: { title: string; subtitle: string; testid: string; height?: number; empty: string; synced?: boolean },
  ) {
    this.synced = opts.synced ?? true;
    if (this.synced) timeGroup.add(this);
    this.height = opts.height ?? 190; // plot area in px; the legend adds below
    this.el = document.createElement('section');
    this.el.className = 'chart';
    this.el.dataset['testid'] = opts.testid;
    this.el.dataset['points'] = '0';
    this.el.setAttribute('aria-label', opts.title);
    const head = document.createElement('header');
    const h = textEl('h3', '', opts.title);
    const sub = textEl('span', 'chart-sub', opts.subtitle);
    const png = textEl('button', 'chart-png', 'PNG');
    png.type = 'button';
    png.title = 'Download this chart as a PNG image';
    png.dataset['testid'] = `${opts.testid}-png`;
    png.addEventListener('click', () => this.savePng(opts.testid.replace(/^chart-/, '')));
    head.append(h, sub, png);
    this.plotEl = document.createElement('div');
    this.plotEl.className = 'plot';
    this.plotEl.style.minHeight = `${this.height + 30}px`;
    this.emptyEl = textEl('p', 'chart-empty', opts.empty);
    this.plotEl.append(this.emptyEl);
    this.el.append(head, this.plotEl);
    parent.append(this.el);
    new ResizeObserver(() => this.resize()).observe(this.plotEl);
    // A double click resets the zoom of every time chart, as it does its own.
    this.plotEl.addEventListener('dblclick', () => {
      if (!this.synced) return;
      for (const c of timeGroup) if (c !== this && c.plot) c.plot.setData(c.plot.data, true);
    });
  }

  /** The plot (canvas, with its title and legend values drawn in) as a PNG download. */
  private savePng(name: string): void {
    const src = this.plotEl.querySelector('canvas');
    if (!src) return;
    const title = this.el.querySelector('h3')?.textContent ?? name;
    const pad = 28;
    const out = document.createElement('canvas');
    out.width = src.width;
    out.height = src.height + pad;
    const ctx = out.getContext('2d')!;
    const style = getComputedStyle(this.el);
    ctx.fillStyle = style.backgroundColor || '#fff';
    ctx.fillRect(0, 0, out.width, out.height);
    ctx.fillStyle = style.color || '#000';
    ctx.font = `600 ${Math.round(14 * (src.width / Math.max(1, src.clientWidth)))}px system-ui, sans-serif`;
    ctx.fillText(`${title} — ${this.el.querySelector('.chart-sub')?.textContent ?? ''}`, 8, 19);
    ctx.drawImage(src, 0, pad);
    out.toBlob((b) => b && downloadBytes(`blis-${name}.png`, b, 'image/png'), 'image/png');
  }

  /** The zoomed x range of a drag, applied to the other time charts. */
  private propagateZoom(u: uPlot): void {
    if (!this.synced || u.select.width <= 0) return;
    const min = u.posToVal(u.select.left, 'x');
    const max = u.posToVal(u.select.left + u.select.width, 'x');
    for (const c of timeGroup) if (c !== this) c.plot?.setScale('x', { min, max });
  }

  setSubtitle(text: string): void {
    const sub = this.el.querySelector('.chart-sub');
    if (sub) sub.textContent = text;
  }

  /** Draws `data` (x first, then one array per series of `spec`). */
  draw(spec: ChartSpec, data: uPlot.AlignedData): void {
    const rows = data[0]?.length ?? 0;
    this.el.dataset['points'] = String(rows);
    // Nulls drawn as gaps (windows with no sample), for the tests and the curious.
    let gaps = 0;
    let zeros = 0;
    for (let i = 1; i < data.length; i++) {
      const positive = spec.series[i - 1]?.positive === true;
      for (const v of data[i] ?? []) {
        if (v === null) gaps++;
        else if (positive && v === 0) zeros++;
      }
    }
    this.el.dataset['gaps'] = String(gaps);
    this.el.dataset['zeros'] = String(zeros);
    // Per series (uPlot's index), the samples no line reaches; found once per new data.
    this.lone = data.map((ys, i) => (i > 0 && spec.series[i - 1]?.gaps ? isolated(ys) : undefined));
    this.emptyEl.hidden = rows > 0;
    const key = specKey(spec);
    if (!this.plot || key !== this.key) {
      this.plot?.destroy();
      this.key = key;
      this.plot = new uPlot(this.options(spec), data, this.plotEl);
      return;
    }
    this.plot.setData(data);
  }

  clear(): void {
    this.plot?.destroy();
    this.plot = undefined;
    this.key = '';
    this.el.dataset['points'] = '0';
    this.emptyEl.hidden = false;
  }

  private width(): number {
    return Math.max(240, Math.floor(this.plotEl.clientWidth));
  }

  private resize(): void {
    this.plot?.setSize({ width: this.width(), height: this.height });
  }

  private options(spec: ChartSpec): uPlot.Options {
    const AXIS_STROKE = themeColor('--chart-axis', '#5b6472');
    const GRID = { stroke: themeColor('--chart-grid', '#e6e9ef'), width: 1 };
    const axis = (a: AxisSpec, side?: number): uPlot.Axis => ({
      label: a.label,
      labelFont: FONT,
      font: FONT,
      stroke: AXIS_STROKE,
      grid: side === 1 ? { show: false } : GRID,
      ticks: { stroke: GRID.stroke, width: 1, size: 4 },
      size: 52,
      labelSize: 18,
      ...(side !== undefined ? { side } : {}),
      ...(a.format ? { values: (_u: uPlot, vals: number[]) => vals.map((v) => (v == null ? '' : a.format!(v))) } : {}),
    });
    const scales: uPlot.Scales = {
      x: { time: false, ...(spec.x.log ? { distr: 3 } : {}) },
      y: { ...(spec.y.range ? { range: rangeFn(spec.y.range) } : {}), ...(spec.y.log ? { distr: 3 } : {}) },
    };
    const axes: uPlot.Axis[] = [axis(spec.x), axis(spec.y)];
    if (spec.y2) {
      scales['y2'] = { ...(spec.y2.range ? { range: rangeFn(spec.y2.range) } : {}) };
      axes.push({ ...axis(spec.y2, 1), scale: 'y2' });
    }
    return {
      width: this.width(),
      height: this.height,
      scales,
      axes,
      cursor: {
        drag: { x: true, y: false },
        points: { size: 6 },
        ...(this.synced ? { sync: { key: TIME_SYNC_KEY, setSeries: false } } : {}),
      },
      hooks: {
        setSelect: [(u: uPlot) => this.propagateZoom(u)],
        // The x range shown, on the panel (what a synced zoom changed, for tests and tools).
        setScale: [
          (u: uPlot, key: string) => {
            if (key !== 'x') return;
            this.el.dataset['xMin'] = String(u.scales['x']?.min ?? '');
            this.el.dataset['xMax'] = String(u.scales['x']?.max ?? '');
          },
        ],
      },
      legend: { live: true },
      series: [
        { label: spec.x.label, value: (_u, v) => (v == null ? '–' : spec.x.format ? spec.x.format(v) : String(v)) },
        ...spec.series.map((s): uPlot.Series => {
          const fmt = s.scale === 'y2' ? spec.y2?.format : spec.y.format;
          return {
            label: s.label,
            stroke: s.color,
            width: s.width ?? 1.6,
            scale: s.scale ?? 'y',
            spanGaps: !s.gaps,
            // A sample between windows without samples has no line to be on: a dot shows it.
            points: s.gaps
              ? { show: (_u, si) => this.lone[si] !== undefined, size: 5, filter: (_u, si) => this.lone[si] ?? null }
              : { show: false },
            value: (_u, v) => (v == null ? '–' : fmt ? fmt(v) : v.toFixed(1)),
            ...(s.dash ? { dash: s.dash } : {}),
          };
        }),
      ],
    };
  }
}

/** The indices of a series' samples whose neighbours are both missing (undefined: none). */
function isolated(ys: ArrayLike<number | null | undefined>): number[] | undefined {
  const out: number[] = [];
  for (let i = 0; i < ys.length; i++) if (ys[i] != null && ys[i - 1] == null && ys[i + 1] == null) out.push(i);
  return out.length > 0 ? out : undefined;
}

function rangeFn(r: [number | null, number | null]): uPlot.Range.Function {
  return (_u, min, max) => {
    const dataMin = Number.isFinite(min) ? min : 0;
    const dataMax = Number.isFinite(max) ? max : 1;
    const lo = r[0] ?? dataMin;
    const hi = r[1] === null ? dataMax * 1.05 : Math.max(r[1], dataMax);
    return [lo, hi > lo ? hi : lo + 1];
  };
}
