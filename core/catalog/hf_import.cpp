#include "catalog/hf_import.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

#include "catalog/entries.h"
#include "catalog/schema/object_reader.h"
#include "catalog/schema/schema.h"
#include "util/json_fields.h"

namespace blis::catalog {

namespace {

using nlohmann::json;

// Reads keys of one config object (the top level, or text_config of a multimodal model)
// through the shared field reader (util/json_fields.h), recording errors with their pointers
// and the defaults taken in the entry's "sources". A config.json carries many keys the
// importer does not read: unknown keys are not reported, and null is "not given".
class ConfigReader {
 public:
  ConfigReader(const json& c, std::string base, Diagnostics* d, json* sources)
      : r_(c, std::move(base), *d, {}, "a config.json object"), sources_(sources) {}

  bool valid() const { return r_.valid(); }
  bool has(const char* key) const { return r_.has(key); }
  const json& at(const char* key) const { return *r_.raw(key); }

  // An integer >= lo; nullopt when absent (an error when required) or not such an integer.
  std::optional<std::int64_t> integer(const char* key, bool required, std::int64_t lo = 0) {
    if (!has(key)) {
      if (required) r_.error(key, "missing: blis catalog import needs it");
      return std::nullopt;
    }
    return r_.integer(key, lo, std::numeric_limits<std::int64_t>::max(),
                      "an integer >= " + std::to_string(lo));
  }

  bool boolean(const char* key, bool fallback, const std::string& why) {
    if (const std::optional<bool> b = r_.boolean(key)) return *b;
    if (!why.empty()) note(std::string("/") + key, why);
    return fallback;
  }

  // The string value, or "" when absent or not a string.
  std::string text(const char* key) const {
    const json* v = r_.raw(key);
    return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
  }

  void note(const std::string& field, const std::string& why) { (*sources_)[field] = why; }
  void error(const std::string& key, const std::string& message) { r_.error(key, message); }
  // An error at element `index` of the array at `key`.
  void error(const std::string& key, std::size_t index, const std::string& message) {
    r_.diagnostics().push_back({json_pointer_append(r_.pointer(key), index), message});
  }

