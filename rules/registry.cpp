// find_pack / known_releases over the packs in rules/packs/.

#include "rules/packs/packs.h"
#include "rules/rules.h"
#include "util/release.h"

namespace blis::rules {

namespace {

const std::vector<const Pack*>& all_packs() {
  static const std::vector<const Pack*> packs = {&packs::vllm_0_29(), &packs::vllm_0_31(),
                                                 &packs::vllm_0_32()};
  return packs;
}

}  // namespace

const Pack* find_pack(std::string_view release) {
  // One reading of release strings (util/release.h): "0.32" and "0.32.0" are the 0.32.0 pack,
  // every "0.29.<n>" the 0.29.x pack.
  const std::optional<ReleaseVersion> wanted = parse_release_version(release);
  if (!wanted) return nullptr;
  for (const Pack* p : all_packs()) {
    const std::optional<ReleaseVersion> have = parse_release_version(p->release);
    if (have && release_matches(*wanted, *have)) return p;
  }
  return nullptr;
}

const Pack& default_pack() {
  return *find_pack(kDefaultVllmRelease);
}

std::vector<std::string> known_releases() {
  std::vector<std::string> out;
  for (const Pack* p : all_packs()) out.push_back(p->release);
  return out;
}

}  // namespace blis::rules
