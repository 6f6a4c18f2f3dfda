#pragma once
// The catalog schemas: one parse-and-validate function per kind. The same code checks the
// built-in JSON files at build time (catalog/tools/catalog_gen.cpp) and inline scenario
// entries at run time (Catalog::add_inline). Every problem is a Diagnostic with a JSON pointer.

#include <string>

#include <nlohmann/json.hpp>

#include "catalog/entries.h"
#include "util/diagnostic.h"

namespace blis::catalog::schema {

// A coefficients file holds either per-GPU efficiencies ("kind": "gpu") or the memory
// profiling coefficients ("kind": "memory").
struct CoefficientsEntry {
  bool is_memory = false;
  GpuCoefficients gpu;
  MemoryCoefficients memory;
  const std::string& id() const { return is_memory ? memory.id : gpu.id; }
};

Diagnostics parse_gpu(const nlohmann::json& j, const std::string& pointer, Gpu* out);
Diagnostics parse_model(const nlohmann::json& j, const std::string& pointer, Model* out);
Diagnostics parse_fabric(const nlohmann::json& j, const std::string& pointer, Fabric* out);
Diagnostics parse_coefficients(const nlohmann::json& j, const std::string& pointer,
                               CoefficientsEntry* out);

}  // namespace blis::catalog::schema
