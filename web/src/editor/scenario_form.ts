// The form over the main knobs. It renders from the parsed document and reports edits as a
// new document; the JSON text is the single source of truth (the app re-renders the form
// whenever the text parses). A key the document leaves out shows its effective value (the
// resolved document from the WASM API: vLLM's defaults from the rules pack), marked as a
// default; editing it writes the key.

import type { Diagnostic } from '../protocol';
import { KNOBS, parseKnobInput, type Json, type Knob } from '../scenario/knobs';

export class ScenarioForm {
  private readonly inputs = new Map<string, HTMLInputElement | HTMLSelectElement>();
  private doc: Json = null;
  private effective: Json = null;

  constructor(
    private readonly form: HTMLFormElement,
    private readonly onEdit: (doc: Json, knob: Knob) => void,
  ) {
    form.addEventListener('submit', (e) => e.preventDefault());
    for (const knob of KNOBS) form.append(this.field(knob));
  }

  /** Fills the GPU and model pickers' suggestions (the catalog's ids). */
  setSuggestions(ids: { gpus: string[]; models: string[] }): void {
    const fill = (knobId: string, list: string[]) => {
      const dl = this.form.querySelector<HTMLDataListElement>(`#knob-${knobId}-list`);
      dl?.replaceChildren(...list.map((o) => new Option(o)));
    };
    fill('hardware', ids.gpus);
    fill('model', ids.models);
  }

  /**
   * Shows a document's values (`effective`: its resolved form, when known). A knob is
   * disabled only when the document sets that place another way (e.g. a load as `stages`).
   */
  render(doc: Json | undefined, effective?: Json): void {
    if (doc !== undefined) this.doc = doc;
    if (effective !== undefined) this.effective = effective;
    for (const knob of KNOBS) {
      const input = this.inputs.get(knob.id)!;
      const wrap = input.closest('.knob') as HTMLElement;
      const own = doc === undefined ? undefined : knob.get(doc);
      const blocked = doc !== undefined && own === undefined && knob.blocked?.(doc) === true;
      const eff = own === undefined && !blocked && this.effective !== null ? knob.get(this.effective) : undefined;
      const v = own ?? eff;
      const isDefault = own === undefined && v !== undefined;
      input.disabled = doc === undefined || blocked;
      wrap.classList.toggle('is-default', isDefault);
      wrap.dataset['source'] = own !== undefined ? 'document' : isDefault ? 'default' : 'none';
      wrap.querySelector<HTMLElement>('.knob-default')!.hidden = !isDefault;
      input.title = blocked
        ? `${knob.help} — this scenario sets it another way; edit it in the JSON`
        : isDefault
          ? `${knob.help} — not in the document: the default is ${String(v)}; editing writes the key`
          : knob.help;
      if (document.activeElement === input) continue; // do not fight the user's typing
      if (input instanceof HTMLInputElement && input.type === 'checkbox') input.checked = v === true;
      else input.value = v === undefined ? '' : String(v);
    }
  }

  /** Shows each error next to the knob whose pointer (or a descendant) it names. */
  markInvalid(diags: readonly Diagnostic[]): void {
    for (const knob of KNOBS) {
      const mine = diags.filter((d) => d.pointer === knob.pointer || d.pointer.startsWith(knob.pointer + '/'));
      const input = this.inputs.get(knob.id)!;
      const wrap = input.closest('.knob') as HTMLElement;
      wrap.classList.toggle('invalid', mine.length > 0);
      input.setAttribute('aria-invalid', String(mine.length > 0));
      const msg = wrap.querySelector<HTMLElement>('.knob-error')!;
      const appeared = msg.hidden && mine.length > 0;
      msg.textContent = mine.map((d) => d.message).join('; ');
      msg.hidden = mine.length === 0;
      // The field being edited keeps its new message in view (it may sit at the fold).
      if (appeared && document.activeElement === input) msg.scrollIntoView({ block: 'nearest' });
    }
  }

  /** The input showing a pointer's value, if a knob shows it. */
  inputFor(pointer: string): HTMLElement | undefined {
    const k = KNOBS.find((x) => pointer === x.pointer || pointer.startsWith(x.pointer + '/'));
    return k ? this.inputs.get(k.id) : undefined;
  }

  private field(knob: Knob): HTMLElement {
    const wrap = document.createElement('label');
    wrap.className = 'knob';
    const id = `knob-${knob.id}`;
    const label = document.createElement('span');
    label.className = 'knob-label';
    label.textContent = knob.label;
    if (knob.unit) {
      const u = document.createElement('span');
      u.className = 'knob-unit';
      u.textContent = knob.unit;
      label.append(u);
    }
    let input: HTMLInputElement | HTMLSelectElement;
    if (knob.kind === 'select') {
      const sel = document.createElement('select');
      for (const o of knob.options ?? []) sel.append(new Option(o, o));
      input = sel;
    } else {
      const inp = document.createElement('input');
      inp.type = knob.kind === 'bool' ? 'checkbox' : knob.kind === 'text' ? 'text' : 'number';
      if (knob.min !== undefined) inp.min = String(knob.min);
      if (knob.step !== undefined) inp.step = String(knob.step);
      if (knob.kind === 'text') {
        const dl = document.createElement('datalist');
        dl.id = `${id}-list`;
        wrap.append(dl);
        inp.setAttribute('list', dl.id);
        inp.spellcheck = false;
        inp.autocomplete = 'off';
      }
      input = inp;
    }
    input.id = id;
    input.name = knob.id;
    input.dataset['testid'] = `knob-${knob.id}`;
    input.title = knob.help;
    this.inputs.set(knob.id, input);
    const commit = () => {
      const raw = input instanceof HTMLInputElement && input.type === 'checkbox' ? input.checked : input.value;
      const value = parseKnobInput(knob, raw);
      if (value === undefined || this.doc === null) return;
      if (knob.get(this.doc) === value) return;
      this.doc = knob.set(this.doc, value);
      this.onEdit(this.doc, knob);
    };
    input.addEventListener(knob.kind === 'text' || knob.kind === 'int' || knob.kind === 'number' ? 'input' : 'change', commit);
    const badge = document.createElement('span');
    badge.className = 'knob-default';
    badge.textContent = 'default';
    badge.hidden = true;
    badge.title = 'not in the document: the default for this scenario (from the rules pack)';
    label.append(badge);
    const err = document.createElement('span');
    err.className = 'knob-error';
    err.dataset['testid'] = `knob-error-${knob.id}`;
    err.id = `${id}-error`;
    err.hidden = true;
    input.setAttribute('aria-describedby', err.id);
    if (knob.kind === 'bool') {
      wrap.classList.add('knob-check');
      wrap.append(input, label, err);
    } else {
      if (knob.kind === 'text') wrap.classList.add('wide');
      wrap.append(label, input, err);
    }
    return wrap;
  }
}
