import { describe, expect, it } from 'vitest';
import { withImportedModel } from './import_model';

describe('withImportedModel', () => {
  const entry = { id: 'acme/m', hidden_size: 64 };

  it('adds the entry inline and points every pool at it', () => {
    const doc = {
      pools: [
        { name: 'p', model: 'x' },
        { name: 'd', model: 'y' },
      ],
    };
    const out = withImportedModel(doc, entry);
    expect(out['catalog']).toEqual({ models: [entry] });
    expect(out['pools']).toEqual([
      { name: 'p', model: 'acme/m' },
      { name: 'd', model: 'acme/m' },
    ]);
    expect(doc.pools[0]!.model).toBe('x'); // the input is not changed
  });

  it('replaces an inline entry of the same id and keeps the others', () => {
    const doc = {
      catalog: {
        gpus: [],
        models: [
          { id: 'acme/m', hidden_size: 1 },
          { id: 'other', hidden_size: 2 },
        ],
      },
      pools: [],
    };
    const out = withImportedModel(doc, entry);
    expect(out['catalog']).toEqual({ gpus: [], models: [{ id: 'other', hidden_size: 2 }, entry] });
  });

  it('refuses what it cannot write into', () => {
    expect(() => withImportedModel([], entry)).toThrow(/not a JSON object/);
    expect(() => withImportedModel({}, { hidden_size: 1 })).toThrow(/no id/);
  });
});
