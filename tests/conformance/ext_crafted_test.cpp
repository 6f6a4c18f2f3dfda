// Connector inputs of the kinds the held-out ext cases are (NIXL under KV pressure and with
// async scheduling, offloading with CPU eviction, allocation failures and preemption flushes),
// in tests/conformance/data/ext_crafted. There is no vLLM here to make goldens, so each is
// checked for what must hold whatever vLLM decides: the input is accepted, the run ends by
// itself and is deterministic, the block accounting holds at every step, and the input
// reaches the path it was written for. Two small inline cases pin orders vLLM takes from its
// Python sets (util/python_set_order.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "conform/conform_ext.h"
#include "test_files.h"

namespace blis {
namespace {

using json = nlohmann::json;

std::string crafted_input(const std::string& name) {
  return test::read_file(std::string(BLIS_SOURCE_DIR) + "/tests/conformance/data/ext_crafted/" +
                         name + ".input.json");
}

json run(const std::string& input) {
  const vllm::ConformOutcome out = vllm::run_ext_conformance(input);
  std::string why;
  for (const Diagnostic& d : out.diagnostics) why += d.pointer + ": " + d.message + "\n";
  EXPECT_TRUE(out.ok) << why;
  return out.ok ? json::parse(out.trace_json) : json::object();
}

const char* const kCrafted[] = {
    "nixl-decode-pressure",
    "nixl-decode-pressure-async-priority",
    "nixl-prefill-pressure",
    "nixl-prefill-async",
    "nixl-both-async",
    "offload-evict-preempt",
    "offload-chunk2-async-priority",
    "offload-tiny-cpu",
    "offload-all-tokens",
    "offload-arc-threshold",
};

// Sums a counter family's samples in the final exposition.
double final_total(const json& t, const std::string& family) {
  double sum = 0;
  const std::string text = t["final"].get<std::string>();
  std::size_t at = 0;
  while ((at = text.find("\n" + family, at)) != std::string::npos) {
    const std::size_t eol = text.find('\n', at + 1);
    const std::string line = text.substr(at + 1, eol - at - 1);
    sum += std::stod(line.substr(line.rfind(' ') + 1));
    at = eol;
  }
  return sum;
}

TEST(ExtCrafted, EveryInputIsAcceptedEndsByItselfAndIsDeterministic) {
  for (const char* name : kCrafted) {
    SCOPED_TRACE(name);
    const std::string input = crafted_input(name);
    const json in = json::parse(input);
    const vllm::ConformOutcome a = vllm::run_ext_conformance(input);
    const vllm::ConformOutcome b = vllm::run_ext_conformance(input);
    ASSERT_TRUE(a.ok);
    EXPECT_EQ(a.trace_json, b.trace_json);
    const json t = json::parse(a.trace_json);
    EXPECT_TRUE(t["completed"].get<bool>());
    EXPECT_LT(t["num_steps"].get<int>(), in["max_steps"].get<int>());
    const int usable = in["config"]["num_gpu_blocks"].get<int>() - 1;  // less the null block
    const bool async = in["config"]["async_scheduling"].get<bool>();
    for (const json& s : t["steps"]) {
      // Every block is free or held by a request the scheduler still has (with a consumer
      // under async scheduling, blocks may also wait for the fence of an in-flight step).
      std::set<int> used;
      for (const auto& r : s["block_ids"].items()) {
        for (const int b : r.value()[0]) used.insert(b);
      }
      const int free = s["num_free_blocks"].get<int>();
      if (async) {
        EXPECT_LE(free + static_cast<int>(used.size()), usable) << "step " << s["step"];
      } else {
        EXPECT_EQ(free + static_cast<int>(used.size()), usable) << "step " << s["step"];
      }
      for (const auto& h : s["held"]) EXPECT_TRUE(s["block_ids"].contains(h.get<std::string>()));
    }
    const json& last = t["steps"].back();
    EXPECT_TRUE(last["held"].empty());
    EXPECT_TRUE(last["waiting_for_remote_kvs"].empty());
    EXPECT_EQ(last["num_free_blocks"].get<int>(), usable);
  }
}

// Counts over the steps of a trace.
struct Seen {
  int preempted = 0, flushed = 0, expired = 0, max_waiting_remote = 0, min_free = 1 << 30;
};
Seen seen(const json& t) {
  Seen v;
  for (const json& s : t["steps"]) {
    v.preempted += s.contains("preempted") ? static_cast<int>(s["preempted"].size()) : 0;
    if (s.contains("connector_meta") && s["connector_meta"].contains("jobs_to_flush"))
      v.flushed += static_cast<int>(s["connector_meta"]["jobs_to_flush"].size());
    v.expired += s.contains("expired_sends") ? static_cast<int>(s["expired_sends"].size()) : 0;
    v.max_waiting_remote =
        std::max(v.max_waiting_remote, static_cast<int>(s["waiting_for_remote_kvs"].size()));
    v.min_free = std::min(v.min_free, s["num_free_blocks"].get<int>());
  }
  return v;
}

TEST(ExtCrafted, EachInputReachesThePathItIsFor) {
  // NIXL decode side short of blocks: loads wait while running requests are preempted.
  Seen d = seen(run(crafted_input("nixl-decode-pressure")));
  EXPECT_GT(d.max_waiting_remote, 1);
  EXPECT_GT(d.preempted, 0);
  d = seen(run(crafted_input("nixl-decode-pressure-async-priority")));
  EXPECT_GT(d.preempted, 0);
  // NIXL prefill side: held blocks exhaust the pool, leases run out.
  Seen p = seen(run(crafted_input("nixl-prefill-pressure")));
  EXPECT_LE(p.min_free, 1);
  EXPECT_GT(p.expired, 0);
  p = seen(run(crafted_input("nixl-prefill-async")));
  EXPECT_GT(p.preempted, 0);
  EXPECT_GT(p.expired, 0);
  // Offloading: the CPU tier is too small (allocation failures); a preemption flushes stores.
  const json o = run(crafted_input("offload-evict-preempt"));
  EXPECT_GT(seen(o).preempted, 0);
  EXPECT_GT(seen(o).flushed, 0);
  EXPECT_GT(final_total(o, "vllm:kv_offload_allocation_failure_total"), 0);
  EXPECT_GT(final_total(run(crafted_input("offload-tiny-cpu")),
                        "vllm:kv_offload_allocation_failure_total"),
            100);
  // ARC with store_threshold 2: most chunks are skipped (looked up once), more chunks are
  // stored than the 4 CPU blocks hold (ARC evicts), and a prompt seen a third time is served
  // from the CPU tier.
  const json a = run(crafted_input("offload-arc-threshold"));
  EXPECT_GT(final_total(a, "vllm:kv_offload_stores_skipped_total"), 10);
  EXPECT_GT(final_total(a, "vllm:kv_offload_cpu_allocation_size_sum"),
            json::parse(crafted_input("offload-arc-threshold"))["connector"]["num_cpu_blocks"]
                .get<double>());
  int loads = 0;
  for (const json& s : a["steps"]) {
    if (s.contains("connector_meta") && s["connector_meta"].contains("load_jobs"))
      loads += static_cast<int>(s["connector_meta"]["load_jobs"].size());
  }
  EXPECT_GT(loads, 0);
  EXPECT_GT(final_total(a, "vllm:external_prefix_cache_hits_total"), 0);
}

json tiny_case(const std::string& connector, const json& requests) {
  json d = json::parse(R"({"config": {"block_size": 16, "num_gpu_blocks": 5, "max_num_seqs": 4,
      "max_num_batched_tokens": 64, "max_model_len": 64, "enable_chunked_prefill": true,
      "long_prefill_token_threshold": 0, "enable_prefix_caching": true, "policy": "fcfs",
      "async_scheduling": false}, "metrics": {"step_seconds": 0.0625, "dump_steps": []},
      "aborts": [], "max_steps": 50})");
  d["connector"] = json::parse(connector);
  d["requests"] = requests;
  return d;
}

