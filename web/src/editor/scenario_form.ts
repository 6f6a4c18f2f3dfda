// The form over the knobs. It renders from the parsed document and reports edits as a new
// document; the JSON text is the single source of truth (the app re-renders the form
// whenever the text parses). A key the document leaves out shows its effective value (the
// resolved document from the WASM API: vLLM's defaults from the rules pack), marked as a
// default; editing it writes the key. The main knobs are a grid; the scale-out, adapter and
// router knobs are folded groups below it, opened when the document sets one of their keys
// or one of them has an error. A select lists the values the decoder accepts (choices.ts).
// The pool and client pickers above the knobs choose which pool and client the pool and
// client knobs edit (the same fields, pointed at another entry: knobsFor).

import type { Diagnostic } from '../protocol';
import { EPP_EXAMPLES } from '../scenario/epp_examples';
import {
  getAt,
  jsonError,
  KNOBS,
  knobsFor,
  knobState,
  parseKnobInput,
  type Json,
  type Knob,
  type KnobGroup,
} from '../scenario/knobs';

type Field = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

const GROUPS: readonly { id: Exclude<KnobGroup, 'main'>; title: string }[] = [
  { id: 'scale', title: 'Parallelism and network (pp, dp, EP, nodes)' },
  { id: 'adapters', title: 'LoRA and speculative decoding' },
  { id: 'scorers', title: 'Weighted router scorers (router.scorers)' },
  { id: 'router', title: 'llm-d router (EPP config)' },
];

export class ScenarioForm {
  private readonly inputs = new Map<string, Field>();
  private readonly groups = new Map<KnobGroup, HTMLDetailsElement>();
  /** Groups the user opened or closed: the form no longer opens them by itself. */
  private readonly toggled = new Set<KnobGroup>();
  /** A json knob's text that does not parse (shown with the validator's messages). */
  private readonly localErrors = new Map<string, string>();
  private choices: Record<string, string[]> = {};
  private lastDiags: readonly Diagnostic[] = [];
  private doc: Json = null;
  private effective: Json = null;
  /** The knobs over the selected pool and client. */
  private knobs: readonly Knob[] = KNOBS;
  private pool = 0;
  private client = 0;
  private readonly poolPick: HTMLSelectElement;
  private readonly clientPick: HTMLSelectElement;

  constructor(
    private readonly form: HTMLFormElement,
    private readonly onEdit: (doc: Json, knob: Knob) => void,
  ) {
    form.addEventListener('submit', (e) => e.preventDefault());
    this.poolPick = this.picker('pool', 'Pool', 'the pool whose instances, hardware, model and engine the knobs edit');
    this.clientPick = this.picker('client', 'Client', 'the client whose load and lengths the knobs edit');
    const pickers = document.createElement('div');
    pickers.className = 'knob-target';
    pickers.append(this.poolPick.parentElement!, this.clientPick.parentElement!);
    form.append(pickers);
    for (const g of GROUPS) {
      const det = document.createElement('details');
      det.className = 'knob-group';
      det.dataset['testid'] = `knob-group-${g.id}`;
      const sum = document.createElement('summary');
      sum.textContent = g.title;
      sum.addEventListener('click', () => this.toggled.add(g.id));
      const grid = document.createElement('div');
      grid.className = 'knobs';
      det.append(sum, grid);
      this.groups.set(g.id, det);
    }
    for (const knob of KNOBS) {
      const group = this.groups.get(knob.group ?? 'main');
      (group ? group.lastElementChild! : form).append(this.field(knob));
      if (knob.id === 'epp_config') group!.lastElementChild!.append(this.eppExamples(knob));
    }
    form.append(...this.groups.values());
  }

