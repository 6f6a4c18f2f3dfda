#pragma once
// Endpoint labels: a pool's pools[].labels (plus llm-d.ai/role), and the rules of the plugins
// that read them: label-selector-filter (a Kubernetes label selector) and
// context-length-aware (a "min-max" token range label).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cluster/epp/config.h"

namespace blis::cluster::epp {

using Labels = std::map<std::string, std::string>;

// The label llm-d's role filters read (pkg/epp/framework/plugins/scheduling/filter/bylabel).
inline constexpr const char* kRoleLabel = "llm-d.ai/role";

// label-selector-filter: matchLabels and matchExpressions (spec.obj / spec.selector) all hold.
bool selector_matches(const PluginSpec& spec, const Labels& labels);

// bylabel/filter.go Filter: an endpoint passes when its `label` has one of `valid_values`
// (an absent label reads as ""), or when it has no such label and `allows_no_label`.
bool by_label_keeps(const Labels& labels, const std::string& label,
                    const std::vector<std::string>& valid_values, bool allows_no_label);

// context_length_aware.go parseContextRange: "min-max" (integers, min <= max).
bool parse_context_range(const std::string& s, std::int64_t& lo, std::int64_t& hi);
// context_length_aware.go calculateRangeScore.
double context_range_score(std::int64_t n, std::int64_t lo, std::int64_t hi);

// context_length_aware.go: the label the plugin reads (its `label` parameter, this default).
inline constexpr const char* kContextRangeLabel = "llm-d.ai/context-length-range";

// One endpoint's context-length range, as the filter and the scorer both read it.
struct ContextRange {
  bool labelled = false;  // the endpoint carries the label
  bool valid = false;     // and its value parses (parse_context_range)
  std::int64_t lo = 0;
  std::int64_t hi = 0;
};
ContextRange context_range(const Labels& labels, const std::string& label);

}  // namespace blis::cluster::epp
