#include "catalog/entries.h"

#include <algorithm>

namespace blis::catalog {

const char* to_string(Kind k) {
  switch (k) {
    case Kind::kGpu:
      return "gpu";
    case Kind::kModel:
      return "model";
    case Kind::kFabric:
      return "fabric";
    case Kind::kCoefficients:
      return "coefficients";
  }
  return "?";
}

bool Quantization::applies_to(const std::string& group) const {
  if (method.empty()) return false;
  return std::find(scope.begin(), scope.end(), group) != scope.end();
}

bool Model::layer_is_moe(std::int32_t i) const {
  if (!is_moe() || i < moe.first_dense_layers) return false;
  // Llama-4 interleave_moe_layer_step: layer i is MoE when (i + 1) % step == 0
  // (vllm model_executor/models/llama4.py); DeepSeek's first_k_dense_replace shifts the start.
  const std::int32_t step = std::max(1, moe.layer_step);
  return (i - moe.first_dense_layers) % step == step - 1;
}

bool Model::calibrated_for(const std::string& gpu_id) const {
  return std::find(calibrated_on.begin(), calibrated_on.end(), gpu_id) != calibrated_on.end();
}

AttentionKind Model::layer_attention_kind(std::int32_t i) const {
  const auto& p = layer_attention.pattern;
  if (p.empty()) return AttentionKind::kFull;
  return p[static_cast<std::size_t>(i) % p.size()];
}

}  // namespace blis::catalog
