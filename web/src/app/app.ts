// The playground: wires the preset gallery, the scenario form and JSON editor, the
// transport, the charts, the summary cards, the mechanism view and the exports to the runs in
// the worker. Everything the user sees is reproducible from the URL (url_sync.ts).
//
// The App owns the scenario documents (scenarios.ts) and the two runs; each component has
// one job and is told when to redraw. A new panel is one more component constructed here and
// called from draw() (or from onRunChange, for what must not wait for a frame).

import type { JsonEditor } from '../editor/json_editor';
import { ScenarioForm } from '../editor/scenario_form';
import { syntaxDiagnostics } from '../lib/syntax';
import { readUrlState, type UrlState } from '../lib/url_state';
import type { SlotId } from '../protocol';
import { choiceProbe, readChoices } from '../scenario/choices';
import { getAt, type Json } from '../scenario/knobs';
import { DEFAULT_PRESET, findPreset, PRESETS, type Preset } from '../scenario/presets';
import { mountSweepView } from '../sweep/mount';
import { PresetGallery } from '../ui/preset_gallery';
import { renderCards } from '../ui/summary_cards';
import { ChartBoard, type InstanceChoice } from './chart_board';
import { DiagnosticsPanel } from './diagnostics_panel';
import { $, $as, showBanner } from './dom';
import { renderExportRows } from './exports';
import { MechanismPanel } from './mechanism_panel';
import { ModelImport } from './model_import';
import { Run } from './run';
import { Scenarios } from './scenarios';
import { SimClient } from './sim_client';
import { SlotTabs } from './slot_tabs';
import { Transport } from './transport';
import { UrlSync } from './url_sync';
import { fmtWindow, WindowControl, withWindow } from './window_control';

const APPLY_DELAY_MS = 300;
const FORM_APPLY_DELAY_MS = 150;
const CARDS_EVERY_MS = 250;

export class App {
  private readonly client: SimClient;
  private readonly docs = new Scenarios();
  private readonly runs: Record<SlotId, Run>;
  private embed = false;
  private drawnVersion = '';
  private lastCardsAt = 0;
  private applyTimer?: number;
  /** An edit (editor, form or import) is waiting to be applied: see Transport.play. */
  private editPending = false;
  private exportFills: (() => void)[] = [];
  /** The vLLM release the form's select options were read for (undefined: not yet). */
  private choicesRelease?: string;
  private moduleReady = false;

  private editor?: JsonEditor; // not loaded in embed mode (CodeMirror is most of the bundle)
  private readonly form: ScenarioForm;
  private readonly gallery: PresetGallery;
  private readonly transport: Transport;
  private readonly board: ChartBoard;
  private readonly mech: MechanismPanel;
  private readonly tabs: SlotTabs;
  private readonly diagnostics: DiagnosticsPanel;
  private readonly url: UrlSync;
  private readonly window: WindowControl;
  private readonly models: ModelImport;

  constructor(worker: Worker) {
    this.client = new SimClient(worker);
    this.client.setFatalHandler((m) => showBanner(`The simulator failed: ${m}`));
    const onChange = () => this.onRunChange();
    this.runs = { a: new Run('a', this.client, onChange), b: new Run('b', this.client, onChange) };

    this.gallery = new PresetGallery($('presets'), PRESETS, (p) => this.choosePreset(p));
    this.form = new ScenarioForm($as<HTMLFormElement>('scenario-form'), (doc) => this.onFormEdit(doc));
    this.transport = new Transport({
      runsShown: () => this.runsShown(),
      editPending: () => this.editPending,
      primary: () => this.runs.a,
      onReset: () => this.board.hideCdf(),
      onSpeedChange: () => this.url.schedule(),
    });
    this.board = new ChartBoard($('charts'), new URLSearchParams(location.search).get('embed') === '1');
    this.mech = new MechanismPanel(this.runs.a);
    this.tabs = new SlotTabs(this.docs, (slot) => this.edit(slot));
    this.diagnostics = new DiagnosticsPanel({
      docs: this.docs,
      runs: this.runs,
      form: this.form,
      tabs: this.tabs,
      editor: () => this.editor,
      embed: () => this.embed,
      edit: (slot) => this.edit(slot),
    });
    this.url = new UrlSync(this.docs, () => this.transport.speed);
    this.window = new WindowControl((ms) => this.setWindow(ms));
    this.models = new ModelImport(this.client, this.docs, (text) => this.replaceEdited(text));
    this.wireControls();
  }

