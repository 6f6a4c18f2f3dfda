#include "engine/vllm/metrics/release.h"

#include <cstdio>

namespace blis::vllm::metrics {
namespace {

// Parses a run of decimal digits starting at `pos`; returns -1 if there is none.
int parse_number(std::string_view text, std::size_t& pos) {
  if (pos >= text.size() || text[pos] < '0' || text[pos] > '9') return -1;
  int value = 0;
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
    if (value > 100000) return -1;
    value = value * 10 + (text[pos] - '0');
    ++pos;
  }
  return value;
}

}  // namespace

std::optional<Release> parse_release(std::string_view text) {
  std::size_t pos = 0;
  if (parse_number(text, pos) != 0) return std::nullopt;
  if (pos >= text.size() || text[pos] != '.') return std::nullopt;
  ++pos;
  const int minor = parse_number(text, pos);
  if (pos < text.size()) {
    if (text[pos] != '.') return std::nullopt;
    ++pos;
    // "0.29.x" is how the rules pack names a release line (rules/packs/vllm_0_29.cpp).
    const bool any_patch = pos + 1 == text.size() && text[pos] == 'x';
    if (!any_patch && (parse_number(text, pos) < 0 || pos != text.size())) return std::nullopt;
  }
  switch (minor) {
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
