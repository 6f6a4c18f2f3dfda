// The built-in catalog's ids, for the web editor's suggestions (GPU and model pickers).

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "embind_guard.h"

namespace blis::wasm {
namespace {

using emscripten::val;

val to_array(const std::vector<std::string>& ids) {
  val out = val::array();
  for (const std::string& id : ids) out.call<void>("push", id);
  return out;
}

// {gpus: [...], models: [...], fabrics: [...]}, each sorted.
val catalog_ids() {
  return guard([] {
    const catalog::Catalog& c = catalog::Catalog::builtin();
    val out = val::object();
    out.set("gpus", to_array(c.gpu_ids()));
    out.set("models", to_array(c.model_ids()));
    out.set("fabrics", to_array(c.fabric_ids()));
    return out;
  });
}

}  // namespace
}  // namespace blis::wasm

EMSCRIPTEN_BINDINGS(blis_catalog) {
  emscripten::function("catalogIds", &blis::wasm::catalog_ids);
}
