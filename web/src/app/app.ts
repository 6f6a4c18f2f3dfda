// The playground: wires the preset gallery, the scenario form and JSON editor, the controls,
// the charts, the summary cards and the exports to the runs in the worker. Everything the
// user sees is reproducible from the URL.

import { ChartPanel } from '../charts/chart_panel';
import { PANELS, panelApplies, type PanelDef } from '../charts/grafana_views';
import { HeatMapPanel } from '../charts/heatmap';
import { cdfView, kvView, latencyView, queueView, throughputView, type InstanceMode, type RunData } from '../charts/views';
import type { JsonEditor } from '../editor/json_editor';
import { syntaxDiagnostics } from '../lib/syntax';
import { ScenarioForm } from '../editor/scenario_form';
import { readUrlState, writeUrlState, type UrlState } from '../lib/url_state';
import type { Diagnostic, SlotId } from '../protocol';
import { getAt, setAt, type Json } from '../scenario/knobs';
import { DEFAULT_PRESET, findPreset, PRESETS, type Preset } from '../scenario/presets';
import { mountSweepView } from '../sweep/mount';
import { fmtSimSeconds } from '../ui/format';
import { renderDiff } from '../ui/ab_diff';
import { renderErrorBanner } from '../ui/error_banner';
import { MechanismView } from '../ui/mechanism_view';
import { PresetGallery } from '../ui/preset_gallery';
import { renderCards } from '../ui/summary_cards';
import { DEFAULT_SPEED, PlaybackClock, SPEEDS, speedLabel } from './playback';
import { renderExportRows } from './exports';
import { Run } from './run';
import { SimClient } from './sim_client';

function $(id: string): HTMLElement {
  const e = document.getElementById(id);
  if (!e) throw new Error(`missing #${id}`);
  return e;
}

const APPLY_DELAY_MS = 300;
const WINDOW_POINTER = '/outputs/timeseries_interval_ms';
const WINDOW_CHOICES_MS = [100, 250, 500, 1000, 2000, 5000, 10000];

function fmtWindow(ms: number): string {
  return ms >= 1000 ? `${+(ms / 1000).toFixed(2)} s` : `${ms} ms`;
}

export class App {
  private readonly client: SimClient;
  private readonly runs: Record<SlotId, Run>;
  private readonly texts: Record<SlotId, string> = { a: '', b: '' };
  private readonly diags: Record<SlotId, Diagnostic[]> = { a: [], b: [] };
  /** Each slot's resolved document (every default written out), from the last valid text. */
  private readonly effective: Record<SlotId, Json> = { a: null, b: null };
  private editing: SlotId = 'a';
  private compare = false;
  private preset?: Preset;
  private speed = DEFAULT_SPEED;
  private playing = false;
  /** Play was asked for while a run was (re)loading: start as soon as one is ready. */
  private playPending = false;
  private embed = false;
  private lastFrame = 0;
  private drawnVersion = '';
  private lastCardsAt = 0;
  private lastChartsAt = 0;
  private chartsStateKey = '';
  private chartsRowsKey = '';
  private applyTimer?: number;
  private urlTimer?: number;

  private editor?: JsonEditor;  // not loaded in embed mode (CodeMirror is most of the bundle)
  private readonly form: ScenarioForm;
  private readonly gallery: PresetGallery;
  private readonly charts: Record<'kv' | 'queue' | 'latency' | 'throughput' | 'cdf', ChartPanel>;
  private readonly panels: { def: PanelDef; chart: ChartPanel }[];
  private readonly mech: MechanismView;
  private mechOpen = false;
  private mechDrawn = '';
  private instanceMode: InstanceMode | 'heat' | 'auto' = 'auto';
  private readonly heat: HeatMapPanel[];
  private readonly frameTimes: number[] = [];
  private readonly clock = new PlaybackClock();
  private exportFills: (() => void)[] = [];

