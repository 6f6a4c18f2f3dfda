import { describe, expect, it } from 'vitest';
import { latenciesFromCsv } from './requests_csv';

describe('latencies from requests.csv', () => {
  it('computes TTFT, E2E and ITL per finished request, in ms', () => {
    const csv = [
      'id,client,instance,arrival_s,first_token_s,finish_s,prompt_tokens,cached_tokens,output_tokens,preemptions',
      '0,chat,main-0,1.000,1.050,2.050,100,0,11,0',
      '1,chat,main-0,2.000,2.500,,100,0,11,0', // still running
      '2,chat,main-0,3.000,3.020,3.020,100,0,1,0',
    ].join('\n');
    const l = latenciesFromCsv(csv);
    expect(Array.from(l.ttftMs).map((v) => Math.round(v))).toEqual([50, 20]);
    expect(Array.from(l.e2eMs).map((v) => Math.round(v))).toEqual([1050, 20]);
    expect(Array.from(l.itlMs).map((v) => Math.round(v))).toEqual([100]);
  });

  it('skips aborted requests', () => {
    const l = latenciesFromCsv(
      'arrival_s,first_token_s,finish_s,output_tokens,status\n0,0.1,0.2,2,aborted\n0,0.1,0.3,3,finished\n',
    );
    expect(Array.from(l.e2eMs).map((v) => Math.round(v))).toEqual([300]);
  });

  it('reads microsecond columns', () => {
    const l = latenciesFromCsv('arrival_us,first_token_us,finish_us,output_tokens\n0,1500,3500,3\n');
    expect(Array.from(l.ttftMs)).toEqual([1.5]);
    expect(Array.from(l.itlMs)).toEqual([1]);
  });

  it('names a missing column', () => {
    expect(() => latenciesFromCsv('arrival_s,finish_s,output_tokens\n')).toThrow(/no 'first_token' column/);
    expect(() => latenciesFromCsv('arrival,first_token_s,finish_s,output_tokens\n')).toThrow(/unit suffix/);
  });
});
