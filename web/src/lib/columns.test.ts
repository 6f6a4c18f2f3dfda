import { describe, expect, it } from 'vitest';
import { parseColumn, perInstance } from './columns';

describe('series column names', () => {
  it('split per-instance and cluster columns', () => {
    expect(parseColumn('kv_usage[main-0]')).toEqual({ metric: 'kv_usage', instance: 'main-0' });
    expect(parseColumn('ttft_p99_ms')).toEqual({ metric: 'ttft_p99_ms' });
  });
  it('list one metric per instance in instance order, skipping absent ones', () => {
    const cols = ['time_s', 'running[b-0]', 'running[a-0]', 'waiting[a-0]'];
    expect(perInstance(cols, 'running', ['a-0', 'b-0', 'c-0'])).toEqual(['running[a-0]', 'running[b-0]']);
  });
});