  async start(): Promise<void> {
    let state: UrlState;
    try {
      state = await readUrlState(location.search);
    } catch (e) {
      showBanner(e instanceof Error ? e.message : String(e));
      state = { embed: false, autoplay: false };
    }
    this.embed = state.embed;
    this.url.embed = state.embed;
    document.body.classList.toggle('embed', this.embed);
    if (state.speed !== undefined) this.transport.speed = state.speed;
    this.transport.renderSpeeds();
    if (!this.embed) {
      const { JsonEditor } = await import('../editor/json_editor');
      this.editor = new JsonEditor($('editor'), '', (text) => this.onEditorEdit(text));
      mountSweepView({
        scenarioText: () => this.docs.texts[this.docs.editing],
        openScenario: (t) => this.onFormEdit(JSON.parse(t) as Json),
      });
    }
    this.openDocuments(state);

    const version = await this.client.ready.catch((e: Error) => {
      showBanner(`The simulator module did not load: ${e.message}`);
      return undefined;
    });
    if (version === undefined) return;
    $('module-version').textContent = version;
    this.form.setSuggestions(this.client.catalog);
    this.moduleReady = true;
    this.renderCompare();
    this.showEditing();
    requestAnimationFrame((t) => this.frame(t));
    await this.loadAll();
    await this.url.write();
    document.body.dataset['ready'] = '1';
    if (state.autoplay) this.transport.play();
  }

  /** Frame-time samples (ms between animation frames) while playing, for the perf check. */
  frameStats(): { n: number; p95: number; max: number } {
    return this.transport.frameStats();
  }

  /** The documents the URL names: a preset, or scenario texts (A, and B to compare). */
  private openDocuments(state: UrlState): void {
    const docs = this.docs;
    const named = findPreset(state.preset ?? '');
    const preset = named ?? (state.scenario === undefined ? findPreset(DEFAULT_PRESET) : undefined);
    if (state.preset && !named) showBanner(`There is no preset named “${state.preset}”; showing the default.`);
    docs.preset = state.scenario === undefined ? preset : undefined;
    docs.texts.a = state.scenario ?? preset!.scenario;
    const bPreset = findPreset(state.comparePreset ?? '');
    const presetB = docs.preset?.compare && state.scenario === undefined ? docs.preset.compare.scenario : undefined;
    const b = state.compare ?? bPreset?.scenario ?? presetB;
    docs.compare = b !== undefined;
    if (b !== undefined) docs.texts.b = b;
    this.gallery.select(docs.preset?.name);
  }

  // ---- runs ----

  private runsShown(): Run[] {
    return this.docs.activeSlots().map((s) => this.runs[s]);
  }

  private async loadAll(): Promise<void> {
    await Promise.all(this.docs.activeSlots().map((s) => this.applyText(s)));
  }

  /** Validates a slot's text and, when it has no errors, (re)loads its run. */
  /** Applies the slot's text; an edit is pending until its text is applied (or refused),
   *  unless it was edited again meanwhile (a later apply is scheduled then). */
  private async applyText(slot: SlotId): Promise<void> {
    const text = this.docs.texts[slot];
    try {
      await this.applyTextNow(slot, text);
    } finally {
      if (this.docs.texts[slot] === text) {
        this.editPending = false;
        this.transport.onRunChange();
      }
    }
  }

