#pragma once
// Calls into the library from JavaScript go through guard(): a C++ exception becomes a JS
// Error carrying the same message, instead of an opaque pointer (toolchain.md gotcha 8).
//
// The Error is thrown only after every C++ frame has returned. Embind's invoker allocates
// each std::string argument's wire buffer on the heap and frees it when the C++ call
// returns; its C++ half holds a std::string copy and the frames hold their stack. A JS throw
// from inside those frames skipped all of it: every error leaked about twice its arguments'
// size on the heap, and the shadow stack crept down until the module died ("memory access
// out of bounds", then "table index is out of bounds", found by the wasm_api fuzzer).
//
// So guard() catches the exception, records its message for JS (Module.__blisPendingError)
// and returns an empty value through Embind like any other result; the JS wrapper that
// wasm/embind_guard.pre.js puts around every bound function and method then throws the
// Error. A call that reaches guard() without that wrapper (none does: the wrapper is
// installed before the module promise resolves) gets the old behaviour: the Error is thrown
// from inside, after restoring the stack pointer to its base.

#include <emscripten/em_asm.h>
#include <emscripten/stack.h>
#include <emscripten/val.h>

#include <cstdint>
#include <exception>
#include <string>
#include <type_traits>
#include <utility>

namespace blis::wasm {

// True when the call came through the JS wrapper, which throws the recorded message itself.
inline bool js_wrapper_active() {
  // clang-format off
  return EM_ASM_INT({ return (Module['__blisGuardDepth'] | 0) > 0 ? 1 : 0; }) != 0;
  // clang-format on
}

// Hands `message` to the JS wrapper, which throws it once the C++ frames are gone.
inline void set_pending_js_error(const char* message) {
  // clang-format off
  EM_ASM({ Module['__blisPendingError'] = UTF8ToString($0); }, message);
  // clang-format on
}

// Throws a JS Error from inside the module (no wrapper): the stack pointer goes back to the
// stack's base first, since the JS throw skips the epilogues of the frames above it.
[[noreturn]] inline void throw_js_error(const char* message) {
  // clang-format off
  EM_ASM({
    var text = UTF8ToString($0);
    stackRestore($1);
    throw new Error(text);
  }, message, emscripten_stack_get_base());
  // clang-format on
  __builtin_unreachable();
}

// What a failed call returns through Embind (the wrapper throws instead of passing it on).
template <typename R>
R empty_result() {
  if constexpr (std::is_same_v<R, emscripten::val>) {
    return emscripten::val::undefined();
  } else {
    return R{};
  }
}

// How many guard() calls are active: a guard() inside another (a binding calling a guarded
// helper) lets the exception reach the outer one, which alone talks to JS.
inline int& guard_depth() {
  static int depth = 0;
  return depth;
}

struct GuardScope {
  GuardScope() { ++guard_depth(); }
  ~GuardScope() { --guard_depth(); }
  GuardScope(const GuardScope&) = delete;
  GuardScope& operator=(const GuardScope&) = delete;
};

template <typename Fn>
auto guard(Fn&& fn) -> decltype(fn()) {
  using R = decltype(fn());
  if (guard_depth() > 0) return std::forward<Fn>(fn)();
  // One buffer for the message in flight: the fallback's JS throw skips its destructor.
  static std::string message;
  {
    GuardScope scope;
    try {
      return std::forward<Fn>(fn)();
    } catch (const std::exception& e) {
      message.assign(e.what());
    } catch (...) {
      message.assign("unknown C++ exception");
    }
  }
  if (!js_wrapper_active()) throw_js_error(message.c_str());
  set_pending_js_error(message.c_str());
  if constexpr (!std::is_void_v<R>) return empty_result<R>();
}

}  // namespace blis::wasm