  constructor(worker: Worker) {
    this.client = new SimClient(worker);
    this.client.setFatalHandler((m) => this.showBanner(`The simulator failed: ${m}`));
    const onChange = () => this.onRunChange();
    this.runs = { a: new Run('a', this.client, onChange), b: new Run('b', this.client, onChange) };

    this.gallery = new PresetGallery($('presets'), PRESETS, (p) => this.choosePreset(p));
    this.form = new ScenarioForm($('scenario-form') as HTMLFormElement, (doc) => this.onFormEdit(doc));

    const host = $('charts');
    // Embed mode (docs pages) has less room: shorter plots.
    const h = new URLSearchParams(location.search).get('embed') === '1' ? 140 : 190;
    this.charts = {
      kv: new ChartPanel(host, { title: 'KV cache usage', subtitle: 'vllm:kv_cache_usage_perc', testid: 'chart-kv', height: h, empty: 'Press play to start the simulation' }),
      queue: new ChartPanel(host, { title: 'Running and waiting', subtitle: 'vllm:num_requests_running, vllm:num_requests_waiting', testid: 'chart-queue', height: h, empty: 'Press play to start the simulation' }),
      latency: new ChartPanel(host, { title: 'Latency over time', subtitle: 'TTFT (left) and ITL (right), p50/p99 per tumbling window', testid: 'chart-latency', height: h, empty: 'Latencies appear as requests finish' }),
      throughput: new ChartPanel(host, { title: 'Throughput', subtitle: 'vllm:generation_tokens_total, per second', testid: 'chart-throughput', height: h, empty: 'Press play to start the simulation' }),
      cdf: new ChartPanel(host, { title: 'Latency distribution', subtitle: 'per request, at the end of the run', testid: 'chart-cdf', empty: 'Shown when the run is done', height: 220, synced: false }),
    };
    // The rest of vLLM's Grafana dashboard (not in embeds, which have less room).
    this.panels = PANELS.map((def) => ({
      def,
      chart: new ChartPanel(host, { title: def.title, subtitle: def.subtitle, testid: `chart-${def.id}`, height: h, empty: 'Press play to start the simulation' }),
    }));
    for (const p of this.panels) p.chart.el.classList.add('grafana');
    // Heat maps replace the KV and queue lines in the heat-map view (many instances).
    this.heat = [
      new HeatMapPanel(host, 'KV cache usage per instance', 'vllm:kv_cache_usage_perc, heat map', 'heat-kv', 'kv_usage', 100),
      new HeatMapPanel(host, 'Waiting per instance', 'vllm:num_requests_waiting, heat map', 'heat-waiting', 'waiting'),
    ];
    for (const h of this.heat) {
      host.insertBefore(h.el, this.charts.latency.el);
      h.el.hidden = true;
    }
    this.charts.cdf.el.classList.add('full');
    this.charts.cdf.el.hidden = true;

    this.mech = new MechanismView($('mech-body'));
    this.wireControls();
  }

  /** The mechanism view: on, for the chosen instance of run A (snapshots ride on every step). */
  private setMechanism(open: boolean): void {
    this.mechOpen = open;
    $('mech-toggle').setAttribute('aria-pressed', String(open));
    $('mech-toggle').textContent = open ? 'Hide' : 'Show';
    $('mech-body').hidden = !open;
    const inst = Number(($('mech-instance') as HTMLSelectElement).value || 0);
    const a = this.runs.a;
    if (open) a.snapshotOf = inst;
    else delete a.snapshotOf;
    this.mechDrawn = '';
    if (open) a.requestSnapshot();
  }

  private renderMechanism(): void {
    const sel = $('mech-instance') as HTMLSelectElement;
    const names = this.runs.a.instances;
    if (sel.options.length !== names.length || names.some((n, i) => sel.options[i]!.text !== n)) {
      sel.replaceChildren(...names.map((n, i) => new Option(n, String(i))));
      if (this.mechOpen) this.setMechanism(true);
    }
    if (!this.mechOpen) return;
    const a = this.runs.a;
    const key = `${a.gen}.${a.version}`;
    if (key === this.mechDrawn) return;
    this.mechDrawn = key;
    if (a.snapshot === undefined && a.active) a.requestSnapshot();
    this.mech.show(a.active ? a.snapshot : undefined);
  }

