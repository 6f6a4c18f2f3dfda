// One axis of the sweep form: a scenario key (JSON pointer) with its values or range, and
// any keys linked to it ("+ linked key"), which move with it step for step, e.g. the rate
// with the instances. It only collects text: axes.ts writes the document, the C++ decoder
// checks it (a linked key with too few values is named at /axes/<k>/linked/<j>).

import type { AxisInput, MemberInput } from './axes';
import { button, el } from '../ui/dom';

/** The inputs of one key and the row that shows them. */
class MemberRow {
  readonly row: HTMLElement;
  private readonly pointer: HTMLInputElement;
  private readonly mode: HTMLSelectElement;
  private readonly values: HTMLInputElement;
  private readonly range: HTMLInputElement[];

  constructor(label: string, testid: string, aria: string, init: { pointer: string; mode: string; values: string }) {
    this.pointer = el('input', {
      type: 'text',
      list: 'sweep-pointer-hints',
      value: init.pointer,
      'aria-label': `${aria} key (JSON pointer)`,
      'data-testid': `${testid}-pointer`,
    });
    this.mode = el('select', { 'aria-label': `${aria} values or range`, 'data-testid': `${testid}-mode` });
    this.mode.append(new Option('values', 'values'), new Option('range', 'range'));
    this.mode.value = init.mode;
    this.values = el('input', {
      type: 'text',
      value: init.values,
      'aria-label': `${aria} values`,
      'data-testid': `${testid}-values`,
    });
    this.range = (
      [
        ['from', '1'],
        ['to', '4'],
        ['step', '1'],
      ] as const
    ).map(([k, v]) =>
      el('input', { type: 'text', value: v, size: '5', 'aria-label': `${aria} ${k}`, 'data-testid': `${testid}-${k}` }),
    );
    const [from, to, step] = this.range as [HTMLInputElement, HTMLInputElement, HTMLInputElement];
    const range = el('span', { class: 'sweep-range' }, from, ' to ', to, ' step ', step);
    const sync = () => {
      this.values.hidden = this.mode.value !== 'values';
      range.hidden = this.mode.value !== 'range';
    };
    this.mode.addEventListener('change', sync);
    sync();
    this.row = el(
      'div',
      { class: 'sweep-axis' },
      el('span', { class: 'sweep-axis-label' }, label),
      this.pointer,
      this.mode,
      this.values,
      range,
    );
  }

  input(): MemberInput {
    const [from, to, step] = this.range.map((r) => r.value) as [string, string, string];
    return {
      pointer: this.pointer.value,
      mode: this.mode.value === 'range' ? 'range' : 'values',
      values: this.values.value,
      from,
      to,
      step,
    };
  }
}

export class AxisFormRow {
  readonly el: HTMLElement;
  private readonly own: MemberRow;
  private readonly linked: MemberRow[] = [];
  private nextLinked = 0;

  /** Axis `k` (0-based) starting at `pointer` with `values`. */
  constructor(
    private readonly k: number,
    pointer: string,
    values: string,
  ) {
    this.own = new MemberRow(`Axis ${k + 1}`, `sweep-axis${k}`, `Axis ${k + 1}`, { pointer, mode: 'values', values });
    const add = button('+ linked key', `sweep-axis${k}-link`, 'btn btn-small btn-ghost');
    add.title = 'A key that moves with this axis, step for step (e.g. the rate with the instances)';
    add.addEventListener('click', () => this.addLinked());
    this.own.row.append(add);
    this.el = el('div', { class: 'sweep-axis-group', 'data-testid': `sweep-axis${k}` }, this.own.row);
  }

  /** Adds a linked key (empty unless given) and returns its index among the linked keys. */
  addLinked(pointer = '', values = ''): number {
    const j = this.nextLinked++;
    const m = new MemberRow('linked', `sweep-axis${this.k}-linked${j}`, `Axis ${this.k + 1} linked key ${j + 1}`, {
      pointer,
      mode: 'values',
      values,
    });
    const remove = button('×', `sweep-axis${this.k}-linked${j}-remove`, 'btn btn-small btn-ghost');
    remove.setAttribute('aria-label', `Remove linked key ${j + 1} of axis ${this.k + 1}`);
    remove.addEventListener('click', () => {
      this.linked.splice(this.linked.indexOf(m), 1);
      m.row.remove();
    });
    m.row.append(remove);
    this.linked.push(m);
    this.el.append(m.row);
    return j;
  }

  input(): AxisInput {
    return { ...this.own.input(), linked: this.linked.map((m) => m.input()) };
  }
}
