#include "conform/conform_input.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "util/json_write.h"

namespace blis::vllm::conform {
namespace {

using json = nlohmann::json;

class Reader {
 public:
  explicit Reader(Diagnostics& d) : d_(d) {}

  void error(const std::string& ptr, const std::string& msg) { d_.push_back({ptr, msg}); }

  void check_keys(const json& obj, std::initializer_list<const char*> allowed,
                  const std::string& ptr) {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      const bool known =
          std::any_of(allowed.begin(), allowed.end(), [&](const char* k) { return it.key() == k; });
      if (!known) error(json_pointer_append(ptr, it.key()), "unknown key");
    }
  }

  // An integer in [lo, hi]. Missing: error if required, else `out` keeps its default.
  bool get_int(const json& obj, const char* key, const std::string& ptr, bool required,
               std::int64_t lo, std::int64_t hi, std::int32_t& out) {
    const std::string p = json_pointer_append(ptr, key);
    const auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) error(p, "missing (expected an integer)");
      return false;
    }
    if (!it->is_number_integer()) {
      error(p, "expected an integer, got " + std::string(it->type_name()));
      return false;
    }
    const std::int64_t v = it->is_number_unsigned()
                               ? static_cast<std::int64_t>(
                                     std::min<std::uint64_t>(it->get<std::uint64_t>(), INT64_MAX))
                               : it->get<std::int64_t>();
    if (v < lo || v > hi) {
      error(p, "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                   "], got " + std::to_string(v));
      return false;
    }
    out = static_cast<std::int32_t>(v);
    return true;
  }

  bool get_bool(const json& obj, const char* key, const std::string& ptr, bool required,
                bool& out) {
    const std::string p = json_pointer_append(ptr, key);
    const auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) error(p, "missing (expected true or false)");
      return false;
    }
    if (!it->is_boolean()) {
      error(p, "expected true or false, got " + std::string(it->type_name()));
      return false;
    }
    out = it->get<bool>();
    return true;
  }

  bool get_string(const json& obj, const char* key, const std::string& ptr, bool required,
                  std::string& out) {
    const std::string p = json_pointer_append(ptr, key);
    const auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) error(p, "missing (expected a string)");
      return false;
    }
    if (!it->is_string()) {
      error(p, "expected a string, got " + std::string(it->type_name()));
      return false;
    }
    out = it->get<std::string>();
    return true;
  }

  // An array of integers in [lo, hi]; absent leaves `out` empty.
  bool get_int_list(const json& obj, const char* key, const std::string& ptr, std::int64_t lo,
                    std::int64_t hi, std::vector<std::int32_t>& out) {
    const std::string p = json_pointer_append(ptr, key);
    const auto it = obj.find(key);
    if (it == obj.end()) return false;
    if (!it->is_array()) {
      error(p, "expected an array of integers, got " + std::string(it->type_name()));
      return false;
    }
    for (std::size_t i = 0; i < it->size(); ++i) {
      const json& v = (*it)[i];
      if (!v.is_number_integer() ||
          (v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX) ||
          v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi) {
        error(json_pointer_append(p, i),
              "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
        return false;
      }
      out.push_back(static_cast<std::int32_t>(v.get<std::int64_t>()));
    }
    return true;
  }

  bool get_number(const json& obj, const char* key, const std::string& ptr, double& out) {
    const std::string p = json_pointer_append(ptr, key);
    const auto it = obj.find(key);
    if (it == obj.end()) return false;
    if (!it->is_number()) {
      error(p, "expected a number, got " + std::string(it->type_name()));
      return false;
    }
    out = it->get<double>();
    if (!std::isfinite(out)) {
      error(p, "expected a finite number");
      return false;
    }
    return true;
  }

 private:
  Diagnostics& d_;
};

constexpr std::int64_t kMaxI32 = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kMaxSpecTokens = 1024;

