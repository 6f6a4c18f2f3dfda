// blis catalog import's core: Hugging Face config.json files (four real ones, copied from
// huggingface.co into fixtures/hf-configs, and hand-written MLA/MoE/hybrid/sliding ones)
// become model entries that the schema accepts and that match the built-in entries.
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog/hf_import.h"
#include "catalog/schema/schema.h"

namespace blis::catalog {
namespace {

nlohmann::json load(const std::string& name) {
  std::ifstream in(std::string(BLIS_SOURCE_DIR) + "/tests/catalog/fixtures/hf-configs/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return nlohmann::json::parse(s.str());
}

// Imports a config and parses the entry back through the model schema.
Model import_and_parse(const std::string& file, const std::string& id = "") {
  nlohmann::json entry;
  const Diagnostics d = import_hf_config(load(file), {id, file}, &entry);
  EXPECT_FALSE(has_errors(d)) << file << ": " << (d.empty() ? "" : format_diagnostic(d.front()));
  Model m;
  const Diagnostics back = schema::parse_model(entry, "", &m);
  EXPECT_TRUE(back.empty()) << file << ": "
                            << (back.empty() ? "" : format_diagnostic(back.front()));
  return m;
}

void expect_same_shape(const Model& a, const Model& b) {
  EXPECT_EQ(a.architecture, b.architecture) << b.id;
  EXPECT_EQ(a.num_hidden_layers, b.num_hidden_layers) << b.id;
  EXPECT_EQ(a.hidden_size, b.hidden_size) << b.id;
  EXPECT_EQ(a.num_attention_heads, b.num_attention_heads) << b.id;
  EXPECT_EQ(a.num_key_value_heads, b.num_key_value_heads) << b.id;
  EXPECT_EQ(a.head_dim, b.head_dim) << b.id;
  EXPECT_EQ(a.intermediate_size, b.intermediate_size) << b.id;
  EXPECT_EQ(a.vocab_size, b.vocab_size) << b.id;
  EXPECT_EQ(a.tie_word_embeddings, b.tie_word_embeddings) << b.id;
  EXPECT_EQ(a.max_position_embeddings, b.max_position_embeddings) << b.id;
  EXPECT_EQ(a.torch_dtype, b.torch_dtype) << b.id;
  EXPECT_EQ(a.moe.num_experts, b.moe.num_experts) << b.id;
  EXPECT_EQ(a.moe.experts_per_token, b.moe.experts_per_token) << b.id;
  EXPECT_EQ(a.moe.expert_intermediate_size, b.moe.expert_intermediate_size) << b.id;
}

TEST(HfImport, RealConfigsMatchTheBuiltInEntries) {
  const Catalog& c = Catalog::builtin();
  const struct {
    const char* file;
    const char* id;
  } cases[] = {{"Llama-2-7b-hf.json", "meta-llama/Llama-2-7b-hf"},
               {"Llama-2-70b-hf.json", "meta-llama/Llama-2-70b-hf"},
               {"CodeLlama-34b-Instruct-hf.json", "codellama/CodeLlama-34b-Instruct-hf"},
               {"Mixtral-8x7B-v0.1.json", "mistralai/Mixtral-8x7B-v0.1"}};
  for (const auto& t : cases) {
    const Model m = import_and_parse(t.file, t.id);
    EXPECT_EQ(m.id, t.id);
    expect_same_shape(m, *c.find_model(t.id));
    EXPECT_NE(m.source.find("estimate"), std::string::npos) << m.source;
  }
}

TEST(HfImport, ImportedEntryGoesIntoACatalog) {
  nlohmann::json entry;
  ASSERT_FALSE(has_errors(
      import_hf_config(load("Llama-2-7b-hf.json"), {"acme/Llama-2-7b-copy", ""}, &entry)));
  Catalog c = Catalog::builtin();
  const Diagnostics d = c.add_inline(Kind::kModel, entry.dump(), "/catalog/models/0");
  ASSERT_TRUE(d.empty()) << format_diagnostic(d.front());
  const Model* m = c.find_model("acme/Llama-2-7b-copy");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->calibrated_on.empty());  // an imported model is not calibrated anywhere
  EXPECT_FALSE(m->calibrated_for("H100-SXM-80GB"));
}

TEST(HfImport, MlaWithDenseAndSharedExperts) {
  const Model m = import_and_parse("handwritten-mla-moe.json");
  EXPECT_EQ(m.id, "test/mla-moe");
  EXPECT_TRUE(m.is_mla());
  EXPECT_EQ(m.mla.q_lora_rank, 0);  // null in the config
  EXPECT_EQ(m.mla.kv_lora_rank, 512);
  EXPECT_EQ(m.head_dim, 192);  // qk_nope + qk_rope
  EXPECT_EQ(m.moe.num_experts, 64);
  EXPECT_EQ(m.moe.num_shared_experts, 2);
  EXPECT_EQ(m.moe.shared_expert_intermediate_size, 1408);
  EXPECT_EQ(m.moe.first_dense_layers, 1);
  EXPECT_EQ(m.intermediate_size, 10944);
  EXPECT_FALSE(m.layer_is_moe(0));
  EXPECT_TRUE(m.layer_is_moe(1));
}

TEST(HfImport, MoeWithFineGrainedFp8) {
  const Model m = import_and_parse("handwritten-moe-fp8.json", "test/moe-fp8");
  EXPECT_EQ(m.moe.num_experts, 128);
  EXPECT_EQ(m.moe.expert_intermediate_size, 768);
  EXPECT_TRUE(m.qk_norm);
  EXPECT_EQ(m.quantization.method, "fp8");
  EXPECT_EQ(m.quantization.activation, "fp8");
  EXPECT_DOUBLE_EQ(m.quantization.weight_bytes_per_param, 1.0 + 4.0 / 16384.0);
  EXPECT_TRUE(m.quantization.applies_to("attention"));
  EXPECT_TRUE(m.quantization.applies_to("experts"));
}

TEST(HfImport, ChunkedLocalAttentionFromTextConfig) {
  const Model m = import_and_parse("handwritten-hybrid-chunked.json");
  ASSERT_EQ(m.layer_attention.pattern.size(), 8u);
  EXPECT_EQ(m.layer_attention_kind(0), AttentionKind::kChunked);
  EXPECT_EQ(m.layer_attention_kind(3), AttentionKind::kFull);  // no_rope_layers 0: NoPE global
  EXPECT_EQ(m.layer_attention.window, 8192);
  EXPECT_EQ(m.moe.num_shared_experts, 1);
  EXPECT_EQ(m.moe.layer_step, 2);
  EXPECT_EQ(m.intermediate_size, 4096);  // intermediate_size_mlp for the dense layers
  EXPECT_GT(m.extra_params, 0);          // the vision tower
  EXPECT_EQ(m.quantization.method, "fp8");
  EXPECT_FALSE(m.quantization.applies_to("attention"));  // ignored: re:.*self_attn
  EXPECT_TRUE(m.quantization.applies_to("experts"));
}

TEST(HfImport, SlidingWindowLayersAndMxfp4) {
  const Model m = import_and_parse("handwritten-sliding-mxfp4.json");
  EXPECT_EQ(m.layer_attention_kind(0), AttentionKind::kSliding);
  EXPECT_EQ(m.layer_attention_kind(1), AttentionKind::kFull);
  EXPECT_EQ(m.layer_attention.window, 128);
  EXPECT_EQ(m.intermediate_size, 0);
  EXPECT_EQ(m.quantization.method, "mxfp4");
  EXPECT_EQ(m.quantization.pad_intermediate_to, 256);
  EXPECT_TRUE(m.attention_bias);
}

TEST(HfImport, UnreadableConfigsNameThePointer) {
  nlohmann::json entry;
  const Diagnostics d = import_hf_config(load("handwritten-unreadable.json"), {}, &entry);
  ASSERT_TRUE(has_errors(d));
  bool layers = false, quant = false;
  for (const auto& x : d) {
    layers |= x.pointer == "/num_hidden_layers";
    quant |= x.pointer == "/quantization_config/quant_method" &&
             x.message.find("awq") != std::string::npos;
  }
  EXPECT_TRUE(layers) << format_diagnostic(d.front());
  EXPECT_TRUE(quant);
  EXPECT_TRUE(entry.is_null());
  // Not an object at all; a config without a name needs --id.
  EXPECT_TRUE(has_errors(import_hf_config(nlohmann::json::array(), {}, &entry)));
  const Diagnostics noid = import_hf_config(load("Llama-2-7b-hf.json"), {}, &entry);
  ASSERT_TRUE(has_errors(noid));
  EXPECT_EQ(noid.front().pointer, "/_name_or_path");
}

// The importer reads through the shared field reader (util/json_fields.h): its messages, the
// pointer of an array element, and null as "not given".
TEST(HfImport, BadValuesGetTheSharedReadersMessages) {
  nlohmann::json config = load("Llama-2-7b-hf.json");
  config["num_hidden_layers"] = "32";
  config["hidden_size"] = 4096.5;
  config["vocab_size"] = nullptr;
  config["tie_word_embeddings"] = "no";
  config["layer_types"] = {"full_attention", "global"};
  nlohmann::json entry;
  std::map<std::string, std::string> got;
  for (const auto& x : import_hf_config(config, {"test/bad", ""}, &entry))
    got[x.pointer] = x.message;
  EXPECT_EQ(got["/num_hidden_layers"], "\"32\" is a string, expected an integer >= 1");
  EXPECT_EQ(got["/hidden_size"], "4096.5 is not a whole number, expected an integer >= 1");
  EXPECT_EQ(got["/vocab_size"], "missing: blis catalog import needs it");
  EXPECT_EQ(got["/tie_word_embeddings"], "\"no\" is a string, expected true or false");
  EXPECT_EQ(got["/layer_types/1"],
            "expected full_attention, sliding_attention or chunked_attention, got \"global\"");
  EXPECT_TRUE(entry.is_null());
  const Diagnostics d = import_hf_config(nlohmann::json("x"), {}, &entry);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(format_diagnostic(d[0]), "/: \"x\" is a string, expected a config.json object");
}

}  // namespace
}  // namespace blis::catalog
