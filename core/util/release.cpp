#include "util/release.h"

namespace blis {
namespace {

// A run of decimal digits from `pos`; -1 when there is none, when it has a leading zero ("032"
// is not 32) or when it is implausibly long.
int parse_number(std::string_view text, std::size_t& pos) {
  if (pos >= text.size() || text[pos] < '0' || text[pos] > '9') return -1;
  if (text[pos] == '0' && pos + 1 < text.size() && text[pos + 1] >= '0' && text[pos + 1] <= '9')
    return -1;
  int value = 0;
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
    if (value > 100000) return -1;
    value = value * 10 + (text[pos] - '0');
    ++pos;
  }
  return value;
}

}  // namespace

std::optional<ReleaseVersion> parse_release_version(std::string_view text) {
  ReleaseVersion v;
  std::size_t pos = 0;
  v.major = parse_number(text, pos);
  if (v.major < 0 || pos >= text.size() || text[pos] != '.') return std::nullopt;
  ++pos;
  v.minor = parse_number(text, pos);
  if (v.minor < 0) return std::nullopt;
  if (pos == text.size()) return v;
  if (text[pos] != '.') return std::nullopt;
  ++pos;
  if (pos + 1 == text.size() && text[pos] == 'x') {
    v.any_patch = true;
    return v;
  }
  const int patch = parse_number(text, pos);
  if (patch < 0 || pos != text.size()) return std::nullopt;
  v.patch = patch;
  return v;
}

bool release_matches(const ReleaseVersion& wanted, const ReleaseVersion& have) {
  if (wanted.major != have.major || wanted.minor != have.minor) return false;
  if (have.any_patch) return true;
  if (wanted.any_patch) return false;
  return !wanted.patch || !have.patch || *wanted.patch == *have.patch;
}

}  // namespace blis
