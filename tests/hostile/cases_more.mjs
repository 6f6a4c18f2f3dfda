// Hostile cases 19-27, evaluated inside tests/hostile/generate.mjs (not a module of its own:
// it uses that script's add(), builders and LCG).
// 19. LoRA adapters per client: counts and ranks whose products explode.
const loraN = (clients, per, extra = {}) => { const s = lora(); Object.assign(s.pools[0].engine.args, extra);
  s.workload.clients = Array.from({ length: clients }, (_, c) => ({ ...clone(s.workload.clients[0]), name: `c${c}`, load: { rate: 1 },
    adapters: Array.from({ length: per }, (_, i) => ({ name: `a${c}-${i}`, rank: 16, share: 1 / (per + 1) })) })); return s; };
scen('lora-adapters-1e6', withp(lora, '/workload/clients/0/adapters', Array.from({ length: 1000000 }, (_, i) => ({ name: `${i}`, rank: 8, share: 0 }))));
scen('lora-100-clients-x-3000', loraN(100, 3000, { max_loras: 64, max_cpu_loras: 1000000 }));
scen('lora-adapters-max-loras-huge', loraN(10, 1000, { max_loras: 1e9, max_cpu_loras: 1e9 }));
scen('lora-rank-2e31', (() => { const s = loraN(1, 1); s.pools[0].engine.args.max_lora_rank = 2 ** 31; s.workload.clients[0].adapters[0].rank = 2 ** 31; return s; })());
scen('lora-rank-512-many-instances', (() => { const s = loraN(4, 500, { max_lora_rank: 512, max_loras: 256, max_cpu_loras: 2000 });
  s.pools[0].instances = 64; s.workload.clients.forEach((c) => { c.adapters.forEach((a) => { a.rank = 512; }); c.load.rate = 50; }); return s; })());
scen('lora-shares-sum-above-1', withp(lora, '/workload/clients/0/adapters', Array.from({ length: 3 }, (_, i) => ({ name: `a${i}`, rank: 16, share: 0.4 }))));
scen('lora-shares-tiny-many', withp(lora, '/workload/clients/0/adapters', Array.from({ length: 10000 }, (_, i) => ({ name: `a${i}`, rank: 16, share: 1e-4 }))));
scen('lora-name-rank-conflict', (() => { const s = loraN(2, 1); s.workload.clients[1].adapters[0] = { name: 'a0-0', rank: 8, share: 0.5 }; return s; })());
scen('lora-and-lora-id', setp(lora(), '/workload/clients/0/lora', 2 ** 31));
scen('lora-id-huge', setp(withp(lora, '/workload/clients/0/adapters', undefined), '/workload/clients/0/lora', 1e18));
scen('lora-adapters-ansi-names', withp(lora, '/workload/clients/0/adapters', [{ name: '\u001b[31mred\n/pools/0: forged', rank: 16, share: 0.5 }]));
scen('lora-spec-together', (() => { const s = lora(); Object.assign(s.pools[0].engine.args, spec().pools[0].engine.args); return s; })());

// 20. Speculative decoding per client: long drafts at high rates.
const specK = (k, rate, extra = {}) => { const s = spec(); Object.assign(s.pools[0].engine.args.speculative_config, { num_speculative_tokens: k, ...extra });
  s.workload.clients[0].load.rate = rate; return s; };
[[1024, 4], [1024, 5000], [64, 1e5], [4096, 10], [2 ** 31, 1]].forEach(([k, r]) => scen(`spec-k-${k}-rate-${r}`, specK(k, r)));
scen('spec-k-1024-accept-1', (() => { const s = specK(1024, 200); s.workload.clients[0].spec_acceptance = { acceptance_rate: 1 }; return s; })());
scen('spec-per-position-64-ones', (() => { const s = specK(64, 500); s.workload.clients[0].spec_acceptance = { per_position: Array(64).fill(1) }; return s; })());
scen('spec-per-position-65', (() => { const s = specK(64, 5); s.workload.clients[0].spec_acceptance = { per_position: Array(65).fill(0.5) }; return s; })());
scen('spec-per-position-denormal', (() => { const s = specK(8, 5); s.workload.clients[0].spec_acceptance = { per_position: [1e-320, 5e-324] }; return s; })());
scen('spec-clients-1000-acceptances', (() => { const s = specK(16, 1); s.workload.clients = Array.from({ length: 1000 }, (_, i) => ({ ...clone(s.workload.clients[0]), name: `c${i}`,
  spec_acceptance: { acceptance_rate: (i % 100) / 100 } })); return s; })());
