#pragma once
// Which vLLM release the metrics model, and which vllm:* families that release registers.
//
// Families differ by release: vLLM deprecates a metric in X.Y, hides it in X.Y+1 (shown only
// with --show-hidden-metrics-for-version=X.Y) and removes it in X.Y+2 (docs/usage/metrics.md,
// "Deprecation Policy"), and adds new ones. The table in family_table.cpp records, for every
// family, the first release that exposes it; docs/metrics.md explains each row's source.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace blis::vllm::metrics {

// The releases the project has rules packs for. The value is vLLM's minor version.
enum class Release : std::uint8_t { kV0_29 = 29, kV0_31 = 31, kV0_32 = 32 };

inline constexpr Release kDefaultRelease = Release::kV0_32;

// Accepts "0.29", "0.29.x", "0.29.0", "0.31.2", ... (any patch of a supported minor release).
std::optional<Release> parse_release(std::string_view text);
// "0.29", "0.31", "0.32".
std::string release_name(Release release);
inline int minor_version(Release release) {
  return static_cast<int>(release);
}

}  // namespace blis::vllm::metrics
