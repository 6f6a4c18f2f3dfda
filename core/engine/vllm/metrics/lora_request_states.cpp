#include "engine/vllm/metrics/lora_request_states.h"

namespace blis::vllm::metrics {

LoRARequestStates::LoRARequestStates(std::vector<std::string> names) : names_(std::move(names)) {}

// LoRAStats.update: the request leaves its old set and joins the new one; the adapter's
// entry is created on first use and deleted once both sets are empty.
void LoRARequestStates::update(std::int32_t lora_id, Status from, Status to) {
  if (lora_id <= 0 || from == to) return;
  std::size_t i = 0;
  while (i < active_.size() && active_[i].lora_id != lora_id) ++i;
  bool changed = false;
  if (i == active_.size()) {
    if (to == Status::kNone) return;  // created and deleted again: no trace
    active_.push_back(Entry{lora_id, 0, 0});
    changed = true;
  }
  Entry& e = active_[i];
  if (from == Status::kWaiting) --e.waiting;
  if (from == Status::kRunning) --e.running;
  if (to == Status::kWaiting) ++e.waiting;
  if (to == Status::kRunning) ++e.running;
  if (e.waiting <= 0 && e.running <= 0) {
    active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(i));
    changed = true;
  }
  if (changed) rebuild();
}

void LoRARequestStates::rebuild() {
  joined_.clear();
  for (std::size_t i = 0; i < active_.size(); ++i) {
    if (i > 0) joined_.push_back(',');
    const std::size_t idx = static_cast<std::size_t>(active_[i].lora_id - 1);
    if (idx < names_.size()) {
      joined_ += names_[idx];
    } else {
      joined_ += std::to_string(active_[i].lora_id);
    }
  }
}

}  // namespace blis::vllm::metrics