  async start(): Promise<void> {
    let state: UrlState;
    try {
      state = await readUrlState(location.search);
    } catch (e) {
      this.showBanner(e instanceof Error ? e.message : String(e));
      state = { embed: false, autoplay: false };
    }
    this.embed = state.embed;
    document.body.classList.toggle('embed', this.embed);
    if (state.speed !== undefined) this.speed = state.speed;
    this.renderSpeeds();
    if (!this.embed) {
      const { JsonEditor } = await import('../editor/json_editor');
      this.editor = new JsonEditor($('editor'), '', (text) => this.onEditorEdit(text));
    }
    if (!this.embed) mountSweepView({ scenarioText: () => this.texts[this.editing], openScenario: (t) => this.onFormEdit(JSON.parse(t) as Json) });

    const preset = findPreset(state.preset ?? '') ?? (state.scenario === undefined ? findPreset(DEFAULT_PRESET) : undefined);
    if (state.preset && !findPreset(state.preset)) this.showBanner(`There is no preset named “${state.preset}”; showing the default.`);
    this.preset = state.scenario === undefined ? preset : undefined;
    this.texts.a = state.scenario ?? preset!.scenario;
    const bPreset = findPreset(state.comparePreset ?? '');
    const b = state.compare ?? bPreset?.scenario ?? (this.preset?.compare && state.scenario === undefined ? this.preset.compare.scenario : undefined);
    this.compare = b !== undefined;
    if (b !== undefined) this.texts.b = b;
    this.gallery.select(this.preset?.name);

    const version = await this.client.ready.catch((e: Error) => {
      this.showBanner(`The simulator module did not load: ${e.message}`);
      return undefined;
    });
    if (version === undefined) return;
    $('module-version').textContent = version;
    this.form.setSuggestions(this.client.catalog);
    this.renderCompare();
    this.showEditing();
    requestAnimationFrame((t) => this.frame(t));
    await this.loadAll();
    await this.writeUrl();
    document.body.dataset['ready'] = '1';
    if (state.autoplay) this.play();
  }

  /** Frame-time samples (ms between animation frames) while playing, for the perf check. */
  frameStats(): { n: number; p95: number; max: number } {
    const s = [...this.frameTimes].sort((x, y) => x - y);
    return { n: s.length, p95: s[Math.floor(0.95 * (s.length - 1))] ?? 0, max: s[s.length - 1] ?? 0 };
  }

  // ---- runs ----

  private activeSlots(): SlotId[] {
    return this.compare ? ['a', 'b'] : ['a'];
  }

  private async loadAll(): Promise<void> {
    await Promise.all(this.activeSlots().map((s) => this.applyText(s)));
  }

  /** Validates a slot's text and, when it has no errors, (re)loads its run. */
  private async applyText(slot: SlotId): Promise<void> {
    const text = this.texts[slot];
    const syntax = syntaxDiagnostics(text);
    if (syntax.length) {
      this.setDiagnostics(slot, syntax);
      return;
    }
    const { diagnostics, effective } = await this.client.validate(text);
    if (this.texts[slot] !== text) return;  // edited again meanwhile
    if (effective) {
      this.effective[slot] = JSON.parse(effective) as Json;
      if (slot === this.editing) {
        this.renderForm();
        this.renderWindow();
      }
    }
    if (diagnostics.some((d) => d.severity === 'error')) {
      this.runs[slot].invalidate(diagnostics);
      this.setDiagnostics(slot, diagnostics);
      this.updateControls();
      return;
    }
    this.clock.reset();
    await this.runs[slot].load(text);  // keeps playing if it was: the new run starts at 0
    if (this.texts[slot] !== text) return;
    this.setDiagnostics(slot, this.runs[slot].diagnostics);
  }

  private onRunChange(): void {
    // Drawing happens in the animation frame; here only what must not wait.
    if (this.playPending && !this.runsShown().some((r) => r.status === 'loading' || r.status === 'empty')) {
      this.playPending = false;
      this.play();
    }
    this.updateControls();
    for (const fill of this.exportFills) fill();
  }

  // ---- editing ----

