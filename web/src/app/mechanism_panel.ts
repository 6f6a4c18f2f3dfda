// "Inside one engine": the mechanism view (ui/mechanism_view.ts) of the chosen instance of
// run A, shown or hidden, redrawn when the run moved. Snapshots ride on every step.

import { MechanismView } from '../ui/mechanism_view';
import { $, $as } from './dom';
import type { Run } from './run';

export class MechanismPanel {
  private readonly view: MechanismView;
  private open = false;
  private drawn = '';

  constructor(private readonly run: Run) {
    this.view = new MechanismView($('mech-body'));
    $('mech-toggle').addEventListener('click', () => this.setOpen(!this.open));
    $('mech-instance').addEventListener('change', () => this.setOpen(this.open));
  }

  private setOpen(open: boolean): void {
    this.open = open;
    $('mech-toggle').setAttribute('aria-pressed', String(open));
    $('mech-toggle').textContent = open ? 'Hide' : 'Show';
    $('mech-body').hidden = !open;
    const inst = Number($as<HTMLSelectElement>('mech-instance').value || 0);
    if (open) this.run.snapshotOf = inst;
    else delete this.run.snapshotOf;
    this.drawn = '';
    if (open) this.run.requestSnapshot();
  }

  /** Called on every drawn frame: the instance list, then the snapshot when it changed. */
  render(): void {
    const sel = $as<HTMLSelectElement>('mech-instance');
    const names = this.run.instances;
    if (sel.options.length !== names.length || names.some((n, i) => sel.options[i]!.text !== n)) {
      sel.replaceChildren(...names.map((n, i) => new Option(n, String(i))));
      if (this.open) this.setOpen(true);
    }
    if (!this.open) return;
    const a = this.run;
    const key = `${a.gen}.${a.version}`;
    if (key === this.drawn) return;
    this.drawn = key;
    if (a.snapshot === undefined && a.active) a.requestSnapshot();
    this.view.show(a.active ? a.snapshot : undefined);
  }
}
