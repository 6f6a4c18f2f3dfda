#pragma once
// Calls into the library from JavaScript go through guard(): a C++ exception becomes a JS
// Error carrying the same message, instead of an opaque pointer (toolchain.md gotcha 8).

#include <emscripten/val.h>

#include <exception>
#include <string>
#include <utility>

namespace blis::wasm {

[[noreturn]] inline void throw_js_error(const std::string& message) {
  emscripten::val::global("Error").new_(message).throw_();
  __builtin_unreachable();
}

template <typename Fn>
auto guard(Fn&& fn) -> decltype(fn()) {
  try {
    return std::forward<Fn>(fn)();
  } catch (const std::exception& e) {
    throw_js_error(e.what());
  } catch (...) {
    throw_js_error("unknown C++ exception");
  }
}

}  // namespace blis::wasm
