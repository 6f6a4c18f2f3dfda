#pragma once
// Calls into the library from JavaScript go through guard(): a C++ exception becomes a JS
// Error carrying the same message, instead of an opaque pointer (toolchain.md gotcha 8).
//
// A JS exception thrown from inside the module unwinds the WASM frames without restoring the
// module's shadow-stack pointer (only the invoke_* wrappers at C++ try sites do), so every
// error thrown to JS used to leave the stack lower by the frames it passed: after some 5,000
// errors the stack ran into the heap and the module died with "memory access out of bounds"
// (found by the wasm_api fuzzer). guard() therefore ends the C++ catch (freeing the exception)
// and throws the Error from JS after putting the stack pointer back where it was when JS
// called in (the stack's base for a call straight from JS).

#include <emscripten/em_asm.h>
#include <emscripten/stack.h>

#include <cstdint>
#include <exception>
#include <string>
#include <utility>

namespace blis::wasm {

// Throws a JS Error with `message`, first restoring the shadow stack to `stack_at_entry` (the
// pointer when the binding was entered from JS). The message is read before the restore.
[[noreturn]] inline void throw_js_error(const char* message, std::uintptr_t stack_at_entry) {
  // clang-format off
  EM_ASM({
    var text = UTF8ToString($0);
    stackRestore($1);
    throw new Error(text);
  }, message, stack_at_entry);
  // clang-format on
  __builtin_unreachable();
}

// One buffer for the message in flight: its capacity is reused, so a thrown error leaks no heap
// (its destructor would never run: the JS throw skips the C++ frames).
inline std::string& pending_js_error() {
  static std::string text;
  return text;
}

// How many guard() calls are active: 0 means the next one is entered straight from JS, with no
// WASM frame under it, so the stack pointer to restore is the stack's base. A nested entry (JS
// called back from C++ calling into the module again) restores its own entry point instead.
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
  const std::uintptr_t restore_to =
      guard_depth() == 0 ? emscripten_stack_get_base() : emscripten_stack_get_current();
  std::string& message = pending_js_error();
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
  throw_js_error(message.c_str(), restore_to);
}

}  // namespace blis::wasm
