#pragma once
// KVConnector: the scheduler side of a KV connector (vllm distributed/kv_transfer/
// kv_connector/v1/base.py KVConnectorBase_V1), the hook through which P/D transfer (NIXL)
// and KV offloading plug into the scheduler (spec vllm-metrics-connector-config.md §B).
// The scheduler asks it how many tokens beyond the local prefix hit it can supply, tells it
// which blocks were allocated, and lets it keep a finished request's blocks until a
// transfer reports done (Scheduler::finished_recving / finished_sending).

#include <cstdint>
#include <span>

#include "engine/vllm/request.h"

namespace blis::vllm {

// get_num_new_matched_tokens' answer.
struct MatchedTokens {
  bool decided = true;            // false = "ask again later" (None upstream)
  std::int32_t num_external = 0;  // tokens beyond the local hit the connector supplies
  bool load_async = false;        // loaded between steps (the request waits for it)
};

class KVConnector {
 public:
  virtual ~KVConnector() = default;
  virtual MatchedTokens get_num_new_matched_tokens(const Request& r,
                                                   std::int32_t num_local_computed) = 0;
  virtual void update_state_after_alloc(const Request& r, std::span<const std::int32_t> blocks,
                                        std::int32_t num_external_tokens) = 0;
  // Called once when a request ends, before its blocks are freed. True = the connector keeps
  // the blocks until Scheduler::finished_sending(request).
  virtual bool request_finished(const Request& r, std::span<const std::int32_t> blocks) = 0;
};

}  // namespace blis::vllm