json request(const std::string& id, int len, int max_tokens, int step, int base) {
  json r = {{"id", id}, {"arrival_step", step}, {"max_tokens", max_tokens}, {"priority", 0}};
  json prompt = json::array();
  for (int k = 0; k < len; ++k) prompt.push_back(base + k);
  r["prompt"] = prompt;
  return r;
}

TEST(ExtConnectorOrder, SendsReportedTogetherFreeTheirBlocksInPythonSetOrder) {
  // scheduler.py _update_from_kv_xfer_finished frees each finished_sending request in the
  // set's order; KVCacheManager.free returns a request's blocks tail first to the back of the
  // free queue. {"p1", "p4"} iterates p4 first (CPython 3.11, PYTHONHASHSEED=0), so after
  // p1 [1, 2] and p4 [3, 4] are read in the same step the queue is 4, 3, 2, 1 and the next
  // prompt gets block 4 (in finish order, p1 first, it would get 2).
  json reqs = json::array();
  json p1 = request("p1", 32, 1, 0, 100), p4 = request("p4", 32, 1, 0, 5000);
  p1["kv_transfer_params"] = p4["kv_transfer_params"] = {{"do_remote_decode", true}};
  reqs.push_back(p1);
  reqs.push_back(p4);
  reqs.push_back(request("q", 16, 2, 4, 9000));
  const json t = run(tiny_case(R"({"kind": "nixl", "kv_connector": "NixlConnector",
      "kv_role": "kv_producer", "engine_id": "P0", "read_steps": 2})",
                               reqs)
                         .dump());
  ASSERT_GT(t["steps"].size(), 4u);
  EXPECT_EQ(t["steps"][3]["finished_sending"], json::parse(R"(["p1", "p4"])"));
  EXPECT_EQ(t["steps"][4]["block_ids"]["q"], json::parse("[[4]]"));
}