scen('spec-eagle-draft-huge-tp', specK(4, 5, { method: 'eagle', model: 'meta-llama/Llama-3.1-8B-Instruct', draft_tensor_parallel_size: 1024 }));
scen('spec-draft-model-2e62', (() => { const s = specK(4, 5, { method: 'draft_model', model: 'x/draft' }); const m = model(); m.id = 'x/draft'; m.hidden_size = 2 ** 62;
  s.catalog = { models: [m] }; return s; })());
scen('spec-prompt-lookup-inverted', specK(4, 5, { prompt_lookup_min: 1e9, prompt_lookup_max: 1 }));

// 21. Parallelism and placement: products of tp, pp, dp, instances and node sizes.
const moe = () => { const s = base(); s.pools[0].model = 'mistralai/Mixtral-8x7B-v0.1'; s.pools[0].hardware = 'H100-SXM-80GB'; return s; };
const par = (mk, p, instances = 1, extra = {}) => { const s = mk(); s.pools[0].parallelism = p; s.pools[0].instances = instances;
  Object.assign(s.pools[0].engine.args, extra); return s; };
scen('par-tp8-pp32-dp1024-x10000', par(moe, { tp: 8, pp: 32, dp: 1024 }, 10000));
scen('par-dp1024-moe', par(moe, { tp: 1, pp: 1, dp: 1024 }), { regression: true });
scen('par-dp1024-ep', par(moe, { tp: 8, pp: 1, dp: 1024 }, 1, { enable_expert_parallel: true }));
scen('par-dp64-ep-x100', par(moe, { tp: 2, pp: 1, dp: 64 }, 100, { enable_expert_parallel: true }));
scen('par-pp1024-dense', par(base, { tp: 1, pp: 1024, dp: 1 }));
scen('par-pp32-tp32-x10000-2-blocks', par(base, { tp: 32, pp: 32, dp: 1 }, 10000, { num_gpu_blocks_override: 2 }));
scen('par-pp3-uneven', par(base, { tp: 1, pp: 3, dp: 1 }));
scen('par-pp32-gpus-per-node-1', setp(par(base, { tp: 1, pp: 32, dp: 1 }, 100), '/network', { gpus_per_node: 1 }));
scen('par-dp8-pd', (() => { const s = pd(); s.pools.forEach((p) => { p.model = 'mistralai/Mixtral-8x7B-v0.1'; p.parallelism = { tp: 1, pp: 1, dp: 8 }; }); return s; })());
scen('par-ep-dense', par(base, { tp: 2, pp: 1, dp: 1 }, 1, { enable_expert_parallel: true }));
[0, -1, 1e9, 1.5, '8', 1025, 2 ** 31].forEach((g, i) => scen(`net-gpus-per-node-${i}`, withp(base, '/network', { gpus_per_node: g })));
scen('net-gpus-per-node-1-x10000', setp(par(base, { tp: 8, pp: 1, dp: 1 }, 10000, { num_gpu_blocks_override: 2 }), '/network', { gpus_per_node: 1 }));
[-1, 65, 64, 1e9].forEach((h, i) => scen(`net-switch-hops-${i}`, setp(setp(pd(), '/network', { switch_hops: h, gpus_per_node: 1 }), '/fabric', 'ib-ndr')));
['per_rack', '', null, 3].forEach((n, i) => scen(`net-nic-${i}`, withp(base, '/network', { nic: n })));
[{ main: [1000000] }, { main: [1000001] }, { main: [-1] }, { main: [0, 0] }, { nope: [0] }, { main: 0 }, { '\u001b[31m': [0] },
  { main: Array(100000).fill(0) }].forEach((p, i) => scen(`net-placement-${i}`, withp(base, '/network', { placement: p })));
