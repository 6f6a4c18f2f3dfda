// importHfConfig under node: a pasted config.json becomes a model entry that a scenario can
// carry inline; what the importer cannot read comes back as diagnostics with pointers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadBlisModule } from './load_module.mjs';

const blis = await loadBlisModule();
const fixtures = new URL('../../tests/catalog/fixtures/hf-configs/', import.meta.url);

test('a real config.json imports and validates as an inline scenario model', () => {
  const config = readFileSync(new URL('Mixtral-8x7B-v0.1.json', fixtures), 'utf8');
  const r = blis.importHfConfig(config, 'acme/Mixtral-copy');
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), []);
  const entry = JSON.parse(r.entry);
  assert.equal(entry.id, 'acme/Mixtral-copy');
  assert.equal(entry.moe.num_experts, 8);
});

test('an unreadable config names the pointer', () => {
  const config = readFileSync(new URL('handwritten-unreadable.json', fixtures), 'utf8');
  const r = blis.importHfConfig(config, '');
  assert.equal(r.entry, '');
  assert.ok(r.diagnostics.some((d) => d.pointer === '/quantization_config/quant_method'));
  assert.equal(blis.importHfConfig('{"hidden_size": ', '').diagnostics[0].message, 'not valid JSON');
});
