#pragma once
// Diagnostics as JavaScript values: an array of {pointer, message, severity}, severity being
// "error" or "warning" (the shape web/src/wasm/blis.d.mts declares).

#include <emscripten/val.h>

#include <string>

#include "util/diagnostic.h"

namespace blis::wasm {

inline emscripten::val diagnostics_to_js(const Diagnostics& ds) {
  emscripten::val out = emscripten::val::array();
  for (const Diagnostic& d : ds) {
    emscripten::val o = emscripten::val::object();
    o.set("pointer", d.pointer);
    o.set("message", d.message);
    o.set("severity", std::string(d.severity == Severity::kError ? "error" : "warning"));
    out.call<void>("push", o);
  }
  return out;
}

}  // namespace blis::wasm
