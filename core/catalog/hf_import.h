#pragma once
// A Hugging Face config.json turned into a catalog model entry (the schema of
// catalog/models/*.json): dense, GQA/MHA, MLA, MoE (Mixtral, Qwen-MoE, DeepSeek, Llama-4,
// gpt-oss), sliding-window and chunked-local layer patterns, and FP8 / MXFP4 checkpoints.
// What the config leaves out is defaulted and recorded in the entry's "sources"; what the
// importer cannot read is an error naming the config's JSON pointer. The entry is checked
// against the model schema before it is returned.

#include <string>

#include <nlohmann/json.hpp>

#include "util/diagnostic.h"

namespace blis::catalog {

struct HfImportOptions {
  std::string id;      // the entry's id; "" = the config's _name_or_path
  std::string origin;  // where the config came from (a file name), for "source"
};

// Returns the diagnostics (errors name a pointer into `config`); on success `entry` holds the
// model entry, which parse_model accepts.
Diagnostics import_hf_config(const nlohmann::json& config, const HfImportOptions& options,
                             nlohmann::json* entry);

}  // namespace blis::catalog
