// Differential test of the CPU offloading manager and its cache policies against vLLM's own:
// tests/engine/data/offload_policy_golden.json holds fixed random operation sequences run by
// tests/engine/data/gen_offload_policy_golden.py through upstream's CPUOffloadingManager
// (v1/kv_offload/cpu/manager.py) with LRUCachePolicy / ARCCachePolicy (cpu/policies/*.py) and
// store_threshold. Every step is replayed through CpuOffloadingManager and compared: the
// operation's result, every stored block (ref_cnt, block_id), the policy's ordered lists
// (LRU's evictable list; ARC's T1, T2, B1, B2 and target_t1_size) and the lookup counter.

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/vllm/connector/cpu_offloading_manager.h"

namespace blis::vllm {
namespace {

using json = nlohmann::json;

BlockHash key(std::int64_t k) {
  return BlockHash{0x5eed, static_cast<std::uint64_t>(k)};
}
std::int64_t id(const BlockHash& h) {
  return static_cast<std::int64_t>(h.lo);
}

std::vector<BlockHash> keys_of(const json& a) {
  std::vector<BlockHash> out;
  for (const auto& k : a) out.push_back(key(k.get<std::int64_t>()));
  return out;
}

json ids(const std::vector<BlockHash>& v) {
  json out = json::array();
  for (const BlockHash& h : v) out.push_back(id(h));
  return out;
}

const char* name(LookupResult r) {
  switch (r) {
    case LookupResult::kMiss:
      return "MISS";
    case LookupResult::kHitPending:
      return "HIT_PENDING";
    case LookupResult::kHit:
      return "HIT";
  }
  return "?";
}

json policy_state(const CachePolicy& p) {
  if (const auto* arc = dynamic_cast<const ArcCachePolicy*>(&p)) {
    return {{"t1", ids(arc->t1())},
            {"t2", ids(arc->t2())},
            {"b1", ids(arc->b1())},
            {"b2", ids(arc->b2())},
            {"target_t1_size", arc->target_t1_size()}};
  }
  return {{"evictable", ids(dynamic_cast<const LruCachePolicy&>(p).evictable_order())}};
}

json blocks_state(const CachePolicy& p, std::int64_t num_keys) {
  json out = json::array();
  for (std::int64_t k = 0; k < num_keys; ++k) {
    if (const OffloadBlock* b = p.find(key(k))) out.push_back({k, b->ref_cnt, b->block_id});
  }
  return out;
}

json load_golden() {
  std::ifstream in(std::string(BLIS_SOURCE_DIR) + "/tests/engine/data/offload_policy_golden.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

TEST(OffloadPolicyGolden, EveryStepMatchesUpstreamsManagerAndPolicies) {
  const json golden = load_golden();
  ASSERT_GE(golden.at("cases").size(), 6u);
  bool saw_arc_ghost_hit = false, saw_skip = false, saw_tracker_drop = false;
  for (const json& c : golden.at("cases")) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    CpuOffloadingOptions opts;
    opts.cache_policy = *cache_policy_kind(c.at("eviction_policy").get<std::string>());
    opts.store_threshold = c.at("store_threshold").get<std::int64_t>();
    opts.max_tracker_size = c.at("max_tracker_size").get<std::int64_t>();
    CpuOffloadingManager m(c.at("num_blocks").get<std::int64_t>(), opts);
    std::int64_t num_keys = 0;
    for (const json& s : c.at("steps"))
      for (const auto& k : s.value("keys", json::array()))
        num_keys = std::max(num_keys, k.get<std::int64_t>() + 1);
    std::vector<BlockHash> to_store;
    double last_target = 0;
    std::size_t step_no = 0;
    for (const json& s : c.at("steps")) {
      SCOPED_TRACE("step " + std::to_string(step_no++) + ": " + s.dump().substr(0, 160));
      const std::string op = s.at("op");
      const std::vector<BlockHash> keys = keys_of(s.value("keys", json::array()));
      if (op == "lookup") {
        EXPECT_EQ(name(m.lookup(keys.at(0))), s.at("result").get<std::string>());
      } else if (op == "touch") {
        m.touch(keys);
      } else if (op == "prepare_store") {
        const bool ok = m.prepare_store(keys, to_store);
        const json& want = s.at("result");
        ASSERT_EQ(ok, !want.is_null());
        if (ok) {
          EXPECT_EQ(ids(to_store), want.at("keys_to_store"));
          json block_ids = json::array();
          for (const BlockHash& k : to_store) block_ids.push_back(m.policy().find(k)->block_id);
          EXPECT_EQ(block_ids, want.at("block_ids"));
          json evicted = json::array();
          for (const auto& e : m.last_evicted()) evicted.push_back(id(e.first));
          EXPECT_EQ(evicted, want.at("evicted_keys"));
        }
      } else if (op == "complete_store") {
        m.complete_store(keys);
      } else if (op == "prepare_load") {
        m.prepare_load(keys);
      } else if (op == "complete_load") {
        m.complete_load(keys);
      } else {
        ASSERT_EQ(op, "stats");
        const CpuOffloadingStats st = m.take_stats();
        const json& want = s.at("result");
        EXPECT_EQ(st.usage, want.at("usage").get<double>());
        EXPECT_EQ(st.write_usage, want.at("write_usage").get<double>());
        EXPECT_EQ(st.read_usage, want.at("read_usage").get<double>());
        EXPECT_EQ(json(st.allocation_sizes), want.at("allocation_sizes"));
        ASSERT_EQ(st.has_stores_skipped, !want.at("stores_skipped").is_null());
        if (st.has_stores_skipped) {
          EXPECT_EQ(st.stores_skipped, want.at("stores_skipped").get<std::int64_t>());
          saw_skip = saw_skip || st.stores_skipped > 0;
        }
      }
      const json state = policy_state(m.policy());
      ASSERT_EQ(state, s.at("policy"));
      ASSERT_EQ(blocks_state(m.policy(), num_keys), s.at("blocks"));
      if (s.contains("counts")) {
        json counts = json::array();
        for (const auto& kc : m.lookup_counts()) counts.push_back({id(kc.first), kc.second});
        ASSERT_EQ(counts, s.at("counts"));
        saw_tracker_drop =
            saw_tracker_drop || static_cast<std::int64_t>(counts.size()) == opts.max_tracker_size;
      }
      if (state.contains("target_t1_size")) {
        const double t = state.at("target_t1_size").get<double>();
        saw_arc_ghost_hit = saw_arc_ghost_hit || t != last_target;
        last_target = t;
      }
    }
  }
  // The sequences exercise what they are for.
  EXPECT_TRUE(saw_arc_ghost_hit);
  EXPECT_TRUE(saw_skip);
  EXPECT_TRUE(saw_tracker_drop);
}

}  // namespace
}  // namespace blis::vllm
