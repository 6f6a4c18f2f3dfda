import { describe, expect, it } from 'vitest';
import { parseColumn, perInstance } from './columns';

describe('series column names', () => {
  it('split per-instance and cluster columns', () => {
    expect(parseColumn('main-0.kv_usage')).toEqual({ metric: 'kv_usage', instance: 'main-0' });
    expect(parseColumn('pool.v2-1.running')).toEqual({ metric: 'running', instance: 'pool.v2-1' });
    expect(parseColumn('ttft_p99_ms')).toEqual({ metric: 'ttft_p99_ms' });
  });
  it('list one metric per instance in instance order, skipping absent ones', () => {
    const cols = ['time_s', 'b-0.running', 'a-0.running', 'a-0.waiting'];
    expect(perInstance(cols, 'running', ['a-0', 'b-0', 'c-0'])).toEqual(['a-0.running', 'b-0.running']);
  });
});
