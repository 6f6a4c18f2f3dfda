#pragma once
// stats.py LoRARequestStates: which LoRA adapters have waiting or running requests, as the
// frontend tracks them from engine-core events, for vllm:lora_requests_info.

#include <cstdint>
#include <string>
#include <vector>

namespace blis::vllm::metrics {

class LoRARequestStates {
 public:
  enum class Status : std::uint8_t { kNone, kWaiting, kRunning };

  // Adapter names by id (id 1 is names[0]); an id without a name is written as its number.
  explicit LoRARequestStates(std::vector<std::string> names = {});

  // LoRARequestStates._request_update for one request of adapter `lora_id` (> 0) moving
  // from `from` to `to` (QUEUED/PREEMPTED -> waiting, SCHEDULED -> running, finish -> none).
  void update(std::int32_t lora_id, Status from, Status to);

  // The adapters with a waiting or running request, comma-joined in the order they became
  // active (a dict's key order in vLLM; an adapter that empties is removed, and appended
  // again when it comes back).
  const std::string& adapters() const { return joined_; }

 private:
  struct Entry {
    std::int32_t lora_id;
    std::int32_t waiting;
    std::int32_t running;
  };
  void rebuild();

  std::vector<std::string> names_;
  std::vector<Entry> active_;  // insertion order
  std::string joined_;
};

}  // namespace blis::vllm::metrics
