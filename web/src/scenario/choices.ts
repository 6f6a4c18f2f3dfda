// A select knob's options are the values the decoder accepts there, read from the decoder
// itself so the form never keeps a second list: the probe document puts a number at every
// select knob's pointer, and the validator's message for it ("0 is an integer, expected one
// of: "a", "b"", core/util/json_fields.cpp FieldReader::choice) lists the accepted strings.
// The speculative methods depend on the pool's vLLM release, so the probe is the edited
// document with only those places changed.

import type { Diagnostic } from '../protocol';
import { setAt, type Json, type Knob } from './knob_base';

/** The edited document with a number at each select knob's pointer, as JSON text. */
export function choiceProbe(doc: Json, knobs: readonly Knob[]): string {
  let probe = doc;
  for (const k of knobs) if (k.kind === 'select') probe = setAt(probe, k.pointer, 0);
  return JSON.stringify(probe);
}

/** The accepted values per select knob id, from the probe's diagnostics (a knob the
 *  validator did not list values for is left out). */
export function readChoices(diags: readonly Diagnostic[], knobs: readonly Knob[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const k of knobs) {
    if (k.kind !== 'select') continue;
    const d = diags.find((x) => x.pointer === k.pointer && x.severity === 'error');
    const list = d && /expected one of: (.*)$/.exec(d.message)?.[1];
    if (!list) continue;
    const values = [...list.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!);
    if (values.length) out[k.id] = values;
  }
  return out;
}
