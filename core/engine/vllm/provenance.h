#pragma once
// Where the vLLM engine model comes from: the vLLM release it models and the upstream commit
// whose behaviour the golden traces (tests/conformance) were produced from.

#include <string_view>

#include "engine/engine.h"
#include "util/release.h"

namespace blis::vllm {

inline constexpr std::string_view kModelledRelease = kDefaultVllmRelease;
inline constexpr const char* kUpstreamRepo = "vllm-project/vllm";
inline constexpr const char* kUpstreamCommit = "8d9b52f7c2514490bdadfd5eb0c931e58625df2e";

engine::Provenance engine_provenance();

}  // namespace blis::vllm
