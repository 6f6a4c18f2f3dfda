import { describe, expect, it } from 'vitest';
import { parseCsv } from './csv';
import { latenciesFromCsv } from './requests_csv';

describe('RFC 4180 CSV', () => {
  it('keeps quoted commas, doubled quotes and line breaks in one field', () => {
    expect(parseCsv('a,b\r\n"chat, eu","say ""hi""\nthere"\n')).toEqual([
      ['a', 'b'],
      ['chat, eu', 'say "hi"\nthere'],
    ]);
  });
  it('keeps empty fields and skips blank lines', () => {
    expect(parseCsv('a,,c\n\n1,2,\n')).toEqual([
      ['a', '', 'c'],
      ['1', '2', ''],
    ]);
  });
  it('a quoted client name does not shift the latency columns', () => {
    const csv =
      'id,client,arrival_s,first_token_s,finish_s,output_tokens,status,ttft_ms,e2e_ms\n0,"chat, eu",1,1.05,2.05,11,finished,50.000,1050.000\n';
    expect(Array.from(latenciesFromCsv(csv).ttftMs).map(Math.round)).toEqual([50]);
  });
});