// FORMAT.md "Additions ...": speculative decoding and LoRA (config keys echoed only when
// given).
void decode_spec_and_lora(Reader& rd, const json& c, Case& out) {
  const std::string ptr = "/config";
  VllmConfig& cfg = out.config;
  auto& e = out.config_echo;
  if (rd.get_int(c, "num_speculative_tokens", ptr, false, 0, kMaxSpecTokens,
                 cfg.num_speculative_tokens)) {
    e["num_speculative_tokens"] = cfg.num_speculative_tokens;
  }
  std::string method;
  if (rd.get_string(c, "speculative_method", ptr, false, method)) {
    if (!spec_method_from_string(method, cfg.speculative_method)) {
      rd.error(ptr + "/speculative_method",
               "expected one of ngram, ngram_gpu, draft_model, eagle, eagle3, mtp, got \"" +
                   method + "\"");
    }
    e["speculative_method"] = method;
  }
  if (cfg.async_scheduling && cfg.spec_decode() && cfg.speculative_method == SpecMethod::kNgram) {
    // vllm config/vllm.py VllmConfig.__post_init__: async scheduling takes only the EAGLE,
    // MTP, draft-model and GPU n-gram proposers.
    rd.error(ptr + "/speculative_method",
             "\"ngram\" (the default) cannot run with async scheduling (vLLM: use \"ngram_gpu\")");
  }
  // vllm config/lora.py LoRAConfig.max_loras: Field(ge=1).
  // null (the default) keeps LoRA off; a given key is echoed either way.
  if (c.contains("max_loras")) {
    if (c["max_loras"].is_null()) {
      e["max_loras"] = nullptr;
    } else if (rd.get_int(c, "max_loras", ptr, false, 1, kMaxI32, cfg.max_loras)) {
      e["max_loras"] = cfg.max_loras;
    }
  }
}

