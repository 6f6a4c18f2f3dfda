// Where the user learns what is wrong and what differs: the validation list under the JSON
// editor (each item reveals its pointer), the field marks of the form, the main pane's error
// banner (its Show button goes to the field or the JSON line), and compare mode's knob diff
// of B against A.

import type { JsonEditor } from '../editor/json_editor';
import type { ScenarioForm } from '../editor/scenario_form';
import type { Diagnostic, SlotId } from '../protocol';
import { renderDiff } from '../ui/ab_diff';
import { renderErrorBanner } from '../ui/error_banner';
import { $ } from './dom';
import type { Run } from './run';
import type { Scenarios } from './scenarios';
import type { SlotTabs } from './slot_tabs';

export interface DiagnosticsHost {
  readonly docs: Scenarios;
  readonly runs: Record<SlotId, Run>;
  readonly form: ScenarioForm;
  readonly tabs: SlotTabs;
  editor(): JsonEditor | undefined;
  embed(): boolean;
  /** Switches the editor to a slot. */
  edit(slot: SlotId): void;
}

export class DiagnosticsPanel {
  constructor(private readonly host: DiagnosticsHost) {}

  set(slot: SlotId, d: Diagnostic[]): void {
    this.host.docs.diags[slot] = d;
    if (slot === this.host.docs.editing) this.render();
    else this.renderBanner();
  }

  /** The edited slot's diagnostics in the editor, the form and the list; then the banner. */
  render(): void {
    const { docs, form } = this.host;
    const d = docs.diags[docs.editing];
    this.host.editor()?.showDiagnostics(d);
    form.markInvalid(d.filter((x) => x.severity === 'error'));
    this.renderBanner();
    const list = $('validation-errors');
    list.replaceChildren();
    list.dataset['count'] = String(d.filter((x) => x.severity === 'error').length);
    for (const x of d) list.append(this.item(x));
    if (d.length === 0 && this.host.runs[docs.editing].status !== 'loading') {
      const li = document.createElement('li');
      li.className = 'ok';
      li.textContent = 'Scenario is valid.';
      list.append(li);
    }
  }

  private item(x: Diagnostic): HTMLLIElement {
    const li = document.createElement('li');
    li.className = x.severity;
    li.dataset['pointer'] = x.pointer;
    li.tabIndex = 0;
    const code = document.createElement('code');
    code.textContent = x.pointer === '#syntax' ? 'JSON' : x.pointer || '/';
    li.append(code, document.createTextNode(x.message));
    const go = () => x.pointer !== '#syntax' && this.host.editor()?.reveal(x.pointer);
    li.addEventListener('click', go);
    li.addEventListener('keydown', (e) => e.key === 'Enter' && go());
    return li;
  }

  /** The main pane says why nothing runs: the first error of each shown scenario, and a
   *  button that takes the user to the field (or the JSON line) it names. */
  renderBanner(): void {
    const { docs } = this.host;
    const banner = $('error-banner');
    const slots = docs.activeSlots().map((slot) => ({ slot, diags: docs.diags[slot] }));
    renderErrorBanner(banner, slots, docs.compare, (slot, pointer) => {
      if (docs.editing !== slot) this.host.edit(slot);
      const input = this.host.form.inputFor(pointer);
      if (input && !this.host.embed()) {
        input.scrollIntoView({ block: 'center' });
        input.focus();
      } else if (pointer !== '#syntax') this.host.editor()?.reveal(pointer);
    });
    banner.hidden = banner.childElementCount === 0;
    this.renderAbDiff();
  }

  /** Compare mode: what B changes against A (resolved documents, so defaults count). */
  private renderAbDiff(): void {
    const { docs } = this.host;
    const diff = $('ab-diff');
    diff.replaceChildren();
    diff.hidden = !docs.compare || this.host.embed();
    this.host.tabs.label();
    if (diff.hidden) return;
    renderDiff(diff, docs.resolved('a'), docs.resolved('b'), docs.runName('a'), docs.runName('b'));
  }
}