TEST(ExtConnectorOrder, FinishedRequestsStoreInPythonSetOrder) {
  // offloading/scheduler.py _build_store_jobs walks finished_req_ids (a set) after the
  // scheduled requests. With offload_prompt_only off, a 15-token prompt's one sampled token
  // fills its first chunk, stored at the build after the finish: p4 comes first in the set
  // {"p1", "p4"}, so it gets job 0 although p1 finished first.
  json reqs = json::array();
  reqs.push_back(request("p1", 15, 1, 0, 100));
  reqs.push_back(request("p4", 15, 1, 0, 5000));
  json c = tiny_case(R"({"kind": "offloading", "kv_connector": "OffloadingConnector",
      "kv_role": "kv_both", "engine_id": "E0", "num_cpu_blocks": 8,
      "extra_config": {"offload_prompt_only": false}})",
                     reqs);
  const json t = run(c.dump());
  ASSERT_GT(t["steps"].size(), 1u);
  EXPECT_EQ(t["steps"][0]["finished"], json::parse(R"(["p1", "p4"])"));
  EXPECT_EQ(t["steps"][1]["connector_meta"]["store_jobs"],
            json::parse(R"({"0": "p4", "1": "p1"})"));
}

TEST(ExtConnectorOrder, AStoredJobsChunksBecomeEvictableInKeySetOrder) {
  // scheduler.py update_connector_output -> manager.complete_store(job.keys): the job's keys
  // are a set of OffloadKey bytes (vLLM block hash + group), each made evictable (appended to
  // the LRU) in the set's order. For a = tokens 100..147 the three keys iterate chunk 1, 0, 2
  // (sha256/pickle block hashes, CPython 3.11, PYTHONHASHSEED=0). b's 4-chunk store finds 3
  // of 6 CPU blocks free and evicts one idle chunk from the LRU front: a's chunk 1. c, with
  // a's prompt and a's GPU blocks gone to b, then hits chunk 0 only: a 16-token load (in
  // chunk order chunk 0 would be evicted and c would load nothing).
  json reqs = json::array();
  reqs.push_back(request("a", 48, 1, 0, 100));
  reqs.push_back(request("b", 64, 1, 3, 5000));
  reqs.push_back(request("c", 48, 2, 6, 100));
  json c = tiny_case(R"({"kind": "offloading", "kv_connector": "OffloadingConnector",
      "kv_role": "kv_both", "engine_id": "E0", "num_cpu_blocks": 6})",
                     reqs);
  c["config"]["max_model_len"] = 128;
  const json t = run(c.dump());
  ASSERT_GT(t["steps"].size(), 8u);
  EXPECT_EQ(t["steps"][3]["connector_meta"]["store_jobs"], json::parse(R"({"1": "b"})"));
  EXPECT_EQ(t["steps"][6]["connector_meta"]["load_jobs"], json::parse(R"({"2": "c"})"));
  EXPECT_EQ(t["steps"][8]["scheduled"], json::parse(R"({"c": 32})"));
}

TEST(ExtConnectorOrder, AbortsQueuedInOneStepAreAppliedInPythonSetOrder) {
  // engine/core.py _process_aborts_queue makes one finish_requests call for the queued ids,
  // and scheduler.py finish_requests walks set(request_ids): {"p1", "p4"} frees p4 first.
  // BlockPool.free_blocks prepends a request's unhashed blocks (p4's 6, then p1's 5) and
  // appends its hashed ones, so q's four blocks start 5, 6 (in queue order: 6, 5).
  json reqs = json::array();
  reqs.push_back(request("p1", 32, 10, 0, 100));
  reqs.push_back(request("p4", 32, 10, 0, 5000));
  reqs.push_back(request("q", 64, 2, 5, 9000));
  json c = tiny_case(R"({"kind": "nixl", "kv_connector": "NixlConnector",
      "kv_role": "kv_producer", "engine_id": "P0"})",
                     reqs);
  c["config"]["num_gpu_blocks"] = 9;
  c["config"]["max_num_batched_tokens"] = 128;
  c["config"]["max_model_len"] = 128;
  c["config"]["async_scheduling"] = true;
  c["aborts"] = json::parse(R"([{"id": "p1", "step": 3, "phase": "during_step"},
                                {"id": "p4", "step": 3, "phase": "during_step"}])");
  const json t = run(c.dump());
  ASSERT_GT(t["steps"].size(), 5u);
  EXPECT_EQ(t["steps"][3]["aborted_before_update"], json::parse(R"(["p4", "p1"])"));
  EXPECT_EQ(t["steps"][5]["block_ids"]["q"], json::parse("[[5, 6, 7, 8]]"));
}

}  // namespace
}  // namespace blis
