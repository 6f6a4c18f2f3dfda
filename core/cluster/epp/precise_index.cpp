#include "cluster/epp/precise_index.h"

#include <algorithm>

#include "engine/vllm/kv/block_hash.h"

namespace blis::cluster::epp {

class PreciseIndex::Listener : public engine::KvEventListener {
 public:
  Listener(PreciseIndex* owner, std::int32_t instance) : owner_(owner), instance_(instance) {}
  void block_stored(std::uint64_t hi, std::uint64_t lo) override {
    owner_->stored(instance_, Key{hi, lo});
  }
  void block_removed(std::uint64_t hi, std::uint64_t lo) override {
    owner_->removed(instance_, Key{hi, lo});
  }

 private:
  PreciseIndex* owner_;
  std::int32_t instance_;
};

PreciseIndex::PreciseIndex(std::size_t instances, std::int32_t block_size)
    : block_size_(block_size) {
  for (std::size_t i = 0; i < instances; ++i)
    listeners_.push_back(std::make_unique<Listener>(this, static_cast<std::int32_t>(i)));
}

void PreciseIndex::stored(std::int32_t instance, Key k) {
  auto& holders = held_[k];
  for (auto& [inst, n] : holders) {
    if (inst == instance) {
      ++n;
      return;
    }
  }
  holders.emplace_back(instance, 1);
}

void PreciseIndex::removed(std::int32_t instance, Key k) {
  const auto it = held_.find(k);
  if (it == held_.end()) return;
  auto& holders = it->second;
  for (std::size_t i = 0; i < holders.size(); ++i) {
    if (holders[i].first != instance) continue;
    if (--holders[i].second <= 0) holders.erase(holders.begin() + static_cast<std::ptrdiff_t>(i));
    break;
  }
  if (holders.empty()) held_.erase(it);
}

void PreciseIndex::hash_prompt(const std::vector<std::int32_t>& prompt, std::int32_t lora_id,
                               std::int32_t max_blocks, std::vector<std::uint64_t>& out_hi,
                               std::vector<std::uint64_t>& out_lo) const {
  out_hi.clear();
  out_lo.clear();
  // vllm v1/core/kv_cache_utils.py hash_block_tokens over full blocks, LoRA as extra key
  // (the engine's Request::block_hashes does the same).
  vllm::BlockExtraKeys extra;
  extra.lora_id = lora_id;
  const auto full = static_cast<std::int32_t>(prompt.size()) / block_size_;
  const std::int32_t n = std::min(full, max_blocks);
  vllm::BlockHash parent{};
  for (std::int32_t b = 0; b < n; ++b) {
    const vllm::BlockHash h = vllm::hash_block_tokens(
        b == 0 ? nullptr : &parent, prompt.data() + static_cast<std::size_t>(b) * block_size_,
        block_size_, extra);
    out_hi.push_back(h.hi);
    out_lo.push_back(h.lo);
    parent = h;
  }
}

void PreciseIndex::match(const std::vector<std::uint64_t>& hi, const std::vector<std::uint64_t>& lo,
                         std::vector<std::int32_t>& matches) const {
  std::fill(matches.begin(), matches.end(), 0);
  // An instance's match is its run of leading held blocks; walk until no instance is on it.
  for (std::size_t b = 0; b < hi.size(); ++b) {
    const auto it = held_.find(Key{hi[b], lo[b]});
    if (it == held_.end()) return;
    bool any = false;
    for (const auto& [inst, n] : it->second) {
      const auto i = static_cast<std::size_t>(inst);
      if (i < matches.size() && matches[i] == static_cast<std::int32_t>(b)) {
        ++matches[i];
        any = true;
      }
    }
    if (!any) return;
  }
}

}  // namespace blis::cluster::epp
