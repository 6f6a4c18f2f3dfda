// node tests/hostile/generate.mjs OUT_DIR [--every K]
// Writes the held-out hostile corpus of docs/reliability.md ("The hostile corpus"): one folder
// per case (OUT_DIR/NNN-kind/) with its files and a case.json naming the commands to run on it,
// plus OUT_DIR/manifest.json. --every K writes every K-th case only (the ctest slice), and
// every case marked as a finding's regression case. Deterministic: the same repository gives the same corpus (a fixed
// LCG, no clock), so a finding is reproduced by its case number.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = process.argv[2];
const EVERY = process.argv[3] === '--every' ? Number(process.argv[4]) : 1;
if (!OUT || !(EVERY >= 1)) {
  console.error('usage: node tests/hostile/generate.mjs OUT_DIR [--every K]');
  process.exit(2);
}

let lcg = 0x2545f491n;
function rnd(n) {  // 0 <= r < n, from a 64-bit LCG (Knuth's MMIX constants)
  lcg = (lcg * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
  return Number((lcg >> 33n) % BigInt(n));
}
const clone = (v) => JSON.parse(JSON.stringify(v));
const readJson = (p) => JSON.parse(fs.readFileSync(path.join(ROOT, p), 'utf8'));

// A small valid base: 5 simulated seconds, so a case that is accepted runs in well under a second.
const base = () => ({
  schema: 'blis/scenario/v1', name: 'hostile base', seed: 1,
  horizon: { duration_s: 5, drain: true },
  pools: [{ name: 'main', role: 'unified', instances: 1, hardware: 'H100-SXM-80GB',
    model: 'meta-llama/Llama-3.1-8B-Instruct', parallelism: { tp: 1, pp: 1, dp: 1 },
    engine: { kind: 'vllm', release: '0.32.0', args: { max_model_len: 4096 } } }],
  router: { policy: 'round-robin' },
  workload: { clients: [{ name: 'chat', load: { rate: 4, arrival: 'poisson' },
    prompt_tokens: { dist: 'lognormal', mean: 300, std: 100, min: 16, max: 2000 },
    output_tokens: { dist: 'lognormal', mean: 50, std: 20, min: 4, max: 400 } }] },
  slo: { ttft_ms: 300, itl_ms: 30 },
  outputs: { timeseries_interval_ms: 1000, per_request: true },
});
const pd = () => {
  const s = base();
  s.pools = [clone(s.pools[0]), clone(s.pools[0])];
  Object.assign(s.pools[0], { name: 'prefill', role: 'prefill' });
  Object.assign(s.pools[1], { name: 'decode', role: 'decode' });
  s.fabric = 'ib-ndr';
  return s;
};
const gpu = () => readJson('catalog/gpus/H100-SXM-80GB.json');
const model = () => readJson('catalog/models/meta-llama--Llama-3.1-8B-Instruct.json');
const conformBase = () => readJson('tests/fuzz/corpus/conform/01-simple.json');

const cases = [];
// kind: scenario (validate + run), sweep, capacity, conform, trace (a scenario over a CSV file)
function add(kind, label, files, extra = {}) { cases.push({ kind, label, files, ...extra }); }
const scen = (label, doc, extra = {}) =>
  add('scenario', label, { 'scenario.json': typeof doc === 'string' ? doc : JSON.stringify(doc) }, extra);
function setp(doc, pointer, value) {  // sets a JSON pointer, creating objects on the way
  const keys = pointer.split('/').slice(1);
  let o = doc;
  for (const k of keys.slice(0, -1)) { if (o[k] === undefined || typeof o[k] !== 'object') o[k] = {}; o = o[k]; }
  o[keys[keys.length - 1]] = value;
  return doc;
}
const withp = (mk, pointer, value) => setp(mk(), pointer, value);

// 1. Names that become file names.
const badNames = ['/tmp/blis-hostile-escape', '../../blis-hostile-escape', '../x', 'a/b', 'a\nb', '.hidden',
  'x'.repeat(65), 'x'.repeat(300), '', ' ', 'a\u001b[31mred', 'é', 'a b', 'CON', 'a\\b', '-lead', 'a\u0000b',
  'a\u202eb', 'ok-name.1', 'a:b'];
badNames.forEach((n, i) => scen(`pool-name-${i}`, withp(base, '/pools/0/name', n)));
badNames.slice(0, 10).forEach((n, i) => scen(`client-name-${i}`, withp(base, '/workload/clients/0/name', n)));
scen('client-name-csv', withp(base, '/workload/clients/0/name', 'a,"b"\r\nc'));
scen('pd-name-escape', setp(pd(), '/pools/1/name', '../../../blis-hostile-escape'));

// 2. Files a scenario names.
const tracePaths = ['/dev/zero', '/etc/passwd', '/dev/stdin', '../../../../etc/passwd', 'fifo', 'link-out',
  'dir', 'missing.csv', '', '.', '/proc/self/mem', 'x'.repeat(5000), 'big.csv'];
tracePaths.forEach((p, i) => {
  const s = base();
  s.workload = { trace_csv: { path: p } };
  scen(`trace-path-${i}`, s, { setup: ['fifo', 'link-out', 'dir', 'big'] });
  const t = base();
  t.workload.clients[0] = { name: 'replay', trace: { path: p } };
  scen(`client-trace-path-${i}`, t, { setup: ['fifo', 'link-out', 'dir', 'big'] });
});

// 3. Unbounded work.
scen('rate-1e9-for-1e9s', setp(withp(base, '/workload/clients/0/load/rate', 1e9), '/horizon/duration_s', 1e9));
scen('pools-100x10000', (() => { const s = base(); s.pools = Array.from({ length: 100 }, (_, i) =>
  ({ ...clone(s.pools[0]), name: `p${i}`, instances: 10000 })); return s; })());
scen('timeseries-1ms-1e9s', setp(withp(base, '/outputs/timeseries_interval_ms', 1), '/horizon/duration_s', 1e9));
scen('closed-loop-1e4x1e6', (() => { const s = base(); s.workload.clients = Array.from({ length: 10000 }, (_, i) =>
  ({ name: `c${i}`, load: { users: 1000000, think_time_s: 0 }, prompt_tokens: 100, output_tokens: 10 }));
return s; })());
scen('gamma-cv-1e6', withp(base, '/workload/clients/0/load', { rate: 5, arrival: 'gamma', cv: 1e6 }));
scen('gamma-cv-1000', withp(base, '/workload/clients/0/load', { rate: 5, arrival: 'gamma', cv: 1000 }));
scen('trace-rows-2e24-tokens', (() => { const s = base();
  s.workload = { trace_csv: { csv: 'arrival_s,prompt_tokens,output_tokens\n' + '0,16777216,16777216\n'.repeat(50) } };
  return s; })());
scen('inline-gpu-usable-above-memory', (() => { const s = base(); const g = gpu(); g.id = 'X-GPU';
  g.usable_memory_bytes = g.memory_bytes * 4; s.catalog = { gpus: [g] }; s.pools[0].hardware = 'X-GPU'; return s; })());
scen('max-requests-1e12', setp(withp(base, '/horizon/max_requests', 1e12), '/horizon/duration_s', 1e9));
scen('max-requests-1e13', withp(base, '/horizon/max_requests', 1e13));
scen('stages-10001', withp(base, '/workload/clients/0/load', { stages: Array.from({ length: 10001 }, () => ({ rate: 1, duration_s: 1 })) }));
scen('shared-prefix-huge', withp(base, '/workload/clients/0', { name: 'sp', load: { rate: 1 },
  shared_prefix: { system_prompts: 1e6, users_per_prompt: 1e6, system_prompt_tokens: 1e6,
    question_tokens: 1e6, output_tokens: 1e6, multi_turn: true } }));
scen('multi-turn-huge', withp(base, '/workload/clients/0', { name: 'mt', load: { rate: 100 },
  shared_prefix: { system_prompts: 1000, users_per_prompt: 1000, system_prompt_tokens: 4000,
    question_tokens: 4000, output_tokens: 4000, multi_turn: true } }));
scen('prefix-groups-huge', withp(base, '/workload/clients/0/prefix', { groups: 1e9, tokens: 1e9 }));

// 4. Undefined behaviour and wrong numbers.
const humanInts = ['1.99999999999g', '0.999999999999t', '9T', '9999999999999999999T', '1e3k', '-1k', '0k',
  '1.5K', 'k', '', '  4k', '99999999999999999999', '0x10', '1_000'];
humanInts.forEach((v, i) => {
  scen(`human-int-mnbt-${i}`, withp(base, '/pools/0/engine/args/max_num_batched_tokens', v));
  scen(`human-int-kvmem-${i}`, withp(base, '/pools/0/engine/args/kv_cache_memory_bytes', v));
});
const modelDims = [['hidden_size', 2 ** 62], ['hidden_size', 262145], ['num_hidden_layers', 1e9],
  ['num_attention_heads', 0], ['num_key_value_heads', 3], ['head_dim', -1], ['vocab_size', 1e30],
  ['intermediate_size', 1.5], ['max_position_embeddings', 2 ** 40], ['hidden_size', '4096']];
modelDims.forEach(([k, v], i) => scen(`inline-model-${i}`, (() => { const s = base(); const m = model();
  m.id = 'x/inline'; m[k] = v; s.catalog = { models: [m] }; s.pools[0].model = 'x/inline'; return s; })()));
const gpuVals = [['hbm_bandwidth_bytes_per_s', 1e-300], ['hbm_bandwidth_bytes_per_s', 1e300],
  ['bf16_dense_tflops', 0], ['bf16_dense_tflops', 1e-9], ['memory_bytes', 2 ** 60], ['memory_bytes', 1],
  ['usable_memory_bytes', -5], ['sm_count', 1e12], ['fp8_dense_tflops', 'fast']];
gpuVals.forEach(([k, v], i) => scen(`inline-gpu-${i}`, (() => { const s = base(); const g = gpu();
  g.id = 'X-GPU'; g[k] = v; s.catalog = { gpus: [g] }; s.pools[0].hardware = 'X-GPU'; return s; })()));
scen('inline-gpus-1001', (() => { const s = base(); s.catalog = { gpus: Array.from({ length: 1001 }, (_, i) =>
  ({ ...gpu(), id: `G${i}` })) }; return s; })());
scen('inline-duplicate-id', (() => { const s = base(); s.catalog = { gpus: [gpu(), gpu()] }; return s; })());
[1, 0, -1, 2 ** 31, 2 ** 24 + 1, 2 ** 53, 1.5, 'many', null].forEach((v, i) =>
  scen(`num-gpu-blocks-override-${i}`, withp(base, '/pools/0/engine/args/num_gpu_blocks_override', v)));
[0, 1, 7, 2 ** 20, -16, 16.5].forEach((v, i) => scen(`block-size-${i}`, withp(base, '/pools/0/engine/args/block_size', v)));
[0, 1, 2 ** 31, 2 ** 24 + 1, 1e30].forEach((v, i) => scen(`max-model-len-${i}`, withp(base, '/pools/0/engine/args/max_model_len', v)));
[0, -1, 1e9, 2 ** 31].forEach((v, i) => scen(`max-num-seqs-${i}`, withp(base, '/pools/0/engine/args/max_num_seqs', v)));
[0.0001, 1, 1.5, -0.1, 0].forEach((v, i) => scen(`gpu-mem-util-${i}`, withp(base, '/pools/0/engine/args/gpu_memory_utilization', v)));
[[9, 1, 1], [1, 9, 1], [1, 1, 1e6], [0, 1, 1], [3, 1, 1], [8, 8, 8]].forEach(([tp, pp, dp], i) =>
  scen(`parallelism-${i}`, withp(base, '/pools/0/parallelism', { tp, pp, dp })));

// 5. Distributions.
const dists = [{ dist: 'normal', mean: 100, std: 1e7 }, { dist: 'lognormal', mean: 100, std: 1e6 },
  { dist: 'exponential', mean: 1e6 }, { dist: 'normal', mean: 1e9, std: 1 }, { dist: 'uniform', min: 10, max: 1 },
  { dist: 'uniform', min: -5, max: 2 ** 40 }, { dist: 'lognormal', mean: 0, std: 0 }, { dist: 'constant', value: 2 ** 31 },
  { dist: 'zipf', mean: 1 }, { dist: 'exponential', mean: 1e-300 }, { dist: 'normal', mean: 100, std: -1 },
  { dist: 'lognormal', mean: 300, std: 100, min: 3000, max: 2000 }, { dist: 'empirical', values: [] }, 1e300, -1, 0];
dists.forEach((d, i) => {
  scen(`prompt-dist-${i}`, withp(base, '/workload/clients/0/prompt_tokens', d));
  scen(`output-dist-${i}`, withp(base, '/workload/clients/0/output_tokens', d));
});
['poisson', 'constant', 'gamma', 'weibull', 'burst', 42].forEach((a, i) =>
  [0, 1e-300, 1e12, -1].forEach((r, j) => scen(`arrival-${i}-${j}`, withp(base, '/workload/clients/0/load', { rate: r, arrival: a }))));

// 6. Nonsense accepted before.
scen('kv-mem-9T', withp(base, '/pools/0/engine/args/kv_cache_memory_bytes', '9T'));
scen('offload-no-prefix-cache', setp(withp(base, '/pools/0/engine/args/kv_offloading_size', 32),
  '/pools/0/engine/args/enable_prefix_caching', false));
scen('offload-zero-cpu', withp(base, '/pools/0/engine/args/kv_offloading_size', 1e-12));
scen('offload-huge-cpu', withp(base, '/pools/0/engine/args/kv_offloading_size', 1e12));
scen('trailing-nul-garbage', JSON.stringify(base()) + '\u0000garbage');
scen('trailing-garbage', JSON.stringify(base()) + ' {}');
scen('duplicate-key', JSON.stringify(base()).replace('"seed":1', '"seed":1,"seed":2'));
scen('duplicate-key-deep', JSON.stringify(base()).replace('"tp":1', '"tp":1,"tp":2'));

// 7. Output size and escaping.
scen('pools-1e6-empty', '{"schema":"blis/scenario/v1","pools":[' + Array(1000000).fill('{}').join(',') + ']}');
scen('megabyte-id', withp(base, '/pools/0/model', 'm'.repeat(1 << 20)));
scen('megabyte-release', withp(base, '/pools/0/engine/release', 'r'.repeat(1 << 20)));
scen('release-newline-forge', withp(base, '/pools/0/engine/release', '0.32.0\n/pools/0: forged\u001b[2J'));
scen('hardware-ansi', withp(base, '/pools/0/hardware', '\u001b]0;title\u0007\u001b[31mH100'));
scen('unknown-keys-many', (() => { const s = base(); for (let i = 0; i < 5000; i++) s[`k${i}\u0001`] = i; return s; })());
scen('errors-many', (() => { const s = base(); s.workload.clients = Array.from({ length: 9000 }, (_, i) => ({ name: `c${i}`, load: { rate: -1 } })); return s; })());
scen('clients-10001', (() => { const s = base(); s.workload.clients = Array.from({ length: 10001 }, (_, i) => ({ name: `c${i}` })); return s; })());

// 8. Not a document.
['', ' ', 'null', '[]', '42', '"s"', '\ufeff' + JSON.stringify(base()), '{'.repeat(100000), '['.repeat(65) + ']'.repeat(65),
  '{"a":' + '1'.repeat(100000) + '}', '{"seed":1e999}', '{"seed":-0}', '\u00ff\u00fe{}', 'not json at all',
  JSON.stringify(base()).slice(0, 200), '{"schema":"blis/scenario/v2"}', '{"schema":null}',
  JSON.stringify(base()).replace('"main"', '"\\ud800"'), '\u0000', '{"a":"\\u0000"}']
  .forEach((t, i) => scen(`not-a-document-${i}`, t));

// 9. Keys added since the issue: LoRA adapters.
const lora = () => { const s = base(); Object.assign(s.pools[0].engine.args, { enable_lora: true, max_loras: 2,
  max_lora_rank: 16, max_cpu_loras: 2 }); s.workload.clients[0].adapters = [{ name: 'a1', rank: 16, share: 0.5 }]; return s; };
scen('lora-valid', lora());
const adapterBad = [{ name: 'a', rank: 1e9, share: 0.5 }, { name: 'a', rank: -1, share: 0.5 }, { name: 'a', rank: 16, share: 2 },
  { name: 'a', rank: 16, share: -0.1 }, { name: '', rank: 16, share: 0.5 }, { name: '../x\n', rank: 16, share: 0.5 },
  { rank: 16 }, 'a', null, { name: 'a', rank: 7, share: 0.5 }, { name: 'a'.repeat(100000), rank: 16, share: 0.1 },
  { name: 'a', rank: 16, share: 1e-300 }, { name: 'a', rank: 32, share: 0.5 }];
adapterBad.forEach((a, i) => scen(`lora-adapter-${i}`, withp(lora, '/workload/clients/0/adapters', [a])));
scen('lora-adapters-100000', withp(lora, '/workload/clients/0/adapters', Array.from({ length: 100000 }, (_, i) => ({ name: `a${i}`, rank: 16, share: 1e-5 }))));
scen('lora-duplicate-names', withp(lora, '/workload/clients/0/adapters', [{ name: 'a', rank: 16, share: 0.3 }, { name: 'a', rank: 16, share: 0.3 }]));
scen('lora-disabled', withp(lora, '/pools/0/engine/args/enable_lora', false));
[0, -1, 1e9, 2 ** 31].forEach((v, i) => {
  scen(`lora-max-loras-${i}`, withp(lora, '/pools/0/engine/args/max_loras', v));
  scen(`lora-max-cpu-loras-${i}`, withp(lora, '/pools/0/engine/args/max_cpu_loras', v));
  scen(`lora-max-rank-${i}`, withp(lora, '/pools/0/engine/args/max_lora_rank', v));
});

// 10. Speculative decoding and spec_acceptance.
const spec = () => { const s = base(); s.pools[0].engine.args.speculative_config = { method: 'ngram', num_speculative_tokens: 3,
  prompt_lookup_max: 4, acceptance_rate: 0.5 }; s.pools[0].engine.args.async_scheduling = false; return s; };
scen('spec-valid', spec());
[['num_speculative_tokens', 1e9], ['num_speculative_tokens', 0], ['num_speculative_tokens', -3], ['acceptance_rate', 2],
  ['acceptance_rate', -1], ['method', 'magic'], ['method', 'eagle'], ['prompt_lookup_max', 1e12], ['prompt_lookup_min', 10],
  ['model', 'no/such-model'], ['model', 'x'.repeat(1 << 16)], ['draft_tensor_parallel_size', 64]].forEach(([k, v], i) =>
  scen(`spec-config-${i}`, withp(spec, `/pools/0/engine/args/speculative_config/${k}`, v)));
[{ acceptance_rate: 1.5 }, { acceptance_rate: 0.5, per_position: [0.5] }, { per_position: [] },
  { per_position: Array(1000).fill(0.9) }, { per_position: [2, -1] }, { per_position: ['x'] }, { per_position: [0.9, 0.95] },
  'half', { acceptance_rate: 1e-300 }].forEach((v, i) => scen(`spec-acceptance-${i}`, withp(spec, '/workload/clients/0/spec_acceptance', v)));
scen('spec-acceptance-no-spec-pool', withp(base, '/workload/clients/0/spec_acceptance', { acceptance_rate: 0.5 }));

// 11. memory_profile.
['vllm-0.15', 'current', 'VLLM-0.15', '', 'x'.repeat(1000), 3, null, '../etc', 'current\n'].forEach((v, i) =>
  scen(`memory-profile-${i}`, withp(base, '/pools/0/engine/memory_profile', v)));

// 12. kv_transfer_config and offloading.
const kt = (cfg) => withp(base, '/pools/0/engine/args/kv_transfer_config', cfg);
[{ kv_connector: 'OffloadingConnector', kv_role: 'kv_both', kv_connector_extra_config: { cpu_bytes_to_use: 34359738368 } },
  { kv_connector: 'OffloadingConnector', kv_role: 'kv_both', kv_connector_extra_config: { cpu_bytes_to_use: 1e30 } },
  { kv_connector: 'OffloadingConnector', kv_role: 'kv_both', kv_connector_extra_config: { cpu_bytes_to_use: -1 } },
  { kv_connector: 'OffloadingConnector', kv_role: 'kv_both', kv_connector_extra_config: { cpu_bytes_to_use: 1e10, block_size: 0 } },
  { kv_connector: 'OffloadingConnector', kv_role: 'kv_both', kv_connector_extra_config: { cpu_bytes_to_use: 1e10, block_size: 17 } },
  { kv_connector: 'OffloadingConnector', kv_role: 'kv_both', kv_connector_extra_config: { cpu_bytes_to_use: 1e10, block_size: 2 ** 30 } },
  { kv_connector: 'NixlConnector', kv_role: 'kv_both' }, { kv_connector: 'NixlConnector', kv_role: 'kv_producer' },
  { kv_connector: 'LMCacheConnectorV1', kv_role: 'kv_both' }, { kv_connector: 'x'.repeat(100000) }, { kv_role: 'kv_both' },
  { kv_connector: 'OffloadingConnector', kv_role: 'sideways' }, [], 'OffloadingConnector', null,
  { kv_connector: 'OffloadingConnector', kv_role: 'kv_both', kv_connector_extra_config: 'big' }].forEach((v, i) =>
  scen(`kv-transfer-${i}`, kt(v)));
[['kv_offloading_backend', 'lmcache'], ['kv_offloading_backend', 'magic'], ['kv_offloading_size', -1],
  ['kv_offloading_size', '32G'], ['kv_offloading_size', 0]].forEach(([k, v], i) => scen(`offloading-${i}`,
  setp(withp(base, `/pools/0/engine/args/${k}`, v), '/pools/0/engine/args/kv_offloading_size', k === 'kv_offloading_size' ? v : 8)));

// 13. P/D pools.
scen('pd-valid', pd());
scen('pd-prefill-only', (() => { const s = pd(); s.pools = [s.pools[0]]; return s; })());
scen('pd-decode-only', (() => { const s = pd(); s.pools = [s.pools[1]]; return s; })());
scen('pd-model-mismatch', setp(pd(), '/pools/1/model', 'Qwen/Qwen2.5-7B-Instruct'));
scen('pd-block-size-mismatch', setp(pd(), '/pools/1/engine/args/block_size', 32));
scen('pd-fabric-unknown', setp(pd(), '/fabric', 'carrier-pigeon'));
scen('pd-fabric-number', setp(pd(), '/fabric', 1e9));
scen('pd-role-unknown', setp(pd(), '/pools/0/role', 'both'));
scen('pd-same-name', setp(pd(), '/pools/1/name', 'prefill'));
scen('pd-decode-instances-0', setp(pd(), '/pools/1/instances', 0));
scen('pd-max-model-len-mismatch', setp(pd(), '/pools/1/engine/args/max_model_len', 1024));
scen('pd-many', (() => { const s = pd(); s.pools = Array.from({ length: 1001 }, (_, i) => ({ ...clone(s.pools[i % 2]), name: `p${i}` })); return s; })());
scen('pd-router-unknown', setp(pd(), '/router', { policy: 'weighted', scorers: [{ name: 'nope', weight: 1e308 }] }));
scen('router-scorers-101', withp(base, '/router', { policy: 'weighted', scorers: Array.from({ length: 101 }, () => ({ name: 'queue-depth', weight: 1 })) }));
scen('router-staleness-huge', withp(base, '/router/signal_staleness_ms', 1e300));

// 14. Trace CSV files (a scenario beside a trace.csv).
const csvs = ['', 'arrival_s,prompt_tokens,output_tokens\n', 'arrival_s,prompt_tokens,output_tokens\n0,100,10\n',
  'arrival_s,prompt_tokens,output_tokens\n-1,100,10\n', 'arrival_s,prompt_tokens,output_tokens\nNaN,100,10\n',
  'arrival_s,prompt_tokens,output_tokens\n1e308,100,10\n', 'arrival_s,prompt_tokens,output_tokens\n0,1e30,10\n',
  'arrival_s,prompt_tokens,output_tokens\n0,16777217,1\n', 'arrival_s,prompt_tokens,output_tokens\n0,"100",10\n',
  'arrival_s,prompt_tokens,output_tokens\n0,100\n', 'a,b,c\n1,2,3\n', '\u0000\u0001\u0002\u001b[31m\n',
  'arrival_s,prompt_tokens,output_tokens\n' + '0,100,10\n'.repeat(200000),
  'arrival_s,prompt_tokens,output_tokens\n' + Array.from({ length: 1000 }, (_, i) => `${1000 - i},100,10`).join('\n'),
  'arrival_s,prompt_tokens,output_tokens,prefix_group,session_id\n0,100,10,999999999999,x\n',
  'arrival_s,prompt_tokens,output_tokens,prefix_group,prefix_tokens\n0,100,10,1,200\n',
  'arrival_s,prompt_tokens,output_tokens\n' + '0,100,10,'.repeat(10000) + '\n', 'arrival_s\n' + 'x'.repeat(1 << 20) + '\n',
  'arrival_s,prompt_tokens,output_tokens\r\n0,100,10\r\n', '\ufeffarrival_s,prompt_tokens,output_tokens\n0,100,10\n'];
csvs.forEach((csv, i) => {
  const s = base();
  s.workload = { trace_csv: { path: 'trace.csv' } };
  add('trace', `trace-csv-${i}`, { 'scenario.json': JSON.stringify(s), 'trace.csv': csv });
  if (i % 2 === 0) {
    const t = base();
    t.workload = { trace_csv: { csv } };
    scen(`trace-csv-inline-${i}`, t);
  }
});

// 15. Sweeps (blis sweep) and capacity (blis capacity).
const sweep = () => ({ schema: 'blis/sweep/v1', name: 'hostile sweep', base: 'scenario.json',
  axes: [{ name: 'instances', pointer: '/pools/0/instances', values: [1, 2] }],
  constraints: [{ metric: '/ttft_ms/p99', max: 500 }], objective: 'min_cost', budget: { max_runs: 4 } });
const sw = (label, doc, scenario = base(), extra = {}) => add('sweep', label,
  { 'sweep.json': typeof doc === 'string' ? doc : JSON.stringify(doc), 'scenario.json': JSON.stringify(scenario) }, extra);
sw('sweep-valid', sweep());
['/etc/passwd', '../../../../etc/passwd', '/dev/zero', 'fifo', 'sweep.json', 'missing.json', '', 'x'.repeat(5000)]
  .forEach((b, i) => add('sweep', `sweep-base-${i}`, { 'sweep.json': JSON.stringify({ ...sweep(), base: b }),
    'scenario.json': JSON.stringify(base()) }, { setup: ['fifo'] }));
sw('sweep-base-inline-hostile', { ...sweep(), base: withp(base, '/pools/0/name', '../../escape') });
[Array.from({ length: 1e6 }, (_, i) => i + 1), [], [0], [-1], ['x'], [1e300], [null]].forEach((v, i) =>
  sw(`sweep-values-${i}`, setp(sweep(), '/axes/0/values', v)));
['/pools/0/name', '/nope/deep', 'no-slash', '', '/pools/99/instances', '/pools/0/engine/args/kv_cache_memory_bytes', '/schema']
  .forEach((p, i) => sw(`sweep-pointer-${i}`, setp(sweep(), '/axes/0/pointer', p)));
sw('sweep-pointer-name-escape', { ...sweep(), axes: [{ name: 'n', pointer: '/pools/0/name', values: ['../../escape', '/tmp/blis-hostile-escape'] }] });
sw('sweep-axes-many', { ...sweep(), axes: Array.from({ length: 40 }, (_, i) => ({ name: `a${i}`, pointer: '/seed', values: [1, 2] })) });
[1e12, 0, -1, 'all', 1e6].forEach((v, i) => sw(`sweep-budget-${i}`, setp(sweep(), '/budget/max_runs', v)));
sw('sweep-constraint-bad', setp(sweep(), '/constraints', [{ metric: 'ttft', max: 'x' }, { metric: '/x'.repeat(10000) }]));
sw('sweep-objective-bad', setp(sweep(), '/objective', '\u001b[31mfastest'));
sw('sweep-pareto-bad', setp(sweep(), '/pareto', [{ minimize: 1 }, 'x']));
sw('sweep-not-json', '{"schema":"blis/sweep/v1",');
sw('sweep-duplicate-key', JSON.stringify(sweep()).replace('"objective"', '"objective":"min_cost","objective"'));
sw('sweep-base-invalid', sweep(), withp(base, '/horizon/duration_s', -1));
sw('sweep-nested-sweep', sweep(), sweep());
const cap = (label, args, scenario = base(), extra = {}) => add('capacity', label, { 'scenario.json': JSON.stringify(scenario) }, { args, ...extra });
cap('capacity-valid', ['--slo', 'ttft_ms.p99<=500', '--max-probes', '3']);
cap('capacity-instances', ['--slo', 'ttft_ms.p99<=500', '--vary', 'instances', '--max-probes', '3']);
cap('capacity-bad-slo', ['--slo', 'nonsense']);
cap('capacity-bad-metric', ['--slo', '/x/y/z<=1', '--max-probes', '2']);
cap('capacity-huge-probes', ['--slo', 'ttft_ms.p99<=500', '--max-probes', '1000000000000']);
cap('capacity-neg-tolerance', ['--slo', 'ttft_ms.p99<=500', '--tolerance', '-1']);
cap('capacity-rate-nan', ['--slo', 'ttft_ms.p99<=500', '--rate', 'nan']);
cap('capacity-rate-huge', ['--slo', 'ttft_ms.p99<=500', '--rate', '1e300', '--max-probes', '2']);
cap('capacity-pool-unknown', ['--slo', 'ttft_ms.p99<=500', '--vary', 'instances', '--pool', '../x']);
cap('capacity-invalid-scenario', ['--slo', 'ttft_ms.p99<=500'], withp(base, '/pools/0/name', '/abs'));
cap('capacity-ansi-slo', ['--slo', '\u001b[31mttft<=1']);

// 16. blis conform inputs.
const conf = (label, doc, extra = {}) => add('conform', label, { 'input.json': typeof doc === 'string' ? doc : JSON.stringify(doc) }, extra);
conf('conform-valid', conformBase());
conf('conform-arrival-9999999', setp(conformBase(), '/requests/0/arrival_step', 9999999));
conf('conform-gpu-blocks-2e26', setp(conformBase(), '/config/num_gpu_blocks', 2 ** 26));
conf('conform-max-steps-huge', setp(conformBase(), '/max_steps', 1e12));
conf('conform-token-fn-per-request', (() => { const c = conformBase(); c.config.token_fn = 'per_request';
  c.requests = Array.from({ length: 30000 }, (_, i) => ({ ...c.requests[0], id: `r${i}` })); return c; })());
conf('conform-requests-100001', (() => { const c = conformBase();
  c.requests = Array.from({ length: 100001 }, (_, i) => ({ id: `r${i}`, arrival_step: 0, prompt: [1], max_tokens: 1 })); return c; })());
conf('conform-prompt-huge', setp(conformBase(), '/requests/0/prompt', Array(1 << 20).fill(7)));
conf('conform-max-tokens-huge', setp(conformBase(), '/requests/0/max_tokens', 2 ** 40));
conf('conform-duplicate-ids', (() => { const c = conformBase(); c.requests.push(clone(c.requests[0])); return c; })());
conf('conform-abort-unknown', setp(conformBase(), '/aborts', [{ id: 'nope', step: 1 }, { id: 'r0', step: -1 }]));
conf('conform-id-ansi', setp(conformBase(), '/requests/0/id', '\u001b[2J\nforged'));
conf('conform-block-size-0', setp(conformBase(), '/config/block_size', 0));
conf('conform-policy-bad', setp(conformBase(), '/config/policy', 'lifo'));
conf('conform-metrics-bad', setp(conformBase(), '/metrics', { interval: -1 }));
conf('conform-not-json', '{"config":');
conf('conform-empty', '{}');
conf('conform-trailing', JSON.stringify(conformBase()) + 'x');
['/config/max_num_seqs', '/config/max_num_batched_tokens', '/config/max_model_len', '/config/long_prefill_token_threshold',
  '/requests/0/priority', '/requests/0/arrival_time'].forEach((p) =>
  [0, -1, 2 ** 31, 1e300, 'x'].forEach((v, j) => conf(`conform-${p.replace(/\//g, '_')}-${j}`, setp(conformBase(), p, v))));

// 17. Random mutations of the valid bases at random pointers (the fuzzers' idea, fixed here).
const leaves = [];
(function walk(v, p) {
  if (v && typeof v === 'object') for (const k of Object.keys(v)) walk(v[k], `${p}/${k}`);
  else leaves.push(p);
})(spec(), '');
const hostileValues = [0, -1, 1e308, -1e308, 2 ** 63, 2 ** 31, 0.5, '', 'x'.repeat(300), null, [], {}, true, '\u001b[31m', 1e-320];
for (let i = 0; i < 60; i++) {
  const p = leaves[rnd(leaves.length)];
  const v = hostileValues[rnd(hostileValues.length)];
  scen(`mutate-${i}${p.replace(/[^A-Za-z0-9]+/g, '_')}`, withp(spec, p, v));
}

// 18. Router epp: an EndpointPickerConfig as YAML text, as JSON text and as an object; flow control.
const EPP_HEAD = 'apiVersion: llm-d.ai/v1alpha1\nkind: EndpointPickerConfig\n';
const EPP_PROFILE = 'schedulingProfiles:\n- name: default\n  plugins:\n  - pluginRef: queue-scorer\n  - pluginRef: max-score-picker\n';
const eppYaml = (plugins = '', tail = '', head = '') =>
  `${EPP_HEAD}${head}plugins:\n- type: queue-scorer\n- type: max-score-picker\n${plugins}${EPP_PROFILE}${tail}`;
const eppScen = (config, mk = base) => { const s = mk(); s.router = { policy: 'epp', epp_config: config }; return s; };
const flowYaml = (fc, plugins = '') => eppYaml(plugins, `flowControl:\n${fc}`, 'featureGates:\n- flowControl\n');
scen('epp-valid', eppScen(eppYaml()));
scen('epp-flow-valid', eppScen(flowYaml('  defaultRequestTTL: 10s\n  priorityBands:\n  - priority: 0\n  - priority: -1\n    maxRequests: 150\n')));
// Capacities: Kubernetes quantities at, beyond and outside their bounds.
['1e18', '1000000000000000001', '1e19', '"1E"', '"2E"', '"1Ei"', '"8Ei"', '-1', '"-1k"', '"NaN"', '"Inf"', '1e999',
  '"1e400"', '0', '"0x10"', '"1.5m"', '" 1"', '"1k "', '"12Q"', '"9".repeat', `"${'9'.repeat(40)}"`, `"${'9'.repeat(41)}"`, 'true', '[1]']
  .forEach((q, i) => {
    scen(`flow-max-requests-${i}`, eppScen(flowYaml(`  maxRequests: ${q}\n`)));
    if (i % 2 === 0) scen(`flow-band-max-bytes-${i}`, eppScen(flowYaml(`  priorityBands:\n  - priority: 0\n    maxBytes: ${q}\n`)));
  });
// TTLs: zero, tiny, absurd and malformed Go durations.
['0', '0s', '1ns', '"1ns"', '"0.000001ns"', '"1e300s"', `"${'9'.repeat(60)}h"`, `"${'9'.repeat(30)}h"`, '"2562048h"',
  '"-1s"', '"1.5.5s"', '"1h1h1h1h1h1h1h1h1h1h1h1h"', '""', '"s"', '"10"', '".s"', '"1d"', '"\u001b[31m1s"', '1e300']
  .forEach((t, i) => scen(`flow-ttl-${i}`, eppScen(flowYaml(`  defaultRequestTTL: ${t}\n  priorityBands:\n  - priority: 0\n    maxRequests: 10\n`)), { regression: i === 6 }));
scen('flow-ttl-1ns-high-rate', setp(eppScen(flowYaml('  defaultRequestTTL: 1ns\n')), '/workload/clients/0/load/rate', 5000));
scen('flow-capacity-1-high-rate', setp(eppScen(flowYaml('  maxRequests: 1\n')), '/workload/clients/0/load/rate', 20000));
scen('flow-no-ttl-saturated-forever', setp(setp(eppScen(flowYaml('  maxRequests: 1e18\n', '- type: concurrency-detector\n  parameters:\n    maxConcurrency: 1\n').replace('plugins:\n', 'saturationDetector:\n  pluginRef: concurrency-detector\nplugins:\n')),
  '/workload/clients/0/load/rate', 2000), '/horizon/duration_s', 30));
// Bands: many, duplicate, out of range.
const bands = (n, f = (i) => `  - priority: ${-i}\n`) => `  priorityBands:\n${Array.from({ length: n }, (_, i) => f(i)).join('')}`;
[64, 65, 1000, 20000].forEach((n) => scen(`flow-bands-${n}`, eppScen(flowYaml(bands(n)))));
scen('flow-bands-duplicate', eppScen(flowYaml(bands(3, () => '  - priority: 7\n'))));
['1e10', '1.5', '"x"', '-2147483649', '9223372036854775807', 'null', '{}'].forEach((v, i) =>
  scen(`flow-band-priority-${i}`, eppScen(flowYaml(`  priorityBands:\n  - priority: ${v}\n`))));
scen('flow-band-unknown-keys', eppScen(flowYaml('  priorityBands:\n  - priority: 0\n    "\\e[31mred": 1\n    maxRequestz: 3\n')));
scen('flow-default-band-bad', eppScen(flowYaml('  defaultPriorityBand:\n    priority: 5\n    maxRequests: -3\n    fairnessPolicyRef: nope\n')));
scen('flow-policy-refs-bad', eppScen(flowYaml('  usageLimitPolicyPluginRef: queue-scorer\n  priorityBands:\n  - priority: 0\n    orderingPolicyRef: "../x"\n')));
scen('flow-usage-limit-threshold', eppScen(flowYaml('  usageLimitPolicyPluginRef: static-usage-limit-policy\n', '- type: static-usage-limit-policy\n  parameters:\n    threshold: 1e-300\n')));
scen('flow-section-without-gate', eppScen(eppYaml('', 'flowControl:\n  maxRequests: 1e18\n')));
// Priorities the clients give, the bands they reach.
scen('flow-client-priority-huge', setp(eppScen(flowYaml(bands(2))), '/workload/clients/0/priority', 2 ** 31));
scen('flow-client-priority-min', setp(eppScen(flowYaml(bands(2))), '/workload/clients/0/priority', -(2 ** 31)));
scen('flow-clients-1000-flows', (() => { const s = eppScen(flowYaml(bands(64)));
  s.workload.clients = Array.from({ length: 1000 }, (_, i) => ({ ...clone(s.workload.clients[0]), name: `c${i}`, priority: i % 70, load: { rate: 1 } }));
  return s; })());
// Feature gates.
[['\u001b[31mflowControl'], ['flowcontrol'], [1], 'flowControl', Array(10000).fill('dataLayer'), [null], [{}]].forEach((g, i) =>
  scen(`epp-feature-gates-${i}`, eppScen({ ...JSON.parse(JSON.stringify({ apiVersion: 'llm-d.ai/v1alpha1', kind: 'EndpointPickerConfig' })),
    featureGates: g, plugins: [{ type: 'queue-scorer' }, { type: 'max-score-picker' }],
    schedulingProfiles: [{ name: 'default', plugins: [{ pluginRef: 'queue-scorer' }, { pluginRef: 'max-score-picker' }] }] })));
// YAML the subset refuses, or bombs it must bound.
const laughs = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' +
  Array.from({ length: 9 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]\n`).join('');
const yamlBad = [
  laughs,
  EPP_HEAD + laughs + 'plugins:\n- type: queue-scorer\n',
  eppYaml('- &p\n  type: queue-scorer\n- *p\n'),
  eppYaml('- type: !!str queue-scorer\n'),
  eppYaml('- type: |\n    queue-scorer\n'),
  eppYaml('- type: >-\n    queue\n'),
  '---\n' + eppYaml() + '---\n' + eppYaml(),
  EPP_HEAD + 'x:\n' + Array.from({ length: 40 }, (_, i) => ' '.repeat(2 * (i + 1)) + `k${i}:\n`).join(''),
  EPP_HEAD + 'x:\n' + Array.from({ length: 2000 }, (_, i) => ' '.repeat(i + 1) + 'k:\n').join('').slice(0, 250000),
  EPP_HEAD + 'x: ' + '['.repeat(100000) + ']'.repeat(100000) + '\n',
  EPP_HEAD + 'x: ' + '{a: '.repeat(20000) + '}'.repeat(20000) + '\n',
  EPP_HEAD + 'x: [' + '1, '.repeat(80000) + '1]\n',
  EPP_HEAD + 'x: ' + '"' + 'a'.repeat(255000) + '"\n',
  EPP_HEAD + 'x: "' + 'y'.repeat(300000) + '"\n',
  eppYaml() + '#'.repeat(10) + '\n'.repeat(200000),
  eppYaml().replace(/\n/g, '\r\n'),
  eppYaml().replace(/  /g, '\t'),
  eppYaml('- type: "queue-scorer\\u0000x"\n'),
  eppYaml('- type: "\\e[2J\\nforged"\n'),
  eppYaml('- type: "\\x41"\n'),
  eppYaml('- type: "unterminated\n'),
  eppYaml('- type: queue-scorer\n  type: queue-scorer\n'),
  eppYaml('- {type: queue-scorer, parameters: {a: [1, {b: 2}]}}\n'),
  eppYaml('- type: queue-scorer\n  name: "\u001b]0;x\u0007"\n'),
  eppYaml('- type: queue-scorer\n  name: ' + 'n'.repeat(100000) + '\n'),
  eppYaml(Array.from({ length: 9000 }, (_, i) => `- type: queue-scorer\n  name: q${i}\n`).join('')),
  EPP_HEAD + 'plugins: [' + Array(20000).fill('{type: queue-scorer}').join(', ') + ']\n',
  'kind: EndpointPickerConfig\n\u0085plugins: []\n',
  'kind: EndpointPickerConfig\n? complex key\n: value\n',
  'kind: EndpointPickerConfig\nplugins: *undefined\n',
  ': \n-\n- - -\n',
  '\ufeff' + eppYaml(),
  'kind: "\\ud800"\n',
  '{"apiVersion": "llm-d.ai/v1alpha1", ' + '"x": ['.repeat(120000) + ']'.repeat(120000) + '}',
  '{' + '"a":{'.repeat(50000) + '}'.repeat(50001),
  '{"kind": "EndpointPickerConfig", "kind": "EndpointPickerConfig"}',
  '{"kind": "EndpointPickerConfig"} trailing',
  '{"kind": "EndpointPickerConfig", "plugins": [' + Array(30000).fill('{"type":"queue-scorer"}').join(',') + ']}',
  '',
  '   ',
  'null',
  '[]',
  '42',
];
yamlBad.forEach((y, i) => scen(`epp-yaml-${i}`, eppScen(y), { regression: i === 35 }));
scen('epp-object-deep', eppScen(JSON.parse('{"a":'.repeat(60) + '1' + '}'.repeat(60))));
scen('epp-object-plugins-50000', eppScen({ apiVersion: 'llm-d.ai/v1alpha1', kind: 'EndpointPickerConfig',
  plugins: Array.from({ length: 50000 }, (_, i) => ({ type: 'queue-scorer', name: `q${i}` })).concat([{ type: 'max-score-picker' }]),
  schedulingProfiles: [{ name: 'default', plugins: Array.from({ length: 50000 }, (_, i) => ({ pluginRef: `q${i}` })).concat([{ pluginRef: 'max-score-picker' }]) }] }));
scen('epp-profiles-5000', eppScen({ apiVersion: 'llm-d.ai/v1alpha1', kind: 'EndpointPickerConfig',
  plugins: [{ type: 'queue-scorer' }, { type: 'max-score-picker' }],
  schedulingProfiles: Array.from({ length: 5000 }, (_, i) => ({ name: `p${i}`, plugins: [{ pluginRef: 'queue-scorer' }] })) }));
// Plugin parameters: integers and numbers beyond any int, negative, fractional, strings.
const pp = (type, params, ref = true) => eppYaml(`- type: ${type}\n  parameters:\n${Object.entries(params).map(([k, v]) => `    ${k}: ${v}\n`).join('')}`)
  .replace(EPP_PROFILE, ref ? EPP_PROFILE.replace('  - pluginRef: max-score-picker\n', `  - pluginRef: ${type}\n  - pluginRef: max-score-picker\n`) : EPP_PROFILE);
const bigNums = ['1e30', '-1e30', '1e999', '9223372036854775808', '2147483648', '-2147483649', '1.5', '1e-300', '"12"'];
// The approximate prefix index's parameters are its producer's (a data-layer plugin, no pluginRef).
[['approx-prefix-cache-producer', 'maxPrefixBlocksToMatch'], ['approx-prefix-cache-producer', 'lruCapacityPerServer', { autoTune: 'false' }],
  ['no-hit-lru-scorer', 'lruSize'], ['token-load-scorer', 'queueThresholdTokens'], ['load-aware-scorer', 'threshold'],
  ['active-request-scorer', 'idleThreshold'], ['active-request-scorer', 'maxBusyScore'],
  ['context-length-aware', 'enableFiltering']].forEach(([type, key, extra = {}], j) =>
  bigNums.forEach((v, i) => { if ((i + j) % 2 === 0 || i < 3) scen(`epp-param-${type}-${key}-${i}`, eppScen(pp(type, { ...extra, [key]: v }, !type.endsWith('-producer'))), { regression: i === 0 && j < 3 }); }));
scen('epp-no-hit-lru-huge-with-prefix', eppScen(pp('no-hit-lru-scorer', { lruSize: '1e30' }).replace('plugins:\n', 'plugins:\n- type: prefix-cache-scorer\n')));
bigNums.forEach((v, i) => scen(`epp-pd-decider-non-cached-${i}`, setp(eppScen(EPP_HEAD +
  `plugins:\n- type: prefill-filter\n- type: decode-filter\n- type: queue-scorer\n- type: max-score-picker\n- type: prefix-cache-scorer\n- type: prefix-based-pd-decider\n  parameters:\n    nonCachedTokens: ${v}\n` +
  '- type: disagg-profile-handler\n  parameters:\n    deciders:\n      prefill: prefix-based-pd-decider\n' +
  'schedulingProfiles:\n- name: prefill\n  plugins:\n  - pluginRef: prefill-filter\n  - pluginRef: queue-scorer\n  - pluginRef: max-score-picker\n' +
  '- name: decode\n  plugins:\n  - pluginRef: decode-filter\n  - pluginRef: prefix-cache-scorer\n  - pluginRef: max-score-picker\n', pd), '/fabric', 'ib-ndr')));
['1e999', '1e308', '-1', '"x"', '0'].forEach((w, i) => scen(`epp-weight-${i}`, eppScen(eppYaml('- type: kv-cache-utilization-scorer\n',
  '', '').replace(EPP_PROFILE, `schedulingProfiles:\n- name: default\n  plugins:\n  - pluginRef: queue-scorer\n    weight: ${w}\n  - pluginRef: kv-cache-utilization-scorer\n    weight: 1e308\n  - pluginRef: max-score-picker\n`))));
[['concurrency-detector', { maxConcurrency: '1e-300' }], ['concurrency-detector', { maxConcurrency: '1e999' }],
  ['concurrency-detector', { maxConcurrency: '1e30', concurrencyMode: 'tokens', maxTokenConcurrency: '1e-300' }],
  ['concurrency-detector', { concurrencyMode: '"\\e[31m"' }], ['utilization-detector', { queueDepthThreshold: '1e-300', kvCacheUtilThreshold: '1e-300' }],
  ['utilization-detector', { metricsStalenessThreshold: `"${'9'.repeat(60)}h"` }], ['utilization-detector', { metricsStalenessThreshold: '"1ns"' }],
  ['utilization-detector', { metricsStalenessThreshold: '"2562048h"' }], ['utilization-detector', { headroom: '1e999' }]].forEach(([type, params], i) => {
  const y = pp(type, params, false).replace('plugins:\n', `saturationDetector:\n  pluginRef: ${type}\nplugins:\n`);
  scen(`epp-detector-${i}`, eppScen(y));
  scen(`epp-detector-flow-${i}`, setp(eppScen(y.replace('plugins:\n', 'featureGates:\n- flowControl\nplugins:\n') + 'flowControl:\n  defaultRequestTTL: 1s\n'), '/workload/clients/0/load/rate', 200));
});
// Labels: pools[].labels and the plugins that read them.
const labelled = (labels) => withp(base, '/pools/0/labels', labels);
[{ tier: 'gold' }, { 'a\u001b[31m': 'x' }, { tier: 'a\nb' }, { tier: 'x'.repeat(64) }, { ['k'.repeat(64)]: 'v' },
  { ['p'.repeat(254) + '/k']: 'v' }, { 'a/b/c': 'v' }, { 'llm-d.ai/role': 'decode' }, { tier: 7 }, { tier: null }, { '': 'v' },
  Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v'])), Object.fromEntries(Array.from({ length: 100000 }, (_, i) => [`k${i}`, 'v'])),
  ['tier'], 'tier=gold', { 'llm-d.ai/context-length-range': '0-999999999999999999' }, { 'llm-d.ai/context-length-range': '9-1' },
  { 'llm-d.ai/context-length-range': `-${'9'.repeat(20)}` }, { tier: 'é' }, { tier: '-lead' }].forEach((l, i) =>
  scen(`pool-labels-${i}`, eppScen(eppYaml('- type: label-selector-filter\n  parameters:\n    matchLabels:\n      tier: gold\n'), () => labelled(l))));
['0-999999999999999999', '999999999999999999-999999999999999999', '0-0', ' 1 - 2 ', '+1-+2'].forEach((r, i) =>
  scen(`context-length-range-${i}`, eppScen(pp('context-length-aware', { enableFiltering: 'true' }), () => labelled({ 'llm-d.ai/context-length-range': r }))));
scen('context-length-label-param-hostile', eppScen(pp('context-length-aware', { label: '"\\e[31m../../x"' })));
[{ matchLabels: { '\u001b[2J': 'x' } }, { matchExpressions: [{ key: 'tier', operator: 'Bogus', values: ['x'] }] },
  { matchExpressions: [{ key: 'tier', operator: 'In', values: Array.from({ length: 100000 }, (_, i) => `v${i}`) }] },
  { matchExpressions: Array.from({ length: 20000 }, () => ({ key: 'tier', operator: 'Exists' })) },
  { matchExpressions: [{ key: 'k'.repeat(100000), operator: 'In', values: [] }] }, { matchLabels: 'tier=gold' },
  { matchExpressions: [{ key: 'tier', operator: 'Exists', values: ['x'] }] }].forEach((sel, i) =>
  scen(`label-selector-${i}`, eppScen({ apiVersion: 'llm-d.ai/v1alpha1', kind: 'EndpointPickerConfig',
    plugins: [{ type: 'label-selector-filter', parameters: sel }, { type: 'queue-scorer' }, { type: 'max-score-picker' }],
    schedulingProfiles: [{ name: 'default', plugins: [{ pluginRef: 'label-selector-filter' }, { pluginRef: 'queue-scorer' }, { pluginRef: 'max-score-picker' }] }] },
  () => labelled({ tier: 'gold' }))));
// blis run --epp-config FILE: the file the user names, bounded like any file the CLI reads.
const eppFile = (label, text, setup = []) => add('epp-file', label, { 'scenario.json': JSON.stringify(base()), 'epp.yaml': text }, { setup });
eppFile('epp-file-valid', eppYaml());
eppFile('epp-file-flow', flowYaml('  defaultRequestTTL: 0s\n'));
eppFile('epp-file-laughs', laughs);
eppFile('epp-file-300k', eppYaml() + '#\n'.repeat(150000));
eppFile('epp-file-binary', '\u0000\u0001\u00ff'.repeat(1000));
add('epp-file', 'epp-file-fifo', { 'scenario.json': JSON.stringify(base()) }, { setup: ['fifo'], eppPath: 'fifo' });
add('epp-file', 'epp-file-dev-zero', { 'scenario.json': JSON.stringify(base()) }, { eppPath: '/dev/zero' });
add('epp-file', 'epp-file-dir', { 'scenario.json': JSON.stringify(base()) }, { setup: ['dir'], eppPath: 'dir' });
add('epp-file', 'epp-file-big', { 'scenario.json': JSON.stringify(base()) }, { setup: ['big'], eppPath: 'big.csv' });
add('epp-file', 'epp-file-missing', { 'scenario.json': JSON.stringify(base()) }, { eppPath: 'missing\u001b[31m.yaml' });
add('epp-file', 'epp-file-on-pd-invalid', { 'scenario.json': JSON.stringify(setp(pd(), '/pools/1/name', '../../x')), 'epp.yaml': eppYaml() });

// Cases 19-27 (the scale-out, EPP-file, sweep, capacity, catalog-import and conform-ext
// surfaces) live in cases_more.mjs, evaluated here in this module's scope (a direct eval: they
// call add() and the builders above, and the LCG moves on in the same order).
// eslint-disable-next-line no-eval
eval(fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'cases_more.mjs'), 'utf8'));

fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(OUT, { recursive: true });
const manifest = cases.flatMap((c, i) => {
  // A case that once found something (regression: true) is in every slice too.
  if (i % EVERY !== 0 && !c.regression) return [];
  const dir = `${String(i).padStart(3, '0')}-${c.label}`.slice(0, 80);
  fs.mkdirSync(path.join(OUT, dir));
  for (const [f, text] of Object.entries(c.files)) {
    fs.mkdirSync(path.dirname(path.join(OUT, dir, f)), { recursive: true });
    fs.writeFileSync(path.join(OUT, dir, f), text);
  }
  const entry = { dir, kind: c.kind, setup: c.setup || [], args: c.args || [] };
  for (const k of ['shards', 'eppPath', 'configPath']) if (c[k] !== undefined) entry[k] = c[k];
  return [entry];
});
fs.writeFileSync(path.join(OUT, 'manifest.json'), JSON.stringify(manifest, null, 1));
console.log(`${manifest.length} of ${cases.length} cases in ${OUT}`);
