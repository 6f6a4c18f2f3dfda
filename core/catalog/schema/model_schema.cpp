// Schema of a model entry (catalog/models/*.json). Field names follow the model's
// config.json where one exists; docs/catalog.md lists each field and its unit.
#include "catalog/schema/object_reader.h"
#include "catalog/schema/schema.h"

namespace blis::catalog::schema {

namespace {

// Physical bounds, far above every real model (the largest today: hidden 16384-25600,
// 128 layers, 256 experts, vocab ~256k, 10M-token context) and low enough that the kernel's
// products of dimensions (weights = layers x experts x 3 x hidden x intermediate x bytes; KV
// bytes per token x context) stay far inside int64 and finite doubles. A 2^62 hidden size is
// an error here, not an overflow later.
constexpr std::int32_t kMaxLayers = 1 << 10;
constexpr std::int64_t kMaxHidden = 1 << 18;
constexpr std::int64_t kMaxIntermediate = 1 << 20;
constexpr std::int32_t kMaxHeads = 1 << 12;
constexpr std::int32_t kMaxHeadDim = 1 << 12;
constexpr std::int32_t kMaxExperts = 1 << 10;
constexpr std::int64_t kMaxVocab = 1 << 24;
constexpr std::int64_t kMaxContext = 1 << 24;
constexpr std::int64_t kMaxExtraParams = std::int64_t{1} << 46;

void read_moe(ObjectReader& r, Model* m, Diagnostics* d) {
  const nlohmann::json* v = r.object("moe", false);
  if (v == nullptr) return;
  ObjectReader mr(*v, r.child("moe"), d);
  MoeSpec& moe = m->moe;
  mr.integer32("num_experts", &moe.num_experts, true, 1, kMaxExperts);
  mr.integer32("experts_per_token", &moe.experts_per_token, true, 1, kMaxExperts);
  mr.integer("expert_intermediate_size", &moe.expert_intermediate_size, true, 1, kMaxIntermediate);
  mr.integer32("num_shared_experts", &moe.num_shared_experts, false, 0, kMaxExperts);
  mr.integer("shared_expert_intermediate_size", &moe.shared_expert_intermediate_size, false, 0,
             kMaxIntermediate);
  mr.integer32("first_dense_layers", &moe.first_dense_layers, false, 0, kMaxLayers);
  mr.integer32("layer_step", &moe.layer_step, false, 1, kMaxLayers);
  mr.finish();
  if (moe.experts_per_token > moe.num_experts) {
    mr.error("experts_per_token", "must not exceed num_experts (" +
                                      std::to_string(moe.num_experts) + "), got " +
                                      std::to_string(moe.experts_per_token));
  }
  if (moe.num_shared_experts > 0 && moe.shared_expert_intermediate_size == 0) {
    mr.error("shared_expert_intermediate_size", "required when num_shared_experts > 0");
  }
  if (moe.first_dense_layers >= m->num_hidden_layers && m->num_hidden_layers > 0) {
    mr.error("first_dense_layers",
             "must be less than num_hidden_layers (" + std::to_string(m->num_hidden_layers) + ")");
  }
}

void read_mla(ObjectReader& r, Model* m, Diagnostics* d) {
  const nlohmann::json* v = r.object("mla", false);
  if (v == nullptr) return;
  ObjectReader mr(*v, r.child("mla"), d);
  MlaSpec& mla = m->mla;
  mr.integer32("q_lora_rank", &mla.q_lora_rank, false, 0, kMaxHidden);
  mr.integer32("kv_lora_rank", &mla.kv_lora_rank, true, 1, kMaxHidden);
  mr.integer32("qk_nope_head_dim", &mla.qk_nope_head_dim, true, 1, kMaxHeadDim);
  mr.integer32("qk_rope_head_dim", &mla.qk_rope_head_dim, true, 1, kMaxHeadDim);
  mr.integer32("v_head_dim", &mla.v_head_dim, true, 1, kMaxHeadDim);
  mr.finish();
}

void read_layer_attention(ObjectReader& r, Model* m, Diagnostics* d) {
  const nlohmann::json* v = r.object("layer_attention", false);
  if (v == nullptr) return;
  ObjectReader lr(*v, r.child("layer_attention"), d);
  const nlohmann::json* pattern = lr.array("pattern", true);
  lr.integer32("window", &m->layer_attention.window, true, 1, kMaxContext);
  lr.finish();
  if (pattern == nullptr) return;
  if (pattern->empty()) {
    lr.error("pattern", "expected a non-empty array of \"full\", \"sliding\" or \"chunked\"");
    return;
  }
  for (std::size_t i = 0; i < pattern->size(); ++i) {
    const auto& e = (*pattern)[i];
    const std::string s = e.is_string() ? e.get<std::string>() : "";
    const std::string ptr = json_pointer_append(lr.child("pattern"), i);
    if (s == "full") {
      m->layer_attention.pattern.push_back(AttentionKind::kFull);
    } else if (s == "sliding") {
      m->layer_attention.pattern.push_back(AttentionKind::kSliding);
    } else if (s == "chunked") {
      m->layer_attention.pattern.push_back(AttentionKind::kChunked);
    } else {
      d->push_back({ptr, "expected one of full, sliding, chunked, got " + describe(e)});
    }
  }
}

void read_quantization(ObjectReader& r, Model* m, Diagnostics* d) {
  const nlohmann::json* v = r.object("quantization", false);
  if (v == nullptr) return;
  ObjectReader qr(*v, r.child("quantization"), d);
  Quantization& q = m->quantization;
  qr.one_of("method", &q.method, true, {"fp8", "int8", "int4", "mxfp4", "nvfp4"});
  qr.number("weight_bytes_per_param", &q.weight_bytes_per_param, true, 0, 4, true);
  qr.one_of("activation", &q.activation, true, {"bf16", "fp8", "int8"});
  qr.integer32("pad_intermediate_to", &q.pad_intermediate_to, false, 0);
  const nlohmann::json* scope = qr.array("scope", true);
  qr.finish();
  if (scope == nullptr) return;
  if (scope->empty()) qr.error("scope", "expected at least one quantized weight group");
  for (std::size_t i = 0; i < scope->size(); ++i) {
    const auto& e = (*scope)[i];
    const std::string s = e.is_string() ? e.get<std::string>() : "";
    if (s == "attention" || s == "dense_mlp" || s == "experts" || s == "shared_experts") {
      q.scope.push_back(s);
    } else {
      d->push_back(
          {json_pointer_append(qr.child("scope"), i),
           "expected one of attention, dense_mlp, experts, shared_experts, got " + describe(e)});
    }
  }
}

}  // namespace

Diagnostics parse_model(const nlohmann::json& j, const std::string& pointer, Model* out) {
  Diagnostics d;
  ObjectReader r(j, pointer, &d);
  if (!r.ok()) return d;
  r.text("id", &out->id, true);
  r.text("architecture", &out->architecture, true);
  r.integer32("num_hidden_layers", &out->num_hidden_layers, true, 1, kMaxLayers);
  r.integer("hidden_size", &out->hidden_size, true, 1, kMaxHidden);
  r.integer32("num_attention_heads", &out->num_attention_heads, true, 1, kMaxHeads);
  r.integer32("num_key_value_heads", &out->num_key_value_heads, true, 1, kMaxHeads);
  r.integer32("head_dim", &out->head_dim, true, 1, kMaxHeadDim);
  r.integer("intermediate_size", &out->intermediate_size, true, 0, kMaxIntermediate);
  r.integer("vocab_size", &out->vocab_size, true, 1, kMaxVocab);
  r.boolean("tie_word_embeddings", &out->tie_word_embeddings, true);
  r.integer("max_position_embeddings", &out->max_position_embeddings, true, 1, kMaxContext);
  r.one_of("torch_dtype", &out->torch_dtype, true, {"bfloat16", "float16", "float32"});
  r.boolean("attention_bias", &out->attention_bias, false);
  r.boolean("qk_norm", &out->qk_norm, false);
  r.integer("extra_params", &out->extra_params, false, 0, kMaxExtraParams);
  read_moe(r, out, &d);
  read_mla(r, out, &d);
  read_layer_attention(r, out, &d);
  read_quantization(r, out, &d);
  if (const nlohmann::json* cal = r.array("calibrated_on", false)) {
    for (std::size_t i = 0; i < cal->size(); ++i) {
      const auto& e = (*cal)[i];
      if (e.is_string() && !e.get<std::string>().empty()) {
        out->calibrated_on.push_back(e.get<std::string>());
      } else {
        d.push_back({json_pointer_append(r.child("calibrated_on"), i),
                     "expected a GPU id, got " + describe(e)});
      }
    }
  }
  r.text("source", &out->source, true);
  r.string_map("sources", &out->sources);
  r.finish();

  // Cross-field rules.
  if (out->num_key_value_heads > 0 && out->num_attention_heads % out->num_key_value_heads != 0) {
    r.error("num_key_value_heads", "must divide num_attention_heads (" +
                                       std::to_string(out->num_attention_heads) + "), got " +
                                       std::to_string(out->num_key_value_heads));
  }
  const bool has_dense_layers =
      !out->is_moe() || out->moe.first_dense_layers > 0 || out->moe.layer_step > 1;
  if (has_dense_layers && out->intermediate_size == 0) {
    r.error("intermediate_size", "must be >= 1: the model has dense FFN layers");
  }
  return d;
}

}  // namespace blis::catalog::schema