scen('net-placement-many-nodes', setp(par(base, { tp: 1, pp: 1, dp: 1 }, 10000, { num_gpu_blocks_override: 2 }), '/network',
  { gpus_per_node: 1, placement: { main: Array.from({ length: 10000 }, (_, i) => i * 100) } }));
scen('net-unknown-key', withp(base, '/network', { gpus_per_node: 8, topology: 'torus' }));

// 22. Fabrics: inline fabric entries, scale-up and host links at absurd bandwidths.
const fab = (id, over) => ({ ...readJson('catalog/fabrics/ib-ndr.json'), id, ...over });
const withFabric = (over, mk = pd) => { const s = mk(); s.catalog = { fabrics: [fab('x-fabric', over)] }; s.fabric = 'x-fabric';
  s.network = { gpus_per_node: 1 }; return s; };
[{ bandwidth_bytes_per_s: 1e-300 }, { bandwidth_bytes_per_s: 1e300 }, { bandwidth_bytes_per_s: 0 }, { bandwidth_bytes_per_s: -1 },
  { efficiency: 0 }, { efficiency: 1e-300 }, { efficiency: 2 }, { latency_us: 1e300 }, { latency_us: -1 }, { hop_latency_us: 1e300 },
  { scope: 'scale-up' }, { scope: 'galactic' }, { bandwidth_bytes_per_s: '50e9' }].forEach((o, i) => {
  scen(`fabric-inline-pd-${i}`, withFabric(o));
  if (i < 8) scen(`fabric-inline-pp-${i}`, withFabric(o, () => par(base, { tp: 1, pp: 2, dp: 1 })));
});
scen('fabric-inline-ep-cross-node', withFabric({ bandwidth_bytes_per_s: 1e6 }, () => par(moe, { tp: 1, pp: 1, dp: 4 }, 1, { enable_expert_parallel: true })));
[['scale_up', { fabric: 'nvlink4', bandwidth_bytes_per_s: 1e-300 }], ['scale_up', { fabric: 'nvlink4', bandwidth_bytes_per_s: 1e300 }],
  ['scale_up', { fabric: 'no-such', bandwidth_bytes_per_s: 1e9 }], ['scale_up', { fabric: 'ib-ndr', bandwidth_bytes_per_s: 1e9 }],
  ['host_link', { fabric: 'pcie-gen5', bandwidth_bytes_per_s: 1e-300 }], ['host_link', { fabric: 'pcie-gen5', bandwidth_bytes_per_s: 1e300 }],
  ['scale_up', null], ['host_link', 'pcie']].forEach(([k, v], i) => {
  const s = par(base, { tp: 8, pp: 1, dp: 1 }); const g = gpu(); g.id = 'X-GPU'; g[k] = v; s.catalog = { gpus: [g] }; s.pools[0].hardware = 'X-GPU';
  s.pools[0].engine.args.kv_offloading_size = 8;
  scen(`gpu-links-${i}`, s);
});
scen('fabric-inline-1001', (() => { const s = base(); s.catalog = { fabrics: Array.from({ length: 1001 }, (_, i) => fab(`f${i}`, {})) }; return s; })());
scen('fabric-id-hostile', withFabric({ id: '../\u001b[31m' }));

// 23. Engine arguments in pydantic's lax mode: strings, booleans and floats where ints go.
[['max_num_seqs', '256'], ['max_num_seqs', ' 256 '], ['max_num_seqs', '2.0'], ['max_num_seqs', 256.0], ['max_num_seqs', true],
  ['max_num_seqs', '1e3'], ['max_num_seqs', '0x100'], ['max_num_seqs', '1_000'], ['max_num_seqs', '９'], ['max_num_seqs', 'inf'],
  ['max_num_seqs', '99999999999999999999999'], ['max_num_seqs', '-0'], ['max_model_len', '4096.5'], ['max_model_len', '1e400'],
  ['enable_prefix_caching', 'yes'], ['enable_prefix_caching', 'on'], ['enable_prefix_caching', 1], ['enable_prefix_caching', 2],
  ['enable_prefix_caching', 'TRUE'], ['gpu_memory_utilization', '0.9'], ['gpu_memory_utilization', 'nan'], ['gpu_memory_utilization', '1e-400'],
  ['block_size', '16'], ['max_num_batched_tokens', '8k'], ['max_num_batched_tokens', '8K'], ['num_gpu_blocks_override', '2e31'],
  ['seed', '1'.repeat(400)], ['max_loras', '\u001b[31m4'], ['swap_space', 1e300], ['max_num_seqs', [256]], ['max_num_seqs', { v: 1 }]]
  .forEach(([k, v], i) => scen(`lax-arg-${i}-${k}`, withp(base, `/pools/0/engine/args/${k}`, v)));

