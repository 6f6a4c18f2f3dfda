#pragma once
// Catalog: the declared facts (GPUs, models, fabrics) and measured coefficients the latency
// kernel prices with. builtin() is the catalog compiled into the library (no file I/O at run
// time); a scenario copies it and adds inline entries, which replace built-ins of the same id.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/entries.h"
#include "util/diagnostic.h"
#include "util/did_you_mean.h"

namespace blis::catalog {

class Catalog {
 public:
  static const Catalog& builtin();

  const Gpu* find_gpu(std::string_view id) const;
  const Model* find_model(std::string_view id) const;
  const Fabric* find_fabric(std::string_view id) const;

  // Sorted ids of each kind.
  std::vector<std::string> gpu_ids() const;
  std::vector<std::string> model_ids() const;
  std::vector<std::string> fabric_ids() const;

  // The efficiencies measured for a GPU, or the "default" ones when none were measured.
  const GpuCoefficients& gpu_coefficients(std::string_view gpu_id) const;
  bool has_measured_coefficients(std::string_view gpu_id) const;
  const MemoryCoefficients& memory_coefficients() const;

  // Validates and adds one entry given as JSON text in the catalog's own schema. Errors are
  // located under `pointer` (e.g. "/catalog/gpus/0"); nothing is added when there are any.
  // An entry with the id of an existing one replaces it.
  Diagnostics add_inline(Kind kind, const std::string& json_text, const std::string& pointer);

  // The JSON text an entry came from (for `blis catalog show`), or nullptr.
  const std::string* entry_json(Kind kind, std::string_view id) const;
  // Where an entry came from: "gpus/H100-SXM-80GB.json" for a built-in, "inline" otherwise.
  std::string entry_origin(Kind kind, std::string_view id) const;

 private:
  static Catalog load_builtin();
  Diagnostics add_entry(Kind kind, const std::string& json_text, const std::string& pointer,
                        std::string origin);

  struct Text {
    std::string json;
    std::string origin;
  };
  std::map<std::string, Gpu, std::less<>> gpus_;
  std::map<std::string, Model, std::less<>> models_;
  std::map<std::string, Fabric, std::less<>> fabrics_;
  std::map<std::string, GpuCoefficients, std::less<>> gpu_coefficients_;
  MemoryCoefficients memory_coefficients_;
  std::map<std::string, Text, std::less<>> texts_[4];
};

}  // namespace blis::catalog
