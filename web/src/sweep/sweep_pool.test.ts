// The pool over fake workers that answer with the real module (the browser build, loaded in
// node): a 2x2 sweep runs to the native rows and ranking, across several workers; cancel and
// a failing point end the run cleanly.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import createBlisModule, { type BlisModule } from '../wasm/blis.mjs';
import type { CapacityResult, SweepRequest, SweepResponse } from './protocol';
import { answerSweepRequest, type Slicing } from './sweep_core';
import { SweepPool, type WorkerLike } from './sweep_pool';

let blis: BlisModule;
beforeAll(async () => {
  const wasmBinary = readFileSync(fileURLToPath(new URL('../wasm/blis.wasm', import.meta.url)));
  blis = await createBlisModule({ wasmBinary });
});

const sweepText = readFileSync(fileURLToPath(new URL('../../../wasm/tests/fixtures/sweep_2x2.json', import.meta.url)), 'utf8');

/** Points pause after every advance call (sliceMs 0): the most slices a point can have. */
const slicing: Slicing = { sliceMs: 0, pause: () => new Promise((r) => setTimeout(r, 0)), now: () => 0 };

/** A worker that answers each request on a later task, in order, as a real one does. */
class FakeWorker implements WorkerLike {
  onmessage: ((ev: MessageEvent<SweepResponse>) => void) | null = null;
  onerror: ((ev: ErrorEvent) => void) | null = null;
  terminated = false;
  runs: number[] = [];
  private queue: Promise<void> = Promise.resolve();
  postMessage(req: SweepRequest): void {
    if (req.kind === 'run') this.runs.push(req.index);
    this.queue = this.queue.then(async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (this.terminated) return;
      const post = (m: SweepResponse) => this.onmessage?.({ data: m } as MessageEvent<SweepResponse>);
      const answer = await answerSweepRequest(blis, req, slicing, (m) => !this.terminated && post(m));
      if (!this.terminated) post(answer);
    });
  }
  terminate(): void {
    this.terminated = true;
  }
}

function pool(n: number) {
  const made: FakeWorker[] = [];
  const p = new SweepPool(() => {
    const w = new FakeWorker();
    made.push(w);
    return w;
  }, n);
  return { p, made };
}

describe('the sweep pool', () => {
  it("checks a document with the core's diagnostics", async () => {
    const { p } = pool(2);
    const ok = await p.check(sweepText);
    expect(ok.points).toBe(4);
    expect(ok.diagnostics).toEqual([]);
    const bad = await p.check(sweepText.replace('"values": [\n        512', '"values": [\n        -5'));
    expect(bad.diagnostics.some((d) => d.pointer === '/axes' && /point 0/.test(d.message))).toBe(true);
  });

  it("runs every point once across the workers, to the core's rows and ranking", async () => {
    const { p, made } = pool(2);
    const seen: number[] = [];
    const out = await p.run(sweepText, 4, (pr) => seen.push(pr.done));
    expect(out.kind).toBe('done');
    if (out.kind !== 'done') return;
    expect(seen.length).toBe(4);
    expect(seen.every((d, i) => i === 0 || d >= seen[i - 1]!)).toBe(true);
    expect(seen[3]).toBe(4);
    expect(made.length).toBe(2);
    expect(made.flatMap((w) => w.runs).sort()).toEqual([0, 1, 2, 3]);
    expect(made.every((w) => w.runs.length > 0)).toBe(true);
    const byIndex = [...out.rows].sort((a, b) => a.index - b.index);
    expect(byIndex.map((r) => JSON.stringify(r))).toEqual(
      [0, 1, 2, 3].map((i) => JSON.stringify(JSON.parse(blis.sweepRunPoint(sweepText, i)))),
    );
    expect(out.ranking).toEqual(JSON.parse(blis.sweepRank(sweepText, JSON.stringify(byIndex))));
    expect(out.ranking.ranking.ranked.length).toBe(4);
  });

  it('cancels: the workers are terminated and the run says so', async () => {
    const { p, made } = pool(1);
    const run = p.run(sweepText, 4, (pr) => {
      if (pr.done === 1) p.cancel();
    });
    const out = await run;
    expect(out.kind).toBe('cancelled');
    expect(out.rows.length).toBe(1);
    expect(made[0]!.terminated).toBe(true);
    // The next call starts a fresh worker.
    expect((await p.check(sweepText)).points).toBe(4);
    expect(made.length).toBe(2);
  });

  it("a failing point ends the run with the core's message", async () => {
    const { p } = pool(2);
    const out = await p.run(sweepText, 5, () => undefined);
    expect(out.kind).toBe('failed');
    if (out.kind === 'failed') expect(out.message).toMatch(/point 4 does not exist/);
  });

  it('capacity: each probe as it finishes, then the answer and the scenario at it', async () => {
    const { p } = pool(1);
    const scenario = readFileSync(fileURLToPath(new URL('../../../wasm/tests/fixtures/small.json', import.meta.url)), 'utf8');
    const query = JSON.stringify({ vary: 'instances', slo: ['ttft_ms.p99<=80'], max_probes: 6 });
    const seen: string[] = [];
    const r = JSON.parse(await p.capacity(scenario, query, (t) => seen.push(t))) as CapacityResult;
    expect(r.probes.length).toBeGreaterThanOrEqual(1);
    expect(seen.map((t) => JSON.parse(t) as unknown)).toEqual(r.probes);
    expect(r).toEqual({ ...(JSON.parse(blis.capacitySearch(scenario, query)) as CapacityResult) });
    if (r.answer !== null) {
      const at = r.answer_scenario as { pools: { instances: number }[] };
      expect(at.pools[0]!.instances).toBe(r.answer);
      expect(blis.validateScenario(JSON.stringify(at)).filter((d) => d.severity === 'error')).toEqual([]);
    }
  });

  it('opens a point as its scenario', async () => {
    const { p } = pool(1);
    const s = JSON.parse(await p.pointScenario(sweepText, 2)) as {
      pools: { instances: number }[];
    };
    expect(s.pools[0]!.instances).toBe(2);
    await expect(p.pointScenario('{}', 0)).rejects.toThrow(/the sweep has errors/);
  });
});
