// A local JSON syntax check, before asking the validator: one diagnostic or none, with the
// line and column of the first error. Its pointer is '#syntax' (the editor marks the offset).

import type { Diagnostic } from '../protocol';
import { locateJson } from './json_locate';

export function syntaxDiagnostics(text: string): Diagnostic[] {
  const err = locateJson(text).syntaxError;
  if (!err) return [];
  const before = text.slice(0, err.offset);
  const line = before.split('\n').length;
  const col = err.offset - before.lastIndexOf('\n');
  return [{ pointer: '#syntax', message: `JSON syntax error at line ${line}, column ${col}: ${err.message}`, severity: 'error' }];
}
