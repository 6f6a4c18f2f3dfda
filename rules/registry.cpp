// find_pack / known_releases over the packs in rules/packs/.

#include <algorithm>

#include "rules/packs/packs.h"
#include "rules/rules.h"

namespace blis::rules {

namespace {

const std::vector<const Pack*>& all_packs() {
  static const std::vector<const Pack*> packs = {&packs::vllm_0_29(), &packs::vllm_0_31(),
                                                 &packs::vllm_0_32()};
  return packs;
}

// "0.29.<digits>" matches the 0.29.x pack (patch releases share a pack).
bool matches_patch_series(const Pack& p, std::string_view release) {
  if (p.release.size() < 2 || p.release.compare(p.release.size() - 2, 2, ".x") != 0) return false;
  const std::string prefix = p.release.substr(0, p.release.size() - 1);  // "0.29."
  if (release.size() <= prefix.size() || release.substr(0, prefix.size()) != prefix) return false;
  const std::string_view patch = release.substr(prefix.size());
  return std::all_of(patch.begin(), patch.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

const Pack* find_pack(std::string_view release) {
  for (const Pack* p : all_packs()) {
    for (const auto& a : p->accepts) {
      if (a == release) return p;
    }
    if (matches_patch_series(*p, release)) return p;
  }
  return nullptr;
}

std::vector<std::string> known_releases() {
  std::vector<std::string> out;
  for (const Pack* p : all_packs()) out.push_back(p->release);
  return out;
}

}  // namespace blis::rules
