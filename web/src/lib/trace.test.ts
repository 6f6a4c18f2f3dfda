import { describe, expect, it } from 'vitest';
import { requestsTrace } from './trace';

describe('Perfetto trace of requests', () => {
  it('puts overlapping requests of an instance on separate lanes, with TTFT slices', () => {
    const csv = 'id,client,instance,arrival_s,first_token_s,finish_s,status\n0,c,main-0,0,0.1,1,finished\n1,c,main-0,0.5,0.6,2,finished\n2,c,main-0,1.5,,1.7,aborted\n';
    const t = JSON.parse(requestsTrace(csv)) as { traceEvents: { name: string; tid: number; ts?: number; dur?: number; ph: string }[] };
    const reqs = t.traceEvents.filter((e) => e.name.startsWith('request'));
    expect(reqs.map((e) => e.tid)).toEqual([1, 2, 1]);
    expect(reqs[0]).toMatchObject({ ts: 0, dur: 1_000_000, ph: 'X' });
    expect(t.traceEvents.filter((e) => e.name === 'until first token')).toHaveLength(2);
    expect(t.traceEvents[0]).toMatchObject({ ph: 'M', name: 'process_name' });
  });
});
