#pragma once
// Deployment facts for the rules tests: GPUs as vLLM's platform reports them and models as
// ModelConfig derives them (values from the models' Hugging Face config.json files).

#include "rules/rules.h"

namespace blis::rules::testing {

inline HardwareFacts h100() {
  return {true, "NVIDIA H100 80GB HBM3", 79.65, true};
}
inline HardwareFacts a100_80() {
  return {true, "NVIDIA A100-SXM4-80GB", 80.0, false};
}
inline HardwareFacts b200() {
  return {true, "NVIDIA B200", 180.0, true};
}
inline HardwareFacts l40s() {
  return {true, "NVIDIA L40S", 44.4, true};
}
inline HardwareFacts mi300x() {
  return {true, "AMD Instinct MI300X", 178.8, true};
}

// Llama-3.1: 8 KV heads (num_key_value_heads) in both sizes.
inline ModelFacts llama31_8b() {
  ModelFacts m{true, 131072, 32, "", "bfloat16"};
  m.num_kv_heads = 8;
  return m;
}
inline ModelFacts llama31_70b() {
  ModelFacts m{true, 131072, 64, "", "bfloat16"};
  m.num_kv_heads = 8;
  return m;
}
// deepseek-ai/DeepSeek-V2-Lite: MLA (kv_lora_rank 512), 163840 positions, 16 heads.
inline ModelFacts mla_model() {
  return {true, 163840, 16, "", "bfloat16", true};
}
inline ModelFacts fbgemm_model() {
  return {true, 131072, 128, "fbgemm_fp8", "bfloat16"};
}
inline ModelFacts gptq_model() {
  return {true, 32768, 32, "gptq", "float16"};
}

inline DeploymentFacts deployment(HardwareFacts hw = h100(), ModelFacts m = llama31_8b(),
                                  int tp = 1, std::string role = "unified") {
  DeploymentFacts f;
  f.hardware = hw;
  f.model = m;
  f.tp = tp;
  f.role = role;
  f.pointer = "/pools/0";
  return f;
}

}  // namespace blis::rules::testing
