import { describe, expect, it } from 'vitest';
import { syntaxDiagnostics } from './syntax';

describe('syntaxDiagnostics', () => {
  it('is empty for valid JSON', () => {
    expect(syntaxDiagnostics('{"a": [1, 2]}')).toEqual([]);
  });
  it('names the line and column of the first error', () => {
    const [d] = syntaxDiagnostics('{\n  "a": 1,,\n}');
    expect(d).toMatchObject({ pointer: '#syntax', severity: 'error' });
    expect(d!.message).toMatch(/^JSON syntax error at line 2, column 10: /);
  });
});
