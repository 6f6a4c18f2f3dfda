// The sweep view: a blis/sweep/v1 document (typed, loaded from a file, or built from the
// scenario being edited with the axis form), its errors at their JSON pointers, a run across
// the sweep workers with progress and Cancel, and the results: the ranked table with the
// constraint verdicts, the Pareto plot and the heat map of the objective. Any point opens as
// the playground's scenario. (The capacity search sits in the scenario panel: capacity_panel.ts.)

import { locateJson } from '../lib/json_locate';
import type { Diagnostic } from '../protocol';
import type { Json } from '../scenario/knobs';
import { AxisFormRow } from './axis_form';
import { startPacer } from './pacer';
import { buildSweep, OBJECTIVES, type AxisInput, type Objective } from './axes';
import { button, el } from '../ui/dom';
import { renderHeat, renderPareto } from './plots';
import type { PointRow, RankResult } from './protocol';
import { renderTable } from './results_table';
import { Cancelled, type SweepPool } from './sweep_pool';
import { goalOf, heatMap, scatterPoints, sweepDoc, tableRows, type SweepDoc } from './view_model';

export interface SweepHost {
  /** The scenario being edited in the playground (JSON text). */
  scenarioText(): string;
  /** Opens a scenario (JSON text) in the playground. */
  openScenario(text: string): void;
  /** Called after each edit of the sweep document (to keep it in the URL). */
  onDocumentChange?(text: string): void;
}

/** Keys worth sweeping, offered in the axis form (any pointer is accepted). */
const POINTER_HINTS = [
  '/pools/0/instances',
  '/pools/0/parallelism/tp',
  '/pools/0/hardware',
  '/pools/0/engine/args/max_num_batched_tokens',
  '/pools/0/engine/args/max_num_seqs',
  '/workload/clients/0/load/rate',
];

const CHECK_DELAY_MS = 250;

export class SweepView {
  readonly el: HTMLElement;
  private readonly editor: HTMLTextAreaElement;
  private readonly errors: HTMLUListElement;
  private readonly runBtn: HTMLButtonElement;
  private readonly cancelBtn: HTMLButtonElement;
  private readonly progress: HTMLProgressElement;
  private readonly status: HTMLElement;
  private readonly table: HTMLTableElement;
  private readonly pareto: HTMLElement;
  private readonly heat: HTMLElement;
  private readonly axes: AxisFormRow[] = [];
  private readonly objective: HTMLSelectElement;
  private checkTimer?: number;
  private checkSeq = 0;
  /** The checked document: its text, normalized form and size (undefined with errors). */
  private checked?: { text: string; doc: SweepDoc; points: number };
  private running = false;
  /** The text and document the shown results belong to. */
  private resultText = '';
  private resultDoc?: SweepDoc;
  private rows: PointRow[] = [];
  private ranking?: RankResult;
  private drawPending = false;