  private scheduleApply(slot: SlotId, delay = APPLY_DELAY_MS): void {
    window.clearTimeout(this.applyTimer);
    this.applyTimer = window.setTimeout(() => void this.applyText(slot), delay);
    this.scheduleUrl();
  }

  private onEditorEdit(text: string): void {
    this.texts[this.editing] = text;
    this.preset = this.matchingPreset();
    this.gallery.select(this.preset?.name);
    this.renderForm();
    this.scheduleApply(this.editing);
  }

  private onFormEdit(doc: Json): void {
    const text = JSON.stringify(doc, null, 2);
    this.texts[this.editing] = text;
    this.editor?.setText(text);
    this.preset = this.matchingPreset();
    this.gallery.select(this.preset?.name);
    this.scheduleApply(this.editing, 150);
  }

  private matchingPreset(): Preset | undefined {
    return PRESETS.find((p) => p.scenario === this.texts.a && (this.compare ? p.compare?.scenario === this.texts.b : !p.compare));
  }

  private choosePreset(p: Preset): void {
    this.pause();
    this.preset = p;
    this.texts.a = p.scenario;
    this.compare = p.compare !== undefined;
    if (p.compare) this.texts.b = p.compare.scenario;
    else this.runs.b.unload();
    this.editing = 'a';
    this.gallery.select(p.name);
    this.renderCompare();
    this.showEditing();
    void this.loadAll();
    this.scheduleUrl();
  }

  private toggleCompare(): void {
    this.pause();
    this.compare = !this.compare;
    if (this.compare) {
      this.texts.b = this.texts.a;
      void this.applyText('b');
    } else {
      this.runs.b.unload();
      this.editing = 'a';
      this.showEditing();
    }
    this.preset = this.matchingPreset();
    this.gallery.select(this.preset?.name);
    this.renderCompare();
    this.scheduleUrl();
  }

  private showEditing(): void {
    const text = this.texts[this.editing];
    this.editor?.setText(text);
    this.renderForm(true);
    this.renderDiagnostics();
    this.renderWindow();
    document.querySelectorAll<HTMLButtonElement>('.slot-tab').forEach((t) => {
      t.setAttribute('aria-selected', String(t.dataset['slot'] === this.editing));
      t.tabIndex = t.dataset['slot'] === this.editing ? 0 : -1;
    });
  }

  /** The form from the edited text; a text that does not parse keeps the last values
   *  (while typing) or disables the form (`disableOnError`, when switching documents). */
  private renderForm(disableOnError = false): void {
    try {
      this.form.render(JSON.parse(this.texts[this.editing]) as Json, this.effective[this.editing]);
    } catch {
      if (disableOnError) this.form.render(undefined);
    }
  }

  private setDiagnostics(slot: SlotId, d: Diagnostic[]): void {
    this.diags[slot] = d;
    if (slot === this.editing) this.renderDiagnostics();
    else this.renderErrorBanner();
  }

  private renderDiagnostics(): void {
    const d = this.diags[this.editing];
    this.editor?.showDiagnostics(d);
    this.form.markInvalid(d.filter((x) => x.severity === 'error'));
    this.renderErrorBanner();
    const list = $('validation-errors');
    list.replaceChildren();
    list.dataset['count'] = String(d.filter((x) => x.severity === 'error').length);
    for (const x of d) {
      const li = document.createElement('li');
      li.className = x.severity;
      li.dataset['pointer'] = x.pointer;
      li.tabIndex = 0;
      const code = document.createElement('code');
      code.textContent = x.pointer === '#syntax' ? 'JSON' : x.pointer || '/';
      li.append(code, document.createTextNode(x.message));
      const go = () => x.pointer !== '#syntax' && this.editor?.reveal(x.pointer);
      li.addEventListener('click', go);
      li.addEventListener('keydown', (e) => e.key === 'Enter' && go());
      list.append(li);
    }
    if (d.length === 0 && this.runs[this.editing].status !== 'loading') {
      const li = document.createElement('li');
      li.className = 'ok';
      li.textContent = 'Scenario is valid.';
      list.append(li);
    }
  }

