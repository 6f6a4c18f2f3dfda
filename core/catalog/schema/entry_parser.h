#pragma once
// Parses one catalog entry from JSON text: syntax errors and schema errors alike come back as
// Diagnostics under `pointer` (e.g. "/catalog/gpus/0" for an inline scenario entry).

#include <string>

#include "catalog/entries.h"
#include "util/diagnostic.h"

namespace blis::catalog::schema {

struct ParsedEntry {
  Kind kind = Kind::kGpu;
  std::string id;
  Gpu gpu;
  Model model;
  Fabric fabric;
  bool coefficients_are_memory = false;
  GpuCoefficients gpu_coefficients;
  MemoryCoefficients memory_coefficients;
};

Diagnostics parse_entry(Kind kind, const std::string& json_text, const std::string& pointer,
                        ParsedEntry* out);

// The file name (without .json) a built-in entry must have: the id, with '/' written as "--"
// for Hugging Face model ids (meta-llama/Llama-3.1-8B-Instruct ->
// meta-llama--Llama-3.1-8B-Instruct).
std::string file_stem_for_id(const std::string& id);

}  // namespace blis::catalog::schema
