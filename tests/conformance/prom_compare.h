#pragma once
// Compares two Prometheus text expositions the way the ext format says (tests/conformance/
// data/ext/FORMAT.md section 6): both are parsed; the families must come in the same order
// with the same HELP text and TYPE, and the same sample lines in the same order with the
// same label sets. Values: counters, gauges, bucket counts and _count exactly (the
// floatToGoString text must be identical); the _sum of the seconds histograms (which
// includes request_time_per_output_token_seconds) to a relative 1e-9; kv_cache_usage_perc
// to 1e-12. vllm:cache_config_info is left out.

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace blis::testing {

struct PromSample {
  std::string name;                                         // e.g. vllm:x_bucket
  std::vector<std::pair<std::string, std::string>> labels;  // sorted by name
  std::string value;                                        // as written
};

struct PromFamily {
  std::string name;  // as in "# HELP" (counters with _total)
  std::string help;
  std::string type;
  std::vector<PromSample> samples;
};

// Parses an exposition; on a malformed line returns false and sets `error` (line number
// and text).
bool parse_exposition(const std::string& text, std::vector<PromFamily>& out, std::string& error);

struct PromMismatch {
  std::string family;  // "" when the family lists differ
  std::string sample;  // the expected sample line, when a sample differs
  std::string message;
};

std::optional<PromMismatch> compare_expositions(const std::string& expected,
                                                const std::string& actual);

}  // namespace blis::testing
