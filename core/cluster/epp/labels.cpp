#include "cluster/epp/labels.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "util/contains.h"

namespace blis::cluster::epp {

bool selector_matches(const PluginSpec& spec, const Labels& labels) {
  // k8s.io/apimachinery labels.Selector (LabelSelectorAsSelector): every requirement holds;
  // an empty selector matches everything.
  const auto ml = spec.obj.find("matchLabels");
  if (ml != spec.obj.end()) {
    for (const auto& [k, v] : ml->second) {
      const auto it = labels.find(k);
      if (it == labels.end() || it->second != v) return false;
    }
  }
  for (const SelectorRequirement& r : spec.selector) {
    const auto it = labels.find(r.key);
    const bool has = it != labels.end();
    const bool in =
        has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
    if (r.op == "In" && !in) return false;
    if (r.op == "NotIn" && in) return false;  // an absent label satisfies NotIn
    if (r.op == "Exists" && !has) return false;
    if (r.op == "DoesNotExist" && has) return false;
  }
  return true;
}

namespace {

// strconv.Atoi of a trimmed bound.
bool atoi_trimmed(std::string s, std::int64_t& v) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(0, 1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  if (s.empty() || s.size() > 18) return false;
  std::size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
  if (i == s.size()) return false;
  for (std::size_t j = i; j < s.size(); ++j)
    if (!std::isdigit(static_cast<unsigned char>(s[j]))) return false;
  v = std::strtoll(s.c_str(), nullptr, 10);
  return true;
}

}  // namespace

bool parse_context_range(const std::string& s, std::int64_t& lo, std::int64_t& hi) {
  // strings.Split(rangeStr, "-") must give exactly two parts.
  const auto dash = s.find('-');
  if (s.empty() || dash == std::string::npos || s.find('-', dash + 1) != std::string::npos)
    return false;
  if (!atoi_trimmed(s.substr(0, dash), lo) || !atoi_trimmed(s.substr(dash + 1), hi)) return false;
  return lo <= hi;
}

double context_range_score(std::int64_t n, std::int64_t lo, std::int64_t hi) {
  constexpr double kMaxFallback = 0.3;
  if (n >= lo && n <= hi) {
    const std::int64_t width = hi - lo;
    if (width == 0) return 1.0;
    const double width_score = 1.0 / (1.0 + static_cast<double>(width) / 10000.0);
    const double position = static_cast<double>(hi - n) / static_cast<double>(width);
    const double raw = 0.7 * width_score + 0.3 * position;
    return kMaxFallback + raw * (1.0 - kMaxFallback);
  }
  const std::int64_t distance = n > hi ? n - hi : lo - n;
  return kMaxFallback / (1.0 + static_cast<double>(distance) / 1000.0);
}

ContextRange context_range(const Labels& labels, const std::string& label) {
  ContextRange r;
  const auto it = labels.find(label);
  if (it == labels.end()) return r;
  r.labelled = true;
  r.valid = parse_context_range(it->second, r.lo, r.hi);
  return r;
}

bool by_label_keeps(const Labels& labels, const std::string& label,
                    const std::vector<std::string>& valid_values, bool allows_no_label) {
  const auto it = labels.find(label);
  const bool defined = it != labels.end();
  return (!defined && allows_no_label) || contains(valid_values, defined ? it->second : "");
}

}  // namespace blis::cluster::epp