  private async applyTextNow(slot: SlotId, text: string): Promise<void> {
    const docs = this.docs;
    const syntax = syntaxDiagnostics(text);
    if (syntax.length) {
      this.diagnostics.set(slot, syntax);
      return;
    }
    const { diagnostics, effective } = await this.client.validate(text);
    if (docs.texts[slot] !== text) return; // edited again meanwhile
    if (effective) {
      docs.effective[slot] = JSON.parse(effective) as Json;
      if (slot === docs.editing) {
        this.renderForm();
        this.renderWindow();
      }
    }
    if (diagnostics.some((d) => d.severity === 'error')) {
      this.runs[slot].invalidate(diagnostics);
      this.diagnostics.set(slot, diagnostics);
      this.transport.updateControls();
      return;
    }
    this.transport.restartClock();
    await this.runs[slot].load(text); // keeps playing if it was: the new run starts at 0
    if (docs.texts[slot] !== text) return;
    this.diagnostics.set(slot, this.runs[slot].diagnostics);
  }

  private onRunChange(): void {
    // Drawing happens in the animation frame; here only what must not wait.
    this.transport.onRunChange();
    for (const fill of this.exportFills) fill();
  }

  // ---- editing ----

  private scheduleApply(slot: SlotId, delay = APPLY_DELAY_MS): void {
    this.editPending = true;
    window.clearTimeout(this.applyTimer);
    this.applyTimer = window.setTimeout(() => void this.applyText(slot), delay);
    this.url.schedule();
  }

  private followPreset(): void {
    this.docs.preset = this.docs.matchingPreset();
    this.gallery.select(this.docs.preset?.name);
  }

  private onEditorEdit(text: string): void {
    this.docs.texts[this.docs.editing] = text;
    this.followPreset();
    this.renderForm();
    this.scheduleApply(this.docs.editing);
  }

  private onFormEdit(doc: Json): void {
    this.replaceEdited(JSON.stringify(doc, null, 2), false);
  }

  /** The edited slot's text replaced (by the form, or by an imported model: then the form
   *  shows the new document too), then applied. */
  private replaceEdited(text: string, renderForm = true): void {
    this.docs.texts[this.docs.editing] = text;
    this.editor?.setText(text);
    this.followPreset();
    if (renderForm) this.renderForm();
    this.scheduleApply(this.docs.editing, FORM_APPLY_DELAY_MS);
  }

  private choosePreset(p: Preset): void {
    const docs = this.docs;
    this.transport.pause();
    docs.preset = p;
    docs.texts.a = p.scenario;
    docs.compare = p.compare !== undefined;
    if (p.compare) docs.texts.b = p.compare.scenario;
    else this.runs.b.unload();
    docs.editing = 'a';
    this.gallery.select(p.name);
    this.renderCompare();
    this.showEditing();
    void this.loadAll();
    this.url.schedule();
  }

  private toggleCompare(): void {
    const docs = this.docs;
    this.transport.pause();
    docs.compare = !docs.compare;
    if (docs.compare) {
      docs.texts.b = docs.texts.a;
      void this.applyText('b');
    } else {
      this.runs.b.unload();
      docs.editing = 'a';
      this.showEditing();
    }
    this.followPreset();
    this.renderCompare();
    this.url.schedule();
  }

  private swap(): void {
    if (!this.docs.compare) return;
    this.transport.pause();
    this.docs.swap();
    this.followPreset();
    this.showEditing();
    void this.loadAll();
    this.url.schedule();
  }

  /** The time series' tumbling window (outputs.timeseries_interval_ms) of the shown runs. */
  private setWindow(ms: number): void {
    this.transport.pause();
    for (const slot of this.docs.activeSlots()) {
      const text = withWindow(this.docs.texts[slot], ms);
      if (text === undefined) continue;
      this.docs.texts[slot] = text;
      void this.applyText(slot);
    }
    this.showEditing();
    this.followPreset();
    this.url.schedule();
  }

