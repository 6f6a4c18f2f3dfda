// A run's requests to the worker, against a recording client: how many advances it keeps in
// flight, that answers about an older generation are dropped, and when it is busy.
import { describe, expect, it } from 'vitest';
import type { Progress, WorkerRequest } from '../protocol';
import { Run } from './run';
import type { RunResponse, SimClient } from './sim_client';

class RecordingClient {
  sent: WorkerRequest[] = [];
  private listener: (r: RunResponse) => void = () => {};
  listen(_slot: string, fn: (r: RunResponse) => void): void {
    this.listener = fn;
  }
  post(req: WorkerRequest): void {
    this.sent.push(req);
  }
  answer(r: RunResponse): void {
    this.listener(r);
  }
  advances(): Extract<WorkerRequest, { kind: 'advance' }>[] {
    return this.sent.filter((r): r is Extract<WorkerRequest, { kind: 'advance' }> => r.kind === 'advance');
  }
}

const progress = (gen: number, nowUs: number, done = false): Progress => ({
  kind: 'progress',
  slot: 'a',
  gen,
  nowUs,
  steps: nowUs / 1000,
  events: nowUs / 500,
  done,
  delta: { from: 0, columns: [] },
});

async function loadedRun(): Promise<{ run: Run; client: RecordingClient }> {
  const client = new RecordingClient();
  const run = new Run('a', client as unknown as SimClient, () => {});
  const ok = run.load('{}');
  client.answer({ kind: 'loaded', slot: 'a', gen: run.gen, diagnostics: [], ok: true, columns: [], instances: [] });
  expect(await ok).toBe(true);
  return { run, client };
}

describe('Run', () => {
  it('keeps as many advances in flight as asked, and tops up as answers land', async () => {
    const { run, client } = await loadedRun();
    run.advanceTo(2e6, 2);
    run.advanceTo(2e6, 2);
    expect(client.advances().map((a) => a.untilUs)).toEqual([2e6, 2e6]);
    client.answer(progress(run.gen, 1e6));
    expect(run.nowUs).toBe(1e6);
    expect(run.busy).toBe(true); // the second is still out
    run.advanceTo(3e6, 2);
    expect(client.advances().map((a) => a.untilUs)).toEqual([2e6, 2e6, 3e6]);
    client.answer(progress(run.gen, 2e6));
    client.answer(progress(run.gen, 3e6));
    expect(run.busy).toBe(false);
    expect(run.nowUs).toBe(3e6);
  });

  it('sends one at a time when asked for one, and nothing for a target already reached', async () => {
    const { run, client } = await loadedRun();
    run.advanceTo(1e6);
    run.advanceTo(1e6);
    expect(client.advances()).toHaveLength(1);
    client.answer(progress(run.gen, 1e6));
    run.advanceTo(1e6, 2);
    expect(client.advances()).toHaveLength(1);
    expect(run.busy).toBe(false);
  });

  it('drops answers about the run before a reset and is busy until the reset is answered', async () => {
    const { run, client } = await loadedRun();
    run.advanceTo(2e6, 2);
    const old = run.gen;
    run.reset();
    expect(run.busy).toBe(true);
    client.answer(progress(old, 1e6));
    client.answer(progress(old, 2e6));
    expect(run.nowUs).toBe(0);
    expect(run.busy).toBe(true);
    client.answer(progress(run.gen, 0));
    expect(run.busy).toBe(false);
    expect(run.status).toBe('ready');
  });

  it('is done when an answer says so, and sends no more', async () => {
    const { run, client } = await loadedRun();
    run.advanceTo(2e6, 2);
    client.answer(progress(run.gen, 1.5e6, true));
    client.answer(progress(run.gen, 1.5e6, true)); // the one queued behind it
    expect(run.status).toBe('done');
    run.advanceTo(4e6, 2);
    expect(client.advances()).toHaveLength(2);
    expect(run.busy).toBe(false);
  });
});