 private:
  FieldReader r_;
  json* sources_;
};

void read_moe(ConfigReader& r, json* e, std::int64_t* dense_intermediate) {
  std::optional<std::int64_t> experts;
  for (const char* k : {"num_local_experts", "n_routed_experts", "num_experts"}) {
    if (r.has(k)) experts = r.integer(k, true, 1);
  }
  if (!experts) return;
  const char* topk_key = r.has("experts_per_token") ? "experts_per_token" : "num_experts_per_tok";
  const auto topk = r.integer(topk_key, true, 1);
  // Per-expert size: moe_intermediate_size (Qwen-MoE, DeepSeek), else intermediate_size
  // (Mixtral, Llama-4, gpt-oss), whose dense FFN is then intermediate_size_mlp or none.
  std::optional<std::int64_t> fe;
  if (r.has("moe_intermediate_size")) {
    fe = r.integer("moe_intermediate_size", true, 1);
  } else {
    fe = r.integer("intermediate_size", true, 1);
    *dense_intermediate = r.integer("intermediate_size_mlp", false, 1).value_or(0);
  }
  json moe = {{"num_experts", experts.value_or(1)},
              {"experts_per_token", topk.value_or(1)},
              {"expert_intermediate_size", fe.value_or(1)}};
  if (r.has("n_shared_experts")) {  // DeepSeek: shared experts of the routed size
    moe["num_shared_experts"] = r.integer("n_shared_experts", true, 0).value_or(0);
    moe["shared_expert_intermediate_size"] = fe.value_or(0);
  } else if (r.has("shared_expert_intermediate_size")) {  // Qwen2-MoE: one gated shared expert
    moe["num_shared_experts"] = 1;
    moe["shared_expert_intermediate_size"] =
        r.integer("shared_expert_intermediate_size", true, 0).value_or(0);
  } else if (r.text("model_type") == "llama4_text") {  // Llama-4: one shared expert
    moe["num_shared_experts"] = 1;
    moe["shared_expert_intermediate_size"] = fe.value_or(0);
  }
  if (r.has("first_k_dense_replace")) {
    moe["first_dense_layers"] = r.integer("first_k_dense_replace", true, 0).value_or(0);
  }
  for (const char* k : {"interleave_moe_layer_step", "decoder_sparse_step", "moe_layer_freq"}) {
    if (r.has(k)) moe["layer_step"] = r.integer(k, true, 1).value_or(1);
  }
  if (r.has("mlp_only_layers") && r.at("mlp_only_layers").is_array() &&
      !r.at("mlp_only_layers").empty()) {
    r.error("mlp_only_layers",
            "a list of dense layers is not readable (only first_k_dense_replace "
            "and a MoE layer step are)");
  }
  (*e)["moe"] = moe;
}

void read_mla(ConfigReader& r, json* e) {
  if (!r.has("kv_lora_rank")) return;
  json mla;
  mla["q_lora_rank"] = r.integer("q_lora_rank", false, 0).value_or(0);
  for (const char* k : {"kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"}) {
    mla[k] = r.integer(k, true, 1).value_or(1);
  }
  (*e)["mla"] = mla;
  // The entry's head_dim for MLA is the query/key head: qk_nope + qk_rope.
  (*e)["head_dim"] =
      mla["qk_nope_head_dim"].get<std::int64_t>() + mla["qk_rope_head_dim"].get<std::int64_t>();
  (*e)["num_key_value_heads"] = (*e)["num_attention_heads"];
}

// The per-layer attention kinds: layer_types (gpt-oss, Gemma), Llama-4's chunked local
// attention with NoPE global layers, or a sliding window on every layer (Mistral v0.1).
void read_layer_attention(ConfigReader& r, std::int64_t layers, json* e) {
  json pattern = json::array();
  std::int64_t window = 0;
  if (r.has("layer_types") && r.at("layer_types").is_array()) {
    const json& lt = r.at("layer_types");
    for (std::size_t i = 0; i < lt.size(); ++i) {
      const std::string k = lt[i].is_string() ? lt[i].get<std::string>() : "";
      if (k == "full_attention") {
        pattern.push_back("full");
      } else if (k == "sliding_attention") {
        pattern.push_back("sliding");
      } else if (k == "chunked_attention") {
        pattern.push_back("chunked");
      } else {
        r.error("layer_types", i,
                "expected full_attention, sliding_attention or chunked_attention, got " +
                    schema::describe(lt[i]));
      }
    }
    if (std::find(pattern.begin(), pattern.end(), "chunked") != pattern.end()) {
      window = r.integer("attention_chunk_size", true, 1).value_or(1);
    } else if (std::find(pattern.begin(), pattern.end(), "sliding") != pattern.end()) {
      window = r.integer("sliding_window", true, 1).value_or(1);
    }
  } else if (r.has("attention_chunk_size")) {
    window = r.integer("attention_chunk_size", true, 1).value_or(1);
    // vllm llama4.py: a layer with no_rope_layers[i] == 0 is a NoPE global layer; the others
    // attend within their chunk. Without the list, every no_rope_layer_interval-th is global.
    if (r.has("no_rope_layers") && r.at("no_rope_layers").is_array() &&
        !r.at("no_rope_layers").empty()) {
      for (const json& v : r.at("no_rope_layers")) pattern.push_back(v == 0 ? "full" : "chunked");
    } else {
      const std::int64_t every = r.integer("no_rope_layer_interval", false, 1).value_or(4);
      for (std::int64_t i = 0; i < every; ++i)
        pattern.push_back(i + 1 == every ? "full" : "chunked");
      r.note("/layer_attention", "no no_rope_layers list: every " + std::to_string(every) +
                                     "th layer global (no_rope_layer_interval)");
    }
  } else if (r.has("sliding_window") && r.boolean("use_sliding_window", true, "")) {
    window = r.integer("sliding_window", true, 1).value_or(1);
    if (r.has("sliding_window_pattern")) {  // Gemma-3: N-1 sliding layers, then a global one
      const std::int64_t n = r.integer("sliding_window_pattern", true, 1).value_or(1);
      for (std::int64_t i = 0; i < n; ++i) pattern.push_back(i + 1 == n ? "full" : "sliding");
    } else {
      pattern.push_back("sliding");
    }
  }
  if (pattern.empty()) return;
  if (static_cast<std::int64_t>(pattern.size()) > layers && r.has("layer_types")) {
    pattern.erase(pattern.begin() + layers, pattern.end());
  }
  (*e)["layer_attention"] = {{"pattern", pattern}, {"window", window}};
}

// quantization_config: FP8 (fine-grained or compressed-tensors), int4 weight-only
// (compressed-tensors pack-quantized) and MXFP4.
void read_quantization(const json& q, const std::string& base, const json& e, Diagnostics* d,
                       json* out, json* sources) {
  const std::string method = q.value("quant_method", std::string());
  json scope = json::array();
  const bool moe = e.contains("moe");
  const bool shared = moe && e["moe"].value("num_shared_experts", 0) > 0;
  const bool dense = e.value("intermediate_size", 0) > 0;
  auto all_groups = [&](const std::string& ignore_text) {
    if (ignore_text.find("self_attn") == std::string::npos &&
        ignore_text.find("Attention") == std::string::npos) {
      scope.push_back("attention");
    }
    if (dense) scope.push_back("dense_mlp");
    if (moe) scope.push_back("experts");
    if (shared && ignore_text.find("shared_expert") == std::string::npos) {
      scope.push_back("shared_experts");
    }
  };
  if (method == "fp8") {
    double bytes = 1.0;
    if (q.contains("weight_block_size") && q["weight_block_size"].is_array() &&
        q["weight_block_size"].size() == 2) {
      const double block =
          q["weight_block_size"][0].get<double>() * q["weight_block_size"][1].get<double>();
      bytes += 4.0 / block;  // one fp32 scale per block
    }
    all_groups(q.contains("modules_to_not_convert") ? q["modules_to_not_convert"].dump() : "");
    *out = {{"method", "fp8"},
            {"weight_bytes_per_param", bytes},
            {"activation", "fp8"},
            {"scope", scope}};
  } else if (method == "mxfp4") {
    *out = {{"method", "mxfp4"},
            {"weight_bytes_per_param", 0.53125},
            {"activation", "bf16"},
            {"scope", json::array({"experts"})},
            {"pad_intermediate_to", 256}};
    (*sources)["/quantization"] =
        "MXFP4 experts: 4.25 bits per parameter; vLLM pads the per-rank "
        "expert intermediate size to 256 on Hopper";
  } else if (method == "compressed-tensors") {
    const json* w = nullptr;
    const json* a = nullptr;
    if (q.contains("config_groups") && q["config_groups"].is_object()) {
      for (const auto& g : q["config_groups"].items()) {
        if (g.value().contains("weights")) w = &g.value()["weights"];
        if (g.value().contains("input_activations")) a = &g.value()["input_activations"];
        break;  // the first group decides
      }
    }
    if (w == nullptr || !w->is_object()) {
      d->push_back({base + "/config_groups", "expected a group with \"weights\""});
      return;
    }
    const int bits = w->value("num_bits", 0);
    const std::string type = w->value("type", std::string());
    const bool act_fp8 = a != nullptr && a->is_object() && a->value("type", "") == "float" &&
                         a->value("num_bits", 0) == 8;
    all_groups(q.contains("ignore") ? q["ignore"].dump() : "");
    if (bits == 8 && type == "float") {
      *out = {{"method", "fp8"},
              {"weight_bytes_per_param", 1.0},
              {"activation", act_fp8 ? "fp8" : "bf16"},
              {"scope", scope}};
    } else if (bits == 4 && type == "int") {
      const int group = w->value("group_size", 128) > 0 ? w->value("group_size", 128) : 128;
      *out = {{"method", "int4"},
              {"weight_bytes_per_param", 0.5 + 2.0 / group},
              {"activation", "bf16"},
              {"scope", scope}};
    } else {
      d->push_back(
          {base + "/config_groups", "weights of " + std::to_string(bits) + "-bit " + type +
                                        " are not readable (readable: 8-bit float, 4-bit int)"});
      return;
    }
  } else {
    d->push_back(
        {base + "/quant_method", "\"" + method +
                                     "\" is not readable by blis catalog import (readable: fp8, "
                                     "compressed-tensors FP8 or int4, mxfp4)"});
    return;
  }
  if (out->is_object() && (*out)["scope"].empty()) {
    d->push_back({base, "no quantized weight group left after its ignore list"});
  }
}

// A vision tower's parameters, estimated from its layers (attention 4h^2, MLP 2hF).
std::int64_t vision_params(const json& v) {
  const std::int64_t h = v.value("hidden_size", std::int64_t{0});
  const std::int64_t f = v.value("intermediate_size", 4 * h);
  const std::int64_t l = v.contains("num_hidden_layers")
                             ? v.value("num_hidden_layers", std::int64_t{0})
                             : v.value("depth", std::int64_t{0});
  return l * (4 * h * h + 2 * h * f);
}

}  // namespace

Diagnostics import_hf_config(const json& config, const HfImportOptions& options, json* entry) {
  Diagnostics d;
  json sources = json::object();
  ConfigReader top(config, "", &d, &sources);
  if (!top.valid()) return d;
  const bool nested = config.contains("text_config") && config["text_config"].is_object();
  const json& tc = nested ? config["text_config"] : config;
  ConfigReader r(tc, nested ? "/text_config" : "", &d, &sources);

  json e = json::object();
  std::string id = options.id.empty() ? top.text("_name_or_path") : options.id;
  if (id.empty()) top.error("_name_or_path", "missing: name the model with --id");
  e["id"] = id;
  if (config.contains("architectures") && config["architectures"].is_array() &&
      !config["architectures"].empty() && config["architectures"][0].is_string()) {
    e["architecture"] = config["architectures"][0];
  } else if (!top.text("model_type").empty()) {
    e["architecture"] = top.text("model_type");
    sources["/architecture"] = "no architectures list: the model_type";
  } else {
    top.error("architectures", "missing (and no model_type)");
  }
  const auto layers = r.integer("num_hidden_layers", true, 1);
  const auto hidden = r.integer("hidden_size", true, 1);
  const auto heads = r.integer("num_attention_heads", true, 1);
  e["num_hidden_layers"] = layers.value_or(1);
  e["hidden_size"] = hidden.value_or(1);
  e["num_attention_heads"] = heads.value_or(1);
  if (r.has("num_key_value_heads")) {
    e["num_key_value_heads"] = r.integer("num_key_value_heads", true, 1).value_or(1);
  } else {
    e["num_key_value_heads"] = heads.value_or(1);
    sources["/num_key_value_heads"] =
        "not in the config: multi-head attention (one KV head per head)";
  }
  if (r.has("head_dim")) {
    e["head_dim"] = r.integer("head_dim", true, 1).value_or(1);
  } else if (hidden && heads) {
    if (*hidden % *heads != 0)
      r.error("head_dim", "missing, and hidden_size / num_attention_heads is not whole");
    e["head_dim"] = *hidden / std::max<std::int64_t>(1, *heads);
    sources["/head_dim"] = "not in the config: hidden_size / num_attention_heads";
  }
  std::int64_t dense = -1;
  read_moe(r, &e, &dense);
  if (dense < 0) {
    const bool moe = e.contains("moe");
    const bool has_dense_layers = !moe || e["moe"].value("first_dense_layers", 0) > 0 ||
                                  e["moe"].value("layer_step", 1) > 1 ||
                                  r.has("moe_intermediate_size");
    dense = has_dense_layers ? r.integer("intermediate_size", true, 1).value_or(1) : 0;
  }
  e["intermediate_size"] = dense;
  e["vocab_size"] = r.integer("vocab_size", true, 1).value_or(1);
  // The decoder's own key, else the top level's (multimodal configs), else untied.
  ConfigReader& tie_from =
      r.has("tie_word_embeddings") || !top.has("tie_word_embeddings") ? r : top;
  const bool tie = tie_from.boolean("tie_word_embeddings", false,
                                    tie_from.has("tie_word_embeddings")
                                        ? ""
                                        : "not in the config: untied (most decoder configs)");
  e["tie_word_embeddings"] = tie;
  e["max_position_embeddings"] = r.integer("max_position_embeddings", true, 1).value_or(1);
  std::string dtype = top.text("torch_dtype");
  if (dtype.empty()) dtype = top.text("dtype");
  if (dtype.empty()) dtype = r.text("torch_dtype");
  if (dtype.empty()) {
    dtype = "bfloat16";
    sources["/torch_dtype"] = "not in the config: bfloat16 assumed";
  }
  if (dtype != "bfloat16" && dtype != "float16" && dtype != "float32") {
    top.error("torch_dtype", "expected bfloat16, float16 or float32, got \"" + dtype + "\"");
  }
  e["torch_dtype"] = dtype;
  const std::string type = r.text("model_type");
  if (r.has("attention_bias")) {
    e["attention_bias"] = r.boolean("attention_bias", false, "");
  } else if (type.rfind("qwen2", 0) == 0) {
    e["attention_bias"] = true;  // Qwen2 has q/k/v biases without a config key
    sources["/attention_bias"] = "Qwen2 architecture: q/k/v projections carry biases";
  }
  if (type.rfind("qwen3", 0) == 0) e["qk_norm"] = true;  // per-head q_norm / k_norm
  read_mla(r, &e);
  read_layer_attention(r, layers.value_or(1), &e);
  if (config.contains("vision_config") && config["vision_config"].is_object()) {
    const std::int64_t p = vision_params(config["vision_config"]);
    if (p > 0) {
      e["extra_params"] = p;
      sources["/extra_params"] =
          "estimated from vision_config: layers x (4 h^2 + 2 h F), the "
          "projector not counted";
    }
  }
  const json* q = nullptr;
  if (config.contains("quantization_config"))
    q = &config["quantization_config"];
  else if (nested && tc.contains("quantization_config"))
    q = &tc["quantization_config"];
  if (q != nullptr && q->is_object()) {
    json qe;
    read_quantization(*q, "/quantization_config", e, &d, &qe, &sources);
    if (qe.is_object()) e["quantization"] = qe;
  }
  e["source"] =
      "imported by blis catalog import from " +
      (options.origin.empty() ? std::string("a Hugging Face config.json") : options.origin) +
      " (model_type " + (type.empty() ? top.text("model_type") : type) +
      "); an estimate until a calibration run covers it";
  if (!sources.empty()) e["sources"] = sources;
  if (has_errors(d)) return d;
  // The entry must be one the catalog accepts.
  Model m;
  for (auto& x : schema::parse_model(e, "", &m)) {
    d.push_back(
        {x.pointer, "the imported entry is not a valid model entry: " + x.message, x.severity});
  }
  if (!has_errors(d)) *entry = e;
  return d;
}

}  // namespace blis::catalog