  /** Fills the GPU, model and fabric pickers' suggestions (the catalog's ids). */
  setSuggestions(ids: { gpus: string[]; models: string[]; fabrics?: string[] }): void {
    const fill = (knobId: string, list: string[]) => {
      const dl = this.form.querySelector<HTMLDataListElement>(`#knob-${knobId}-list`);
      dl?.replaceChildren(...list.map((o) => new Option(o)));
    };
    fill('hardware', ids.gpus);
    fill('model', ids.models);
    fill('fabric', ids.fabrics ?? []);
  }

  /** The values each select knob accepts, by knob id (read from the decoder). */
  setChoices(choices: Record<string, string[]>): void {
    this.choices = choices;
    if (this.doc !== null) this.render(this.doc);
  }

  /**
   * Shows a document's values (`effective`: its resolved form, when known). A knob is
   * disabled when the document sets that place another way (e.g. a load as `stages`) or
   * another knob comes first (draft tokens need a speculative method).
   */
  render(doc: Json | undefined, effective?: Json): void {
    if (doc !== undefined) this.doc = doc;
    if (effective !== undefined) this.effective = effective;
    this.renderPickers(doc);
    for (const knob of this.knobs) {
      const input = this.inputs.get(knob.id)!;
      const wrap = input.closest('.knob') as HTMLElement;
      const st = doc === undefined ? { value: undefined, source: 'none' as const } : knobState(knob, doc, this.effective);
      const v = st.value;
      const isDefault = st.source === 'default';
      input.disabled = doc === undefined || st.disabledBecause !== undefined;
      wrap.classList.toggle('is-default', isDefault);
      wrap.dataset['source'] = st.source;
      if (st.disabledBecause !== undefined) wrap.dataset['needs'] = st.disabledBecause;
      else delete wrap.dataset['needs'];
      wrap.querySelector<HTMLElement>('.knob-default')!.hidden = !isDefault;
      input.title = st.disabledBecause
        ? `${knob.help} — ${st.disabledBecause}`
        : isDefault
          ? `${knob.help} — not in the document: the default is ${String(v)}; editing writes the key`
          : knob.help;
      if (st.source === 'document') this.open(knob, false);
      if (input instanceof HTMLSelectElement) this.fillOptions(knob, input, v);
      if (document.activeElement === input) continue; // do not fight the user's typing
      if (input instanceof HTMLInputElement && input.type === 'checkbox') input.checked = v === true;
      else input.value = v === undefined ? '' : String(v);
      if (knob.kind === 'json') this.localErrors.delete(knob.id); // the document's text parses
    }
    this.showErrors();
  }

  /** Shows each error next to the knob whose pointer (or a descendant) it names. */
  markInvalid(diags: readonly Diagnostic[]): void {
    this.lastDiags = diags;
    this.showErrors();
  }

  /** The input showing a pointer's value, if a knob shows it (its group opened). */
  inputFor(pointer: string): HTMLElement | undefined {
    const pool = /^\/pools\/(\d+)(\/|$)/.exec(pointer);
    const client = /^\/workload\/clients\/(\d+)(\/|$)/.exec(pointer);
    if (pool || client) {
      this.select(pool ? Number(pool[1]) : this.pool, client ? Number(client[1]) : this.client);
    }
    const k = this.knobs.find((x) => owns(x, pointer, this.doc));
    if (k) this.open(k, true);
    return k ? this.inputs.get(k.id) : undefined;
  }

  private showErrors(): void {
    for (const knob of this.knobs) {
      const mine = this.lastDiags.filter((d) => owns(knob, d.pointer, this.doc)).map((d) => d.message);
      const local = this.localErrors.get(knob.id);
      if (local !== undefined) mine.unshift(local);
      const input = this.inputs.get(knob.id)!;
      const wrap = input.closest('.knob') as HTMLElement;
      wrap.classList.toggle('invalid', mine.length > 0);
      input.setAttribute('aria-invalid', String(mine.length > 0));
      const msg = wrap.querySelector<HTMLElement>('.knob-error')!;
      const appeared = msg.hidden && mine.length > 0;
      msg.textContent = mine.join('; ');
      msg.hidden = mine.length === 0;
      if (mine.length > 0) this.open(knob, false);
      // The field being edited keeps its new message in view (it may sit at the fold).
      if (appeared && document.activeElement === input) msg.scrollIntoView({ block: 'nearest' });
    }
  }

