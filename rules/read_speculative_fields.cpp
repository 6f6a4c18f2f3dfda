// The fields of speculative_config that change nothing BLIS Playground simulates (it runs no
// draft model), each still checked as vllm/config/speculative.py SpeculativeConfig checks it:
// pydantic Field bounds and Literals, __post_init__ and _verify_args. A valid value is a
// warning, then ignored.

#include <algorithm>
#include <cmath>
#include <limits>

#include "rules/json_fields.h"
#include "rules/resolve_context.h"

namespace blis::rules::detail {

namespace {

// SpeculativeConfig.__post_init__ builds a draft ModelConfig (and checks the draft-model
// fields) for every method but these.
bool uses_draft_config(const std::string& method) {
  for (const char* m : {"ngram", "ngram_gpu", "suffix", "custom_class", "extract_hidden_states"}) {
    if (method == m) return false;
  }
  return !method.empty();
}

void no_effect(FieldReader& s, const std::string& key) {
  if (s.has(key)) s.warning(key, "has no effect on what BLIS Playground simulates; ignored");
}

// draft_tensor_parallel_size, max_model_len and dspark_draft_topk: the draft-model branch of
// __post_init__.
void read_draft_fields(Context& c, FieldReader& s, const std::string& method) {
  const std::string v = " [" + c.vllm() + " SpeculativeConfig";
  const bool draft = uses_draft_config(method);
  // The bounds of the pack's rows (rules/packs/arg_specs.cpp).
  auto read = [&](const char* key) {
    const ArgSpec* a = c.pack.arg(std::string("speculative_config.") + key);
    return s.integer(key, a->int_min, a->int_max,
                     a->expected + " [" + c.vllm() + ": " + a->constraint + "]");
  };
  // Field(ge=1); _verify_and_get_draft_tp: 1 or the target's tensor_parallel_size.
  if (auto tp = read("draft_tensor_parallel_size")) {
    if (draft && *tp != 1 && *tp != c.facts.tp) {
      s.error("draft_tensor_parallel_size",
              std::to_string(*tp) +
                  ": speculative_draft_tensor_parallel_size=" + std::to_string(*tp) +
                  " cannot be other value than 1 or target model tensor_parallel_size (" +
                  std::to_string(c.facts.tp) + ")" + v + "._verify_and_get_draft_tp]");
    }
  }
  // Field(ge=1); _maybe_override_draft_max_model_len: not above the target's.
  if (auto len = read("max_model_len")) {
    const std::int64_t target = c.set.max_model_len
                                    ? c.args.max_model_len
                                    : (c.facts.model.known ? c.facts.model.max_model_len : 0);
    if (draft && target > 0 && *len > target) {
      s.error("max_model_len",
              std::to_string(*len) + ": speculative_max_model_len=" + std::to_string(*len) +
                  " cannot be larger than target_max_model_len=" + std::to_string(target) + v +
                  "._maybe_override_draft_max_model_len]");
    }
  }
  // Field(ge=1); __post_init__: only DSpark reads it.
  if (read("dspark_draft_topk") && draft && method != "dspark") {
    s.error("dspark_draft_topk", "dspark_draft_topk is only supported by DSpark" + v + "]");
  }
}

// _validate_suffix_decoding: checked only with method "suffix".
void read_suffix_fields(Context& c, FieldReader& s, bool suffix) {
  const std::string v = " [" + c.vllm() + " SpeculativeConfig._validate_suffix_decoding]";
  const std::int64_t lo = suffix ? 1 : std::numeric_limits<std::int32_t>::min();
  s.integer("suffix_decoding_max_tree_depth", lo, kInt32Max,
            suffix ? "an integer >= 1" + v : std::string("an integer"));
  s.integer("suffix_decoding_max_cached_requests",
            suffix ? 0 : std::numeric_limits<std::int32_t>::min(), kInt32Max,
            suffix ? "an integer >= 0" + v : std::string("an integer"));
  s.number("suffix_decoding_max_spec_factor", suffix ? 0.0 : -1e300, false, 1e300,
           suffix ? "a number >= 0" + v : std::string("a number"));
  s.number("suffix_decoding_min_token_prob", suffix ? 0.0 : -1e300, false, suffix ? 1.0 : 1e300,
           suffix ? "a number in [0, 1]" + v : std::string("a number"));
}

// _verify_args: synthetic acceptance needs rejection_sample_method "synthetic" and exactly
// one of the rates (length k, in [0, 1], non-increasing) or the mean length (in [1, k + 1]).
void read_synthetic_fields(Context& c, FieldReader& s, std::int32_t k) {
  const std::string v = " [" + c.vllm() + " SpeculativeConfig._verify_args]";
  const auto method = s.choice("rejection_sample_method", {"standard", "synthetic", "block"},
                               "is not a RejectionSampleMethod of " + c.vllm());
  const bool synthetic = method && *method == "synthetic";
  const nlohmann::json* rates = s.raw("synthetic_acceptance_rates");
  const auto length = s.number("synthetic_acceptance_length", -1e300, false, 1e300, "a number");
  if (rates && !rates->is_array()) {
    s.error("synthetic_acceptance_rates",
            show(*rates) + " is " + describe_type(*rates) + ", expected a list of numbers");
    return;
  }
  if (!synthetic) {
    if (rates || s.has("synthetic_acceptance_length")) {
      s.error(rates ? "synthetic_acceptance_rates" : "synthetic_acceptance_length",
              "synthetic_acceptance_rates / synthetic_acceptance_length are only valid with "
              "rejection_sample_method='synthetic'" +
                  v);
    }
    return;
  }
  if ((rates == nullptr) == !s.has("synthetic_acceptance_length")) {
    s.error("rejection_sample_method",
            "rejection_sample_method='synthetic' requires exactly one of "
            "synthetic_acceptance_rates or synthetic_acceptance_length" +
                v);
    return;
  }
  if (length && k > 0 && !(*length >= 1.0 && *length <= k + 1.0)) {
    s.error("synthetic_acceptance_length", "synthetic_acceptance_length must be in [1, " +
                                               std::to_string(k + 1) + "], got " + show(*length) +
                                               v);
  }
  if (!rates) return;
  bool ok = k <= 0 || static_cast<std::int32_t>(rates->size()) == k;
  std::string why = "must have length " + std::to_string(k);
  double prev = 1.0;
  for (std::size_t i = 0; ok && i < rates->size(); ++i) {
    const nlohmann::json& r = (*rates)[i];
    const double x = r.is_number() ? r.get<double>() : -1.0;
    if (!(x >= 0.0 && x <= 1.0)) {
      ok = false;
      why = "entries must be in [0, 1]";
    } else if (i > 0 && x > prev) {
      ok = false;
      why = "must be non-increasing";
    }
    prev = x;
  }
  if (!ok) {
    s.error("synthetic_acceptance_rates",
            "synthetic_acceptance_rates " + why + ", got " + show(*rates) + v);
  }
}

// The draft model's own backends and load config, and the dynamic schedule of
// num_speculative_tokens (SpeculativeConfig fields at 8d9b52f7: PRs #37880, #39930, #34022,
// #32374).
void read_draft_overrides(Context& c, FieldReader& s) {
  Context sub = c;
  sub.args_pointer = s.pointer();
  // moe_backend: MoEBackend | None, without KernelConfig's normalizer (the Literal as written);
  // attention_backend: AttentionBackendEnum | None through _parse_attention_backend ("auto" is
  // None, else the upper-cased member name), as AttentionConfig.backend reads it.
  for (const char* key : {"moe_backend", "attention_backend"}) {
    const nlohmann::json* v = s.raw(key);
    if (!v) continue;
    ArgSpec row = *c.pack.arg(key);
    if (row.key == "moe_backend") row.fold = 0;
    row.source = std::string("vllm/config/speculative.py SpeculativeConfig.") + key;
    spec_is_default(sub, nlohmann::json{{key, *v}}, row);
  }
  // draft_load_config: LoadConfig | None (a dict is validated into a LoadConfig).
  s.object("draft_load_config");
  // num_speculative_tokens_per_batch_size: list[tuple[int, int, int]] | None.
  if (const nlohmann::json* sched = s.raw("num_speculative_tokens_per_batch_size")) {
    const std::string p = s.pointer("num_speculative_tokens_per_batch_size");
    if (!sched->is_array()) {
      s.error("num_speculative_tokens_per_batch_size",
              type_mismatch(*sched,
                            "a list of [range_start, range_end, "
                            "num_speculative_tokens] triples, or null"));
      return;
    }
    for (std::size_t i = 0; i < sched->size(); ++i) {
      const nlohmann::json& e = (*sched)[i];
      bool ok = e.is_array() && e.size() == 3;
      for (std::size_t j = 0; ok && j < 3; ++j) {
        const nlohmann::json& n = e[j];
        ok = n.is_number_integer() || n.is_boolean() ||
             (n.is_number_float() && n.get<double>() == std::floor(n.get<double>()));
      }
      if (!ok) {
        c.error(json_pointer_append(p, i),
                type_mismatch(e,
                              "a triple of integers [range_start, range_end, "
                              "num_speculative_tokens] (tuple[int, int, int])"));
        return;
      }
    }
  }
}

}  // namespace

void read_speculative_fields(Context& c, FieldReader& s, const std::string& method,
                             std::int32_t num_speculative_tokens) {
  // _verify_args: the target's TP is not a speculative_config field.
  if (s.has("tensor_parallel_size")) {
    s.error("tensor_parallel_size",
            "'tensor_parallel_size' is not a valid argument in the speculative_config. Please "
            "pass 'draft_tensor_parallel_size' instead [" +
                c.vllm() + " SpeculativeConfig._verify_args]");
  }
  read_draft_fields(c, s, method);
  read_suffix_fields(c, s, method == "suffix");
  read_synthetic_fields(c, s, num_speculative_tokens);
  read_draft_overrides(c, s);
  const std::string literal = "is not accepted by " + c.vllm();
  s.choice("kv_cache_dtype", c.pack.kv_cache_dtypes, literal);  // CacheDType | None
  const auto sample = s.choice("draft_sample_method", {"greedy", "probabilistic"}, literal);
  for (const char* key : {"quantization", "revision", "code_revision"}) s.string(key);
  const std::string rule = c.vllm() + "'s pydantic config classes";
  for (const char* key : {"enforce_eager", "use_local_argmax_reduction", "parallel_drafting"}) {
    s.lax_boolean(key, rule);
  }
  // Decides async scheduling (check_features.cpp resolve_async).
  c.set.disable_padded_drafter_batch =
      s.lax_boolean("disable_padded_drafter_batch", rule).value_or(false);
  // _verify_args: heterogeneous vocabularies only with a draft model sampled greedily.
  if (s.lax_boolean("use_heterogeneous_vocab", rule).value_or(false)) {
    if (method != "draft_model") {
      s.error("use_heterogeneous_vocab",
              "use_heterogeneous_vocab only works with "
              "method='draft_model' [" +
                  c.vllm() + " SpeculativeConfig._verify_args]");
    } else if (sample && *sample != "greedy") {
      s.error("use_heterogeneous_vocab",
              "use_heterogeneous_vocab currently only supports greedy draft sampling [" + c.vllm() +
                  " SpeculativeConfig._verify_args]");
    }
  }
  for (const auto& key : accepted_speculative_keys()) {
    if (key == "method" || key == "num_speculative_tokens" || key == "acceptance_rate" ||
        key == "model" || key == "tensor_parallel_size" || key == "prompt_lookup_min" ||
        key == "prompt_lookup_max" || key == "disable_padded_drafter_batch") {
      continue;
    }
    no_effect(s, key);
  }
}

}  // namespace blis::rules::detail