// 24. Sweeps: grids whose product explodes, ranges, linked axes, sets; and sweep-merge shards.
[[{ name: 'a', pointer: '/seed', range: { from: 1, to: 1e6, step: 1 } }, { name: 'b', pointer: '/horizon/duration_s', range: { from: 1, to: 1e6, step: 1 } }],
  [{ name: 'a', pointer: '/seed', range: { from: 0, to: 1e15, step: 1e-15 } }],
  [{ name: 'a', pointer: '/seed', range: { from: 0, to: 1e308, step: 1 } }],
  [{ name: 'a', pointer: '/seed', range: { from: 0, to: 10, step: 0 } }],
  [{ name: 'a', pointer: '/seed', range: { from: 0, to: 10, step: -1 } }],
  [{ name: 'a', pointer: '/seed', range: { from: 0, to: 10, step: 5e-324 } }],
  [{ name: 'a', pointer: '/seed', range: { from: -1e308, to: 1e308, step: 1e308 } }],
  [{ name: 'a', pointer: '/seed', range: { from: 1, to: 100000, step: 1 } }],
  [{ name: 'a', pointer: '/seed', range: { from: 1, to: 100001, step: 1 } }],
  [{ name: 'a', pointer: '/seed', range: { from: '1', to: 10, step: 1 } }],
  [{ name: 'a', pointer: '/seed', values: [1], range: { from: 1, to: 2, step: 1 } }],
  [{ name: 'a', linked: [{ pointer: '/seed', values: [1, 2] }, { pointer: '/pools/0/instances', values: [1] }] }],
  [{ name: 'a', linked: [{ pointer: '/seed', range: { from: 1, to: 1e12, step: 1 } }, { pointer: '/pools/0/instances', range: { from: 1, to: 1e12, step: 1 } }] }],
  [{ name: 'a', linked: Array.from({ length: 10000 }, () => ({ pointer: '/seed', values: [1, 2] })) }],
  Array.from({ length: 12 }, (_, i) => ({ name: `a${i}`, pointer: '/seed', values: Array.from({ length: 10 }, (_, j) => j) })),
  Array.from({ length: 1000 }, (_, i) => ({ name: `a${i}`, pointer: '/seed', values: [1] })),
  [{ name: '\u001b[31m\n', pointer: '/seed', values: [1, 2] }],
  [{ name: 'a', pointer: '/pools/0/instances', values: [1e6, 2 ** 31, 1e300] }],
  [{ name: 'a', pointer: '/workload/clients/0/load/rate', values: [1e9] }, { name: 'b', pointer: '/horizon/duration_s', values: [1e9] }],
  [{ name: 'a', pointer: '/router', values: [{ policy: 'epp', epp_config: laughs }] }],
  [{ name: 'a', pointer: '/pools/0/labels', values: [{ 'a\nb': 'c' }] }],
// (axes 7, 100,000 valid points, is given a budget of 99,999: at 100,000 it is a valid sweep
// whose checks take 8 s and whose runs then take an hour, by design.)
].forEach((axes, i) => sw(`sweep-axes-${i}`, { ...sweep(), axes, budget: { max_runs: i === 7 ? 99999 : 100000 } }, base(),
  { regression: [1, 13].includes(i) }));
[{ '/seed': 1e300 }, { '/pools/0/name': '../../blis-hostile-escape' }, { '/nope/x/y': 1 }, { '': {} },
  Object.fromEntries(Array.from({ length: 50000 }, (_, i) => [`/k${i}`, i])), { '/pools/0': null }, { '/pools/-': {} }, { '/pools/0/engine/args/~2': 1 }]
  .forEach((set, i) => sw(`sweep-set-${i}`, { ...sweep(), set }));
