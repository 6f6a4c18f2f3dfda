#pragma once
// Tables that the 0.29.x, 0.31.0 and 0.32.0 packs hold in common, each with where it was
// read. Release 0.32.0 is upstream commit 8d9b52f7 (2026-08-07); the vLLM history at hand
// has no release tags, so the older packs start from these tables and keep, where their
// own sources differ, what they were written with (vllm_0_29.cpp, vllm_0_31.cpp).

#include <limits>

#include "rules/pack.h"

namespace blis::rules::packs {

// Fills every table a pack of the 0.29-0.32 line shares; the pack then sets its release
// name, its `accepts` list and what differs.
Pack shared_v029_to_v032();
// The rules every pack of the line holds, before its own (shared_rules.cpp).
std::vector<RuleInfo> shared_rules();

// Every engine argument BLIS Playground reads with its constraint at 8d9b52f7
// (arg_specs.cpp); speculative_config's keys are named "speculative_config.<key>".
std::vector<ArgSpec> arg_specs_8d9b52f7();
std::vector<ArgSpec> speculative_arg_specs();
// The other unmodelled and ignored keys, with their types (other_arg_specs.cpp).
std::vector<ArgSpec> other_arg_specs();

// A row of a given type with its vLLM default, constraint and source (no bounds: the reader
// checks the type; arg_specs.cpp and other_arg_specs.cpp build their typed rows on it).
ArgSpec other_arg(const char* key, const char* type, const char* def, const char* constraint,
                  const char* source);

// Bounds of a plain Python int (no Field bound).
constexpr std::int64_t kAnyMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kAnyMax = std::numeric_limits<std::int64_t>::max();

// The rows of other_arg_specs.cpp and more_arg_specs*.cpp. `unmodelled`: the key changes what
// vLLM does (Pack::unmodelled_args); false: it changes nothing BLIS Playground simulates
// (ignored_arg_keys). `nullable`: vLLM's type is `X | None` (ArgSpec::nullable).
ArgSpec typed(const char* key, const char* type, const char* def, const char* constraint,
              const char* source, bool unmodelled, bool nullable = true);
ArgSpec with_choices(ArgSpec a, std::vector<std::string> choices, char fold, std::string neutral);
ArgSpec with_keys(ArgSpec a, std::vector<std::string> keys);
// A bool row; `def` is vLLM's default (-1: None, then only null is neutral and the key is
// nullable).
ArgSpec bool_row(const char* key, int def, const char* source, bool unmodelled,
                 bool nullable = false);
// An int or float row with vLLM's bounds; `neutral` is vLLM's default (nullopt: None).
ArgSpec int_row(const char* key, std::optional<double> neutral, std::int64_t lo, std::int64_t hi,
                const char* constraint, const char* source, bool unmodelled, bool nullable = false);
ArgSpec float_row(const char* key, std::optional<double> neutral, double lo, bool lo_exclusive,
                  double hi, const char* constraint, const char* source, bool unmodelled,
                  bool nullable = false);

// The EngineArgs fields of 8d9b52f7 the other tables do not list (more_arg_specs.cpp,
// more_arg_specs_mm.cpp), and the config dataclasses given as objects with a row
// "<key>.<field>" for each field that has a simple type (config_object_specs.cpp).
std::vector<ArgSpec> more_arg_specs();
std::vector<ArgSpec> more_arg_specs_mm();
std::vector<ArgSpec> config_object_specs();
// The three above, in that order: the rows the packs add after other_arg_specs(), and the
// set the ignored-key list and the coverage test read.
std::vector<ArgSpec> remaining_arg_specs();

// What the packs written before PR #44070 (2026-06-30) and PR #49244 (2026-07-21) keep:
// max_num_partial_prefills / max_long_partial_prefills, a negative threshold accepted.
void keep_partial_prefills(Pack& p);

}  // namespace blis::rules::packs
