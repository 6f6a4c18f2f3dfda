// The form over the main knobs. It renders from the parsed document and reports edits as a
// new document; the JSON text is the single source of truth (the app re-renders the form
// whenever the text parses).

import { KNOBS, parseKnobInput, type Json, type Knob } from '../scenario/knobs';

export class ScenarioForm {
  private readonly inputs = new Map<string, HTMLInputElement | HTMLSelectElement>();
  private doc: Json = null;

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

  /** Shows a document's values; knobs it does not have (other shapes) are disabled. */
  render(doc: Json | undefined): void {
    if (doc !== undefined) this.doc = doc;
    for (const knob of KNOBS) {
      const input = this.inputs.get(knob.id)!;
      const v = doc === undefined ? undefined : knob.get(doc);
      const usable = v !== undefined;
      input.disabled = doc === undefined || (!usable && !this.canCreate(knob));
      input.title = usable || doc === undefined ? knob.help : `${knob.help} — this scenario sets it another way; edit it in the JSON`;
      if (document.activeElement === input) continue;  // do not fight the user's typing
      if (input instanceof HTMLInputElement && input.type === 'checkbox') input.checked = v === true;
      else input.value = v === undefined ? '' : String(v);
    }
  }

  /** Marks knobs whose pointer (or a descendant) has an error. */
  markInvalid(pointers: readonly string[]): void {
    for (const knob of KNOBS) {
      const bad = pointers.some((p) => p === knob.pointer || p.startsWith(knob.pointer + '/'));
      this.inputs.get(knob.id)!.closest('.knob')?.classList.toggle('invalid', bad);
      this.inputs.get(knob.id)!.setAttribute('aria-invalid', String(bad));
    }
  }

  // The rate knob can be created on a document with no load.rate only when there are no
  // stages or concurrency: otherwise the document has another load shape.
  private canCreate(knob: Knob): boolean {
    return knob.id === 'duration_s';
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
    if (knob.kind === 'bool') {
      wrap.classList.add('knob-check');
      wrap.append(input, label);
    } else {
      if (knob.kind === 'text') wrap.classList.add('wide');
      wrap.append(label, input);
    }
    return wrap;
  }
}