  // ---- URL ----

  private scheduleUrl(): void {
    window.clearTimeout(this.urlTimer);
    this.urlTimer = window.setTimeout(() => void this.writeUrl(), 250);
  }

  private async urlState(embed: boolean): Promise<string> {
    const s: UrlState = { embed, autoplay: false };
    if (this.preset) s.preset = this.preset.name;
    else {
      s.scenario = this.texts.a;
      if (this.compare) s.compare = this.texts.b;
    }
    if (this.speed !== DEFAULT_SPEED) s.speed = this.speed;
    return writeUrlState(s);
  }

  private async writeUrl(): Promise<void> {
    const q = await this.urlState(this.embed);
    history.replaceState(null, '', `${location.pathname}${q}${location.hash}`);
    ($('open-full') as HTMLAnchorElement).href = `${location.pathname}${await this.urlState(false)}`;
  }

  // ---- controls ----

  private wireControls(): void {
    $('play').addEventListener('click', () => this.play());
    $('pause').addEventListener('click', () => this.pause());
    $('step').addEventListener('click', () => this.step());
    $('reset').addEventListener('click', () => this.reset());
    $('compare').addEventListener('click', () => this.toggleCompare());
    $('mech-toggle').addEventListener('click', () => this.setMechanism(!this.mechOpen));
    $('mech-instance').addEventListener('change', () => this.setMechanism(this.mechOpen));
    $('swap').addEventListener('click', () => this.swap());
    $('instance-mode').addEventListener('change', (e) => {
      this.instanceMode = (e.target as HTMLSelectElement).value as InstanceMode | 'heat';
      this.chartsStateKey = '';
      this.drawnVersion = '';
    });
    $('window').addEventListener('change', (e) => this.setWindow(Number((e.target as HTMLSelectElement).value)));
    $('speed').addEventListener('change', (e) => {
      this.speed = Number((e.target as HTMLSelectElement).value);
      this.scheduleUrl();
    });
    $('share').addEventListener('click', async () => {
      await this.writeUrl();
      const btn = $('share');
      try {
        await navigator.clipboard.writeText(location.href);
        btn.textContent = 'Link copied';
      } catch {
        btn.textContent = 'Link in the address bar';
      }
      setTimeout(() => (btn.textContent = 'Copy link'), 1800);
    });
    document.addEventListener('keydown', (e) => {
      const t = e.target as HTMLElement;
      if (t.closest('.cm-editor, input, select, textarea, button') || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === ' ') {
        e.preventDefault();
        if (this.playing) this.pause();
        else this.play();
      } else if (e.key === '.') this.step();
      else if (e.key === 'r' || e.key === 'R') this.reset();
    });
  }

  /** The time series' tumbling window (outputs.timeseries_interval_ms) of the shown runs. */
  private setWindow(ms: number): void {
    if (!(ms >= 1)) return;
    this.pause();
    for (const slot of this.activeSlots()) {
      try {
        const doc = setAt(JSON.parse(this.texts[slot]) as Json, WINDOW_POINTER, ms);
        this.texts[slot] = JSON.stringify(doc, null, 2);
      } catch {
        continue;  // a text that does not parse keeps its error; nothing to write into
      }
      void this.applyText(slot);
    }
    this.showEditing();
    this.preset = this.matchingPreset();
    this.gallery.select(this.preset?.name);
    this.scheduleUrl();
  }

  private renderWindow(): void {
    // The document's window, else the resolved one (the simulator's default, from the module).
    let v: Json | undefined;
    try {
      v = getAt(JSON.parse(this.texts[this.editing]) as Json, WINDOW_POINTER);
    } catch {
      v = undefined;
    }
    if (typeof v !== 'number' && this.effective[this.editing] !== null) v = getAt(this.effective[this.editing], WINDOW_POINTER);
    if (typeof v !== 'number') return;  // not known yet: the next validation tells
    const ms = v;
    const sel = $('window') as HTMLSelectElement;
    const choices = WINDOW_CHOICES_MS.includes(ms) ? WINDOW_CHOICES_MS : [...WINDOW_CHOICES_MS, ms].sort((x, y) => x - y);
    if (sel.options.length !== choices.length) sel.replaceChildren(...choices.map((c) => new Option(fmtWindow(c), String(c))));
    sel.value = String(ms);
    this.charts.latency.setSubtitle(`TTFT (left) and ITL (right), p50/p99 per tumbling ${fmtWindow(ms)} window`);
  }

