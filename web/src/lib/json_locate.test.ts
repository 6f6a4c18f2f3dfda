import { describe, expect, it } from 'vitest';
import { joinPointer, locateJson, parsePointer } from './json_locate';

const doc = `{
  "name": "x",
  "pools": [
    { "instances": 2, "engine": { "args": { "max_num_seqs": -3 } } },
    { "a/b": true, "t~n": null }
  ]
}`;

const textAt = (text: string, r: { from: number; to: number }) => text.slice(r.from, r.to);

describe('JSON pointer to text range', () => {
  it('splits and joins pointers with RFC 6901 escapes', () => {
    expect(parsePointer('')).toEqual([]);
    expect(parsePointer('/a~1b/t~0n/0')).toEqual(['a/b', 't~n', '0']);
    expect(joinPointer(['a/b', 't~n', 0])).toBe('/a~1b/t~0n/0');
    expect(() => parsePointer('x')).toThrow(/not a JSON pointer/);
  });

  it('maps scalar members to their value', () => {
    const loc = locateJson(doc);
    expect(loc.syntaxError).toBeUndefined();
    expect(textAt(doc, loc.locate('/name'))).toBe('"x"');
    expect(textAt(doc, loc.locate('/pools/0/engine/args/max_num_seqs'))).toBe('-3');
    expect(textAt(doc, loc.locate('/pools/1/a~1b'))).toBe('true');
    expect(textAt(doc, loc.locate('/pools/1/t~0n'))).toBe('null');
  });

  it('maps objects and arrays to their key', () => {
    const loc = locateJson(doc);
    expect(textAt(doc, loc.locate('/pools'))).toBe('"pools"');
    expect(textAt(doc, loc.locate('/pools/0/engine'))).toBe('"engine"');
  });

  it('maps a missing member to the deepest existing ancestor', () => {
    const loc = locateJson(doc);
    expect(textAt(doc, loc.locate('/pools/0/engine/args/block_size'))).toBe('"args"');
    expect(textAt(doc, loc.locate('/pools/7'))).toBe('"pools"');
    // the root: its first line only
    expect(textAt(doc, loc.locate(''))).toBe('{');
    expect(textAt(doc, loc.locate('/missing'))).toBe('{');
  });

  it('reports the first syntax error and still maps what precedes it', () => {
    const broken = '{\n  "name": "x",\n  "seed": 1,,\n  "z": 2\n}';
    const loc = locateJson(broken);
    expect(loc.syntaxError?.offset).toBe(broken.indexOf(',,') + 1);
    expect(textAt(broken, loc.locate('/seed'))).toBe('1');
    expect(textAt(broken, loc.locate('/name'))).toBe('"x"');
  });

  it('handles escapes in keys and strings', () => {
    const t = '{"a\\"b": "c\\u0041", "n": [1.5e3, -0.25]}';
    const loc = locateJson(t);
    expect(loc.syntaxError).toBeUndefined();
    expect(textAt(t, loc.locate('/a"b'))).toBe('"c\\u0041"');
    expect(textAt(t, loc.locate('/n/1'))).toBe('-0.25');
  });

  it('rejects trailing text and unterminated strings', () => {
    expect(locateJson('{} x').syntaxError?.message).toMatch(/after the document/);
    expect(locateJson('{"a": "b').syntaxError?.message).toMatch(/unterminated/);
    expect(locateJson('').syntaxError?.message).toMatch(/end of text/);
  });
});
