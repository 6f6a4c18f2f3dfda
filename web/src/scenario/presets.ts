// The preset gallery: scenario documents shipped with the app (src/presets/*.json and one of
// the repository's examples/). A preset
// with `compare` opens compare mode with that document as scenario B.

import singleInstance from '../presets/single-instance.json?raw';
import routerRoundRobin from '../presets/router-round-robin.json?raw';
import routerPrefixAware from '../presets/router-prefix-aware.json?raw';
import prefixOn from '../presets/prefix-cache-on.json?raw';
import prefixOff from '../presets/prefix-cache-off.json?raw';
import overload from '../presets/overload.json?raw';
import longContext from '../presets/long-context.json?raw';
import chunked512 from '../presets/chunked-prefill-512.json?raw';
import chunked8192 from '../presets/chunked-prefill-8192.json?raw';
import preemption from '../presets/preemption.json?raw';
// The real H100 run is the cluster's example of it (examples/ at the repository root).
import h100General from '../../../examples/20260217-231439-llama-2-7b-tp1-general.json?raw';
// Connector what-ifs are the cluster's examples too, each with its baseline as scenario B.
import pdSplit from '../../../examples/pd-disaggregation.json?raw';
import pdUnified from '../../../examples/pd-unified-baseline.json?raw';
import cpuOffload from '../../../examples/cpu-offload.json?raw';
import cpuOffloadBaseline from '../../../examples/cpu-offload-baseline.json?raw';
import multiLora from '../../../examples/multi-lora.json?raw';
import specDecode from '../../../examples/spec-decode.json?raw';
import specDecodeBaseline from '../../../examples/spec-decode-baseline.json?raw';
// Scale-out what-ifs (docs/parallelism.md, docs/networking.md, docs/llm-d-parity.md).
import dataParallel from '../../../examples/data-parallel.json?raw';
import dataParallelBaseline from '../../../examples/data-parallel-baseline.json?raw';
import denseDataParallel from '../../../examples/dense-data-parallel.json?raw';
import denseDataParallelBaseline from '../../../examples/dense-data-parallel-baseline.json?raw';
import pipelineTwoNodes from '../../../examples/pipeline-two-nodes.json?raw';
import pipelineBaseline from '../../../examples/pipeline-baseline.json?raw';
import pdContention from '../../../examples/pd-contention.json?raw';
import ppPdContention from '../../../examples/pp-pd-contention.json?raw';
import eppPdThreshold from '../../../examples/epp-pd-threshold.json?raw';
import eppLoraAffinity from '../../../examples/epp-lora-affinity.json?raw';
import eppDataParallel from '../../../examples/epp-data-parallel.json?raw';
import eppDataParallelBaseline from '../../../examples/epp-data-parallel-baseline.json?raw';

/** Client-side measurements of a real vLLM run (seconds in the source; ms here). */
export interface Measured {
  source: string;
  ttftMs: { mean: number; p50: number; p99: number };
  e2eMs: { mean: number; p50: number; p99: number };
  tpotMs: { mean: number; p50: number; p99: number };
}

export interface Preset {
  name: string;
  title: string;
  blurb: string;
  scenario: string;
  compare?: { label: string; scenario: string };
  measured?: Measured;
}

