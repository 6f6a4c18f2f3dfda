// The knobs' building blocks: the Knob type, reading and writing a JSON pointer of the
// parsed document, parsing a form input, and what a knob shows over a document and its
// resolved form (knobState). knobs.ts and knob_groups.ts define the knobs themselves.

import { joinPointer, parsePointer } from '../lib/json_locate';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

/** `json`: a one-line JSON value; `config`: a multi-line JSON object or YAML text. */
export type KnobKind = 'int' | 'number' | 'bool' | 'select' | 'text' | 'json' | 'config';
export type KnobValue = string | number | boolean;
/** Where the form shows a knob: the main grid, or one of the folded groups below it. */
export type KnobGroup = 'main' | 'scale' | 'adapters' | 'router' | 'scorers';

export interface Knob {
  id: string;
  label: string;
  /** Where the value lives (for length knobs: the distribution object). */
  pointer: string;
  kind: KnobKind;
  unit?: string;
  min?: number;
  step?: number;
  /** A select's fixed options (before those the decoder accepts, probed: choices.ts). */
  options?: readonly string[];
  help: string;
  group?: KnobGroup;
  /** More pointers whose errors this knob shows (exactly these, not their descendants). */
  alsoAt?: readonly string[];
  /** More places whose errors this knob shows, decided over the document (a router
   *  scorer's entry sits at whatever index the document gives it). */
  ownsAt?(doc: Json, pointer: string): boolean;
  /** Shown when the key is in neither the document nor the resolved one: the resolved
   *  document (core/scenario/encode.cpp) writes such a key only when it is set. */
  absent?: KnobValue;
  /** What an empty json/config knob means (its placeholder). */
  placeholder?: string;
  /** Reads the knob; undefined when the document has another shape there (e.g. stages). */
  get(doc: Json): KnobValue | undefined;
  /** The value shown when the document leaves the key out (default: `get` on the resolved
   *  document), e.g. a client's acceptance rate falls back to its pool's. */
  fallback?(resolved: Json): KnobValue | undefined;
  /** Writes the knob into a copy of the document. */
  set(doc: Json, value: KnobValue): Json;
  /** True when the document sets this place another way (the knob cannot write it). */
  blocked?(doc: Json): boolean;
  /** Why the knob cannot be set yet (another knob comes first), given the document and its
   *  resolved form; undefined when it can. */
  needs?(doc: Json, resolved: Json): string | undefined;
}

export function getAt(doc: Json, pointer: string): Json | undefined {
  let cur: Json | undefined = doc;
  for (const t of parsePointer(pointer)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = Array.isArray(cur) ? cur[Number(t)] : cur[t];
  }
  return cur;
}

/** Returns a deep copy of `doc` with `value` at `pointer`, creating missing objects. */
export function setAt(doc: Json, pointer: string, value: Json): Json {
  const tokens = parsePointer(pointer);
  const copy = structuredClone(doc);
  if (tokens.length === 0) return value;
  let cur: Json = copy;
  tokens.forEach((t, i) => {
    if (cur === null || typeof cur !== 'object') return; // unreachable: scalars are replaced below
    const last = i === tokens.length - 1;
    if (Array.isArray(cur)) {
      const idx = Number(t);
      if (last) cur[idx] = value;
      else {
        if (cur[idx] === undefined || cur[idx] === null || typeof cur[idx] !== 'object') cur[idx] = {};
        cur = cur[idx]!;
      }
    } else {
      if (last) cur[t] = value;
      else {
        const next: Json | undefined = cur[t];
        if (next === undefined || next === null || typeof next !== 'object') cur[t] = {};
        cur = cur[t]!;
      }
    }
  });
  return copy;
}

/** Returns a deep copy of `doc` without the key at `pointer` (the same document when absent). */
export function deleteAt(doc: Json, pointer: string): Json {
  const tokens = parsePointer(pointer);
  const last = tokens.pop();
  const parentPtr = joinPointer(tokens);
  const parent = getAt(doc, parentPtr);
  if (last === undefined || parent === null || typeof parent !== 'object' || Array.isArray(parent) || !(last in parent)) {
    return doc;
  }
  const copy = structuredClone(doc);
  delete (getAt(copy, parentPtr) as JsonObject)[last];
  return copy;
}

export function scalarKnob(k: Omit<Knob, 'get' | 'set'>): Knob {
  return {
    ...k,
    get(doc) {
      const v = getAt(doc, k.pointer);
      if (k.kind === 'bool') return typeof v === 'boolean' ? v : undefined;
      if (k.kind === 'int' || k.kind === 'number') return typeof v === 'number' ? v : undefined;
      return typeof v === 'string' ? v : undefined;
    },
    set(doc, value) {
      return setAt(doc, k.pointer, value);
    },
  };
}

/** A token-length distribution knob: edits `value` of a constant or `mean` of the others.
 *  A client's length knob. A shared_prefix client (inference-perf's shape) has no length
 *  distribution: the knob edits its integer `sharedField` there instead. */
