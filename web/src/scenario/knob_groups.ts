// The form's folded groups: scale-out (pipeline and data parallelism, expert parallelism,
// the network between nodes), adapters and drafts (LoRA, speculative decoding) and the
// router (the weighted policy's scorers, llm-d's EndpointPickerConfig). Like the main knobs,
// each reads and writes one place of the selected pool, the selected client or a top-level
// section; what a value may be is the
// decoder's to say (its errors show next to the knob), and a select's options are the ones
// the decoder lists (choices.ts).

import { scorerKnobs } from './scorer_knobs';
import { deleteAt, getAt, scalarKnob, setAt, traceWorkload, type Json, type Knob, type Target } from './knob_base';

const EPP = '/router/epp_config';

/** A one-line JSON knob: the value as compact JSON; empty text removes the key. */
function jsonKnob(k: Omit<Knob, 'get' | 'set' | 'kind'>): Knob {
  return {
    ...k,
    kind: 'json',
    get(doc) {
      const v = getAt(doc, k.pointer);
      return v === undefined || v === null ? undefined : JSON.stringify(v);
    },
    set(doc, value) {
      const text = String(value).trim();
      return text === '' ? deleteAt(doc, k.pointer) : setAt(doc, k.pointer, JSON.parse(text) as Json);
    },
  };
}

/** A text knob whose empty value removes the key (the decoder's "unset"). */
function optionalTextKnob(k: Omit<Knob, 'get' | 'set' | 'kind'>): Knob {
  return {
    ...k,
    kind: 'text',
    get(doc) {
      const v = getAt(doc, k.pointer);
      return typeof v === 'string' ? v : undefined;
    },
    set(doc, value) {
      const text = String(value).trim();
      return text === '' ? deleteAt(doc, k.pointer) : setAt(doc, k.pointer, text);
    },
  };
}

/** Knobs of speculative decoding need a speculative_config (a method) first. */
const specNeeded =
  (SPEC: string) =>
  (doc: Json, resolved: Json): string | undefined => {
    const own = getAt(doc, SPEC);
    const v = own === undefined ? getAt(resolved, SPEC) : own;
    return v !== null && typeof v === 'object' && !Array.isArray(v)
      ? undefined
      : 'speculative decoding is off: choose a method first';
  };

/** `off` is speculative_config null (vLLM's default); a method keeps the object's other keys. */
const specMethod = (SPEC: string): Knob => ({
  id: 'spec_method',
  label: 'Speculative method',
  pointer: `${SPEC}/method`,
  alsoAt: [SPEC],
  kind: 'select',
  options: ['off'],
  group: 'adapters',
  help: 'speculative decoding (vLLM speculative_config.method); off = no drafts',
  get(doc) {
    const v = getAt(doc, SPEC);
    if (v === null) return 'off';
    if (v === undefined || typeof v !== 'object' || Array.isArray(v)) return undefined;
    return typeof v['method'] === 'string' ? v['method'] : undefined;
  },
  set(doc, value) {
    if (value === 'off') return setAt(doc, SPEC, null);
    const v = getAt(doc, SPEC);
    const obj = v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {};
    return setAt(doc, SPEC, { ...obj, method: value as string });
  },
});

/** The llm-d EndpointPickerConfig: an object shown as JSON, or YAML text kept as text.
 *  Writing one also selects the `epp` policy, the one that reads it. */
export const eppConfig: Knob = {
  id: 'epp_config',
  label: 'EndpointPickerConfig',
  pointer: EPP,
  kind: 'config',
  group: 'router',
  placeholder: 'none: set router policy epp and an llm-d EndpointPickerConfig (JSON or YAML)',
  help: "llm-d's EPP config (router.epp_config): plugins, scheduling profiles, profile handler",
  get(doc) {
    const v = getAt(doc, EPP);
    if (typeof v === 'string') return v;
    return v !== null && typeof v === 'object' ? JSON.stringify(v, null, 2) : undefined;
  },
  set(doc, value) {
    const text = String(value);
    if (text.trim() === '') return deleteAt(doc, EPP);
    let v: Json = text;
    try {
      const parsed = JSON.parse(text) as Json;
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) v = parsed;
    } catch {
      // not JSON: YAML text, which the decoder reads (and locates errors in by line)
    }
    return setAt(setAt(doc, EPP, v), '/router/policy', 'epp');
  },
};

/** The client's acceptance rate; unset, its pool's speculative_config.acceptance_rate applies. */
const clientAcceptance = (SPEC: string, CLIENT: string): Knob => ({
  ...scalarKnob({
    id: 'client_acceptance_rate',
    label: 'Client acceptance rate',
    pointer: `${CLIENT}/spec_acceptance/acceptance_rate`,
    kind: 'number',
    min: 0,
    step: 0.05,
    group: 'adapters',
    help: "how often the pool accepts the client's draft tokens (spec_acceptance); unset: the pool's rate",
  }),
  fallback: (resolved) => {
    const v = getAt(resolved, `${SPEC}/acceptance_rate`);
    return typeof v === 'number' ? v : undefined;
  },
  blocked: (doc) => traceWorkload(doc) || getAt(doc, `${CLIENT}/spec_acceptance/per_position`) !== undefined,
  needs: specNeeded(SPEC),
});

/** The group knobs over a target (the selected pool and client). */
export function groupKnobs(t: Target): Knob[] {
  return [...scaleKnobs(t.pool, t.args), ...adapterKnobs(t.args, t.client), ...scorerKnobs(), ...ROUTER_KNOBS];
}

