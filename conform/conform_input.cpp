#include "conform/conform_input.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "conform/conform_fields.h"
#include "util/json_write.h"
#include "util/text.h"

namespace blis::vllm::conform {
namespace {

using json = nlohmann::json;

constexpr std::int64_t kMaxI32 = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kMaxSpecTokens = 1024;

// FORMAT.md "Additions ...": speculative decoding and LoRA (config keys echoed only when
// given).
void decode_spec_and_lora(FieldReader& c, Case& out) {
  VllmConfig& cfg = out.config;
  auto& e = out.config_echo;
  if (take_int(c, "num_speculative_tokens", false, 0, kMaxSpecTokens, cfg.num_speculative_tokens)) {
    e["num_speculative_tokens"] = cfg.num_speculative_tokens;
  }
  std::string method;
  if (take_choice(c, "speculative_method", false,
                  {"ngram", "ngram_gpu", "draft_model", "eagle", "eagle3", "mtp"}, method)) {
    spec_method_from_string(method, cfg.speculative_method);
    e["speculative_method"] = method;
  }
  if (cfg.async_scheduling && cfg.spec_decode() && cfg.speculative_method == SpecMethod::kNgram) {
    // vllm config/vllm.py VllmConfig.__post_init__: async scheduling takes only the EAGLE,
    // MTP, draft-model and GPU n-gram proposers.
    c.error("speculative_method",
            "\"ngram\" (the default) cannot run with async scheduling (vLLM: use \"ngram_gpu\")");
  }
  // vllm config/lora.py LoRAConfig.max_loras: Field(ge=1).
  // null (the default) keeps LoRA off; a given key is echoed either way.
  if (given_null(c, "max_loras")) {
    e["max_loras"] = nullptr;
  } else if (take_int(c, "max_loras", false, 1, kMaxI32, cfg.max_loras)) {
    e["max_loras"] = cfg.max_loras;
  }
}

void decode_config(FieldReader& c, Case& out) {
  VllmConfig& cfg = out.config;
  take_int(c, "block_size", true, 1, 1 << 20, cfg.block_size);
  take_int(c, "num_gpu_blocks", true, 2, kMaxGpuBlocks, cfg.num_gpu_blocks);
  take_int(c, "max_num_seqs", true, 1, kMaxNumSeqs, cfg.max_num_seqs);
  take_int(c, "max_num_batched_tokens", true, 1, kMaxI32, cfg.max_num_batched_tokens);
  take_int(c, "max_model_len", true, 1, kMaxModelLen, cfg.max_model_len);
  take_bool(c, "enable_chunked_prefill", true, cfg.enable_chunked_prefill);
  take_int(c, "long_prefill_token_threshold", true, 0, kMaxI32, cfg.long_prefill_token_threshold);
  take_bool(c, "enable_prefix_caching", true, cfg.enable_prefix_caching);
  std::string policy;
  if (take_choice(c, "policy", true, {"fcfs", "priority"}, policy)) {
    cfg.policy = policy == "fcfs" ? SchedulingPolicy::kFcfs : SchedulingPolicy::kPriority;
  }
  take_bool(c, "async_scheduling", true, cfg.async_scheduling);
  cfg.scheduler_reserve_full_isl = true;
  take_bool(c, "scheduler_reserve_full_isl", false, cfg.scheduler_reserve_full_isl);
  cfg.watermark = 0.0;
  if (const auto w =
          c.number("watermark", 0.0, false, std::nextafter(1.0, 0.0), "a number in [0, 1)")) {
    cfg.watermark = *w;
  }
  bool& scheduled_tokens_set = out.max_num_scheduled_tokens_set;
  if (!given_null(c, "max_num_scheduled_tokens")) {
    scheduled_tokens_set =
        take_int(c, "max_num_scheduled_tokens", false, 1, kMaxI32, cfg.max_num_scheduled_tokens);
  }
  std::string algo = "sha256";
  take_choice(c, "prefix_caching_hash_algo", false,
              {"sha256", "sha256_cbor", "xxhash", "xxhash_cbor"}, algo);
  cfg.use_v2_model_runner = false;
  take_bool(c, "use_v2_model_runner", false, cfg.use_v2_model_runner);
  std::string token_fn = "index";
  take_choice(c, "token_fn", false, {"index", "per_request"}, token_fn);
  out.token_fn_per_request = token_fn == "per_request";

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
  decode_spec_and_lora(c, out);
  c.report_unknown_keys();
}

// FORMAT.md "Additions ...": the request keys for LoRA, stop conditions and the mocked
// drafter.
void decode_request_additions(FieldReader& j, Case& out, CaseRequest& r) {
  if (take_int(j, "lora_id", false, 0, kMaxI32, r.lora_id) && r.lora_id > 0 &&
      out.config.max_loras == 0) {
    // vLLM rejects LoRA requests when LoRA is not enabled.
    j.error("lora_id", "a LoRA request needs config.max_loras (LoRA is off)");
  }
  bool stops = false;
  const bool eos_given = j.has("eos_token_id");
  if (!given_null(j, "eos_token_id")) {
    stops |= take_int(j, "eos_token_id", false, 0, kMaxI32, r.eos_token_id);
  }
  stops |= take_int(j, "eos_at_output", false, 0, kMaxI32, r.eos_at_output);
  stops |= take_int(j, "min_tokens", false, 0, kMaxI32, r.min_tokens);
  stops |= j.has("stop_token_ids");
  take_int_list(j, "stop_token_ids", 0, kMaxI32, r.stop_token_ids);
  // vllm sampling_params.py SamplingParams._verify_args: min_tokens <= max_tokens.
  if (r.min_tokens > r.max_tokens) {
    j.error("min_tokens", "must be <= max_tokens (" + std::to_string(r.max_tokens) + "), got " +
                              std::to_string(r.min_tokens));
  }
  if (r.eos_at_output > 0 && r.eos_token_id < 0) {
    j.error("eos_at_output", "needs eos_token_id (the token the mock emits)");
  }
  if (stops || eos_given) out.has_stop_conditions = true;
  take_int_list(j, "spec_accept", 0, kMaxSpecTokens, r.spec_accept);
  take_int_list(j, "spec_drafts", 0, kMaxSpecTokens, r.spec_drafts);
}

// The prompt: a non-empty array of token ids, at most max_model_len of them.
void decode_prompt(FieldReader& j, const Case& out, CaseRequest& r) {
  const std::string token = "a token id (" + int_range(0, kMaxI32) + ")";
  if (!given(j, "prompt", true, "an array of token ids")) return;
  const auto tokens = j.integer_list("prompt", 0, kMaxI32, token);
  if (!tokens) return;
  if (tokens->empty()) {
    // vLLM rejects empty prompts at input validation.
    j.error("prompt", "the prompt cannot be empty");
    return;
  }
  r.prompt.assign(tokens->size(), 0);
  std::transform(tokens->begin(), tokens->end(), r.prompt.begin(),
                 [](std::int64_t t) { return static_cast<std::int32_t>(t); });
  // vLLM input processing: a prompt longer than max_model_len is rejected.
  if (static_cast<std::int64_t>(r.prompt.size()) > out.config.max_model_len) {
    j.error("prompt", "the prompt (" + std::to_string(r.prompt.size()) +
                          " tokens) is longer than max_model_len (" +
                          std::to_string(out.config.max_model_len) + ")");
  }
}

void decode_requests(const json& rs, Case& out, Diagnostics& diags,
                     const std::vector<std::string>& extension_keys) {
  if (rs.size() > kMaxRequests) {
    diags.push_back({"/requests", "at most " + std::to_string(kMaxRequests) + " requests, got " +
                                      std::to_string(rs.size())});
    return;
  }
  std::vector<std::string> keys = {
      "id",         "arrival_step", "prompt",        "max_tokens", "priority",       "arrival_time",
      "lora_id",    "eos_token_id", "eos_at_output", "min_tokens", "stop_token_ids", "spec_accept",
      "spec_drafts"};
  keys.insert(keys.end(), extension_keys.begin(), extension_keys.end());
  std::set<std::string> ids;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    FieldReader j = reader(rs[i], json_pointer_append("/requests", i), diags, keys);
    if (!j.valid()) continue;
    CaseRequest r;
    if (take_string(j, "id", true, r.id) && !ids.insert(r.id).second) {
      j.error("id", "duplicate request id " + quote_excerpt(r.id));
    }
    take_int(j, "arrival_step", true, 0, kMaxI32, r.arrival_step);
    take_int(j, "max_tokens", true, 1, kMaxI32, r.max_tokens);
    take_int(j, "priority", false, std::numeric_limits<std::int32_t>::min(), kMaxI32, r.priority);
    r.arrival_time = static_cast<double>(r.arrival_step);  // FORMAT.md: defaults to the step
    if (const auto t = j.number("arrival_time", std::numeric_limits<double>::lowest(), false,
                                std::numeric_limits<double>::max(), "a finite number")) {
      r.arrival_time = *t;
    }
    decode_request_additions(j, out, r);
    decode_prompt(j, out, r);
    j.report_unknown_keys();
    out.requests.push_back(std::move(r));
  }
}

void decode_aborts(const json& as, Case& out, Diagnostics& diags) {
  for (std::size_t i = 0; i < as.size(); ++i) {
    FieldReader j =
        reader(as[i], json_pointer_append("/aborts", i), diags, {"id", "step", "phase"});
    if (!j.valid()) continue;
    CaseAbort a;
    take_string(j, "id", true, a.id);
    take_int(j, "step", true, 0, kMaxI32, a.step);
    std::string phase = "input";
    take_choice(j, "phase", false, {"input", "during_step"}, phase);
    a.during_step = phase == "during_step";
    j.report_unknown_keys();
    out.aborts.push_back(std::move(a));
  }
}

// Arrivals must fall inside the run, and the token ids all requests could hold at once
// are bounded (the driver sizes each request for its longest sequence up front).
void check_bounds(const Case& c, Diagnostics& diags) {
  std::int64_t total = 0;
  for (std::size_t i = 0; i < c.requests.size(); ++i) {
    const CaseRequest& r = c.requests[i];
    if (c.max_steps > 0 && r.arrival_step >= c.max_steps) {
      diags.push_back({json_pointer_append("/requests", i) + "/arrival_step",
                       "arrives at step " + std::to_string(r.arrival_step) +
                           ", after the last step (max_steps " + std::to_string(c.max_steps) +
                           ")"});
    }
    total += std::min<std::int64_t>(static_cast<std::int64_t>(r.prompt.size()) + r.max_tokens,
                                    std::max(c.config.max_model_len, 1));
  }
  if (total > kMaxTotalSequenceTokens) {
    diags.push_back({"/requests", "the requests' longest sequences sum to " +
                                      std::to_string(total) + " tokens; at most " +
                                      std::to_string(kMaxTotalSequenceTokens)});
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
      diags.push_back({"/config/token_fn",
                       "\"per_request\" token ids reach " + std::to_string(largest) + " with " +
                           std::to_string(n) + " requests, beyond the int32 range; at most " +
                           std::to_string((kMaxI32 - 1000 - reach) / 100000 + 1) + " requests"});
    }
  }
}

}  // namespace