  private renderSpeeds(): void {
    const sel = $('speed') as HTMLSelectElement;
    sel.replaceChildren(...SPEEDS.map((s) => new Option(`${speedLabel(s)}${Number.isFinite(s) ? '' : ''}`, String(s))));
    if (!SPEEDS.includes(this.speed as (typeof SPEEDS)[number])) sel.append(new Option(speedLabel(this.speed), String(this.speed)));
    sel.value = String(this.speed);
  }

  private renderCompare(): void {
    const btn = $('compare');
    btn.setAttribute('aria-pressed', String(this.compare));
    const tabs = $('slot-tabs');
    tabs.hidden = !this.compare;
    if (tabs.childElementCount === 0) {
      for (const slot of ['a', 'b'] as SlotId[]) {
        const t = document.createElement('button');
        t.type = 'button';
        t.className = 'slot-tab';
        t.setAttribute('role', 'tab');
        t.dataset['slot'] = slot;
        t.dataset['testid'] = `edit-${slot}`;
        t.textContent = slot.toUpperCase();
        t.setAttribute('aria-label', `Edit scenario ${slot.toUpperCase()}`);
        t.addEventListener('click', () => {
          this.editing = slot;
          this.showEditing();
        });
        t.addEventListener('keydown', (e) => {
          if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
          this.editing = this.editing === 'a' ? 'b' : 'a';
          this.showEditing();
          tabs.querySelector<HTMLButtonElement>(`[data-slot="${this.editing}"]`)?.focus();
        });
        tabs.append(t);
      }
    }
    this.renderExports();
    this.renderErrorBanner();
    this.drawnVersion = '';
  }

  private runsShown(): Run[] {
    return this.activeSlots().map((s) => this.runs[s]);
  }

  private play(): void {
    const runs = this.runsShown();
    if (!runs.some((r) => r.status === 'ready' || r.status === 'running')) {
      // A click while a run is still loading is not lost: it plays once the run is ready.
      this.playPending = runs.some((r) => r.status === 'loading' || r.status === 'empty');
      this.updateControls();
      return;
    }
    this.playPending = false;
    this.playing = true;
    this.lastFrame = 0;
    this.updateControls();
  }

  private pause(): void {
    this.playing = false;
    this.playPending = false;
    this.updateControls();
  }

  private step(): void {
    this.pause();
    for (const r of this.runsShown()) r.step();
  }

  private reset(): void {
    this.pause();
    this.clock.reset();
    for (const r of this.runsShown()) r.reset();
    this.charts.cdf.el.hidden = true;
  }

  private renderClock(runs: Run[]): void {
    $('sim-time').textContent = fmtSimSeconds(this.runs.a.nowUs);
    $('sim-steps').textContent = String(runs.reduce((n, r) => n + r.steps, 0));
  }

  private updateControls(): void {
    const runs = this.runsShown();
    // The clock with the controls: a control enabled by an answer never shows an older time.
    this.renderClock(runs);
    const runnable = runs.some((r) => r.status === 'ready' || r.status === 'running');
    ($('play') as HTMLButtonElement).disabled = this.playing || !runnable;
    ($('pause') as HTMLButtonElement).disabled = !this.playing;
    ($('step') as HTMLButtonElement).disabled = !runnable || runs.some((r) => r.busy && !this.playing);
    ($('reset') as HTMLButtonElement).disabled = !runs.some((r) => r.active);
    const a = this.runs.a;
    const status = runs.some((r) => r.status === 'failed') ? 'failed'
      : runs.some((r) => r.status === 'invalid') ? 'invalid'
      : runs.some((r) => r.status === 'loading' || r.status === 'empty') ? (this.playPending ? 'starting' : 'loading')
      : runs.every((r) => r.status === 'done') ? 'done'
      : this.playing ? 'running' : a.nowUs > 0 ? 'paused' : 'ready';
    const st = $('run-status');
    st.textContent = status;
    st.dataset['status'] = status;
    const failed = runs.find((r) => r.error);
    if (failed) this.showBanner(`Run ${failed.slot.toUpperCase()} stopped: ${failed.error}`);
  }