  constructor(
    private readonly pool: SweepPool,
    private readonly host: SweepHost,
  ) {
    this.editor = el('textarea', {
      class: 'sweep-editor',
      'data-testid': 'sweep-editor',
      spellcheck: 'false',
      'aria-label': 'Sweep document (blis/sweep/v1)',
      rows: '16',
    });
    this.editor.addEventListener('input', () => this.onEdit());
    this.errors = el('ul', { 'data-testid': 'sweep-errors' });
    this.runBtn = button('Run sweep', 'sweep-run', 'btn btn-primary btn-small');
    this.runBtn.disabled = true;
    this.runBtn.addEventListener('click', () => void this.run());
    this.cancelBtn = button('Cancel', 'sweep-cancel');
    this.cancelBtn.disabled = true;
    this.cancelBtn.addEventListener('click', () => this.cancel());
    this.progress = el('progress', {
      'data-testid': 'sweep-progress',
      max: '1',
      value: '0',
    });
    this.status = el(
      'span',
      {
        class: 'sweep-status',
        'data-testid': 'sweep-status',
        'aria-live': 'polite',
      },
      'no sweep yet',
    );
    this.table = el('table', {
      class: 'sweep-table',
      'data-testid': 'sweep-table',
    });
    this.pareto = el('div', {
      class: 'sweep-pareto',
      'data-testid': 'sweep-pareto',
    });
    this.heat = el('div', { class: 'sweep-heat', 'data-testid': 'sweep-heat' });
    this.objective = el('select', {
      'data-testid': 'sweep-objective',
      'aria-label': 'Objective',
    });
    for (const o of OBJECTIVES) this.objective.append(new Option(o, o));

    const hints = el('datalist', { id: 'sweep-pointer-hints' });
    for (const p of POINTER_HINTS) hints.append(el('option', { value: p }));
    const build = button('Build from current scenario', 'sweep-build');
    build.addEventListener('click', () => this.buildFromScenario());
    const file = el('input', {
      type: 'file',
      accept: '.json,application/json',
      'aria-label': 'Load a sweep file',
      'data-testid': 'sweep-file',
    });
    file.addEventListener('change', () => void this.loadFile(file));

    const form = el('div', { class: 'sweep-form', 'data-testid': 'sweep-form' }, hints);
    [
      ['/pools/0/instances', '1, 2, 4'],
      ['/pools/0/engine/args/max_num_batched_tokens', '1024, 4096'],
    ].forEach(([p, v], k) => {
      const axis = new AxisFormRow(k, p!, v!);
      this.axes.push(axis);
      form.append(axis.el);
    });
    form.append(
      el('div', { class: 'sweep-axis' }, el('span', { class: 'sweep-axis-label' }, 'Objective'), this.objective, build),
    );

    this.el = el(
      'section',
      {
        class: 'panel sweep-view',
        'data-testid': 'sweep-view',
        'aria-labelledby': 'sweep-h',
      },
      el('div', { class: 'panel-head' }, el('h2', { id: 'sweep-h' }, 'Sweep'), el('div', { class: 'panel-tools' }, file)),
      el(
        'div',
        { class: 'sweep-body' },
        el(
          'div',
          { class: 'sweep-left' },
          form,
          el(
            'div',
            { class: 'editor-head' },
            el('h3', {}, 'Sweep document'),
            el('span', { class: 'hint' }, 'blis/sweep/v1, the base inline; same checks as ', el('code', {}, 'blis sweep')),
          ),
          this.editor,
          el('div', { class: 'validation' }, this.errors),
          el('div', { class: 'sweep-controls' }, this.runBtn, this.cancelBtn, this.progress, this.status),
        ),
        el('div', { class: 'sweep-right' }, this.heat, this.pareto, el('div', { class: 'sweep-table-wrap' }, this.table)),
      ),
    );
    this.renderResults();
  }

  /** The sweep document shown (e.g. from the URL). */
  setText(text: string): void {
    this.editor.value = text;
    this.onEdit();
  }

  text(): string {
    return this.editor.value;
  }

  axisInputs(): AxisInput[] {
    return this.axes.map((a) => a.input());
  }

  buildFromScenario(): void {
    let scenario: Json;
    try {
      scenario = JSON.parse(this.host.scenarioText()) as Json;
    } catch {
      this.showDiagnostics([
        {
          pointer: '',
          message: "the playground's scenario is not valid JSON: fix it first",
          severity: 'error',
        },
      ]);
      return;
    }
    const doc = buildSweep(scenario, this.axisInputs(), this.objective.value as Objective);
    this.setText(JSON.stringify(doc, null, 2));
  }

  private onEdit(): void {
    this.checked = undefined;
    this.updateControls();
    this.host.onDocumentChange?.(this.editor.value);
    window.clearTimeout(this.checkTimer);
    this.checkTimer = window.setTimeout(() => void this.check(), CHECK_DELAY_MS);
  }

  private async check(): Promise<void> {
    const text = this.editor.value;
    const seq = ++this.checkSeq;
    if (text.trim() === '') {
      this.showDiagnostics([]);
      return;
    }
    try {
      const c = await this.pool.check(text);
      if (seq !== this.checkSeq) return;
      this.showDiagnostics(c.diagnostics);
      if (c.document) this.checked = { text, doc: sweepDoc(c.document), points: c.points };
      if (this.checked && !this.running) this.status.textContent = `${c.points} points, ready`;
    } catch (e) {
      // A check cut short by Cancel (its worker was terminated) is asked again.
      if (e instanceof Cancelled) return void this.check();
      if (seq !== this.checkSeq) return;
      this.showDiagnostics([
        {
          pointer: '',
          message: e instanceof Error ? e.message : String(e),
          severity: 'error',
        },
      ]);
    }
    this.updateControls();
  }

