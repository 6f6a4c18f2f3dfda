// `blis capacity` on the playground's scenario: the highest rate within an SLO or the fewest
// instances, by the C++ bisection (sweep/capacity.h) in its own sweep worker, with each probe
// listed as it finishes, Cancel (the worker is terminated), and the found point opened as the
// playground's scenario.

import { button, el } from '../ui/dom';
import type { CapacityProbe, CapacityResult } from './protocol';
import { Cancelled, type SweepPool } from './sweep_pool';
import { fmtValue } from './view_model';

export interface CapacityHost {
  /** The scenario being edited (JSON text). */
  scenarioText(): string;
  /** Opens a scenario (JSON text) in the playground. */
  openScenario(text: string): void;
}

/** The search's probe budget (blis capacity's --max-probes default). */
const MAX_PROBES = 24;

export class CapacityPanel {
  readonly el: HTMLElement;
  private readonly slo: HTMLInputElement;
  private readonly vary: HTMLSelectElement;
  private readonly btn: HTMLButtonElement;
  private readonly cancelBtn: HTMLButtonElement;
  private readonly progress: HTMLProgressElement;
  private readonly status: HTMLElement;
  private readonly probes: HTMLOListElement;
  private readonly out: HTMLElement;

  constructor(
    private readonly pool: SweepPool,
    private readonly host: CapacityHost,
  ) {
    this.slo = el('input', {
      type: 'text',
      value: 'ttft_ms.p99<=500',
      'data-testid': 'capacity-slo',
      'aria-label': 'SLO bounds (blis capacity --slo), comma-separated',
    });
    this.vary = el('select', { 'data-testid': 'capacity-vary', 'aria-label': 'What to vary' });
    this.vary.append(new Option('highest rate', 'rate'), new Option('fewest instances', 'instances'));
    this.btn = button('Find capacity', 'capacity-run', 'btn btn-small btn-primary');
    this.btn.addEventListener('click', () => void this.run());
    this.cancelBtn = button('Cancel', 'capacity-cancel');
    this.cancelBtn.disabled = true;
    this.cancelBtn.addEventListener('click', () => this.pool.cancel());
    this.progress = el('progress', { 'data-testid': 'capacity-progress', max: String(MAX_PROBES), value: '0' });
    this.status = el('span', { class: 'sweep-status', 'data-testid': 'capacity-status', 'aria-live': 'polite' });
    this.probes = el('ol', { 'data-testid': 'capacity-probes' });
    this.out = el('div', { class: 'sweep-capacity-out', 'data-testid': 'capacity-result' });
    this.el = el(
      'details',
      { class: 'sweep-capacity', 'data-testid': 'capacity' },
      el('summary', {}, el('h3', {}, 'Capacity search')),
      el(
        'p',
        { class: 'hint' },
        'Bisects this scenario for the highest rate, or the fewest instances, within the SLO and without saturating (',
        el('code', {}, 'blis capacity'),
        ').',
      ),
      el('div', { class: 'sweep-axis' }, this.vary, this.slo),
      el('div', { class: 'sweep-controls' }, this.btn, this.cancelBtn, this.progress, this.status),
      el('div', { class: 'sweep-capacity-out' }, this.probes),
      this.out,
    );
  }

  async run(): Promise<void> {
    const slo = this.slo.value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    const vary = this.vary.value === 'instances' ? 'instances' : 'rate';
    const done: CapacityProbe[] = [];
    this.setRunning(true);
    this.probes.replaceChildren();
    this.out.replaceChildren();
    this.progress.value = 0;
    this.status.textContent = 'searching…';
    delete this.el.dataset['done'];
    try {
      const query = JSON.stringify({ vary, slo, max_probes: MAX_PROBES });
      const text = await this.pool.capacity(this.host.scenarioText(), query, (t) => {
        const p = JSON.parse(t) as CapacityProbe;
        done.push(p);
        this.probes.append(probeItem(p, vary));
        this.progress.value = done.length;
        this.status.textContent = `probe ${done.length} done (at most ${MAX_PROBES})`;
      });
      this.render(JSON.parse(text) as CapacityResult);
      this.status.textContent = `done: ${done.length} probe${done.length === 1 ? '' : 's'}`;
      this.el.dataset['done'] = String(done.length);
    } catch (e) {
      if (e instanceof Cancelled) {
        this.status.textContent = `cancelled after ${done.length} probe${done.length === 1 ? '' : 's'}`;
      } else {
        this.status.textContent = 'failed';
        this.out.replaceChildren(el('p', { class: 'error' }, e instanceof Error ? e.message : String(e)));
      }
    } finally {
      this.setRunning(false);
    }
  }

  private setRunning(on: boolean): void {
    this.btn.disabled = on;
    this.cancelBtn.disabled = !on;
  }

  private render(r: CapacityResult): void {
    this.progress.value = this.progress.max; // the search ended (often before its budget)
    this.probes.replaceChildren(...r.probes.map((p) => probeItem(p, r.vary)));
    const found = r.answer_scenario;
    const open = button('Open the found point', 'capacity-open');
    open.hidden = !found;
    open.addEventListener('click', () => this.host.openScenario(JSON.stringify(found, null, 2)));
    this.out.replaceChildren(
      el('p', { 'data-testid': 'capacity-answer' }, capacityAnswer(r)),
      ...r.diagnostics.map((d) => el('p', { class: 'error' }, d)),
      open,
    );
  }
}

function probeItem(p: CapacityProbe, vary: 'rate' | 'instances'): HTMLElement {
  const unit = vary === 'rate' ? 'req/s' : p.value === 1 ? 'instance' : 'instances';
  return el('li', { class: p.pass ? 'pass' : 'fail' }, `${fmtValue(p.value)} ${unit}: ${p.pass ? 'pass' : 'fail'} (${p.why})`);
}

/** The answer line, worded as `blis capacity` prints it. */
export function capacityAnswer(r: CapacityResult): string {
  const rate = r.vary === 'rate';
  if (r.answer === null) {
    return `no ${rate ? 'rate' : 'instance count'} passes within ${r.probes.length} probes`;
  }
  if (rate) {
    const fails = r.first_fail === null ? '' : ` (fails at ${fmtValue(r.first_fail)})`;
    return `highest rate within the SLO: ${fmtValue(r.answer)} req/s${fails}`;
  }
  const fails = r.first_fail === null ? '' : ` (${r.first_fail} fails)`;
  return `fewest instances within the SLO: ${r.answer}${fails}`;
}