sw('sweep-100000-points-last-invalid', { ...sweep(), axes: [{ name: 'a', pointer: '/pools/0/instances', range: { from: 1, to: 100000, step: 1 } }], budget: { max_runs: 100000 } });
sw('sweep-budget-fraction', setp(sweep(), '/budget/max_runs', 1.5));
sw('sweep-budget-2e63', setp(sweep(), '/budget/max_runs', 2 ** 63));
sw('sweep-objective-pointer-hostile', setp(sweep(), '/objective', { minimize: '/\u001b[31m'.repeat(1000) }), base(), { regression: true });
sw('sweep-epp-base', sweep(), eppScen(flowYaml('  defaultRequestTTL: 1ns\n')));
sw('sweep-base-deep', { ...sweep(), base: JSON.parse('{"a":'.repeat(70) + '1' + '}'.repeat(70)) });
sw('sweep-base-1e6-pools', '{"schema":"blis/sweep/v1","base":{"schema":"blis/scenario/v1","pools":[' + Array(1000000).fill('{}').join(',') +
  ']},"axes":[{"pointer":"/seed","values":[1]}],"objective":"min_cost"}');
const shardRows = (n, f) => Array.from({ length: n }, (_, i) => JSON.stringify(f(i))).join('\n') + '\n';
const merge = (label, shards, extra = {}) => { const files = {}; for (const [d, fl] of Object.entries(shards)) for (const [f, t] of Object.entries(fl)) files[`${d}/${f}`] = t;
  add('sweep-merge', label, files, { shards: Object.keys(shards), ...extra }); };
const mergeSweep = JSON.stringify({ ...sweep(), base: base() });
merge('merge-valid-empty-rows', { a: { 'sweep.json': mergeSweep, 'points.jsonl': '' } });
merge('merge-index-huge', { a: { 'sweep.json': mergeSweep, 'points.jsonl': shardRows(2, (i) => ({ index: i ? 1e19 : 0 })) } });
merge('merge-index-1e15', { a: { 'sweep.json': mergeSweep, 'points.jsonl': shardRows(3, (i) => ({ index: [0, 1, 1e15][i] })),
  'points/0.json': '{}', 'points/1.json': '{}' } });
merge('merge-index-negative', { a: { 'sweep.json': mergeSweep, 'points.jsonl': shardRows(2, (i) => ({ index: -i })) } });
merge('merge-rows-garbage-fields', { a: { 'sweep.json': mergeSweep, 'points.jsonl': shardRows(2, (i) => ({ index: i, feasible: 'yes',
  metrics: [1, 2], objective: '\u001b[31m', violations: 7, point: 'x', digest: 1e300 })), 'points/0.json': '{}', 'points/1.json': '[]' }  }, { regression: true });
merge('merge-rows-nan-metrics', { a: { 'sweep.json': mergeSweep, 'points.jsonl': shardRows(2, (i) => ({ index: i, feasible: true,
  metrics: { '/ttft_ms/p99': 'NaN', '/cost/usd_per_million_output_tokens': -1e308 }, objective: null })), 'points/0.json': '{}', 'points/1.json': '{}' } });
merge('merge-summary-missing', { a: { 'sweep.json': mergeSweep, 'points.jsonl': shardRows(2, (i) => ({ index: i })), 'points/0.json': '{}' } });
merge('merge-summary-binary', { a: { 'sweep.json': mergeSweep, 'points.jsonl': shardRows(2, (i) => ({ index: i })),
  'points/0.json': '\u0000\u001b[2J', 'points/1.json': '{}' } });
merge('merge-line-huge', { a: { 'sweep.json': mergeSweep, 'points.jsonl': '{"index":0,"x":"' + 'x'.repeat(5 << 20) + '"}\n' } });
merge('merge-lines-1e6', { a: { 'sweep.json': mergeSweep, 'points.jsonl': '{"index":0}\n'.repeat(1) + Array.from({ length: 300000 }, (_, i) => `{"index":${i + 1}}`).join('\n') } });
merge('merge-sweep-differs', { a: { 'sweep.json': mergeSweep, 'points.jsonl': shardRows(1, () => ({ index: 0 })) },
  b: { 'sweep.json': mergeSweep.replace('hostile sweep', 'other\u001b[31m'), 'points.jsonl': shardRows(1, () => ({ index: 1 })) } });