bool decode_case(std::string_view text, Case& out, Diagnostics& diags,
                 const std::vector<std::string>& extension_request_keys) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for a number beyond a double ("1e4020"; found by the
    // conform fuzzer: it escaped run_conformance).
    diags.push_back({"", std::string("not valid JSON: ") + e.what()});
    return false;
  }
  FieldReader top =
      reader(doc, "", diags, {"description", "config", "requests", "aborts", "max_steps"},
             "an object with config, requests, aborts and max_steps");
  if (!top.valid()) return false;
  if (given(top, "config", true, "an object")) {
    if (const json* c = top.object("config")) {
      FieldReader config =
          reader(*c, "/config", diags,
                 {"block_size", "num_gpu_blocks", "max_num_seqs", "max_num_batched_tokens",
                  "max_model_len", "enable_chunked_prefill", "long_prefill_token_threshold",
                  "enable_prefix_caching", "policy", "async_scheduling",
                  "scheduler_reserve_full_isl", "watermark", "max_num_scheduled_tokens",
                  "prefix_caching_hash_algo", "use_v2_model_runner", "token_fn",
                  "num_speculative_tokens", "speculative_method", "max_loras"});
      decode_config(config, out);
    }
  }
  if (given(top, "requests", true, "an array")) {
    if (const json* rs = top.array("requests"))
      decode_requests(*rs, out, diags, extension_request_keys);
  }
  if (const json* as = top.array("aborts")) decode_aborts(*as, out, diags);
  take_int(top, "max_steps", true, 1, kMaxSteps, out.max_steps);
  top.report_unknown_keys();
  check_bounds(out, diags);
  if (!has_errors(diags)) {
    for (const ConfigError& e : validate(out.config)) {
      diags.push_back({"/config/" + e.field, e.message});
    }
  }
  return !has_errors(diags);
}

}  // namespace blis::vllm::conform
