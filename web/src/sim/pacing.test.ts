// The run does not depend on how the page paces it: the real WASM module behind the worker
// core, advanced in one go and as the page does at max speed (two advances queued towards the
// same bounded target, a small event budget each), gives the same series, summary and digest.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { SeriesStore } from '../lib/series_store';
import { MAX_SPEED_IN_FLIGHT, MAX_SPEED_LEAD_US } from '../app/playback';
import type { Progress, Summary, WorkerRequest } from '../protocol';
import createBlisModule, { type BlisModule } from '../wasm/blis.mjs';
import { wasmSimulationModule } from './wasm_backend';
import { WorkerCore } from './worker_core';

let blis: BlisModule;
beforeAll(async () => {
  const wasmBinary = readFileSync(fileURLToPath(new URL('../wasm/blis.wasm', import.meta.url)));
  blis = await createBlisModule({ wasmBinary });
});

const MINIMAL = readFileSync(fileURLToPath(new URL('../../tests/fixtures/minimal-scenario.json', import.meta.url)), 'utf8');

interface Played {
  store: SeriesStore;
  summary?: Summary;
  answers: number;
}

/** Plays slot A to the end; `next` gives the advances to queue after each answer. */
function play(next: (nowUs: number) => WorkerRequest[]): Played {
  const core = new WorkerCore(wasmSimulationModule(blis));
  const [loaded] = core.handle({ kind: 'load', slot: 'a', gen: 1, json: MINIMAL });
  if (loaded?.kind !== 'loaded' || !loaded.ok) throw new Error('the minimal scenario did not load');
  const out: Played = { store: new SeriesStore(loaded.columns), answers: 0 };
  const queue: WorkerRequest[] = next(0);
  while (queue.length > 0) {
    const p = core.handle(queue.shift()!)[0] as Progress;
    out.answers++;
    out.store.append(p.delta);
    if (p.summary) out.summary = p.summary;
    if (p.done) break;
    // As the page: what was queued stays queued; the answer tops it up.
    while (queue.length < MAX_SPEED_IN_FLIGHT) queue.push(...next(p.nowUs));
  }
  return out;
}

const advance = (untilUs: number, maxEvents: number): WorkerRequest => ({
  kind: 'advance',
  slot: 'a',
  gen: 1,
  untilUs,
  maxEvents,
  wantSummary: false,
});

describe('pacing', () => {
  it('two advances in flight towards the same target give the run one advance gives', () => {
    const whole = play(() => [advance(1e12, 1e6)]);
    const paced = play((nowUs) => [advance(nowUs + MAX_SPEED_LEAD_US, 20)]);
    expect(whole.answers).toBeLessThan(paced.answers);
    expect(paced.answers).toBeGreaterThan(10); // the small budget did split the run
    expect(paced.summary?.digest).toBeDefined();
    expect(withoutWallTime(paced.summary)).toEqual(withoutWallTime(whole.summary));
    expect(paced.store.length).toBe(whole.store.length);
    expect(paced.store.length).toBeGreaterThan(0);
    for (const name of loadedColumns()) expect(paced.store.column(name)).toEqual(whole.store.column(name));
  });
});

/** The summary without its one wall-clock figure (sim.wall_s, the time the run took). */
function withoutWallTime(s: Summary | undefined): unknown {
  const copy = JSON.parse(JSON.stringify(s ?? null)) as { sim?: { wall_s?: number } } | null;
  if (copy?.sim) delete copy.sim.wall_s;
  return copy;
}

function loadedColumns(): string[] {
  const sim = new blis.Simulation();
  sim.load(MINIMAL);
  const cols = sim.seriesColumns();
  sim.delete();
  return cols;
}