void decode_config(Reader& rd, const json& c, Case& out) {
  const std::string ptr = "/config";
  rd.check_keys(
      c,
      {"block_size", "num_gpu_blocks", "max_num_seqs", "max_num_batched_tokens", "max_model_len",
       "enable_chunked_prefill", "long_prefill_token_threshold", "enable_prefix_caching", "policy",
       "async_scheduling", "scheduler_reserve_full_isl", "watermark", "max_num_scheduled_tokens",
       "prefix_caching_hash_algo", "use_v2_model_runner", "token_fn", "num_speculative_tokens",
       "speculative_method", "max_loras"},
      ptr);
  VllmConfig& cfg = out.config;
  rd.get_int(c, "block_size", ptr, true, 1, 1 << 20, cfg.block_size);
  rd.get_int(c, "num_gpu_blocks", ptr, true, 2, kMaxGpuBlocks, cfg.num_gpu_blocks);
  rd.get_int(c, "max_num_seqs", ptr, true, 1, kMaxNumSeqs, cfg.max_num_seqs);
  rd.get_int(c, "max_num_batched_tokens", ptr, true, 1, kMaxI32, cfg.max_num_batched_tokens);
  rd.get_int(c, "max_model_len", ptr, true, 1, kMaxModelLen, cfg.max_model_len);
  rd.get_bool(c, "enable_chunked_prefill", ptr, true, cfg.enable_chunked_prefill);
  rd.get_int(c, "long_prefill_token_threshold", ptr, true, 0, kMaxI32,
             cfg.long_prefill_token_threshold);
  rd.get_bool(c, "enable_prefix_caching", ptr, true, cfg.enable_prefix_caching);
  std::string policy;
  if (rd.get_string(c, "policy", ptr, true, policy)) {
    if (policy == "fcfs") {
      cfg.policy = SchedulingPolicy::kFcfs;
    } else if (policy == "priority") {
      cfg.policy = SchedulingPolicy::kPriority;
    } else {
      rd.error(ptr + "/policy", "expected \"fcfs\" or \"priority\", got \"" + policy + "\"");
    }
  }
  rd.get_bool(c, "async_scheduling", ptr, true, cfg.async_scheduling);
  cfg.scheduler_reserve_full_isl = true;
  rd.get_bool(c, "scheduler_reserve_full_isl", ptr, false, cfg.scheduler_reserve_full_isl);
  cfg.watermark = 0.0;
  if (rd.get_number(c, "watermark", ptr, cfg.watermark) &&
      !(cfg.watermark >= 0.0 && cfg.watermark < 1.0)) {
    rd.error(ptr + "/watermark", "expected a number in [0, 1)");
  }
  bool& scheduled_tokens_set = out.max_num_scheduled_tokens_set;
  if (c.contains("max_num_scheduled_tokens") && !c["max_num_scheduled_tokens"].is_null()) {
    scheduled_tokens_set = rd.get_int(c, "max_num_scheduled_tokens", ptr, false, 1, kMaxI32,
                                      cfg.max_num_scheduled_tokens);
  }
  std::string algo = "sha256";
  if (rd.get_string(c, "prefix_caching_hash_algo", ptr, false, algo)) {
    static const std::set<std::string> kAlgos = {"sha256", "sha256_cbor", "xxhash", "xxhash_cbor"};
    if (kAlgos.count(algo) == 0) {
      rd.error(ptr + "/prefix_caching_hash_algo",
               "expected one of sha256, sha256_cbor, xxhash, xxhash_cbor, got \"" + algo + "\"");
    }
  }
  cfg.use_v2_model_runner = false;
  rd.get_bool(c, "use_v2_model_runner", ptr, false, cfg.use_v2_model_runner);
  std::string token_fn = "index";
  if (rd.get_string(c, "token_fn", ptr, false, token_fn)) {
    if (token_fn == "per_request") {
      out.token_fn_per_request = true;
    } else if (token_fn != "index") {
      rd.error(ptr + "/token_fn",
               "expected \"index\" or \"per_request\", got \"" + token_fn + "\"");
    }
  }

  // FORMAT.md: the trace echoes the config with every default filled in.
  auto& e = out.config_echo;
  e = nlohmann::ordered_json::object();
  json_write::put(e, {{"block_size", cfg.block_size},
                      {"num_gpu_blocks", cfg.num_gpu_blocks},
                      {"max_num_seqs", cfg.max_num_seqs},
                      {"max_num_batched_tokens", cfg.max_num_batched_tokens},
                      {"max_model_len", cfg.max_model_len},
                      {"enable_chunked_prefill", cfg.enable_chunked_prefill},
                      {"long_prefill_token_threshold", cfg.long_prefill_token_threshold},
                      {"enable_prefix_caching", cfg.enable_prefix_caching},
                      {"policy", to_string(cfg.policy)},
                      {"async_scheduling", cfg.async_scheduling},
                      {"scheduler_reserve_full_isl", cfg.scheduler_reserve_full_isl},
                      {"watermark", cfg.watermark},
                      {"max_num_scheduled_tokens",
                       json_write::or_null(scheduled_tokens_set, cfg.max_num_scheduled_tokens)},
                      {"prefix_caching_hash_algo", algo},
                      {"use_v2_model_runner", cfg.use_v2_model_runner},
                      {"token_fn", token_fn}});
  decode_spec_and_lora(rd, c, out);
}

// FORMAT.md "Additions ...": the request keys for LoRA, stop conditions and the mocked
// drafter.
void decode_request_additions(Reader& rd, const json& j, const std::string& ptr, Case& out,
                              CaseRequest& r) {
  if (rd.get_int(j, "lora_id", ptr, false, 0, kMaxI32, r.lora_id) && r.lora_id > 0 &&
      out.config.max_loras == 0) {
    // vLLM rejects LoRA requests when LoRA is not enabled.
    rd.error(ptr + "/lora_id", "a LoRA request needs config.max_loras (LoRA is off)");
  }
  bool stops = false;
  if (j.contains("eos_token_id") && !j["eos_token_id"].is_null()) {
    stops |= rd.get_int(j, "eos_token_id", ptr, false, 0, kMaxI32, r.eos_token_id);
  }
  stops |= rd.get_int(j, "eos_at_output", ptr, false, 0, kMaxI32, r.eos_at_output);
  stops |= rd.get_int(j, "min_tokens", ptr, false, 0, kMaxI32, r.min_tokens);
  stops |= j.contains("stop_token_ids");
  rd.get_int_list(j, "stop_token_ids", ptr, 0, kMaxI32, r.stop_token_ids);
  // vllm sampling_params.py SamplingParams._verify_args: min_tokens <= max_tokens.
  if (r.min_tokens > r.max_tokens) {
    rd.error(ptr + "/min_tokens", "must be <= max_tokens (" + std::to_string(r.max_tokens) +
                                      "), got " + std::to_string(r.min_tokens));
  }
  if (r.eos_at_output > 0 && r.eos_token_id < 0) {
    rd.error(ptr + "/eos_at_output", "needs eos_token_id (the token the mock emits)");
  }
  if (stops || j.contains("eos_token_id")) out.has_stop_conditions = true;
  rd.get_int_list(j, "spec_accept", ptr, 0, kMaxSpecTokens, r.spec_accept);
  rd.get_int_list(j, "spec_drafts", ptr, 0, kMaxSpecTokens, r.spec_drafts);
}

