// What B changes against A: the JSON pointers whose values differ between two documents
// (objects by key, arrays by index), each with A's and B's value. Run over the resolved
// documents, so a default written out in one and left out in the other is no difference.

import type { Json } from '../scenario/knobs';

export interface Change {
  pointer: string;
  a: Json | undefined;
  b: Json | undefined;
}

const esc = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');

export function jsonDiff(a: Json | undefined, b: Json | undefined, pointer = '', out: Change[] = []): Change[] {
  const obj = (v: Json | undefined): v is { [k: string]: Json } => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (obj(a) && obj(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const k of keys) jsonDiff(a[k], b[k], `${pointer}/${esc(k)}`, out);
  } else if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) jsonDiff(a[i], b[i], `${pointer}/${i}`, out);
  } else if (JSON.stringify(a) !== JSON.stringify(b)) {
    out.push({ pointer, a, b });
  }
  return out;
}

/** A value for display, shortened. */
export function showValue(v: Json | undefined): string {
  if (v === undefined) return '(absent)';
  const s = JSON.stringify(v);
  return s.length > 40 ? `${s.slice(0, 37)}…` : s;
}