  /** The main pane says why nothing runs: the first error of each shown scenario, and a
   *  button that takes the user to the field (or the JSON line) it names. */
  private renderErrorBanner(): void {
    const host = $('error-banner');
    renderErrorBanner(host, this.activeSlots().map((slot) => ({ slot, diags: this.diags[slot] })), this.compare, (slot, pointer) => {
      if (this.editing !== slot) {
        this.editing = slot;
        this.showEditing();
      }
      const input = this.form.inputFor(pointer);
      if (input && !this.embed) {
        input.scrollIntoView({ block: 'center' });
        input.focus();
      } else if (pointer !== '#syntax') this.editor?.reveal(pointer);
    });
    host.hidden = host.childElementCount === 0;
    this.renderAbDiff();
  }

  /** Compare mode: what B changes against A (resolved documents, so defaults count). */
  private renderAbDiff(): void {
    const host = $('ab-diff');
    host.replaceChildren();
    host.hidden = !this.compare || this.embed;
    for (const slot of ['a', 'b'] as SlotId[]) {
      const tab = document.querySelector<HTMLElement>(`.slot-tab[data-slot="${slot}"]`);
      if (tab) {
        tab.textContent = `${slot.toUpperCase()}${this.compare ? ` · ${this.runName(slot)}` : ''}`;
        tab.title = tab.textContent;
      }
    }
    ($('swap') as HTMLButtonElement).hidden = !this.compare;
    if (host.hidden) return;
    const doc = (slot: SlotId): Json | undefined => {
      if (this.effective[slot] !== null) return this.effective[slot];
      try {
        return JSON.parse(this.texts[slot]) as Json;
      } catch {
        return undefined;
      }
    };
    renderDiff(host, doc('a'), doc('b'), this.runName('a'), this.runName('b'));
  }

  /** A run's name: its scenario's `name`, or A / B. */
  private runName(slot: SlotId): string {
    try {
      const n = (JSON.parse(this.texts[slot]) as { name?: unknown }).name;
      if (typeof n === 'string' && n.trim()) return n.trim();
    } catch {
      // unnamed
    }
    return slot.toUpperCase();
  }

  private swap(): void {
    if (!this.compare) return;
    this.pause();
    [this.texts.a, this.texts.b] = [this.texts.b, this.texts.a];
    [this.effective.a, this.effective.b] = [this.effective.b, this.effective.a];
    this.preset = this.matchingPreset();
    this.gallery.select(this.preset?.name);
    this.showEditing();
    void this.loadAll();
    this.scheduleUrl();
  }

  private showBanner(text: string, info = false): void {
    const b = $('banner');
    b.textContent = text;
    b.classList.toggle('info', info);
    b.hidden = false;
  }

  private renderExports(): void {
    this.exportFills = renderExportRows($('exports'), this.activeSlots(), this.runs, this.compare);
  }

  // ---- drawing ----

  private frame(t: number): void {
    const dt = this.lastFrame ? t - this.lastFrame : 16;
    this.lastFrame = t;
    if (this.playing) {
      if (this.frameTimes.length < 100000) this.frameTimes.push(dt);
      // One clock for every run shown, paced by the slowest unfinished one, so A and B are
      // compared at the same simulated instant.
      const moving = this.runsShown().filter((r) => r.runnable);
      if (moving.length > 0) {
        const slowest = Math.min(...moving.map((r) => r.nowUs));
        const target = this.clock.tick(dt, this.speed, slowest);
        for (const r of moving) r.advanceTo(target);
      }
      if (this.runsShown().every((r) => r.done || r.status === 'invalid' || r.status === 'failed')) this.pause();
    }
    this.draw(t);
    requestAnimationFrame((tt) => this.frame(tt));
  }

