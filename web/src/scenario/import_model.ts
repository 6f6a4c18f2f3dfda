// A catalog model entry (from a pasted Hugging Face config.json, `importHfConfig`) put into a
// scenario: carried inline under /catalog/models (an entry with the same id is replaced, as
// the catalog replaces a built-in one, docs/scenario.md) and named by every pool's `model`.

import type { Json, JsonObject } from './knobs';

function isObject(v: Json | undefined): v is JsonObject {
  return v !== null && v !== undefined && typeof v === 'object' && !Array.isArray(v);
}

/** The document with `entry` inline and used by every pool; throws on a non-object document. */
export function withImportedModel(doc: Json, entry: JsonObject): JsonObject {
  if (!isObject(doc)) throw new Error('the scenario is not a JSON object');
  const id = entry['id'];
  if (typeof id !== 'string' || !id) throw new Error('the model entry has no id');
  const out: JsonObject = structuredClone(doc);
  const catalog: JsonObject = isObject(out['catalog']) ? out['catalog'] : {};
  const models = Array.isArray(catalog['models']) ? catalog['models'] : [];
  catalog['models'] = [...models.filter((m) => !(isObject(m) && m['id'] === id)), entry];
  out['catalog'] = catalog;
  if (Array.isArray(out['pools'])) {
    out['pools'] = out['pools'].map((p) => (isObject(p) ? { ...p, model: id } : p));
  }
  return out;
}
