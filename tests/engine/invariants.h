#pragma once
// Named invariants of the KV cache and the scheduler, checked by the property and stress
// tests after every operation. Each returns "" when it holds, else what is wrong.

#include <string>

#include "engine/vllm/kv/kv_cache_manager.h"
#include "engine/vllm/sched/scheduler.h"

namespace blis::vllm::testing {

// free + in use = total; no block both free and referenced; ref counts equal the number of
// block tables holding the block; the hash index agrees with the blocks' hashes.
std::string check_kv_invariants(const KVCacheManager& kv);

// The KV invariants plus: running and waiting queues are disjoint and hold the right
// statuses, waiting requests hold no blocks, running requests hold slots for their computed
// tokens, counters are non-negative, max_num_seqs is respected.
std::string check_scheduler_invariants(const Scheduler& s);

}  // namespace blis::vllm::testing
