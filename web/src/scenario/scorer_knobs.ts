// The weighted router's scorers (router.scorers[], docs/scenario.md): for each scorer a
// checkbox that adds or removes its entry and a weight field. An entry sits at whatever index
// the document gives it, so these knobs find it by name, and claim the diagnostics of their
// entry by name too (Knob.ownsAt). Adding a scorer also selects policy `weighted`, the one
// that reads them (as the EPP field selects `epp`).

import { getAt, setAt, type Json, type JsonObject, type Knob } from './knob_base';

const SCORERS_AT = '/router/scorers';

/** The scorers the decoder accepts (core/scenario/decode_sections.cpp, kScorers), in its
 *  order; wasm_module.test.ts checks this list against the decoder's message. */
export const SCORER_NAMES = ['queue-depth', 'kv-utilization', 'prefix-cache'] as const;

const SCORE_HELP: Record<(typeof SCORER_NAMES)[number], string> = {
  'queue-depth': "fewer waiting requests scores higher (llm-d EPP's queue-scorer)",
  'kv-utilization': "1 − KV-cache usage (llm-d EPP's kv-cache-utilization-scorer)",
  'prefix-cache': "share of the prompt's blocks the router believes the instance holds (EPP prefix-cache-scorer)",
};

/** The document's scorer entries (undefined when the key is absent or not an array). */
function entries(doc: Json): Json[] | undefined {
  const v = getAt(doc, SCORERS_AT);
  return Array.isArray(v) ? v : undefined;
}

function nameOf(e: Json | undefined): string | undefined {
  return e !== null && typeof e === 'object' && !Array.isArray(e) && typeof e['name'] === 'string' ? e['name'] : undefined;
}

function indexOf(doc: Json, name: string): number {
  return (entries(doc) ?? []).findIndex((e) => nameOf(e) === name);
}

/** The entry index a diagnostic pointer under router.scorers names, and the rest of it. */
function split(pointer: string): { index: number; rest: string } | undefined {
  const m = /^\/router\/scorers\/(\d+)(\/.*)?$/.exec(pointer);
  return m ? { index: Number(m[1]), rest: m[2] ?? '' } : undefined;
}

/** Writes the scorer list, selecting the weighted policy. */
function writeList(doc: Json, list: Json[]): Json {
  return setAt(setAt(doc, SCORERS_AT, list), '/router/policy', 'weighted');
}

function useKnob(name: string, first: boolean): Knob {
  return {
    id: `scorer_${name}`,
    label: name,
    pointer: `${SCORERS_AT}/${name}`,
    kind: 'bool',
    group: 'scorers',
    absent: false,
    help: `${SCORE_HELP[name as keyof typeof SCORE_HELP]}; ticking it adds the scorer (and router policy weighted)`,
    get(doc) {
      return entries(doc) === undefined ? undefined : indexOf(doc, name) >= 0;
    },
    set(doc, value) {
      const list = entries(doc) ?? [];
      const has = indexOf(doc, name) >= 0;
      if (value === true) return has ? doc : writeList(doc, [...list, { name }]);
      return has
        ? writeList(
            doc,
            list.filter((e) => nameOf(e) !== name),
          )
        : doc;
    },
    // Its entry's errors but the weight's; the first scorer also shows the list's own errors
    // (missing, every weight 0) and those of an entry no scorer here names.
    ownsAt(doc, pointer) {
      if (first && pointer === SCORERS_AT) return true;
      const at = split(pointer);
      if (!at) return false;
      const n = nameOf(entries(doc)?.[at.index]);
      if (n === name) return at.rest !== '/weight';
      return first && !(SCORER_NAMES as readonly string[]).includes(n ?? '');
    },
  };
}

function weightKnob(name: string): Knob {
  const pointerIn = (doc: Json) => `${SCORERS_AT}/${indexOf(doc, name)}/weight`;
  return {
    id: `scorer_${name}_weight`,
    label: `${name} weight`,
    pointer: `${SCORERS_AT}/${name}/weight`,
    kind: 'number',
    min: 0,
    step: 0.5,
    group: 'scorers',
    placeholder: 'off: a weight adds it',
    help: `the ${name} scorer's weight in the weighted sum (router.scorers[].weight, default 1)`,
    get(doc) {
      if (indexOf(doc, name) < 0) return undefined;
      const w = getAt(doc, pointerIn(doc));
      return typeof w === 'number' ? w : undefined;
    },
    // The entry without a weight: the decoder's default (the resolved document writes it).
    fallback(resolved) {
      if (indexOf(resolved, name) < 0) return undefined;
      const w = getAt(resolved, pointerIn(resolved));
      return typeof w === 'number' ? w : undefined;
    },
    set(doc, value) {
      const i = indexOf(doc, name);
      if (i >= 0) return setAt(doc, pointerIn(doc), value as number);
      const entry: JsonObject = { name, weight: value as number };
      return writeList(doc, [...(entries(doc) ?? []), entry]);
    },
    ownsAt(doc, pointer) {
      const at = split(pointer);
      return at !== undefined && at.rest === '/weight' && nameOf(entries(doc)?.[at.index]) === name;
    },
  };
}

/** A use checkbox and a weight field per scorer. */
export function scorerKnobs(): Knob[] {
  return SCORER_NAMES.flatMap((n, i) => [useKnob(n, i === 0), weightKnob(n)]);
}
