// The scenario form's knobs: each reads and writes one place of the scenario document (of
// the pool and the client the form's selector chose, or a top-level section; everything
// else stays in the JSON editor). Pure functions over the parsed document, so the form and the JSON text
// stay in sync through the document alone. The main knobs are here; the scale-out, adapter
// and router groups are in knob_groups.ts.

import { groupKnobs } from './knob_groups';
import { getAt, lengthKnob, scalarKnob, target, traceWorkload, type Knob, type Target } from './knob_base';

export * from './knob_base';

function mainKnobs(t: Target): Knob[] {
  const { pool: POOL, args: ARGS, client: CLIENT } = t;
  return [
    scalarKnob({
      id: 'instances',
      label: 'Instances',
      pointer: `${POOL}/instances`,
      kind: 'int',
      min: 1,
      step: 1,
      help: 'vLLM replicas in the pool',
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
      help: 'how requests are spread over instances (epp: the llm-d router, set its config below)',
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
    lengthKnob(
      t,
      'prompt_tokens',
      'Prompt length',
      `${CLIENT}/prompt_tokens`,
      'mean prompt tokens (a shared_prefix client: the question after its system prompt)',
      'question_tokens',
    ),
    lengthKnob(t, 'output_tokens', 'Output length', `${CLIENT}/output_tokens`, 'mean output tokens', 'output_tokens'),
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
}

const byTarget = new Map<string, readonly Knob[]>();

/** Every knob of the form over pool `pool` and client `client`, the main ones first (the
 *  same ids for every target; built once per target). */
export function knobsFor(pool: number, client: number): readonly Knob[] {
  const key = `${pool}/${client}`;
  let ks = byTarget.get(key);
  if (!ks) {
    const t = target(pool, client);
    ks = [...mainKnobs(t), ...groupKnobs(t)];
    byTarget.set(key, ks);
  }
  return ks;
}

/** The knobs over the first pool and the first client. */
export const KNOBS: readonly Knob[] = knobsFor(0, 0);
