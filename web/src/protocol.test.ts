import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describeResponse } from './protocol';
import createBlisModule from './wasm/blis.mjs';

describe('worker protocol', () => {
  it('describes a ready module by its version', () => {
    expect(describeResponse({ kind: 'ready', version: '1.2.3', catalog: { gpus: [], models: [], fabrics: [] } })).toBe('1.2.3');
    expect(describeResponse({ kind: 'error', message: 'boom' })).toBe('error: boom');
  });
});

describe('browser module under node', () => {
  it('loads and reports the native sampler digest', async () => {
    const wasmBinary = readFileSync(fileURLToPath(new URL('./wasm/blis.wasm', import.meta.url)));
    const blis = await createBlisModule({ wasmBinary });
    expect(blis.version()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(blis.samplerDigestHex(2026, 5000)).toBe(7691420654784420497n.toString(16).padStart(16, '0'));
  });
});
