#!/usr/bin/python3
"""Writes exposition_golden.txt for tests/metrics/exposition_test.cpp.

The families are registered with the real prometheus_client library (Debian's
python3-prometheus-client) in the order, with the names, HELP texts, label names and
buckets of vLLM's PrometheusStatLogger (vllm/v1/metrics/loggers.py at upstream 8d9b52f7 with
speculative decoding k=2; vllm/v1/metrics/perf.py PerfMetricsProm), and receive the observations that vLLM's rules give for the
scenario below, worked out by hand. generate_latest() then writes the text vLLM's /metrics
would serve. The C++ recorder, fed the same scenario as engine records, must produce these
bytes exactly.

Scenario (times in seconds; model "llama", engine 0, max_model_len 100, extra label
instance="i0"):
  A: arrival 0, prompt 40, max_tokens 4.  B: arrival 0.5, prompt 10, max_tokens unset.
  batch t=0.25: A QUEUED 0, SCHEDULED 0.125; A outputs 1 token (16 prompt tokens cached).
                scheduler: running 1, waiting 0, kv 0.25, prefix lookup 40 tokens / 16 hits.
  batch t=0.75: B QUEUED 0.5, SCHEDULED 0.625; A outputs 3 tokens (2 accepted drafts) and
                finishes (length); B outputs its first token (nothing cached).
                scheduler: running 2, waiting 1 (+1 deferred), kv 0.5, prefix 10/0,
                spec decode: 1 draft of 2 tokens, both accepted.
  batch t=1.0:  B PREEMPTED 0.8; B outputs 1 token and finishes (stop), preempted once.
                scheduler: running 0, waiting 0, kv 0.
  batch t=1.5:  scheduler stats only (no outputs: no IterationStats).

The move to the 8d9b52f7 registry (estimated_* counters added, prompt_tokens_recomputed and
request_num_preemptions removed, iteration tokens = computed prompt + generated) was applied
to exposition_golden.txt by hand, following this script; rerun it where prometheus_client
is installed to regenerate the file.
"""
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

R = CollectorRegistry()
L = ["model_name", "engine", "instance"]
V = ["llama", "0", "i0"]
MML_BUCKETS = [1, 2, 5, 10, 20, 50, 100]
LATENCY = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
           120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
TTFT = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
        10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
ITL = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
       20.0, 40.0, 80.0]


def counter(name, doc, extra=None, values=None):
    c = Counter(name, doc, L + ([extra] if extra else []), registry=R)
    if extra:
        return {v: c.labels(*V, v) for v in values}
    return c.labels(*V)


def gauge(name, doc, extra=None, values=None):
    g = Gauge(name, doc, L + ([extra] if extra else []), registry=R)
    if extra:
        return {v: g.labels(*V, v) for v in values}
    return g.labels(*V)


def hist(name, doc, buckets):
    return Histogram(name, doc, L, buckets=buckets, registry=R).labels(*V)


drafts = counter("vllm:spec_decode_num_drafts", "Number of spec decoding drafts.")
draft_tokens = counter("vllm:spec_decode_num_draft_tokens", "Number of draft tokens.")
accepted = counter("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.")
per_pos = counter("vllm:spec_decode_num_accepted_tokens_per_pos",
                  "Accepted tokens per draft position.", "position", ["0", "1"])
for what, doc in [("flops", "floating point operations"), ("read_bytes", "bytes read from memory"),
                  ("write_bytes", "bytes written to memory")]:
    counter(f"vllm:estimated_{what}_per_gpu", f"Estimated number of {doc} per GPU (for Model "
            "Flops Utilization calculations).")
running = gauge("vllm:num_requests_running", "Number of requests in model execution batches.")
waiting = gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.")
by_reason = gauge("vllm:num_requests_waiting_by_reason",
                  "Number of waiting requests by reason. Reason labels: 'capacity' = waiting for "
                  "scheduling capacity; 'deferred' = deferred by transient constraints (LoRA "
                  "budget, KV transfer, blocked status). Sum of all reasons equals "
                  "vllm:num_requests_waiting.", "reason", ["capacity", "deferred"])
sleep = gauge("vllm:engine_sleep_state",
              "Engine sleep state; awake = 0 means engine is sleeping; awake = 1 means engine is "
              "awake; weights_offloaded = 1 means sleep level 1; discard_all = 1 means sleep "
              "level 2.", "sleep_state", ["awake", "weights_offloaded", "discard_all"])
sleep["awake"].set(1)
kv = gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.")
pq = counter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.")
ph = counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.")
counter("vllm:external_prefix_cache_queries",
        "External prefix cache queries from KV connector cross-instance cache sharing, in "
        "terms of number of queried tokens.")
counter("vllm:external_prefix_cache_hits",
        "External prefix cache hits from KV connector cross-instance cache sharing, in terms "
        "of number of cached tokens.")
