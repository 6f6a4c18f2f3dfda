// The small form that builds a sweep from the scenario being edited: up to two axes, each a
// scenario key by JSON pointer with a list of values or a numeric range (plus, optionally,
// linked keys that move with it, e.g. the rate with the instances), and an objective.
// It only writes a blis/sweep/v1 document: every check (pointers, ranges, sizes) is the C++
// decoder's, whose errors come back with their JSON pointer into this document.

import type { Json, JsonObject } from '../scenario/knobs';

/** One key of an axis: the axis's own, or one linked to it. */
export interface MemberInput {
  pointer: string;
  mode: 'values' | 'range';
  /** Comma-separated values: JSON values (`1, 2, "a"`) or bare words. */
  values: string;
  from: string;
  to: string;
  step: string;
}

export interface AxisInput extends MemberInput {
  /** Keys that move with this one, step for step (each needs as many values). */
  linked?: MemberInput[];
}

export const OBJECTIVES = ['min_cost', 'min_gpus', 'max_goodput_per_gpu'] as const;
export type Objective = (typeof OBJECTIVES)[number];

/** The constraints a built sweep starts with (docs/sweeps.md's example); edit them in JSON. */
export const DEFAULT_CONSTRAINTS: JsonObject[] = [
  { metric: '/ttft_ms/p99', max: 500 },
  { metric: '/itl_ms/p99', max: 50 },
];

/** A number when the text is one, else the text itself (the decoder names the type error). */
function numberOrText(text: string): Json {
  const t = text.trim();
  const n = Number(t);
  return t !== '' && Number.isFinite(n) ? n : t;
}

export function parseValues(text: string): Json[] {
  try {
    const v = JSON.parse(`[${text}]`) as unknown;
    if (Array.isArray(v)) return v as Json[];
  } catch {
    // bare words: split on commas below
  }
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map(numberOrText);
}

/** The last token of a pointer, as a column name ("/pools/0/instances" → "instances"). */
export function axisName(pointer: string): string {
  const last = pointer.split('/').pop() ?? '';
  return last.replace(/~1/g, '/').replace(/~0/g, '~') || pointer;
}

function memberJson(a: MemberInput): JsonObject {
  const out: JsonObject = { pointer: a.pointer.trim() };
  if (a.mode === 'range') {
    out['range'] = {
      from: numberOrText(a.from),
      to: numberOrText(a.to),
      step: numberOrText(a.step),
    };
  } else {
    out['values'] = parseValues(a.values);
  }
  return out;
}

/** An axis of the document: `{name, pointer, values | range}`, or `{name, linked: [...]}`
 *  with the axis's own key first when keys are linked to it (docs/sweeps.md). */
export function axisJson(a: AxisInput): JsonObject {
  const members = [a, ...(a.linked ?? []).filter((m) => m.pointer.trim() !== '')];
  const name = members.map((m) => axisName(m.pointer.trim())).join(' + ');
  if (members.length === 1) return { name, ...memberJson(a) };
  return { name, linked: members.map(memberJson) };
}

/** A sweep document over `scenario` (inlined as the base): the axes with a pointer. */
export function buildSweep(scenario: Json, axes: AxisInput[], objective: Objective, name = ''): JsonObject {
  const used = axes.filter((a) => a.pointer.trim() !== '');
  const scenarioName = scenario && typeof scenario === 'object' && !Array.isArray(scenario) ? scenario['name'] : undefined;
  const title =
    name ||
    `${typeof scenarioName === 'string' ? scenarioName : 'scenario'}: ${used.map((a) => axisJson(a)['name']).join(' x ')}`;
  return {
    schema: 'blis/sweep/v1',
    name: title,
    base: scenario,
    axes: used.map(axisJson),
    constraints: DEFAULT_CONSTRAINTS.map((c) => ({ ...c })),
    objective,
  };
}
