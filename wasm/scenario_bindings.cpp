// validateScenario(json): every diagnostic of a scenario document, the messages `blis
// validate` prints (cluster::validate_scenario: the decoder's and the router's), for the web
// editor's inline errors.
// effectiveScenario(json): the resolved document with every default written out (the rules
// pack's engine-args defaults included), or "" when the document has errors: what the form
// shows for a key the document leaves out, so no default is restated in TypeScript.

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>

#include "cluster/validate_scenario.h"
#include "diagnostics_js.h"
#include "embind_guard.h"
#include "scenario/scenario_decode.h"
#include "scenario/scenario_encode.h"

namespace blis::wasm {
namespace {

emscripten::val validate_scenario(const std::string& json) {
  return guard([&] {
    return diagnostics_to_js(
        cluster::validate_scenario(json, scenario::DecodeOptions{}).diagnostics);
  });
}

std::string effective_scenario(const std::string& json) {
  return guard([&] {
    const scenario::DecodeResult r = scenario::decode_scenario(json, scenario::DecodeOptions{});
    return r.scenario ? scenario::encode_scenario(*r.scenario) : std::string();
  });
}

}  // namespace
}  // namespace blis::wasm

EMSCRIPTEN_BINDINGS(blis_scenario) {
  emscripten::function("validateScenario", &blis::wasm::validate_scenario);
  emscripten::function("effectiveScenario", &blis::wasm::effective_scenario);
}