counter("vllm:mm_cache_queries", "Multi-modal cache queries, in terms of number of queried items.")
counter("vllm:mm_cache_hits", "Multi-modal cache hits, in terms of number of cached items.")
preempt = counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.")
prompt = counter("vllm:prompt_tokens", "Number of prefill tokens processed.")
source = counter("vllm:prompt_tokens_by_source", "Number of prompt tokens by source.", "source",
                 ["local_compute", "local_cache_hit", "external_kv_transfer"])
cached = counter("vllm:prompt_tokens_cached", "Number of cached prompt tokens (local + external).")
gen = counter("vllm:generation_tokens", "Number of generation tokens processed.")
success = counter("vllm:request_success", "Count of successfully processed requests.",
                  "finished_reason", ["stop", "length", "abort", "error", "repetition"])
h_prompt = hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", MML_BUCKETS)
h_gen = hist("vllm:request_generation_tokens", "Number of generation tokens processed.",
             MML_BUCKETS)
h_iter = hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.",
              [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384])
h_maxgen = hist("vllm:request_max_num_generation_tokens",
                "Histogram of maximum number of requested generation tokens.", MML_BUCKETS)
h_n = hist("vllm:request_params_n", "Histogram of the n request parameter.", [1, 2, 5, 10, 20])
h_maxtok = hist("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.",
                MML_BUCKETS)
h_ttft = hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
              TTFT)
h_itl = hist("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.",
             ITL)
h_tpot = hist("vllm:request_time_per_output_token_seconds",
              "Histogram of time_per_output_token_seconds per request.", ITL)
h_e2e = hist("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.",
             LATENCY)
h_queue = hist("vllm:request_queue_time_seconds",
               "Histogram of time spent in WAITING phase for request.", LATENCY)
h_inf = hist("vllm:request_inference_time_seconds",
             "Histogram of time spent in RUNNING phase for request.", LATENCY)
h_prefill = hist("vllm:request_prefill_time_seconds",
                 "Histogram of time spent in PREFILL phase for request.", LATENCY)
h_decode = hist("vllm:request_decode_time_seconds",
                "Histogram of time spent in DECODE phase for request.", LATENCY)
h_kvc = hist("vllm:request_prefill_kv_computed_tokens",
             "Histogram of new KV tokens computed during prefill (excluding cached tokens).",
             MML_BUCKETS)
info = Gauge("vllm:cache_config_info", "Information of the LLMEngine CacheConfig",
             ["block_size", "num_gpu_blocks", "engine", "instance"], registry=R)
info.labels("16", "1000", "0", "i0").set(1)

# batch t=0.25: scheduler stats, then IterationStats (A's first token).
running.set(1); waiting.set(0); by_reason["capacity"].set(0); by_reason["deferred"].set(0)
kv.set(0.25); pq.inc(40); ph.inc(16)
prompt.inc(40); source["local_compute"].inc(24); source["local_cache_hit"].inc(16)
source["external_kv_transfer"].inc(0); cached.inc(16); gen.inc(1)
h_iter.observe(25)  # computed prompt tokens (24) + generated (1)
h_ttft.observe(0.25)

# batch t=0.75
running.set(2); waiting.set(2); by_reason["capacity"].set(1); by_reason["deferred"].set(1)
kv.set(0.5); pq.inc(10); ph.inc(0)
drafts.inc(1); draft_tokens.inc(2); accepted.inc(2); per_pos["0"].inc(1); per_pos["1"].inc(1)
prompt.inc(10); source["local_compute"].inc(10); gen.inc(4)
h_iter.observe(14)
h_maxgen.observe(4); h_n.observe(1)       # A finished (plain request: n = 1)
h_ttft.observe(0.25)                      # B: 0.75 - 0.5
h_itl.observe(0.5)                        # A: 0.75 - 0.25
success["length"].inc()
h_e2e.observe(0.75); h_queue.observe(0.125); h_prefill.observe(0.125)
h_inf.observe(0.625); h_decode.observe(0.5)
h_kvc.observe(24); h_prompt.observe(40); h_gen.observe(4)
h_tpot.observe(0.5 / 3); h_maxtok.observe(4)

# batch t=1.0
running.set(0); waiting.set(0); by_reason["capacity"].set(0); by_reason["deferred"].set(0)
kv.set(0.0)
preempt.inc(1); gen.inc(1)
h_iter.observe(1)
h_maxgen.observe(2); h_n.observe(1)
h_itl.observe(0.25)
success["stop"].inc()
h_e2e.observe(0.5); h_queue.observe(0.125); h_prefill.observe(0.125)
h_inf.observe(0.375); h_decode.observe(0.25)
h_kvc.observe(10); h_prompt.observe(10); h_gen.observe(2)
h_tpot.observe(0.25)

# batch t=1.5: scheduler stats only.
running.set(0); waiting.set(0); kv.set(0.0)

text = generate_latest(R).decode()
# Without prometheus_client's *_created series (ExpositionOptions.include_created = false).
out = []
skip = False
for line in text.splitlines(keepends=True):
    if line.startswith("# HELP ") and line.split()[2].endswith("_created"):
        skip = True
    elif line.startswith("# HELP "):
        skip = False
    if not skip:
        out.append(line)
with open("exposition_golden.txt", "w") as f:
    f.write("".join(out))
