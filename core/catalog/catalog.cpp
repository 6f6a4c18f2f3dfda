#include "catalog/catalog.h"

#include <stdexcept>

#include "catalog/embedded.h"
#include "catalog/schema/entry_parser.h"
#include "catalog/schema/references.h"

namespace blis::catalog {

namespace {

template <typename Map>
std::vector<std::string> keys(const Map& m) {
  std::vector<std::string> out;
  out.reserve(m.size());
  for (const auto& [k, v] : m) out.push_back(k);
  return out;  // std::map keeps them sorted
}

template <typename Map>
const typename Map::mapped_type* lookup(const Map& m, std::string_view id) {
  const auto it = m.find(id);
  return it == m.end() ? nullptr : &it->second;
}

}  // namespace

Catalog Catalog::load_builtin() {
  Catalog c;
  // The generator validated every entry and its references at build time; the first pass
  // adds fabrics and GPUs so later entries resolve their references.
  for (const Kind pass : {Kind::kFabric, Kind::kGpu, Kind::kModel, Kind::kCoefficients}) {
    for (std::size_t i = 0; i < detail::kEmbeddedEntryCount; ++i) {
      const auto& e = detail::kEmbeddedEntries[i];
      if (e.kind != pass) continue;
      const Diagnostics d = c.add_entry(e.kind, e.json, "", e.path);
      if (has_errors(d)) {
        throw std::logic_error("built-in catalog entry " + std::string(e.path) +
                               " is invalid: " + format_diagnostic(d.front()));
      }
    }
  }
  return c;
}

const Catalog& Catalog::builtin() {
  static const Catalog catalog = load_builtin();
  return catalog;
}

const Gpu* Catalog::find_gpu(std::string_view id) const {
  return lookup(gpus_, id);
}
const Model* Catalog::find_model(std::string_view id) const {
  return lookup(models_, id);
}
const Fabric* Catalog::find_fabric(std::string_view id) const {
  return lookup(fabrics_, id);
}

std::vector<std::string> Catalog::gpu_ids() const {
  return keys(gpus_);
}
std::vector<std::string> Catalog::model_ids() const {
  return keys(models_);
}
std::vector<std::string> Catalog::fabric_ids() const {
  return keys(fabrics_);
}

const GpuCoefficients& Catalog::gpu_coefficients(std::string_view gpu_id) const {
  if (const auto* c = lookup(gpu_coefficients_, gpu_id)) return *c;
  if (const auto* c = lookup(gpu_coefficients_, "default")) return *c;
  static const GpuCoefficients fallback;  // only reachable from an empty catalog
  return fallback;
}

bool Catalog::has_measured_coefficients(std::string_view gpu_id) const {
  return lookup(gpu_coefficients_, gpu_id) != nullptr;
}

const MemoryCoefficients& Catalog::memory_coefficients() const {
  return memory_coefficients_;
}

Diagnostics Catalog::add_inline(Kind kind, const std::string& json_text,
                                const std::string& pointer) {
  return add_entry(kind, json_text, pointer, "inline");
}

Diagnostics Catalog::add_entry(Kind kind, const std::string& json_text, const std::string& pointer,
                               std::string origin) {
  schema::ParsedEntry e;
  Diagnostics d = schema::parse_entry(kind, json_text, pointer, &e);
  if (has_errors(d)) return d;
  switch (kind) {
    case Kind::kGpu: {
      Diagnostics refs = schema::check_gpu_references(e.gpu, fabric_ids(), pointer);
      if (!refs.empty()) return refs;
      gpus_[e.id] = e.gpu;
      break;
    }
    case Kind::kModel:
      models_[e.id] = e.model;
      break;
    case Kind::kFabric:
      fabrics_[e.id] = e.fabric;
      break;
    case Kind::kCoefficients:
      if (e.coefficients_are_memory) {
        memory_coefficients_ = e.memory_coefficients;
      } else {
        Diagnostics refs =
            schema::check_coefficients_references(e.gpu_coefficients, gpu_ids(), pointer);
        if (!refs.empty()) return refs;
        gpu_coefficients_[e.id] = e.gpu_coefficients;
      }
      break;
  }
  texts_[static_cast<int>(kind)][e.id] = Text{json_text, std::move(origin)};
  return d;
}

const std::string* Catalog::entry_json(Kind kind, std::string_view id) const {
  const auto* t = lookup(texts_[static_cast<int>(kind)], id);
  return t == nullptr ? nullptr : &t->json;
}

std::string Catalog::entry_origin(Kind kind, std::string_view id) const {
  const auto* t = lookup(texts_[static_cast<int>(kind)], id);
  return t == nullptr ? std::string() : t->origin;
}

}  // namespace blis::catalog