  private edit(slot: SlotId): void {
    this.docs.editing = slot;
    this.showEditing();
  }

  private showEditing(): void {
    this.editor?.setText(this.docs.texts[this.docs.editing]);
    this.renderForm(true);
    this.diagnostics.render();
    this.renderWindow();
    this.tabs.select();
  }

  /** The form from the edited text; a text that does not parse keeps the last values
   *  (while typing) or disables the form (`disableOnError`, when switching documents). */
  private renderForm(disableOnError = false): void {
    const doc = this.docs.parsed(this.docs.editing);
    if (doc !== undefined) {
      this.form.render(doc, this.docs.effective[this.docs.editing]);
      this.readChoices(doc);
    } else if (disableOnError) this.form.render(undefined);
  }

  /** The form's select options, from the decoder (choices.ts); read again when the edited
   *  document's vLLM release changes (the speculative methods are the release's). */
  private readChoices(doc: Json): void {
    const { pool, knobs } = this.form.target;
    const release = JSON.stringify(getAt(doc, `/pools/${pool}/engine/release`) ?? null);
    if (!this.moduleReady || release === this.choicesRelease) return;
    this.choicesRelease = release;
    void this.client.validate(choiceProbe(doc, knobs)).then(({ diagnostics }) => {
      if (this.choicesRelease === release) this.form.setChoices(readChoices(diagnostics, knobs));
    });
  }

  private renderWindow(): void {
    const slot = this.docs.editing;
    const ms = this.window.render(this.docs.parsed(slot), this.docs.effective[slot]);
    if (ms !== undefined) this.board.setLatencyWindow(fmtWindow(ms));
  }

  private renderCompare(): void {
    this.tabs.render();
    this.exportFills = renderExportRows($('exports'), this.docs.activeSlots(), this.runs, this.docs.compare);
    this.diagnostics.renderBanner();
    this.drawnVersion = '';
  }

  // ---- controls ----

  private wireControls(): void {
    this.transport.wire();
    $('compare').addEventListener('click', () => this.toggleCompare());
    $('swap').addEventListener('click', () => this.swap());
    $('instance-mode').addEventListener('change', (e) => {
      this.board.setInstanceMode((e.target as HTMLSelectElement).value as InstanceChoice);
      this.drawnVersion = '';
    });
    $('share').addEventListener('click', () => void this.share());
  }

  private async share(): Promise<void> {
    await this.url.write();
    const btn = $('share');
    try {
      await navigator.clipboard.writeText(location.href);
      btn.textContent = 'Link copied';
    } catch {
      btn.textContent = 'Link in the address bar';
    }
    setTimeout(() => (btn.textContent = 'Copy link'), 1800);
  }

  // ---- drawing ----

  private frame(t: number): void {
    this.transport.tick(t);
    this.draw(t);
    requestAnimationFrame((tt) => this.frame(tt));
  }

  private draw(t: number): void {
    const runs = this.runsShown();
    const version = `${this.docs.compare}|${runs.map((r) => `${r.slot}${r.gen}.${r.version}.${r.status}`).join('|')}`;
    if (version === this.drawnVersion) return;
    this.drawnVersion = version;
    const playing = this.transport.playing;
    this.transport.renderClock(runs);
    this.board.update(runs, this.docs.compare, this.embed, playing, t);
    if (runs.every((r) => r.done) || t - this.lastCardsAt > CARDS_EVERY_MS || !playing) {
      this.lastCardsAt = t;
      const cards = runs.map((r) => ({ label: r.slot.toUpperCase(), ...(r.summary ? { summary: r.summary } : {}) }));
      renderCards($('cards'), cards, this.docs.preset?.measured, this.embed);
    }
    this.mech.render();
    this.transport.updateControls();
  }
}
