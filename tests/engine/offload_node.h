#pragma once
// A VllmEngine with an OffloadingConnector on the engine tests' small configuration (15 usable
// GPU blocks of 4 tokens, 8-token CPU chunks), stepped synchronously: the offloading tests'
// one harness.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "engine/engine_test_specs.h"
#include "engine/vllm/connector/offloading_connector.h"
#include "engine/vllm/vllm_engine.h"

namespace blis::vllm::enginetest {

struct OffloadNode {
  explicit OffloadNode(std::int64_t cpu_blocks, const CpuOffloadingOptions& cpu = {})
      : e(small_engine_config(16, 60, false)) {
    OffloadingConfig oc;
    oc.num_cpu_blocks = cpu_blocks;
    oc.gpu_block_size = 4;
    oc.blocks_per_chunk = 2;  // 8-token chunks
    oc.cpu = cpu;
    auto c = std::make_unique<OffloadingConnector>(oc);
    conn = c.get();
    e.own_connector(std::move(c));
  }
  // One synchronous pass; transfers handed out are kept in `pending`, the batch in `last`.
  const engine::Batch* step(SimTime now) {
    const engine::Batch* b = e.schedule(now);
    e.take_transfers(pending);
    if (b != nullptr) {
      last = *b;
      e.complete(b->id, {}, now);
    }
    return b;
  }
  void finish_transfers(SimTime now) {
    std::vector<engine::TransferRequest> ts;
    ts.swap(pending);
    for (const auto& t : ts) e.transfer_finished(t, now);
  }
  VllmEngine e;
  OffloadingConnector* conn = nullptr;
  std::vector<engine::TransferRequest> pending;
  engine::Batch last;
};

}  // namespace blis::vllm::enginetest