export const PRESETS: readonly Preset[] = [
  {
    name: 'single-instance',
    title: 'One H100, chat traffic',
    blurb: 'Llama-3.1-8B on one H100 at 12 req/s: the baseline to tweak.',
    scenario: singleInstance,
  },
  {
    name: 'router-comparison',
    title: 'Router: round-robin vs prefix-aware',
    blurb: 'Four instances, 160 shared 4k-token prefixes. B routes by prefix-cache affinity.',
    scenario: routerRoundRobin,
    compare: { label: 'prefix-aware weighted', scenario: routerPrefixAware },
  },
  {
    name: 'prefix-cache',
    title: 'Prefix caching on vs off',
    blurb: '3000-token system prompts shared by many users. B turns caching off.',
    scenario: prefixOn,
    compare: { label: 'prefix caching off', scenario: prefixOff },
  },
  {
    name: 'overload',
    title: 'Overload ramp',
    blurb: '10 → 25 → 45 req/s on one H100: watch the waiting queue and TTFT take off.',
    scenario: overload,
  },
  {
    name: 'long-context',
    title: 'Long context',
    blurb: '16k–30k token prompts: prefill dominates and KV fills fast.',
    scenario: longContext,
  },
  {
    name: 'chunked-prefill',
    title: 'Chunked prefill budget',
    blurb: 'Long prompts with a 512-token step budget; B uses 8192. ITL vs TTFT.',
    scenario: chunked512,
    compare: { label: 'max_num_batched_tokens 8192', scenario: chunked8192 },
  },
  {
    name: 'preemption',
    title: 'Preemption under KV pressure',
    blurb: 'A small KV cache and long outputs: running requests get preempted.',
    scenario: preemption,
  },
  {
    name: 'pd-disaggregation',
    title: 'Prefill/decode split',
    blurb: '2 prefill + 2 decode H100s (NIXL over InfiniBand) vs the same 4 GPUs unified: TTFT vs ITL.',
    scenario: pdSplit,
    compare: { label: '4 unified instances', scenario: pdUnified },
  },
  {
    name: 'cpu-offload',
    title: 'CPU KV offload',
    blurb: 'Many prefixes thrash the GPU prefix cache; a 32 GiB CPU tier catches them. B has no offload.',
    scenario: cpuOffload,
    compare: { label: 'no CPU offload', scenario: cpuOffloadBaseline },
  },
  {
    name: 'multi-lora',
    title: 'Multi-LoRA adapters',
    blurb: 'Three adapters over two clients on one H100; a step holds at most two (max_loras 2), the third waits its turn.',
    scenario: multiLora,
  },
  {
    name: 'spec-decode',
    title: 'Speculative decoding',
    blurb: 'N-gram drafts (k = 3) for a code-editing client beside plain chat on one H100. B decodes without drafts.',
    scenario: specDecode,
    compare: { label: 'no speculative decoding', scenario: specDecodeBaseline },
  },
  {
    name: 'data-parallel',
    title: 'Data parallelism (MoE)',
    blurb:
      "Qwen3-30B-A3B as one instance of 4 DP ranks with expert parallelism, behind vLLM's DP load balancer. B: the same 4 GPUs as 4 instances.",
    scenario: dataParallel,
    compare: { label: '4 independent instances', scenario: dataParallelBaseline },
  },
  {
    name: 'dense-data-parallel',
    title: 'Data parallelism on a dense model',
    blurb:
      "Llama-3.1-8B as one instance of 4 independent DP ranks behind vLLM's DP load balancer (a stats snapshot up to 100 ms old). B: 4 instances, round robin.",
    scenario: denseDataParallel,
    compare: { label: '4 instances, round robin', scenario: denseDataParallelBaseline },
  },
  {
    name: 'pipeline-two-nodes',
    title: 'Pipeline parallelism across two nodes',
    blurb: 'Llama-3.1-70B at tp 4 × pp 2 over two 4-GPU nodes on InfiniBand. B: tp 8 in one node.',
    scenario: pipelineTwoNodes,
    compare: { label: 'tp 8, one node', scenario: pipelineBaseline },
  },
  {
    name: 'pd-contention',
    title: 'P/D hand-offs contending for a NIC',
    blurb: "Six prefill H100s push long prompts' KV to one decode H100 over its one NIC: TTFT grows with concurrent hand-offs.",
    scenario: pdContention,
  },
  {
    name: 'pp-pd-contention',
    title: 'Pipeline hand-offs and KV pulls sharing NICs',
    blurb:
      "Llama-3.1-70B prefill and decode, each tp 4 × pp 2 across two nodes: the prefill's stage hand-offs and the decoder's KV pulls share the same NICs.",
    scenario: ppPdContention,
  },
  {
    name: 'epp-pd-threshold',
    title: 'llm-d P/D profile handler',
    blurb: "llm-d's own EPP config: disaggregate only when ≥ 256 prompt tokens are not cached on the decode instance.",
    scenario: eppPdThreshold,
  },
  {
    name: 'epp-lora-affinity',
    title: 'llm-d LoRA affinity',
    blurb:
      'Three adapters over two instances with one LoRA slot each; the EPP lora-affinity scorer keeps each adapter where it is resident.',
    scenario: eppLoraAffinity,
  },
  {
    name: 'epp-data-parallel',
    title: 'llm-d data-parallel profile handler',
    blurb:
      'Two instances of two DP ranks each. A: every rank is an EPP endpoint and the EPP picks the rank; B: the same scorers see instances and vLLM’s DP balancer picks.',
    scenario: eppDataParallel,
    compare: { label: 'internal DP balancer', scenario: eppDataParallelBaseline },
  },
  {
    name: 'h100-llama2-7b-general',
    title: 'Real H100 run: Llama-2-7B',
    blurb: 'inference-perf shared-prefix traffic, 8 then 20 req/s, 20 min; measured results beside.',
    scenario: h100General,
    // tests/accuracy/data/20260217-231439-llama-2-7b-tp1-general.json (the run's
    // summary_lifecycle_metrics.json; 16800 successes).
    measured: {
      source: 'vLLM on H100 SXM, inference-perf (inference-sim/training default_args, 2026-02-17)',
      ttftMs: { mean: 44.78, p50: 47.45, p99: 70.98 },
      e2eMs: { mean: 3558.0, p50: 3950.8, p99: 5189.9 },
      tpotMs: { mean: 7.07, p50: 7.85, p99: 10.31 },
    },
  },
];

export const DEFAULT_PRESET = 'single-instance';

export function findPreset(name: string): Preset | undefined {
  return PRESETS.find((p) => p.name === name);
}