  /** Which pool and client the knobs edit (clamped to the document's entries). */
  get target(): { pool: number; client: number; knobs: readonly Knob[] } {
    return { pool: this.pool, client: this.client, knobs: this.knobs };
  }

  private select(pool: number, client: number): void {
    if (pool === this.pool && client === this.client) return;
    this.pool = pool;
    this.client = client;
    this.knobs = knobsFor(pool, client);
    for (const input of this.inputs.values()) if (document.activeElement === input) input.blur();
    if (this.doc !== null) this.render(this.doc);
  }

  /** The pickers list the document's pools and clients; a selection past the end moves back. */
  private renderPickers(doc: Json | undefined): void {
    const pools = doc === undefined ? [] : entryNames(getAt(doc, '/pools'));
    const clients = doc === undefined ? [] : entryNames(getAt(doc, '/workload/clients'));
    const fill = (sel: HTMLSelectElement, names: string[], at: number) => {
      if (sel.options.length !== names.length || names.some((n, i) => sel.options[i]!.text !== n)) {
        sel.replaceChildren(...names.map((n, i) => new Option(n, String(i))));
      }
      sel.value = String(at);
      sel.disabled = doc === undefined;
      sel.parentElement!.hidden = names.length === 0;
    };
    const pool = Math.min(this.pool, Math.max(0, pools.length - 1));
    const client = Math.min(this.client, Math.max(0, clients.length - 1));
    if (pool !== this.pool || client !== this.client) {
      this.pool = pool;
      this.client = client;
      this.knobs = knobsFor(pool, client);
    }
    fill(this.poolPick, pools, pool);
    fill(this.clientPick, clients, client);
  }

  private picker(id: 'pool' | 'client', label: string, help: string): HTMLSelectElement {
    const wrap = document.createElement('label');
    wrap.className = 'knob knob-pick';
    const span = document.createElement('span');
    span.className = 'knob-label';
    span.textContent = `${label} to edit`;
    const sel = document.createElement('select');
    sel.dataset['testid'] = `form-${id}`;
    sel.title = help;
    sel.addEventListener('change', () => {
      const i = Number(sel.value);
      this.select(id === 'pool' ? i : this.pool, id === 'client' ? i : this.client);
    });
    wrap.append(span, sel);
    return sel;
  }

  /** Opens a knob's group, unless the user chose its state (`force`: open it anyway). */
  private open(knob: Knob, force: boolean): void {
    const id = knob.group ?? 'main';
    const det = this.groups.get(id);
    if (det && !det.open && (force || !this.toggled.has(id))) det.open = true;
  }

