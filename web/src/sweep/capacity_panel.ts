// `blis capacity` in the browser: on the scenario being edited, the highest rate within an
// SLO or the fewest instances, by the C++ bisection (sweep/capacity.h) in a sweep worker,
// with every probe listed.

import { button, el } from './dom';
import type { CapacityResult } from './protocol';
import type { SweepPool } from './sweep_pool';
import { fmtValue } from './view_model';

export class CapacityPanel {
  readonly el: HTMLElement;
  private readonly slo: HTMLInputElement;
  private readonly vary: HTMLSelectElement;
  private readonly btn: HTMLButtonElement;
  private readonly out: HTMLElement;

  constructor(
    private readonly pool: SweepPool,
    private readonly scenarioText: () => string,
  ) {
    this.slo = el('input', {
      type: 'text',
      value: 'ttft_ms.p99<=500',
      'data-testid': 'capacity-slo',
      'aria-label': 'SLO bounds (blis capacity --slo), comma-separated',
    });
    this.vary = el('select', {
      'data-testid': 'capacity-vary',
      'aria-label': 'What to vary',
    });
    this.vary.append(new Option('highest rate', 'rate'), new Option('fewest instances', 'instances'));
    this.btn = button('Find capacity', 'capacity-run');
    this.btn.addEventListener('click', () => void this.run());
    this.out = el('div', {
      class: 'sweep-capacity-out',
      'data-testid': 'capacity-result',
    });
    this.el = el(
      'div',
      { class: 'sweep-capacity' },
      el('h3', {}, 'Capacity of the current scenario'),
      el('div', { class: 'sweep-axis' }, this.vary, this.slo, this.btn),
      this.out,
    );
  }

  async run(): Promise<void> {
    const slo = this.slo.value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    this.btn.disabled = true;
    this.out.textContent = 'searching…';
    try {
      const query = JSON.stringify({ vary: this.vary.value, slo });
      const text = await this.pool.capacity(this.scenarioText(), query);
      this.render(JSON.parse(text) as CapacityResult);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.out.replaceChildren(el('p', { class: 'error' }, message));
    } finally {
      this.btn.disabled = false;
    }
  }

  private render(r: CapacityResult): void {
    this.out.replaceChildren(
      el('p', { 'data-testid': 'capacity-answer' }, capacityAnswer(r)),
      ...r.diagnostics.map((d) => el('p', { class: 'error' }, d)),
      el(
        'ol',
        {},
        ...r.probes.map((p) =>
          el(
            'li',
            { class: p.pass ? 'pass' : 'fail' },
            `${fmtValue(p.value)} ${r.vary === 'rate' ? 'req/s' : 'instances'}: ` + `${p.pass ? 'pass' : 'fail'} (${p.why})`,
          ),
        ),
      ),
    );
  }
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
