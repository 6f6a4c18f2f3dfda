import { describe, expect, it } from 'vitest';
import { runTrace, type StepTrace, type TraceStep } from './trace';

interface Ev {
  name: string;
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  ph: string;
  cat?: string;
  args?: Record<string, unknown>;
}
const parse = (s: string) => JSON.parse(s) as { traceEvents: Ev[]; metadata: Record<string, string> };
const csv =
  'id,client,instance,arrival_s,first_token_s,finish_s,status\n0,c,main-0,0,0.1,1,finished\n1,c,main-0,0.5,0.6,2,finished\n2,c,main-0,1.5,,1.7,aborted\n';

describe('Perfetto trace of requests', () => {
  it('puts overlapping requests of an instance on separate lanes, with TTFT slices', () => {
    const t = parse(runTrace(csv));
    const reqs = t.traceEvents.filter((e) => e.name.startsWith('request'));
    expect(reqs.map((e) => e.tid)).toEqual([1, 2, 1]);
    expect(reqs[0]).toMatchObject({ ts: 0, dur: 1_000_000, ph: 'X' });
    expect(t.traceEvents.filter((e) => e.name === 'until first token')).toHaveLength(2);
    expect(t.traceEvents[0]).toMatchObject({ ph: 'M', name: 'process_name' });
  });
});

describe('Perfetto trace of engine steps', () => {
  const step = (instance: number, id: number, start: number, end: number, over: Partial<TraceStep> = {}): TraceStep => ({
    instance,
    id,
    start_us: start,
    end_us: end,
    requests: 2,
    tokens: 130,
    prefill_tokens: 128,
    prefills: 1,
    decodes: 1,
    spec_tokens: 0,
    preempted: 0,
    ...over,
  });
  const steps: StepTrace = {
    instances: ['main-0', 'main-1'],
    steps: [step(0, 0, 0, 900), step(0, 1, 500, 1500), step(1, 0, 100, 300, { prefills: 0, decodes: 2, tokens: 2 })],
    truncated: false,
  };

  it('slices each step on its instance, overlapping batches on separate threads, with batch size and tokens', () => {
    const t = parse(runTrace(csv, steps));
    const names = t.traceEvents.filter((e) => e.name === 'process_name').map((e) => e.args?.['name']);
    expect(names).toEqual(['main-0', 'main-1']); // the requests' main-0 reuses the step process
    const s = t.traceEvents.filter((e) => e.cat === 'step');
    expect(s).toHaveLength(3);
    expect(s[0]).toMatchObject({ pid: 1, ts: 0, dur: 900, name: 'step 0: 1 prefill chunk + 1 decode (130 tok)' });
    expect(s[0]!.args).toMatchObject({ batch_size: 2, tokens: 130, prefill_tokens: 128, step_us: 900 });
    expect(s[0]!.tid).not.toBe(s[1]!.tid); // step 1 starts before step 0 ends
    expect(s[2]).toMatchObject({ pid: 2, name: 'step 0: 2 decodes (2 tok)' });
    const threads = t.traceEvents.filter((e) => e.name === 'thread_name');
    expect(threads.map((e) => `${e.pid}:${String(e.args?.['name'])}`)).toEqual([
      '1:engine steps 1',
      '1:engine steps 2',
      '2:engine steps 1',
    ]);
    expect(t.metadata).toEqual({});
  });

  it('says when the steps were cut short', () => {
    expect(parse(runTrace(csv, { ...steps, truncated: true })).metadata['note']).toMatch(/after the first 3/);
  });
});