/** Scale-out: docs/parallelism.md, docs/networking.md. */
function scaleKnobs(POOL: string, ARGS: string): Knob[] {
  return [
    scalarKnob({
      id: 'pp',
      label: 'Pipeline parallel',
      pointer: `${POOL}/parallelism/pp`,
      kind: 'int',
      min: 1,
      step: 1,
      group: 'scale',
      help: 'pipeline stages per instance (vLLM pipeline_parallel_size)',
    }),
    scalarKnob({
      id: 'dp',
      label: 'Data parallel',
      pointer: `${POOL}/parallelism/dp`,
      kind: 'int',
      min: 1,
      step: 1,
      group: 'scale',
      help: "DP ranks per instance behind vLLM's load balancer, MoE models (vLLM data_parallel_size)",
    }),
    scalarKnob({
      id: 'enable_expert_parallel',
      label: 'Expert parallel',
      pointer: `${ARGS}/enable_expert_parallel`,
      kind: 'bool',
      group: 'scale',
      absent: false,
      help: 'shard the experts over the tp × dp ranks (vLLM enable_expert_parallel; MoE models)',
    }),
    scalarKnob({
      id: 'gpus_per_node',
      label: 'GPUs per node',
      pointer: '/network/gpus_per_node',
      kind: 'int',
      min: 1,
      step: 1,
      group: 'scale',
      help: 'GPUs in one node: tp stays inside one, pipeline stages and DP ranks spill over',
    }),
    scalarKnob({
      id: 'nic',
      label: 'NICs',
      pointer: '/network/nic',
      kind: 'select',
      group: 'scale',
      help: 'per_gpu: a NIC on the fabric for every GPU; per_node: one per node, shared',
    }),
    scalarKnob({
      id: 'switch_hops',
      label: 'Switch hops',
      pointer: '/network/switch_hops',
      kind: 'int',
      min: 0,
      step: 1,
      group: 'scale',
      help: "switches between two nodes, each adding the fabric's hop latency",
    }),
    optionalTextKnob({
      id: 'fabric',
      label: 'Scale-out fabric',
      pointer: '/fabric',
      group: 'scale',
      placeholder: 'none',
      help: 'catalog fabric between nodes (e.g. ib-ndr); empty removes the key',
    }),
    jsonKnob({
      id: 'placement',
      label: 'Placement',
      pointer: '/network/placement',
      group: 'scale',
      help: 'pool name → node index of each instance, e.g. {"main": [0, 1]}; {} packs pools in order',
    }),
  ];
}

/** Adapters and drafts: docs/scenario.md (LoRA, speculative_config). */
function adapterKnobs(ARGS: string, CLIENT: string): Knob[] {
  const SPEC = `${ARGS}/speculative_config`;
  return [
    scalarKnob({
      id: 'enable_lora',
      label: 'LoRA',
      pointer: `${ARGS}/enable_lora`,
      kind: 'bool',
      group: 'adapters',
      help: 'serve LoRA adapters (vLLM enable_lora)',
    }),
    scalarKnob({
      id: 'max_loras',
      label: 'max_loras',
      pointer: `${ARGS}/max_loras`,
      kind: 'int',
      min: 1,
      step: 1,
      group: 'adapters',
      help: 'adapters in one step',
    }),
    scalarKnob({
      id: 'max_lora_rank',
      label: 'max_lora_rank',
      pointer: `${ARGS}/max_lora_rank`,
      kind: 'int',
      min: 1,
      step: 1,
      group: 'adapters',
      help: 'largest adapter rank',
    }),
    scalarKnob({
      id: 'max_cpu_loras',
      label: 'max_cpu_loras',
      pointer: `${ARGS}/max_cpu_loras`,
      kind: 'int',
      step: 1,
      group: 'adapters',
      help: 'adapters cached in host memory',
    }),
    {
      ...scalarKnob({
        id: 'lora',
        label: 'Client LoRA id',
        pointer: `${CLIENT}/lora`,
        kind: 'int',
        min: 0,
        step: 1,
        group: 'adapters',
        help: "the client's adapter id (0: the base model)",
      }),
      blocked: traceWorkload,
    },
    {
      ...jsonKnob({
        id: 'adapters',
        label: 'Client adapters',
        pointer: `${CLIENT}/adapters`,
        group: 'adapters',
        placeholder: 'none: the base model (or the LoRA id)',
        help: 'adapters the client draws from: [{"name": "a", "rank": 8, "share": 0.5}, ...]',
      }),
      blocked: traceWorkload,
    },
    specMethod(SPEC),
    {
      ...scalarKnob({
        id: 'num_speculative_tokens',
        label: 'Draft tokens',
        pointer: `${SPEC}/num_speculative_tokens`,
        kind: 'int',
        min: 1,
        step: 1,
        group: 'adapters',
        help: 'draft tokens per step (num_speculative_tokens)',
      }),
      needs: specNeeded(SPEC),
    },
    {
      ...scalarKnob({
        id: 'acceptance_rate',
        label: 'Acceptance rate',
        pointer: `${SPEC}/acceptance_rate`,
        kind: 'number',
        min: 0,
        step: 0.05,
        group: 'adapters',
        help: 'per-draft-token acceptance of the pool (speculative_config.acceptance_rate)',
      }),
      needs: specNeeded(SPEC),
    },
    clientAcceptance(SPEC, CLIENT),
  ];
}

/** The llm-d router: docs/llm-d-parity.md. */
const ROUTER_KNOBS: readonly Knob[] = [
  eppConfig,
  scalarKnob({
    id: 'signal_staleness_ms',
    label: 'Signal staleness',
    pointer: '/router/signal_staleness_ms',
    kind: 'number',
    min: 0,
    step: 10,
    unit: 'ms',
    group: 'router',
    help: 'how old the instance state the router sees is',
  }),
];