  private draw(t: number): void {
    const runs = this.runsShown();
    const version = `${this.compare}|${runs.map((r) => `${r.slot}${r.gen}.${r.version}.${r.status}`).join('|')}`;
    if (version === this.drawnVersion) return;
    this.drawnVersion = version;
    this.renderClock(runs);
    // Charts: only when rows were added or a run changed state, and at most every 100 ms
    // while playing (10 updates a second read as smooth and leave the frame budget free).
    const stateKey = `${this.compare}|${runs.map((r) => `${r.slot}${r.gen}.${r.status}.${r.latencies ? 1 : 0}`).join('|')}`;
    const rowsKey = runs.map((r) => r.store.length).join('|');
    const stateChanged = stateKey !== this.chartsStateKey;
    if (stateChanged || (rowsKey !== this.chartsRowsKey && (!this.playing || t - this.lastChartsAt >= 100))) {
      this.chartsStateKey = stateKey;
      this.chartsRowsKey = rowsKey;
      this.lastChartsAt = t;
      this.drawCharts(runs);
    }
    const doneNow = runs.every((r) => r.done);
    if (doneNow || t - this.lastCardsAt > 250 || !this.playing) {
      this.lastCardsAt = t;
      renderCards($('cards'), runs.map((r) => ({ label: r.slot.toUpperCase(), ...(r.summary ? { summary: r.summary } : {}) })),
        this.preset?.measured, this.embed);
    }
    this.renderMechanism();
    this.updateControls();
  }

  private drawCharts(runs: Run[]): void {
    const data: RunData[] = runs.filter((r) => r.active).map((r) => ({
      label: this.compare ? r.slot.toUpperCase() : '',
      columns: r.columns,
      instances: r.instances,
      column: (name: string) => r.store.column(name),
      ...(r.latencies ? { latencies: r.latencies } : {}),
    }));
    if (data.length === 0) {
      for (const c of Object.values(this.charts)) c.clear();
      for (const p of this.panels) p.chart.clear();
      this.charts.cdf.el.hidden = true;
    } else {
      const maxPoints = 1600;
      // Many instances read better as one line per pool (P/D prefill and decode apart).
      const chosen = this.instanceMode !== 'auto' ? this.instanceMode : data[0]!.instances.length > 4 ? 'pool' : 'instance';
      ($('instance-mode') as HTMLSelectElement).value = chosen;
      const heat = chosen === 'heat' && data.length === 1 && !this.embed;
      const mode: InstanceMode = chosen === 'heat' ? 'instance' : chosen;
      this.charts.kv.el.hidden = heat;
      this.charts.queue.el.hidden = heat;
      for (const h of this.heat) {
        h.el.hidden = !heat;
        if (heat) h.draw(data[0]!);
      }
      const kv = kvView(data, maxPoints, mode);
      this.charts.kv.draw(kv.spec, kv.data);
      const q = queueView(data, maxPoints, mode);
      this.charts.queue.draw(q.spec, q.data);
      const slo = runs[0]?.summary?.slo ?? {};
      const l = latencyView(data, maxPoints, {
        ...(slo.ttft_ms !== undefined ? { ttftMs: slo.ttft_ms } : {}),
        ...(slo.itl_ms !== undefined ? { itlMs: slo.itl_ms } : {}),
      });
      this.charts.latency.draw(l.spec, l.data);
      for (const p of this.panels) {
        const applies = !this.embed && panelApplies(p.def, data);
        p.chart.el.hidden = !applies;
        if (!applies) continue;
        const v = p.def.view(data, maxPoints, slo.e2e_ms !== undefined ? { e2eMs: slo.e2e_ms } : {});
        p.chart.draw(v.spec, v.data);
      }
      const th = throughputView(data, maxPoints);
      this.charts.throughput.draw(th.spec, th.data);
      const cdf = runs.every((r) => r.done) ? cdfView(data) : undefined;
      this.charts.cdf.el.hidden = !cdf;
      if (cdf) this.charts.cdf.draw(cdf.spec, cdf.data);
    }
  }
}
