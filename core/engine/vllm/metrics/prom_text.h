#pragma once
// The pieces of Prometheus text exposition format 0.0.4 as vLLM's /metrics writes them
// through prometheus_client (exposition.py generate_latest, utils.py floatToGoString).
// Everything here is deterministic: the same bytes natively and in WebAssembly.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace blis::vllm::metrics {

// One label: name and (unescaped) value.
using Label = std::pair<std::string, std::string>;
using LabelList = std::vector<Label>;

// Python's repr(float): the shortest decimal string that reads back as the same double
// (David Gay's "shortest" mode, the closest such string when several exist), written in
// fixed notation when the decimal exponent is in [-4, 16) and with ".0" for integers, in
// exponent notation ("1e-05", "1.5e+16") otherwise. "nan", "inf", "-inf" for non-finite.
std::string python_float_repr(double value);

// prometheus_client utils.floatToGoString: "+Inf", "-Inf", "NaN"; otherwise repr(value),
// except that positive values with more than six integer digits switch to Go's exponent
// form ("5052943.0" -> "5.052943e+06"; the exponent is written as "e+0" followed by the digit
// count minus one, so 1.5e10 becomes "1.5e+010", exactly as prometheus_client does).
std::string format_go_float(double value);

// Label value escaping of the text format: backslash, double quote and newline.
void append_escaped_label_value(std::string& out, std::string_view value);
// HELP text escaping: backslash and newline.
void append_escaped_help(std::string& out, std::string_view help);

// True for a valid Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with "__").
bool is_valid_label_name(std::string_view name);

// Parses an extra-label list written as in a selector, e.g. `instance="p0-3",pool="decode"`
// (values may contain \\, \" and \n escapes). Empty text is an empty list. On error returns
// false and sets `error` to a message naming the offending position.
bool parse_label_list(std::string_view text, LabelList& out, std::string& error);

// Appends `{a="1",b="2"}` with the labels sorted by name, as generate_latest does
// (sorted(samples.labels.items())); nothing for an empty list. `labels` is left sorted.
void append_sorted_labels(std::string& out, LabelList& labels);

}  // namespace blis::vllm::metrics
