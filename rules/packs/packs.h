#pragma once
// The rules packs, one per vLLM release (rules/packs/vllm_<release>.cpp).

#include "rules/pack.h"

namespace blis::rules::packs {

const Pack& vllm_0_29();
const Pack& vllm_0_31();
const Pack& vllm_0_32();

}  // namespace blis::rules::packs
