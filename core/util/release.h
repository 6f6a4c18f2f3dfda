#pragma once
// vLLM release strings, read one way everywhere: "0.32", "0.32.0", "0.32.4" and "0.29.x"
// (a release line, every patch of 0.29: how a rules pack names itself). The rules packs
// (rules/registry.cpp find_pack) and the metrics model (engine/vllm/metrics/release.h) both
// read them with parse_release_version; neither has a parser of its own.

#include <optional>
#include <string_view>

namespace blis {

// The vLLM release a pool models when its scenario names none, and the one the engine model
// and its conformance traces are of (engine/vllm/provenance.h).
inline constexpr std::string_view kDefaultVllmRelease = "0.32.0";

struct ReleaseVersion {
  int major = 0, minor = 0;
  std::optional<int> patch;  // absent for "0.32" and "0.29.x"
  bool any_patch = false;    // "0.29.x"
};

// MAJOR.MINOR, MAJOR.MINOR.PATCH or MAJOR.MINOR.x, each number plain decimal digits;
// anything else (pre-release tags such as "0.32.0rc1", a trailing dot, spaces) is nullopt.
std::optional<ReleaseVersion> parse_release_version(std::string_view text);

// Whether a release a user names (`wanted`) is served by a release line or patch (`have`):
// the same major.minor, and the same patch unless either leaves the patch open ("0.31" asks
// for any 0.31 the project has; a pack "0.29.x" answers for every 0.29 patch). A user's
// "0.31.x" is matched only by a pack that is itself a release line.
bool release_matches(const ReleaseVersion& wanted, const ReleaseVersion& have);

}  // namespace blis
