// The sweep view's two pictures: the Pareto plot (the sweep's two goals, e.g. cost per
// million output tokens against TTFT p99, the core's front joined by a line) and the heat
// map of the objective over a one- or two-axis grid. Both open a point on click.

import { fmtValue, type Goal, type HeatMap, type ScatterPoint } from './view_model';

const SVG = 'http://www.w3.org/2000/svg';

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

function extent(vs: number[]): [number, number] {
  let lo = Math.min(...vs);
  let hi = Math.max(...vs);
  if (lo === hi) {
    const pad = Math.abs(lo) * 0.1 || 1;
    lo -= pad;
    hi += pad;
  }
  return [lo, hi];
}

const W = 460;
const H = 260;
const M = { l: 58, r: 12, t: 10, b: 38 };

export function renderPareto(host: HTMLElement, goals: Goal[], points: ScatterPoint[], open: (index: number) => void): void {
  host.replaceChildren();
  host.dataset['points'] = String(points.length);
  host.dataset['front'] = String(points.filter((p) => p.pareto).length);
  const [gx, gy] = goals;
  if (!gx || !gy || points.length === 0) {
    const p = document.createElement('p');
    p.className = 'sweep-empty';
    p.textContent = 'The Pareto plot appears as points finish.';
    host.append(p);
    return;
  }
  const [x0, x1] = extent(points.map((p) => p.x));
  const [y0, y1] = extent(points.map((p) => p.y));
  const sx = (x: number) => M.l + ((x - x0) / (x1 - x0)) * (W - M.l - M.r);
  const sy = (y: number) => H - M.b - ((y - y0) / (y1 - y0)) * (H - M.t - M.b);
  const root = svg('svg', {
    viewBox: `0 0 ${W} ${H}`,
    class: 'sweep-plot',
    role: 'img',
  });
  root.setAttribute('aria-label', `Pareto plot: ${gx.metric} against ${gy.metric}`);
  root.append(
    svg('line', {
      x1: M.l,
      y1: H - M.b,
      x2: W - M.r,
      y2: H - M.b,
      class: 'axis',
    }),
    svg('line', { x1: M.l, y1: M.t, x2: M.l, y2: H - M.b, class: 'axis' }),
  );
  const label = (text: string, attrs: Record<string, string | number>) => {
    const t = svg('text', attrs);
    t.textContent = text;
    root.append(t);
  };
  label(`${gx.maximize ? 'max' : 'min'} ${gx.metric}`, {
    x: (M.l + W - M.r) / 2,
    y: H - 6,
    class: 'label',
    'text-anchor': 'middle',
  });
  label(`${gy.maximize ? 'max' : 'min'} ${gy.metric}`, {
    x: 12,
    y: (M.t + H - M.b) / 2,
    class: 'label',
    'text-anchor': 'middle',
    transform: `rotate(-90 12 ${(M.t + H - M.b) / 2})`,
  });
  for (const [v, x] of [
    [x0, M.l],
    [x1, W - M.r],
  ] as const) {
    label(fmtValue(v), {
      x,
      y: H - M.b + 14,
      class: 'tick',
      'text-anchor': x === M.l ? 'start' : 'end',
    });
  }
  for (const [v, y] of [
    [y0, H - M.b],
    [y1, M.t + 8],
  ] as const) {
    label(fmtValue(v), { x: M.l - 4, y, class: 'tick', 'text-anchor': 'end' });
  }
  const front = points.filter((p) => p.pareto).sort((a, b) => a.x - b.x || a.y - b.y);
  if (front.length > 1) {
    root.append(
      svg('polyline', {
        points: front.map((p) => `${sx(p.x)},${sy(p.y)}`).join(' '),
        class: 'front',
      }),
    );
  }
  for (const p of points) {
    const c = svg('circle', {
      cx: sx(p.x),
      cy: sy(p.y),
      r: p.pareto ? 5.5 : 4,
      class: p.pareto ? 'dot pareto' : p.feasible ? 'dot' : 'dot infeasible',
      tabindex: 0,
      'data-index': p.index,
    });
    const title = svg('title', {});
    title.textContent = `point ${p.index}: ${fmtValue(p.x)}, ${fmtValue(p.y)}${p.pareto ? ' (Pareto front)' : ''}${p.feasible ? '' : ' (infeasible)'}`;
    c.append(title);
    c.addEventListener('click', () => open(p.index));
    c.addEventListener('keydown', (e) => e.key === 'Enter' && open(p.index));
    root.append(c);
  }
  host.append(root);
}

/** Colour of a value between the best (0) and the worst (1) seen. */
function shade(t: number): string {
  const hue = 140 - 130 * Math.min(1, Math.max(0, t));
  return `hsl(${hue} 60% 45%)`;
}

export function renderHeat(host: HTMLElement, map: HeatMap | undefined, maximize: boolean, open: (index: number) => void): void {
  host.replaceChildren();
  if (!map) {
    host.hidden = true;
    return;
  }
  host.hidden = false;
  const vals = map.cells
    .flat()
    .filter((c) => c?.feasible && typeof c.value === 'number')
    .map((c) => c!.value as number);
  const [lo, hi] = vals.length ? extent(vals) : [0, 1];
  const table = document.createElement('table');
  table.className = 'sweep-heat-grid';
  const head = table.createTHead().insertRow();
  const corner = document.createElement('th');
  corner.textContent = map.colAxis ? `${map.rowAxis.name} \\ ${map.colAxis.name}` : map.rowAxis.name;
  head.append(corner);
  const colValues = map.colAxis?.values[0] ?? [''];
  for (const v of colValues) {
    const th = document.createElement('th');
    th.textContent = map.colAxis ? fmtValue(v) : 'objective';
    head.append(th);
  }
  const body = table.createTBody();
  map.cells.forEach((line, i) => {
    const tr = body.insertRow();
    const th = document.createElement('th');
    th.textContent = fmtValue(map.rowAxis.values[0]?.[i]);
    tr.append(th);
    for (const cell of line) {
      const td = tr.insertCell();
      if (!cell) {
        td.className = 'pending';
        td.textContent = '…';
        continue;
      }
      td.dataset['index'] = String(cell.index);
      td.tabIndex = 0;
      td.textContent = fmtValue(cell.value);
      if (!cell.feasible || typeof cell.value !== 'number') {
        td.className = 'infeasible';
        td.title = `point ${cell.index}: infeasible`;
      } else {
        const t = (cell.value - lo) / (hi - lo);
        td.style.background = shade(maximize ? 1 - t : t);
        td.title = `point ${cell.index}`;
      }
      td.addEventListener('click', () => open(cell.index));
      td.addEventListener('keydown', (e) => e.key === 'Enter' && open(cell.index));
    }
  });
  host.append(table);
}
