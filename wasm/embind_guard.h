#pragma once
// Calls into the library from JavaScript go through guard(): a C++ exception becomes a JS
// Error carrying the same message, instead of an opaque pointer (toolchain.md gotcha 8).
//
// A JS exception thrown from inside the module unwinds the WASM frames without restoring the
// module's shadow-stack pointer (only the invoke_* wrappers at C++ try sites do), so every
// error thrown to JS used to leave the stack lower by the frames it passed: after some 5,000
// errors the stack ran into the heap and the module died with "memory access out of bounds"
// (found by the wasm_api fuzzer). guard() therefore notes the stack pointer on entry, ends the
// C++ catch (freeing the exception), and throws the Error from JS after putting the stack
// pointer back where it was.

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

template <typename Fn>
auto guard(Fn&& fn) -> decltype(fn()) {
  const std::uintptr_t stack_at_entry = emscripten_stack_get_current();
  std::string& message = pending_js_error();
  try {
    return std::forward<Fn>(fn)();
  } catch (const std::exception& e) {
    message.assign(e.what());
  } catch (...) {
    message.assign("unknown C++ exception");
  }
  throw_js_error(message.c_str(), stack_at_entry);
}

}  // namespace blis::wasm