export function lengthKnob(t: Target, id: string, label: string, pointer: string, help: string, sharedField: string): Knob {
  const shared = `${t.client}/shared_prefix`;
  const sharedPrefix = (doc: Json) => {
    const sp = getAt(doc, shared);
    return sp && typeof sp === 'object' && !Array.isArray(sp) ? sp : undefined;
  };
  return {
    id,
    label,
    pointer,
    kind: 'int',
    unit: 'tokens',
    min: 1,
    step: 1,
    help,
    get(doc) {
      const sp = sharedPrefix(doc);
      if (sp) return typeof sp[sharedField] === 'number' ? sp[sharedField] : undefined;
      const d = getAt(doc, pointer);
      if (!d || typeof d !== 'object' || Array.isArray(d)) return undefined;
      if (d['dist'] === 'constant' && typeof d['value'] === 'number') return d['value'];
      if (typeof d['mean'] === 'number') return d['mean'];
      if (d['dist'] === 'uniform' && typeof d['min'] === 'number' && typeof d['max'] === 'number') {
        return Math.round((d['min'] + d['max']) / 2);
      }
      return undefined;
    },
    set(doc, value) {
      if (sharedPrefix(doc)) return setAt(doc, `${shared}/${sharedField}`, value as number);
      const d = getAt(doc, pointer);
      if (d && typeof d === 'object' && !Array.isArray(d) && d['dist'] !== 'constant' && typeof d['mean'] === 'number') {
        const old = d['mean'];
        const next: JsonObject = { ...d, mean: value as number };
        // Keep the shape: scale the spread with the mean.
        if (typeof d['std'] === 'number' && old > 0) next['std'] = Math.round(((d['std'] as number) * (value as number)) / old);
        return setAt(doc, pointer, next);
      }
      if (
        d &&
        typeof d === 'object' &&
        !Array.isArray(d) &&
        d['dist'] === 'uniform' &&
        typeof d['min'] === 'number' &&
        typeof d['max'] === 'number'
      ) {
        // Keep the width: move the range so its midpoint is the new mean.
        const half = Math.floor((d['max'] - d['min']) / 2);
        const min = Math.max(1, (value as number) - half);
        return setAt(doc, pointer, { ...d, min, max: min + 2 * half });
      }
      return setAt(doc, pointer, { dist: 'constant', value: value as number });
    },
    blocked: traceWorkload,
  };
}

/** A trace workload has no clients for the client knobs to edit. */
export function traceWorkload(doc: Json): boolean {
  return getAt(doc, '/workload/trace_csv') !== undefined;
}

/** Which pool and client the form edits: the pointers of their knobs. */
export interface Target {
  /** `/pools/<i>` */
  pool: string;
  /** `/pools/<i>/engine/args` */
  args: string;
  /** `/workload/clients/<j>` */
  client: string;
}

export function target(pool = 0, client = 0): Target {
  return { pool: `/pools/${pool}`, args: `/pools/${pool}/engine/args`, client: `/workload/clients/${client}` };
}

/** Parses a form input's text into the knob's value type; undefined when it is not one
 *  (a json knob's text must parse; empty means "unset"). */
export function parseKnobInput(knob: Knob, raw: string | boolean): KnobValue | undefined {
  if (knob.kind === 'bool') return typeof raw === 'boolean' ? raw : raw === 'true';
  const text = String(raw).trim();
  if (knob.kind === 'int') return /^-?\d+$/.test(text) ? Number(text) : undefined;
  if (knob.kind === 'number') return text !== '' && Number.isFinite(Number(text)) ? Number(text) : undefined;
  if (knob.kind === 'json') return text === '' || jsonError(text) === undefined ? text : undefined;
  return text;
}

/** Why a json knob's text is not JSON (the parser's message), or undefined. */
export function jsonError(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

export interface KnobState {
  value: KnobValue | undefined;
  /** `document`: the document sets it; `default`: the run's default; `none`: unknown. */
  source: 'document' | 'default' | 'none';
  /** Set when the knob cannot be edited: the document sets the place another way, or
   *  another knob must be set first. */
  disabledBecause?: string;
}

/** What the form shows for a knob over a document and its resolved form (null: not known). */
export function knobState(knob: Knob, doc: Json, resolved: Json): KnobState {
  const own = knob.get(doc);
  if (own !== undefined) return { value: own, source: 'document' };
  if (knob.blocked?.(doc) === true) {
    return { value: undefined, source: 'none', disabledBecause: 'this scenario sets it another way; edit it in the JSON' };
  }
  const need = resolved === null ? undefined : knob.needs?.(doc, resolved);
  if (need !== undefined) return { value: undefined, source: 'none', disabledBecause: need };
  if (resolved === null) return { value: undefined, source: 'none' };
  const eff = knob.fallback ? knob.fallback(resolved) : knob.get(resolved);
  const value = eff ?? knob.absent;
  return value === undefined ? { value: undefined, source: 'none' } : { value, source: 'default' };
}