merge('merge-sweep-hostile', { a: { 'sweep.json': JSON.stringify({ ...sweep(), base: '/etc/passwd' }), 'points.jsonl': '' } });
merge('merge-sweep-invalid', { a: { 'sweep.json': '{"schema":"blis/sweep/v1","axes":[]}', 'points.jsonl': '' } });
merge('merge-dir-hostile-name', { 'a\u001b[31m': { 'sweep.json': mergeSweep, 'points.jsonl': shardRows(1, () => ({ index: 0 })) } });
merge('merge-index-out-of-sweep', { a: { 'sweep.json': mergeSweep, 'points.jsonl': shardRows(3, (i) => ({ index: [0, 1, 1e15][i], feasible: true,
  violations: [], objective: null, metrics: {} })), 'points/0.json': '{}', 'points/1.json': '{}', 'points/1000000000000000.json': '{}' } }, { regression: true });
merge('merge-duplicate', { a: { 'sweep.json': mergeSweep, 'points.jsonl': shardRows(2, () => ({ index: 0 })) } });

// 25. blis capacity: searches that never meet the SLO, always meet it, or sit on hostile scenarios.
cap('capacity-never-meets-instances', ['--slo', 'ttft_ms.p99<=0.000001', '--vary', 'instances']);
cap('capacity-never-meets-rate', ['--slo', 'ttft_ms.p99<=0.000001'], base(), { regression: true });
cap('capacity-always-meets-rate', ['--slo', 'ttft_ms.p99<=1e300', '--max-probes', '100']);
cap('capacity-always-meets-instances', ['--slo', 'ttft_ms.p99<=1e300', '--vary', 'instances', '--rate', '1e9', '--max-probes', '100']);
cap('capacity-never-meets-instances-big', ['--slo', 'e2e_ms.p99<=1', '--vary', 'instances', '--rate', '500', '--max-probes', '1000']);
cap('capacity-tolerance-tiny', ['--slo', 'ttft_ms.p99<=200', '--tolerance', '1e-300', '--max-probes', '1000']);
cap('capacity-tolerance-zero', ['--slo', 'ttft_ms.p99<=200', '--tolerance', '0']);
cap('capacity-rate-tiny', ['--slo', 'ttft_ms.p99<=500', '--rate', '1e-300', '--max-probes', '5']);
cap('capacity-rate-negative', ['--slo', 'ttft_ms.p99<=500', '--rate', '-5']);
cap('capacity-slo-value-nan', ['--slo', 'ttft_ms.p99<=nan']);
cap('capacity-slo-value-inf', ['--slo', 'ttft_ms.p99<=inf', '--max-probes', '3']);
cap('capacity-slo-1000', Array.from({ length: 1000 }, () => ['--slo', 'ttft_ms.p99<=500']).flat().concat(['--max-probes', '2']));
cap('capacity-slo-pointer-long', ['--slo', '/' + 'x'.repeat(100000) + '<=1']);
cap('capacity-pool-ansi', ['--slo', 'ttft_ms.p99<=500', '--vary', 'instances', '--pool', '\u001b[31mmain\n']);
cap('capacity-epp-flow', ['--slo', 'ttft_ms.p99<=500', '--max-probes', '4'], eppScen(flowYaml('  defaultRequestTTL: 1ns\n')));
cap('capacity-instances-pd', ['--slo', 'ttft_ms.p99<=1', '--vary', 'instances', '--pool', 'decode', '--max-probes', '40'], pd());
cap('capacity-stages', ['--slo', 'ttft_ms.p99<=500', '--max-probes', '4'], withp(base, '/workload/clients/0/load', { stages: [{ rate: 1e-300, duration_s: 1 }, { rate: 1e6, duration_s: 1e-6 }] }));
cap('capacity-max-probes-neg', ['--slo', 'ttft_ms.p99<=500', '--max-probes', '-1']);