  /** A select's options: its fixed ones, the decoder's, and the shown value if neither has it. */
  private fillOptions(knob: Knob, sel: HTMLSelectElement, v: unknown): void {
    const want = [...(knob.options ?? []), ...(this.choices[knob.id] ?? [])];
    if (typeof v === 'string' && !want.includes(v)) want.push(v);
    if (sel.options.length === want.length && want.every((o, i) => sel.options[i]!.value === o)) return;
    sel.replaceChildren(...want.map((o) => new Option(o, o)));
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
    const input = this.control(knob, wrap, id);
    input.id = id;
    input.name = knob.id;
    input.dataset['testid'] = `knob-${knob.id}`;
    input.title = knob.help;
    if (knob.placeholder && !(input instanceof HTMLSelectElement)) input.placeholder = knob.placeholder;
    this.inputs.set(knob.id, input);
    // The knob of the selected pool and client (the same id over another entry).
    const commit = () =>
      this.commit(
        this.knobs.find((k) => k.id === knob.id)!,
        input,
      );
    const live = knob.kind === 'bool' || knob.kind === 'select' ? 'change' : 'input';
    input.addEventListener(live, commit);
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
      if (knob.kind === 'text' || knob.kind === 'json' || knob.kind === 'config') wrap.classList.add('wide');
      wrap.append(label, input, err);
    }
    return wrap;
  }

  private control(knob: Knob, wrap: HTMLElement, id: string): Field {
    if (knob.kind === 'select') return document.createElement('select');
    if (knob.kind === 'config') {
      const ta = document.createElement('textarea');
      ta.rows = 8;
      ta.spellcheck = false;
      return ta;
    }
    const inp = document.createElement('input');
    inp.type = knob.kind === 'bool' ? 'checkbox' : knob.kind === 'int' || knob.kind === 'number' ? 'number' : 'text';
    if (knob.min !== undefined) inp.min = String(knob.min);
    if (knob.step !== undefined) inp.step = String(knob.step);
    if (knob.kind === 'text' || knob.kind === 'json') {
      inp.spellcheck = false;
      inp.autocomplete = 'off';
    }
    if (knob.kind === 'text') {
      const dl = document.createElement('datalist');
      dl.id = `${id}-list`;
      wrap.append(dl);
      inp.setAttribute('list', dl.id);
    }
    return inp;
  }

  private commit(knob: Knob, input: Field): void {
    const raw = input instanceof HTMLInputElement && input.type === 'checkbox' ? input.checked : input.value;
    if (knob.kind === 'json') {
      const bad = String(raw).trim() === '' ? undefined : jsonError(String(raw));
      if (bad === undefined) this.localErrors.delete(knob.id);
      else this.localErrors.set(knob.id, `not JSON (${bad}); the document keeps its last value`);
      this.showErrors();
    }
    const value = parseKnobInput(knob, raw);
    if (value === undefined || this.doc === null) return;
    if (knob.get(this.doc) === value) return;
    this.doc = knob.set(this.doc, value);
    this.onEdit(this.doc, knob);
    // The edited key is the document's now (no default mark), and knobs that read the same
    // place (a scorer's checkbox and weight, the router policy) show it at once.
    this.render(this.doc);
  }

  /** A picker of the example EndpointPickerConfigs: choosing one puts it in the EPP field. */
  private eppExamples(knob: Knob): HTMLElement {
    const wrap = document.createElement('label');
    wrap.className = 'knob wide';
    const label = document.createElement('span');
    label.className = 'knob-label';
    label.textContent = 'Example EPP configs';
    const sel = document.createElement('select');
    sel.dataset['testid'] = 'epp-example';
    sel.title = "puts an example's router.epp_config in the field above (and router policy epp)";
    sel.append(new Option('choose an example…', ''), ...EPP_EXAMPLES.map((e) => new Option(`${e.file}: ${e.title}`, e.file)));
    sel.addEventListener('change', () => {
      const ex = EPP_EXAMPLES.find((e) => e.file === sel.value);
      sel.value = '';
      if (!ex || this.doc === null) return;
      this.doc = knob.set(this.doc, ex.text);
      this.onEdit(this.doc, knob);
      this.render(this.doc);
    });
    wrap.append(label, sel);
    return wrap;
  }
}

/** Whether a knob shows the diagnostics at `pointer`: its own place, a descendant, or one of
 *  the pointers it also answers for (a knob that finds its place by name decides itself). */
function owns(knob: Knob, pointer: string, doc: Json): boolean {
  if (knob.ownsAt) return knob.ownsAt(doc, pointer);
  return pointer === knob.pointer || pointer.startsWith(knob.pointer + '/') || (knob.alsoAt ?? []).includes(pointer);
}

/** `names`' entries' names (or their index) for a picker. */
function entryNames(list: Json | undefined): string[] {
  if (!Array.isArray(list)) return [];
  return list.map((e, i) => {
    const n = e !== null && typeof e === 'object' && !Array.isArray(e) ? e['name'] : undefined;
    return typeof n === 'string' ? `${i}: ${n}` : String(i);
  });
}
