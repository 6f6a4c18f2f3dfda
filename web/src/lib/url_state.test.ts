import { describe, expect, it } from 'vitest';
import { decodeText, encodeText, readUrlState, writeUrlState } from './url_state';

describe('URL state', () => {
  it('round-trips a scenario through deflate + base64url', async () => {
    const text = JSON.stringify({ name: 'a/b+c?', pools: [{ instances: 4 }], seed: 1 }, null, 2);
    const enc = await encodeText(text);
    expect(enc).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(await decodeText(enc)).toBe(text);
  });

  it('compresses a realistic scenario well below its size', async () => {
    const text = JSON.stringify(
      { pools: Array.from({ length: 8 }, (_, i) => ({ name: `pool-${i}`, instances: 4, hardware: 'H100-SXM-80GB' })) },
      null,
      2,
    );
    expect((await encodeText(text)).length).toBeLessThan(text.length / 3);
  });

  it('keeps a document with syntax errors as typed', async () => {
    const broken = '{"name": "x",, }';
    expect(await decodeText(await encodeText(broken))).toBe(broken);
  });

  it('round-trips the whole view state', async () => {
    const state = { scenario: '{\n  "a": 1\n}', compare: '{\n  "a": 2\n}', speed: 30, embed: true, autoplay: false };
    const search = await writeUrlState(state);
    expect(await readUrlState(search)).toEqual(state);
  });

  it('carries a preset name instead of a document', async () => {
    const search = await writeUrlState({ preset: 'overload', comparePreset: 'x', embed: false, autoplay: true });
    expect(search).toBe('?autoplay=1&preset=overload&bpreset=x');
    expect(await readUrlState('?embed=1&preset=routing')).toEqual({ preset: 'routing', embed: true, autoplay: false });
  });

  it('rejects a damaged link with a clear message', async () => {
    await expect(decodeText('%%%')).rejects.toThrow(/damaged/);
    await expect(decodeText('AAAA')).rejects.toThrow(/damaged/);
  });

  it('ignores a bad speed', async () => {
    expect((await readUrlState('?speed=-2')).speed).toBeUndefined();
    expect((await readUrlState('?speed=abc')).speed).toBeUndefined();
  });
});