// 26. blis catalog import: Hugging Face config.json files with absurd, missing or mistyped fields.
const hf = () => ({ ...readJson('tests/catalog/fixtures/hf-configs/Llama-2-7b-hf.json'), _name_or_path: 'hostile/llama' });
const imp = (label, doc, extra = {}) => add('catalog-import', label, { 'config.json': typeof doc === 'string' ? doc : JSON.stringify(doc), 'out/.keep': '' }, extra);
imp('import-valid', hf());
[['hidden_size', 2 ** 62], ['hidden_size', 2 ** 53 + 1], ['hidden_size', -4096], ['hidden_size', 4096.5], ['hidden_size', '4096'],
  ['hidden_size', null], ['hidden_size', 1e300], ['num_hidden_layers', 2 ** 62], ['num_hidden_layers', 0], ['num_attention_heads', 2 ** 40],
  ['num_attention_heads', 7], ['num_key_value_heads', 0], ['num_key_value_heads', 2 ** 62], ['intermediate_size', 2 ** 62],
  ['vocab_size', 2 ** 62], ['vocab_size', true], ['max_position_embeddings', 2 ** 62], ['max_position_embeddings', -1],
  ['head_dim', 2 ** 62], ['head_dim', 0], ['torch_dtype', 'float128'], ['torch_dtype', 7], ['architectures', []], ['architectures', [7]],
  ['architectures', 'LlamaForCausalLM'], ['_name_or_path', '\u001b[31m\nforged: /x'], ['_name_or_path', 'x'.repeat(1 << 20)],
  ['_name_or_path', '../../../etc/passwd'], ['_name_or_path', ''], ['tie_word_embeddings', 'yes'], ['rope_scaling', { factor: 1e300 }],
  ['num_local_experts', 2 ** 62], ['num_local_experts', 8], ['num_experts_per_tok', 2 ** 40], ['sliding_window', 2 ** 62],
  ['sliding_window', -1], ['layer_types', Array(1000000).fill('full_attention')], ['layer_types', ['warp_attention']],
  ['layer_types', 'full_attention'], ['no_rope_layers', Array(100000).fill(0)], ['attention_chunk_size', 2 ** 62],
  ['quantization_config', { quant_method: 'gptq', bits: 4 }], ['quantization_config', { quant_method: 'fp8', weight_block_size: [0, 0] }],
  ['quantization_config', { quant_method: 'fp8', weight_block_size: [2 ** 62, 2 ** 62] }], ['quantization_config', 'fp8'],
  ['quantization_config', { quant_method: 'compressed-tensors', config_groups: { g: { weights: { num_bits: 2 ** 40, type: 'int' } } } }],
  ['text_config', { text_config: { text_config: {} } }], ['text_config', 7], ['kv_lora_rank', 2 ** 62], ['q_lora_rank', -1],
  ['mlp_only_layers', [1, 2]], ['moe_layer_freq', 0], ['first_k_dense_replace', 2 ** 62]]
  .forEach(([k, v], i) => imp(`import-${i}-${k}`, { ...hf(), [k]: v }));
['hidden_size', 'num_hidden_layers', 'num_attention_heads', 'vocab_size', '_name_or_path'].forEach((k) => {
  const c = hf(); delete c[k]; imp(`import-missing-${k}`, c);
});
imp('import-moe-explosion', { ...hf(), num_local_experts: 1e6, num_experts_per_tok: 1e6, moe_intermediate_size: 2 ** 40 });
imp('import-empty-object', {});
imp('import-array', []);
imp('import-not-json', '{"hidden_size": 40');
imp('import-deep', '['.repeat(1000000) + ']'.repeat(1000000));
imp('import-duplicate-key', JSON.stringify(hf()).replace('"hidden_size"', '"hidden_size":1,"hidden_size"'));
imp('import-trailing', JSON.stringify(hf()) + '\u0000garbage');
imp('import-id-ansi', hf(), { args: ['--id', '\u001b[31mred\nline'], regression: true });
imp('import-id-long', hf(), { args: ['--id', 'i'.repeat(100000)] });
add('catalog-import', 'import-dev-zero', { 'out/.keep': '' }, { configPath: '/dev/zero', regression: true });
add('catalog-import', 'import-fifo', { 'out/.keep': '' }, { configPath: 'fifo', setup: ['fifo'] });
add('catalog-import', 'import-dir', { 'out/.keep': '' }, { configPath: 'dir', setup: ['dir'] });
add('catalog-import', 'import-big', { 'out/.keep': '' }, { configPath: 'big.csv', setup: ['big'] });
add('catalog-import', 'import-missing', { 'out/.keep': '' }, { configPath: 'missing\u001b[31m.json' });

