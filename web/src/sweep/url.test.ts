import { describe, expect, it } from 'vitest';
import { readSweepHash, sweepHash } from './url';

describe('the sweep in the URL hash', () => {
  it('round-trips a document', async () => {
    const text = JSON.stringify({ schema: 'blis/sweep/v1', axes: [] }, null, 2);
    const hash = await sweepHash(text);
    expect(hash).toMatch(/^#sweep=[A-Za-z0-9_-]+$/);
    expect(await readSweepHash(hash)).toBe(text);
  });

  it('has no hash for no document, and nothing in an unrelated hash', async () => {
    expect(await sweepHash('  ')).toBe('');
    expect(await readSweepHash('')).toBeUndefined();
    expect(await readSweepHash('#other=1')).toBeUndefined();
  });
});
