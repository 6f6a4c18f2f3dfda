// validateScenario(json): every diagnostic of a scenario document, the messages `blis
// validate` prints, for the web editor's inline errors.

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>

#include "diagnostics_js.h"
#include "embind_guard.h"
#include "scenario/scenario_decode.h"

namespace blis::wasm {
namespace {

emscripten::val validate_scenario(const std::string& json) {
  return guard([&] { return diagnostics_to_js(scenario::validate_scenario_text(json)); });
}

}  // namespace
}  // namespace blis::wasm

EMSCRIPTEN_BINDINGS(blis_scenario) {
  emscripten::function("validateScenario", &blis::wasm::validate_scenario);
}