  private showDiagnostics(ds: Diagnostic[]): void {
    this.errors.replaceChildren();
    this.errors.dataset['count'] = String(ds.filter((d) => d.severity === 'error').length);
    for (const d of ds) {
      const li = el('li', { class: d.severity, tabindex: '0' }, el('code', {}, d.pointer || '/'), d.message);
      li.dataset['pointer'] = d.pointer;
      const go = () => this.reveal(d.pointer);
      li.addEventListener('click', go);
      li.addEventListener('keydown', (e) => e.key === 'Enter' && go());
      this.errors.append(li);
    }
  }

  /** Selects the text at a pointer of the sweep document. */
  private reveal(pointer: string): void {
    const r = locateJson(this.editor.value).locate(pointer);
    this.editor.focus();
    this.editor.setSelectionRange(r.from, r.to);
  }

  private updateControls(): void {
    this.runBtn.disabled = this.running || !this.checked;
    this.cancelBtn.disabled = !this.running;
  }

  async run(): Promise<void> {
    const c = this.checked;
    if (!c || this.running) return;
    this.running = true;
    this.resultText = c.text;
    this.resultDoc = c.doc;
    this.rows = [];
    this.ranking = undefined;
    delete this.el.dataset['done'];
    this.progress.max = c.points;
    this.progress.value = 0;
    this.status.textContent = `running 0 / ${c.points}`;
    this.updateControls();
    this.renderResults();
    const t0 = performance.now();
    const pacer = startPacer((ms) => this.pool.pace(ms));
    const outcome = await this.pool.run(c.text, c.points, (p) => {
      this.rows = p.rows;
      if (p.ranking) this.ranking = p.ranking;
      this.progress.value = p.done;
      const n = this.pool.size;
      this.status.textContent = `running ${p.done} / ${p.total} (${n} worker${n === 1 ? '' : 's'})`;
      this.scheduleDraw();
    });
    pacer.stop();
    this.running = false;
    const secs = ((performance.now() - t0) / 1000).toFixed(1);
    this.rows = outcome.rows;
    if (outcome.kind === 'done') {
      this.ranking = outcome.ranking;
      this.status.textContent = `done: ${outcome.rows.length} points in ${secs} s`;
      this.el.dataset['done'] = String(outcome.rows.length);
    } else if (outcome.kind === 'cancelled') {
      this.status.textContent = `cancelled after ${outcome.rows.length} of ${c.points} points`;
    } else {
      this.status.textContent = `failed: ${outcome.message}`;
    }
    this.updateControls();
    this.renderResults();
  }

  cancel(): void {
    this.pool.cancel();
  }

  private scheduleDraw(): void {
    if (this.drawPending) return;
    this.drawPending = true;
    requestAnimationFrame(() => {
      this.drawPending = false;
      this.renderResults();
    });
  }

  private async open(index: number): Promise<void> {
    try {
      this.host.openScenario(await this.pool.pointScenario(this.resultText, index));
    } catch (e) {
      this.status.textContent = `cannot open point ${index}: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  private renderResults(): void {
    const doc = this.resultDoc;
    const open = (i: number) => void this.open(i);
    if (!doc) {
      this.table.replaceChildren();
      renderPareto(this.pareto, [], [], open);
      renderHeat(this.heat, undefined, false, open);
      return;
    }
    const rows = tableRows(doc, this.rows, this.ranking);
    const objective = goalOf(this.ranking?.ranking.objective);
    renderHeat(this.heat, this.rows.length ? heatMap(doc, this.rows) : undefined, objective.maximize, open);
    renderPareto(this.pareto, doc.pareto, scatterPoints(doc, rows), open);
    renderTable(this.table, doc, rows, objective, open);
  }

  private async loadFile(input: HTMLInputElement): Promise<void> {
    const f = input.files?.[0];
    if (f) this.setText(await f.text());
    input.value = '';
  }
}
