// The scenario form's knobs: each reads and writes one place of the scenario document (the
// first pool and the first client, which is what the form edits; everything else stays in
// the JSON editor). Pure functions over the parsed document, so the form and the JSON text
// stay in sync through the document alone.

import { parsePointer } from '../lib/json_locate';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

export type KnobKind = 'int' | 'number' | 'bool' | 'select' | 'text';

export interface Knob {
  id: string;
  label: string;
  /** Where the value lives (for length knobs: the distribution object). */
  pointer: string;
  kind: KnobKind;
  unit?: string;
  min?: number;
  step?: number;
  options?: readonly string[];
  help: string;
  /** Reads the knob; undefined when the document has another shape there (e.g. stages). */
  get(doc: Json): string | number | boolean | undefined;
  /** Writes the knob into a copy of the document. */
  set(doc: Json, value: string | number | boolean): Json;
  /** True when the document sets this place another way (the knob cannot write it). */
  blocked?(doc: Json): boolean;
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

function scalarKnob(k: Omit<Knob, 'get' | 'set'>): Knob {
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

/** A token-length distribution knob: edits `value` of a constant or `mean` of the others. */
function lengthKnob(id: string, label: string, pointer: string, help: string): Knob {
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
function traceWorkload(doc: Json): boolean {
  return getAt(doc, '/workload/trace_csv') !== undefined;
}

const POOL = '/pools/0';
const ARGS = `${POOL}/engine/args`;
const CLIENT = '/workload/clients/0';

export const ROUTER_POLICIES = ['round-robin', 'least-loaded', 'weighted', 'random'] as const;

export const KNOBS: readonly Knob[] = [
  scalarKnob({
    id: 'instances',
    label: 'Instances',
    pointer: `${POOL}/instances`,
    kind: 'int',
    min: 1,
    step: 1,
    help: 'vLLM replicas in the first pool',
  }),
  scalarKnob({ id: 'hardware', label: 'GPU', pointer: `${POOL}/hardware`, kind: 'text', help: 'catalog GPU id' }),
  scalarKnob({
    id: 'model',
    label: 'Model',
    pointer: `${POOL}/model`,
    kind: 'text',
    help: 'Hugging Face model id from the catalog',
  }),
  scalarKnob({
    id: 'tp',
    label: 'Tensor parallel',
    pointer: `${POOL}/parallelism/tp`,
    kind: 'int',
    min: 1,
    step: 1,
    help: 'GPUs per instance (tensor parallelism)',
  }),
  scalarKnob({
    id: 'max_num_seqs',
    label: 'max_num_seqs',
    pointer: `${ARGS}/max_num_seqs`,
    kind: 'int',
    min: 1,
    step: 1,
    help: 'most requests in one batch',
  }),
  scalarKnob({
    id: 'max_num_batched_tokens',
    label: 'max_num_batched_tokens',
    pointer: `${ARGS}/max_num_batched_tokens`,
    kind: 'int',
    min: 1,
    step: 256,
    unit: 'tokens',
    help: 'token budget of one engine step',
  }),
  scalarKnob({
    id: 'enable_prefix_caching',
    label: 'Prefix caching',
    pointer: `${ARGS}/enable_prefix_caching`,
    kind: 'bool',
    help: 'reuse KV blocks of shared prompt prefixes',
  }),
  scalarKnob({
    id: 'router',
    label: 'Router',
    pointer: '/router/policy',
    kind: 'select',
    options: ROUTER_POLICIES,
    help: 'how requests are spread over instances',
  }),
  {
    ...scalarKnob({
      id: 'rate',
      label: 'Arrival rate',
      pointer: `${CLIENT}/load/rate`,
      kind: 'number',
      min: 0,
      step: 0.5,
      unit: 'req/s',
      help: 'requests per second (set `stages` in JSON for a ramp)',
    }),
    // A load given as stages or a concurrency has no single rate to edit.
    blocked: (doc) =>
      traceWorkload(doc) || ['stages', 'concurrency'].some((k) => getAt(doc, `${CLIENT}/load/${k}`) !== undefined),
  },
  lengthKnob('prompt_tokens', 'Prompt length', `${CLIENT}/prompt_tokens`, 'mean prompt tokens'),
  lengthKnob('output_tokens', 'Output length', `${CLIENT}/output_tokens`, 'mean output tokens'),
  scalarKnob({
    id: 'duration_s',
    label: 'Duration',
    pointer: '/horizon/duration_s',
    kind: 'number',
    min: 1,
    step: 10,
    unit: 's',
    help: 'arrivals stop after this many simulated seconds',
  }),
];

/** Parses a form input's text into the knob's value type; undefined when it is not one. */
export function parseKnobInput(knob: Knob, raw: string | boolean): string | number | boolean | undefined {
  if (knob.kind === 'bool') return typeof raw === 'boolean' ? raw : raw === 'true';
  const text = String(raw).trim();
  if (knob.kind === 'int') return /^-?\d+$/.test(text) ? Number(text) : undefined;
  if (knob.kind === 'number') return text !== '' && Number.isFinite(Number(text)) ? Number(text) : undefined;
  return text;
}