// 27. blis conform, the ext format: metrics and the NIXL / offloading connectors.
const extBase = (name) => readJson(`tests/conformance/data/ext/${name}.input.json`);
const confExt = (label, name, pointer, value) => conf(label, setp(extBase(name), pointer, value));
[0, -1, 1e-300, 1e300, '0.0625', null].forEach((v, i) => confExt(`conform-ext-step-seconds-${i}`, 'm01-simple', '/metrics/step_seconds', v));
[Array(1000000).fill(1), [1e12], [-1], [2 ** 31], ['x'], Array.from({ length: 10000 }, (_, i) => i)].forEach((v, i) =>
  confExt(`conform-ext-dump-steps-${i}`, 'm01-simple', '/metrics/dump_steps', v));
['\u001b[31m\nforged', 'x'.repeat(1 << 20), '', 7, 'a"b\\c{}'].forEach((v, i) => confExt(`conform-ext-model-name-${i}`, 'm01-simple', '/metrics/served_model_name', v));
[['/connector/num_cpu_blocks', 2 ** 40], ['/connector/num_cpu_blocks', 0], ['/connector/num_cpu_blocks', 2 ** 22 + 1], ['/connector/num_cpu_blocks', -1],
  ['/connector/load_steps', 1e12], ['/connector/load_steps', 0], ['/connector/store_steps', 1e12], ['/connector/store_steps', -5],
  ['/connector/extra_config/blocks_per_chunk', 0], ['/connector/extra_config/blocks_per_chunk', 1e9], ['/connector/extra_config/eviction_policy', 'fifo'],
  ['/connector/kind', 'telepathy'], ['/connector/kv_connector', 'NixlConnector'], ['/connector/kv_role', 'kv_consumer'], ['/connector/engine_id', '\u001b[2J'],
  ['/config/num_gpu_blocks', 2 ** 22], ['/config/block_size', 2 ** 20], ['/max_steps', 1e7],
  ['/connector/extra_config/eviction_policy', 'arc'], ['/connector/extra_config/store_threshold', 1e12], ['/connector/extra_config/max_tracker_size', 0]].forEach(([p, v], i) =>
  confExt(`conform-ext-offload-${i}`, 'o01-offload-lru', p, v));
[['/connector/recv_steps', 1e12], ['/connector/read_steps', 1e12], ['/connector/read_steps', null], ['/connector/recv_steps', 0],
  ['/connector/extra_config/kv_lease_duration', 1e300], ['/connector/extra_config/kv_lease_duration', -1], ['/connector/extra_config/kv_lease_duration', 0],
  ['/requests/0/kv_transfer_params/remote_block_ids', [Array.from({ length: 1000000 }, (_, i) => i)]],
  ['/requests/0/kv_transfer_params/remote_block_ids', [[2 ** 62]]], ['/requests/0/kv_transfer_params/remote_block_ids', 'x'],
  ['/requests/0/kv_transfer_params/tp_size', 0], ['/requests/0/kv_transfer_params/tp_size', 2 ** 40],
  ['/requests/0/kv_transfer_params/remote_engine_id', '\u001b[31m'], ['/requests/0/kv_transfer_params', 'yes'],
  ['/requests/0/recv_steps', 1e12], ['/requests/0/read_steps', -1], ['/connector/kind', 'offloading']].forEach(([p, v], i) =>
  confExt(`conform-ext-nixl-${i}`, 'c01-nixl-decode', p, v));
confExt('conform-ext-offload-cpu-blocks-1e8', 'o01-offload-lru', '/connector/num_cpu_blocks', 1e8);
conf('conform-ext-nixl-prefill-many', (() => { const c = extBase('c02-nixl-prefill'); c.requests = Array.from({ length: 20000 }, (_, i) =>
  ({ ...clone(c.requests[0]), id: `p${i}`, arrival_step: i % 1000 })); c.max_steps = 1e7; return c; })(), { regression: true });
conf('conform-ext-async-huge-steps', setp(setp(extBase('m04-async'), '/max_steps', 1e7), '/requests/0/arrival_step', 9999999));

