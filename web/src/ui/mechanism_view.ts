// The mechanism view: what one vLLM engine holds right now, from Simulation.engineSnapshot.
// The KV block pool as a grid (null block, free, free but cached, in use per request), the
// running and waiting queues with each request's phase, and the last scheduled batch against
// the token budget (mechanism_batch.ts). Hovering a request highlights its blocks and its
// rows, and the reverse.

import { renderBatch, type SnapshotBatch } from './mechanism_batch';

export interface SnapshotRequest {
  id: string;
  queue: 'running' | 'waiting';
  phase: string;
  prompt_tokens: number;
  computed_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  preemptions: number;
  blocks: number;
}

export interface EngineSnapshot {
  num_blocks: number;
  free_blocks: number;
  block_size: number;
  token_budget: number;
  max_num_seqs: number;
  /** Per block: -1 null block, -2 free, -3 free but cached, k >= 0 the k-th request. */
  blocks: number[];
  requests: SnapshotRequest[];
  /** The batches in flight, oldest first (the newest was scheduled last). */
  batches?: SnapshotBatch[];
}

const NULL = -1;
const CACHED = -3;
const HUES = [217, 142, 32, 271, 330, 190, 84, 0, 48, 300];

function requestColor(k: number, alpha = 1): string {
  return `hsla(${HUES[k % HUES.length]!}, 70%, ${45 + ((k / HUES.length) % 3) * 8}%, ${alpha})`;
}

export class MechanismView {
  private snap?: EngineSnapshot;
  private hover = -1;
  private readonly canvas: HTMLCanvasElement;
  private readonly tables: HTMLElement;
  private readonly budget: HTMLElement;
  private readonly legend: HTMLElement;
  private cell = 4;
  private cols = 1;

  constructor(readonly el: HTMLElement) {
    this.legend = document.createElement('p');
    this.legend.className = 'mech-legend';
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'mech-grid';
    this.canvas.dataset['testid'] = 'mech-grid';
    this.budget = document.createElement('div');
    this.budget.className = 'mech-budget';
    this.budget.dataset['testid'] = 'mech-budget';
    this.tables = document.createElement('div');
    this.tables.className = 'mech-queues';
    el.append(this.legend, this.canvas, this.budget, this.tables);
    this.canvas.addEventListener('mousemove', (e) => {
      const r = this.canvas.getBoundingClientRect();
      const c = Math.floor((e.clientX - r.left) / this.cell),
        row = Math.floor((e.clientY - r.top) / this.cell);
      const b = row * this.cols + c;
      this.setHover(this.snap && b >= 0 && b < this.snap.blocks.length ? this.snap.blocks[b]! : -1);
    });
    this.canvas.addEventListener('mouseleave', () => this.setHover(-1));
  }

  show(json: string | undefined): void {
    if (!json) {
      this.snap = undefined;
      this.legend.textContent = json === '' ? 'This engine kind has no snapshot.' : 'Load a run, then Step or Play.';
      this.tables.replaceChildren();
      this.budget.replaceChildren();
      this.draw();
      return;
    }
    this.snap = JSON.parse(json) as EngineSnapshot;
    const s = this.snap;
    const cached = s.blocks.filter((b) => b === CACHED).length;
    this.legend.textContent =
      `${s.num_blocks} KV blocks of ${s.block_size} tokens: ${s.num_blocks - 1 - s.free_blocks} in use, ` +
      `${s.free_blocks - cached} free, ${cached} free but cached (a prefix hit revives them), 1 null block (black).`;
    this.el.dataset['blocks'] = String(s.num_blocks);
    this.el.dataset['requests'] = String(s.requests.length);
    this.renderBudget();
    this.renderQueues();
    this.draw();
  }

  private setHover(k: number): void {
    if (k === this.hover) return;
    this.hover = k;
    this.draw();
    this.el
      .querySelectorAll<HTMLElement>('tr[data-k]')
      .forEach((tr) => tr.classList.toggle('hover', Number(tr.dataset['k']) === k));
  }

  private renderBudget(): void {
    renderBatch(
      this.budget,
      this.snap!,
      (k) => requestColor(k),
      (k) => this.setHover(k),
    );
  }

  private renderQueues(): void {
    const s = this.snap!;
    const parts: HTMLElement[] = [];
    for (const q of ['running', 'waiting'] as const) {
      const rows = s.requests.map((r, k) => [r, k] as const).filter(([r]) => r.queue === q);
      const h = document.createElement('h4');
      h.textContent = `${q === 'running' ? 'Running' : 'Waiting'} (${rows.length})`;
      const t = document.createElement('table');
      t.dataset['testid'] = `mech-${q}`;
      t.innerHTML =
        '<thead><tr><th></th><th>request</th><th>phase</th><th>computed / prompt</th><th>out</th><th>hit</th><th>blocks</th><th>preempt.</th></tr></thead>';
      const body = document.createElement('tbody');
      for (const [r, k] of rows.slice(0, 200)) {
        const tr = document.createElement('tr');
        tr.dataset['k'] = String(k);
        const cells = [
          r.id,
          r.phase,
          `${r.computed_tokens} / ${r.prompt_tokens}`,
          String(r.output_tokens),
          r.cached_tokens >= 0 ? String(r.cached_tokens) : '–',
          String(r.blocks),
          String(r.preemptions),
        ];
        const sw = document.createElement('td');
        sw.innerHTML = `<span class="mech-swatch" style="background:${requestColor(k)}"></span>`;
        tr.append(sw, ...cells.map((c) => Object.assign(document.createElement('td'), { textContent: c })));
        tr.addEventListener('mouseenter', () => this.setHover(k));
        tr.addEventListener('mouseleave', () => this.setHover(-1));
        body.append(tr);
      }
      t.append(body);
      const wrap = document.createElement('div');
      wrap.append(h, t);
      parts.push(wrap);
    }
    this.tables.replaceChildren(...parts);
  }

  private draw(): void {
    const s = this.snap;
    const width = Math.max(200, this.el.clientWidth - 4);
    const n = s?.blocks.length ?? 0;
    // Cells as large as fit in about 220 px of height.
    this.cell = n > 0 ? Math.max(2, Math.min(14, Math.floor(Math.sqrt((width * 220) / n)))) : 8;
    this.cols = Math.max(1, Math.floor(width / this.cell));
    const rows = Math.max(1, Math.ceil(n / this.cols));
    const dpr = window.devicePixelRatio || 1;
    this.canvas.style.width = `${this.cols * this.cell}px`;
    this.canvas.style.height = `${rows * this.cell}px`;
    this.canvas.width = this.cols * this.cell * dpr;
    this.canvas.height = rows * this.cell * dpr;
    const ctx = this.canvas.getContext('2d');
    if (!ctx || !s) return;
    ctx.scale(dpr, dpr);
    const css = getComputedStyle(document.documentElement);
    const free = css.getPropertyValue('--muted').trim() || '#eee';
    const cached = 'hsl(199, 60%, 80%)';
    const gap = this.cell >= 5 ? 1 : 0;
    for (let b = 0; b < n; b++) {
      const o = s.blocks[b]!;
      const dim = this.hover >= 0 && o !== this.hover;
      ctx.fillStyle = o === NULL ? '#111' : o === CACHED ? cached : o < 0 ? free : requestColor(o, dim ? 0.25 : 1);
      ctx.fillRect((b % this.cols) * this.cell, Math.floor(b / this.cols) * this.cell, this.cell - gap, this.cell - gap);
    }
  }
}
