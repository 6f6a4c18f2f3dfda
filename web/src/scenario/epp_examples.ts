// The llm-d EndpointPickerConfigs the form offers: each example scenario's router.epp_config
// (examples/ at the repository root, the same files the presets and docs/llm-d-parity.md use).

import eppConfig from '../../../examples/epp-config.json?raw';
import eppDataParallel from '../../../examples/epp-data-parallel.json?raw';
import eppLoraAffinity from '../../../examples/epp-lora-affinity.json?raw';
import eppPdThreshold from '../../../examples/epp-pd-threshold.json?raw';
import { eppConfig as eppKnob } from './knob_groups';
import type { Json } from './knob_base';

export interface EppExample {
  /** The example's file under examples/. */
  file: string;
  /** Its scenario's name (what it shows). */
  title: string;
  /** The config as the form's EPP field shows it (JSON, or the YAML text). */
  text: string;
}

function example(file: string, raw: string): EppExample {
  const doc = JSON.parse(raw) as Json;
  const name = doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? doc['name'] : undefined;
  return { file, title: typeof name === 'string' ? name : file, text: String(eppKnob.get(doc) ?? '') };
}

export const EPP_EXAMPLES: readonly EppExample[] = [
  example('epp-config.json', eppConfig),
  example('epp-pd-threshold.json', eppPdThreshold),
  example('epp-lora-affinity.json', eppLoraAffinity),
  example('epp-data-parallel.json', eppDataParallel),
];
