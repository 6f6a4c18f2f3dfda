// The transport: Play, Pause, Step, Reset, the speed, the keyboard shortcuts, the clock and
// the status line. Paces the shown runs on one playback clock, so A and B are compared at
// the same simulated instant. Controls are enabled only when they work: a click on Play
// while a run is loading is remembered and honoured once the run is ready.

import { fmtSimSeconds } from '../ui/format';
import { $, $as, showBanner } from './dom';
import { advancesInFlight, DEFAULT_SPEED, MISSED_FRAME_MS, PlaybackClock, SPEEDS, speedLabel } from './playback';
import type { Run } from './run';

export interface TransportHost {
  /** The runs on screen (A, and B in compare mode). */
  runsShown(): Run[];
  /** An edit waits to be applied: the run on screen is about to be replaced by its run. */
  editPending(): boolean;
  /** The run whose time the clock shows. */
  primary(): Run;
  /** Reset was pressed (after the runs were reset). */
  onReset(): void;
  /** The speed was changed by the user. */
  onSpeedChange(): void;
}

export class Transport {
  speed = DEFAULT_SPEED;
  playing = false;
  /** Play was asked for while a run was (re)loading: start as soon as one is ready. */
  private playPending = false;
  private lastFrame = 0;
  private missedFrameAt = -Infinity;
  private readonly frameTimes: number[] = [];
  private readonly clock = new PlaybackClock();

  constructor(private readonly host: TransportHost) {}

  wire(): void {
    $('play').addEventListener('click', () => this.play());
    $('pause').addEventListener('click', () => this.pause());
    $('step').addEventListener('click', () => this.step());
    $('reset').addEventListener('click', () => this.reset());
    $('speed').addEventListener('change', (e) => {
      this.speed = Number((e.target as HTMLSelectElement).value);
      this.host.onSpeedChange();
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

  renderSpeeds(): void {
    const sel = $as<HTMLSelectElement>('speed');
    sel.replaceChildren(...SPEEDS.map((s) => new Option(speedLabel(s), String(s))));
    if (!SPEEDS.includes(this.speed as (typeof SPEEDS)[number])) {
      sel.append(new Option(speedLabel(this.speed), String(this.speed)));
    }
    sel.value = String(this.speed);
  }

  play(): void {
    const runs = this.host.runsShown();
    const edited = this.host.editPending();
    if (edited || !runs.some((r) => r.status === 'ready' || r.status === 'running')) {
      // A click while a run is still loading is not lost: it plays once the run is ready. Nor
      // is one made just after an edit: it is for the edited document's run, not the old one
      // (which at a high speed could end before the new one loads, and the click with it).
      this.playPending = edited || runs.some((r) => r.status === 'loading' || r.status === 'empty');
      this.updateControls();
      return;
    }
    this.playPending = false;
    this.playing = true;
    this.lastFrame = 0;
    this.updateControls();
  }

  pause(): void {
    this.playing = false;
    this.playPending = false;
    this.updateControls();
  }

  step(): void {
    this.pause();
    for (const r of this.host.runsShown()) r.step();
  }

  reset(): void {
    this.pause();
    this.clock.reset();
    for (const r of this.host.runsShown()) r.reset();
    this.host.onReset();
  }

  /** A new run starts at 0: the playback clock too. */
  restartClock(): void {
    this.clock.reset();
  }

  /** A run changed state: a pending Play starts once every shown run has loaded. */
  onRunChange(): void {
    const loading = this.host.editPending() || this.host.runsShown().some((r) => r.status === 'loading' || r.status === 'empty');
    if (this.playPending && !loading) {
      this.playPending = false;
      this.play();
    }
    this.updateControls();
    // At max speed an answer tops the runs' advances up at once: the worker is not left idle
    // until the next animation frame (the lead over the slowest run stays bounded).
    if (this.playing && !Number.isFinite(this.speed)) this.advanceRuns(0);
  }

  /** Called every animation frame: moves the runs towards the clock's target while playing. */
  tick(t: number): void {
    const dt = this.lastFrame ? t - this.lastFrame : 16;
    this.lastFrame = t;
    if (!this.playing) return;
    if (this.frameTimes.length < 100000) this.frameTimes.push(dt);
    if (dt > MISSED_FRAME_MS) this.missedFrameAt = t;
    this.advanceRuns(dt);
    const runs = this.host.runsShown();
    if (runs.every((r) => r.done || r.status === 'invalid' || r.status === 'failed')) this.pause();
  }

  /** One clock for every run shown, paced by the slowest unfinished one. */
  private advanceRuns(dtMs: number): void {
    const moving = this.host.runsShown().filter((r) => r.runnable);
    if (moving.length === 0) return;
    const slowest = Math.min(...moving.map((r) => r.nowUs));
    const target = this.clock.tick(dtMs, this.speed, slowest);
    const inFlight = advancesInFlight(this.speed, this.lastFrame - this.missedFrameAt);
    for (const r of moving) r.advanceTo(target, inFlight);
  }

  /** Frame-time samples (ms between animation frames) while playing, for the perf check. */
  frameStats(): { n: number; p95: number; max: number } {
    const s = [...this.frameTimes].sort((x, y) => x - y);
    return { n: s.length, p95: s[Math.floor(0.95 * (s.length - 1))] ?? 0, max: s[s.length - 1] ?? 0 };
  }

  renderClock(runs: Run[]): void {
    $('sim-time').textContent = fmtSimSeconds(this.host.primary().nowUs);
    $('sim-steps').textContent = String(runs.reduce((n, r) => n + r.steps, 0));
  }

  updateControls(): void {
    const runs = this.host.runsShown();
    // The clock with the controls: a control enabled by an answer never shows an older time.
    this.renderClock(runs);
    const runnable = runs.some((r) => r.status === 'ready' || r.status === 'running');
    $as<HTMLButtonElement>('play').disabled = this.playing || !runnable;
    $as<HTMLButtonElement>('pause').disabled = !this.playing;
    $as<HTMLButtonElement>('step').disabled = !runnable || runs.some((r) => r.busy && !this.playing);
    $as<HTMLButtonElement>('reset').disabled = !runs.some((r) => r.active);
    const status = this.status(runs);
    const st = $('run-status');
    st.textContent = status;
    st.dataset['status'] = status;
    const failed = runs.find((r) => r.error);
    if (failed) showBanner(`Run ${failed.slot.toUpperCase()} stopped: ${failed.error}`);
  }

  private status(runs: Run[]): string {
    if (runs.some((r) => r.status === 'failed')) return 'failed';
    if (runs.some((r) => r.status === 'invalid')) return 'invalid';
    if (runs.some((r) => r.status === 'loading' || r.status === 'empty')) return this.playPending ? 'starting' : 'loading';
    if (runs.every((r) => r.status === 'done')) return 'done';
    if (this.playing) return 'running';
    return this.host.primary().nowUs > 0 ? 'paused' : 'ready';
  }
}
