// The page's side of the sweep workers: a promise per request, and a pool that runs a
// sweep's points across up to one worker per core, each worker one point after another.
// Cancelling terminates the workers (a point in flight stops at once); the next call starts
// fresh ones. Ranking is asked of a worker too (the C++ core ranks; this file only orders
// requests), throttled so that a large sweep does not re-rank after every point.

import type { PointRow, RankResult, SweepCheck, SweepRequest, SweepResponse } from './protocol';

/** What the pool needs of a Worker (a fake in unit tests). */
export interface WorkerLike {
  postMessage(message: SweepRequest): void;
  onmessage: ((ev: MessageEvent<SweepResponse>) => void) | null;
  onerror: ((ev: ErrorEvent) => void) | null;
  terminate(): void;
}

type Body = SweepRequest extends infer R ? (R extends SweepRequest ? Omit<R, 'id'> : never) : never;

/** The run was cancelled: its requests are dropped. */
export class Cancelled extends Error {
  constructor() {
    super('cancelled');
  }
}

class SweepWorker {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (r: SweepResponse) => void; reject: (e: Error) => void; progress?: (text: string) => void }
  >();

  constructor(private readonly worker: WorkerLike) {
    worker.onmessage = (ev) => {
      const p = this.pending.get(ev.data.id);
      if (ev.data.ok && ev.data.kind === 'probe') return p?.progress?.(ev.data.text);
      this.pending.delete(ev.data.id);
      p?.resolve(ev.data);
    };
    worker.onerror = (ev) => this.failAll(new Error(`the sweep worker failed: ${ev.message}`));
  }

  call(body: Body, progress?: (text: string) => void): Promise<SweepResponse> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, progress });
      this.worker.postMessage({ ...body, id } as SweepRequest);
    });
  }

  async text(body: Body, progress?: (text: string) => void): Promise<string> {
    const r = await this.call(body, progress);
    if (!r.ok) throw new Error(r.message);
    if (r.kind !== 'text') throw new Error(`unexpected answer to ${body.kind}`);
    return r.text;
  }

  /** A message with no answer (pace). */
  send(body: Body): void {
    this.worker.postMessage({ ...body, id: 0 } as SweepRequest);
  }

  terminate(): void {
    this.worker.terminate();
    this.failAll(new Cancelled());
  }

  private failAll(e: Error): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(e);
  }
}

export interface SweepProgress {
  /** Rows of the points done so far, in completion order. */
  rows: PointRow[];
  /** The ranking of `rows` (absent until the first rank answer). */
  ranking?: RankResult;
  done: number;
  total: number;
}

export type SweepOutcome =
  | { kind: 'done'; rows: PointRow[]; ranking: RankResult }
  | { kind: 'cancelled'; rows: PointRow[] }
  | { kind: 'failed'; rows: PointRow[]; message: string };

const RANK_EVERY_MS = 400;

export class SweepPool {
  private workers: SweepWorker[] = [];
  private generation = 0;
  private pauseMs?: number;

  constructor(
    private readonly factory: () => WorkerLike,
    private readonly maxWorkers: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get size(): number {
    return this.workers.length;
  }

  async check(text: string): Promise<SweepCheck> {
    const r = await this.ensure(1)[0]!.call({ kind: 'check', text });
    if (!r.ok) throw new Error(r.message);
    if (r.kind !== 'check') throw new Error('unexpected answer to check');
    return r.check;
  }

  pointScenario(text: string, index: number): Promise<string> {
    return this.ensure(1)[0]!.text({ kind: 'scenario', text, index });
  }

  /** blis capacity on `scenario`; `onProbe` gets each probe's JSON text as it finishes. */
  capacity(scenario: string, query: string, onProbe?: (probe: string) => void): Promise<string> {
    return this.ensure(1)[0]!.text({ kind: 'capacity', scenario, query }, onProbe);
  }

  async rank(text: string, rows: PointRow[]): Promise<RankResult> {
    return JSON.parse(
      await this.ensure(1)[0]!.text({
        kind: 'rank',
        text,
        rows: JSON.stringify(rows),
      }),
    ) as RankResult;
  }

  /** Tells every worker how long to pause between slices of a point (pacer.ts). */
  pace(pauseMs: number): void {
    this.pauseMs = pauseMs;
    for (const w of this.workers) w.send({ kind: 'pace', pauseMs });
  }

  /** Runs points 0..total-1 of `text`, reporting progress after each point. */
  async run(text: string, total: number, onProgress: (p: SweepProgress) => void): Promise<SweepOutcome> {
    const gen = ++this.generation;
    const lanes = this.ensure(Math.max(1, Math.min(this.maxWorkers, total)));
    const rows: PointRow[] = [];
    let next = 0;
    let lastRank = -Infinity;
    let shown = 0; // rows.length of the ranking shown last
    let ranking: RankResult | undefined;
    const lane = async (w: SweepWorker) => {
      while (next < total && gen === this.generation) {
        const index = next++;
        rows.push(JSON.parse(await w.text({ kind: 'run', text, index })) as PointRow);
        const n = rows.length;
        if (n === total || this.now() - lastRank >= RANK_EVERY_MS) {
          lastRank = this.now();
          const r = JSON.parse(
            await w.text({
              kind: 'rank',
              text,
              rows: JSON.stringify(rows.slice(0, n)),
            }),
          ) as RankResult;
          // Answers may come back out of order across workers: keep the newest.
          if (n > shown) {
            shown = n;
            ranking = r;
          }
        }
        if (gen === this.generation) onProgress({ rows: [...rows], ranking, done: rows.length, total });
      }
    };
    try {
      await Promise.all(lanes.map(lane));
      if (gen !== this.generation) return { kind: 'cancelled', rows };
      if (!ranking || shown !== rows.length) ranking = await this.rank(text, rows);
      return { kind: 'done', rows, ranking };
    } catch (e) {
      if (e instanceof Cancelled || gen !== this.generation) return { kind: 'cancelled', rows };
      this.cancel(); // the other lanes stop too

      return {
        kind: 'failed',
        rows,
        message: e instanceof Error ? e.message : String(e),
      };
    }
  }

  /** Stops a run: its workers are terminated, so the point in flight stops at once. */
  cancel(): void {
    this.generation++;
    this.stop();
  }

  private stop(): void {
    for (const w of this.workers) w.terminate();
    this.workers = [];
  }

  private ensure(n: number): SweepWorker[] {
    while (this.workers.length < n) {
      const w = new SweepWorker(this.factory());
      if (this.pauseMs !== undefined) w.send({ kind: 'pace', pauseMs: this.pauseMs });
      this.workers.push(w);
    }
    return this.workers.slice(0, n);
  }
}