void decode_requests(Reader& rd, const json& rs, Case& out) {
  if (rs.size() > kMaxRequests) {
    rd.error("/requests", "at most " + std::to_string(kMaxRequests) + " requests, got " +
                              std::to_string(rs.size()));
    return;
  }
  std::set<std::string> ids;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const std::string ptr = json_pointer_append("/requests", i);
    const json& j = rs[i];
    if (!j.is_object()) {
      rd.error(ptr, "expected an object");
      continue;
    }
    rd.check_keys(j,
                  {"id", "arrival_step", "prompt", "max_tokens", "priority", "arrival_time",
                   "lora_id", "eos_token_id", "eos_at_output", "min_tokens", "stop_token_ids",
                   "spec_accept", "spec_drafts"},
                  ptr);
    CaseRequest r;
    if (rd.get_string(j, "id", ptr, true, r.id) && !ids.insert(r.id).second) {
      rd.error(ptr + "/id", "duplicate request id \"" + r.id + "\"");
    }
    rd.get_int(j, "arrival_step", ptr, true, 0, kMaxI32, r.arrival_step);
    rd.get_int(j, "max_tokens", ptr, true, 1, kMaxI32, r.max_tokens);
    rd.get_int(j, "priority", ptr, false, std::numeric_limits<std::int32_t>::min(), kMaxI32,
               r.priority);
    r.arrival_time = static_cast<double>(r.arrival_step);  // FORMAT.md: defaults to the step
    rd.get_number(j, "arrival_time", ptr, r.arrival_time);
    decode_request_additions(rd, j, ptr, out, r);
    const auto p = j.find("prompt");
    if (p == j.end() || !p->is_array()) {
      rd.error(ptr + "/prompt", "expected an array of token ids");
    } else if (p->empty()) {
      // vLLM rejects empty prompts at input validation.
      rd.error(ptr + "/prompt", "the prompt cannot be empty");
    } else {
      r.prompt.reserve(p->size());
      for (std::size_t t = 0; t < p->size(); ++t) {
        const json& tok = (*p)[t];
        if (!tok.is_number_integer() || tok.get<std::int64_t>() < 0 ||
            tok.get<std::int64_t>() > kMaxI32) {
          rd.error(json_pointer_append(ptr + "/prompt", t),
                   "expected a token id (integer in [0, 2^31))");
          break;
        }
        r.prompt.push_back(static_cast<std::int32_t>(tok.get<std::int64_t>()));
      }
      // vLLM input processing: a prompt longer than max_model_len is rejected.
      if (static_cast<std::int64_t>(r.prompt.size()) > out.config.max_model_len) {
        rd.error(ptr + "/prompt", "the prompt (" + std::to_string(r.prompt.size()) +
                                      " tokens) is longer than max_model_len (" +
                                      std::to_string(out.config.max_model_len) + ")");
      }
    }
    out.requests.push_back(std::move(r));
  }
}

