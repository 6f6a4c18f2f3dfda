// Compare mode's A / B tabs over the scenario editor (named after each scenario's `name`),
// the Compare toggle's pressed state and the Swap button.

import type { SlotId } from '../protocol';
import { $ } from './dom';
import type { Scenarios } from './scenarios';

export class SlotTabs {
  private readonly host = $('slot-tabs');

  constructor(
    private readonly docs: Scenarios,
    private readonly choose: (slot: SlotId) => void,
  ) {}

  /** Shows or hides the tabs for compare mode (creating them the first time). */
  render(): void {
    $('compare').setAttribute('aria-pressed', String(this.docs.compare));
    this.host.hidden = !this.docs.compare;
    if (this.host.childElementCount > 0) return;
    for (const slot of ['a', 'b'] as SlotId[]) {
      const t = document.createElement('button');
      t.type = 'button';
      t.className = 'slot-tab';
      t.setAttribute('role', 'tab');
      t.dataset['slot'] = slot;
      t.dataset['testid'] = `edit-${slot}`;
      t.textContent = slot.toUpperCase();
      t.setAttribute('aria-label', `Edit scenario ${slot.toUpperCase()}`);
      t.addEventListener('click', () => this.choose(slot));
      t.addEventListener('keydown', (e) => {
        if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
        this.choose(this.docs.editing === 'a' ? 'b' : 'a');
        this.host.querySelector<HTMLButtonElement>(`[data-slot="${this.docs.editing}"]`)?.focus();
      });
      this.host.append(t);
    }
  }

  /** Marks the tab of the slot being edited. */
  select(): void {
    this.host.querySelectorAll<HTMLButtonElement>('.slot-tab').forEach((t) => {
      t.setAttribute('aria-selected', String(t.dataset['slot'] === this.docs.editing));
      t.tabIndex = t.dataset['slot'] === this.docs.editing ? 0 : -1;
    });
  }

  /** Tab labels with the runs' names (compare mode); Swap only when there is a B. */
  label(): void {
    for (const slot of ['a', 'b'] as SlotId[]) {
      const tab = this.host.querySelector<HTMLElement>(`.slot-tab[data-slot="${slot}"]`);
      if (!tab) continue;
      tab.textContent = `${slot.toUpperCase()}${this.docs.compare ? ` · ${this.docs.runName(slot)}` : ''}`;
      tab.title = tab.textContent;
    }
    $('swap').hidden = !this.docs.compare;
  }
}
