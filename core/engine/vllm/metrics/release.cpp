#include "engine/vllm/metrics/release.h"

#include <cstdio>

#include "util/release.h"

namespace blis::vllm::metrics {

std::optional<Release> parse_release(std::string_view text) {
  const std::optional<ReleaseVersion> v = parse_release_version(text);
  if (!v || v->major != 0) return std::nullopt;
  switch (v->minor) {
    case 29:
      return Release::kV0_29;
    case 31:
      return Release::kV0_31;
    case 32:
      return Release::kV0_32;
    default:
      return std::nullopt;
  }
}

std::string release_name(Release release) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0.%d", minor_version(release));
  return buf;
}

}  // namespace blis::vllm::metrics
