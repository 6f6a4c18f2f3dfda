// importHfConfig(configJson, id): a pasted Hugging Face config.json as a catalog model entry,
// the same importer as `blis catalog import`, for the playground's "add a model" box.

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>

#include <nlohmann/json.hpp>

#include "catalog/hf_import.h"
#include "diagnostics_js.h"
#include "embind_guard.h"

namespace blis::wasm {
namespace {

// {entry: the entry's JSON text or "" when it has errors, diagnostics: [...]}.
emscripten::val import_hf_config(const std::string& config_json, const std::string& id) {
  return guard([&] {
    emscripten::val out = emscripten::val::object();
    const nlohmann::json config = nlohmann::json::parse(config_json, nullptr, false);
    Diagnostics ds;
    nlohmann::json entry;
    if (config.is_discarded()) {
      ds.push_back({"", "not valid JSON"});
    } else {
      ds = catalog::import_hf_config(config, {id, "a pasted config.json"}, &entry);
    }
    out.set("entry", has_errors(ds) ? std::string() : entry.dump(2));
    out.set("diagnostics", diagnostics_to_js(ds));
    return out;
  });
}

}  // namespace
}  // namespace blis::wasm

EMSCRIPTEN_BINDINGS(blis_import) {
  emscripten::function("importHfConfig", &blis::wasm::import_hf_config);
}