void decode_aborts(Reader& rd, const json& as, Case& out) {
  for (std::size_t i = 0; i < as.size(); ++i) {
    const std::string ptr = json_pointer_append("/aborts", i);
    const json& j = as[i];
    if (!j.is_object()) {
      rd.error(ptr, "expected an object");
      continue;
    }
    rd.check_keys(j, {"id", "step", "phase"}, ptr);
    CaseAbort a;
    rd.get_string(j, "id", ptr, true, a.id);
    rd.get_int(j, "step", ptr, true, 0, kMaxI32, a.step);
    std::string phase = "input";
    if (rd.get_string(j, "phase", ptr, false, phase)) {
      if (phase == "during_step") {
        a.during_step = true;
      } else if (phase != "input") {
        rd.error(ptr + "/phase", "expected \"input\" or \"during_step\", got \"" + phase + "\"");
      }
    }
    out.aborts.push_back(std::move(a));
  }
}

// Arrivals must fall inside the run, and the token ids all requests could hold at once
// are bounded (the driver sizes each request for its longest sequence up front).
void check_bounds(Reader& rd, const Case& c) {
  std::int64_t total = 0;
  for (std::size_t i = 0; i < c.requests.size(); ++i) {
    const CaseRequest& r = c.requests[i];
    if (c.max_steps > 0 && r.arrival_step >= c.max_steps) {
      rd.error(json_pointer_append("/requests", i) + "/arrival_step",
               "arrives at step " + std::to_string(r.arrival_step) + ", after the last step (" +
                   "max_steps " + std::to_string(c.max_steps) + ")");
    }
    total += std::min<std::int64_t>(static_cast<std::int64_t>(r.prompt.size()) + r.max_tokens,
                                    std::max(c.config.max_model_len, 1));
  }
  if (total > kMaxTotalSequenceTokens) {
    rd.error("/requests", "the requests' longest sequences sum to " + std::to_string(total) +
                              " tokens; at most " + std::to_string(kMaxTotalSequenceTokens));
  }
  // FORMAT.md token_fn "per_request": token ids are 1000 + 100000 x input position + output
  // index, which must fit an int32. An output index stays below max_model_len, a draft's
  // below max_model_len + 2 x num_speculative_tokens (the mock drafts ahead of the output).
  if (c.token_fn_per_request && !c.requests.empty()) {
    const auto n = static_cast<std::int64_t>(c.requests.size());
    const std::int64_t reach = std::max<std::int64_t>(c.config.max_model_len, 1) +
                               2 * std::int64_t{c.config.num_speculative_tokens} + 1;
    const std::int64_t largest = 1000 + 100000 * (n - 1) + reach;
    if (largest > kMaxI32) {
      rd.error("/config/token_fn",
               "\"per_request\" token ids reach " + std::to_string(largest) + " with " +
                   std::to_string(n) + " requests, beyond the int32 range; at most " +
                   std::to_string((kMaxI32 - 1000 - reach) / 100000 + 1) + " requests");
    }
  }
}

}  // namespace

bool decode_case(std::string_view text, Case& out, Diagnostics& diags) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for a number beyond a double ("1e4020"; found by the
    // conform fuzzer: it escaped run_conformance).
    diags.push_back({"", std::string("not valid JSON: ") + e.what()});
    return false;
  }
  Reader rd(diags);
  if (!doc.is_object()) {
    rd.error("", "expected an object with config, requests, aborts and max_steps");
    return false;
  }
  rd.check_keys(doc, {"description", "config", "requests", "aborts", "max_steps"}, "");
  const auto c = doc.find("config");
  if (c == doc.end() || !c->is_object()) {
    rd.error("/config", "expected an object");
  } else {
    decode_config(rd, *c, out);
  }
  const auto rs = doc.find("requests");
  if (rs == doc.end() || !rs->is_array()) {
    rd.error("/requests", "expected an array");
  } else {
    decode_requests(rd, *rs, out);
  }
  const auto as = doc.find("aborts");
  if (as != doc.end()) {
    if (!as->is_array()) {
      rd.error("/aborts", "expected an array");
    } else {
      decode_aborts(rd, *as, out);
    }
  }
  rd.get_int(doc, "max_steps", "", true, 1, kMaxSteps, out.max_steps);
  check_bounds(rd, out);
  if (!has_errors(diags)) {
    for (const ConfigError& e : validate(out.config)) {
      diags.push_back({"/config/" + e.field, e.message});
    }
  }
  return !has_errors(diags);
}

}  // namespace blis::vllm::conform
