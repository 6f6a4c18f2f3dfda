#include "catalog/schema/entry_parser.h"

#include "catalog/schema/schema.h"

namespace blis::catalog::schema {

Diagnostics parse_entry(Kind kind, const std::string& json_text, const std::string& pointer,
                        ParsedEntry* out) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::parse_error& e) {
    return {{pointer, std::string("not valid JSON: ") + e.what()}};
  }
  out->kind = kind;
  Diagnostics d;
  switch (kind) {
    case Kind::kGpu:
      d = parse_gpu(j, pointer, &out->gpu);
      out->id = out->gpu.id;
      break;
    case Kind::kModel:
      d = parse_model(j, pointer, &out->model);
      out->id = out->model.id;
      break;
    case Kind::kFabric:
      d = parse_fabric(j, pointer, &out->fabric);
      out->id = out->fabric.id;
      break;
    case Kind::kCoefficients: {
      CoefficientsEntry c;
      d = parse_coefficients(j, pointer, &c);
      out->coefficients_are_memory = c.is_memory;
      out->gpu_coefficients = c.gpu;
      out->memory_coefficients = c.memory;
      out->id = c.id();
      break;
    }
  }
  return d;
}

std::string file_stem_for_id(const std::string& id) {
  std::string out;
  for (char c : id) {
    if (c == '/') {
      out += "--";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace blis::catalog::schema
