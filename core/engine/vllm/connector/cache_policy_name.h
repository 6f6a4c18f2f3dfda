#pragma once
// The cache policies the CPU offloading manager can be given by name (kv_connector_extra_config
// eviction_policy), and vLLM's answer to any other name. Header-only and dependency-free: the
// conformance driver and the rules pack check the same names with the same message.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace blis::vllm {

enum class CachePolicyKind : std::uint8_t { kLru, kArc };

// vllm v1/kv_offload/cpu/policies/factory.py: the built-in policies, in registration order.
inline std::optional<CachePolicyKind> cache_policy_kind(std::string_view name) {
  if (name == "lru") return CachePolicyKind::kLru;
  if (name == "arc") return CachePolicyKind::kArc;
  return std::nullopt;
}

// Python's repr() of a str (control bytes as \xNN, UTF-8 kept as is), cut at 64 bytes.
inline std::string python_str_repr(std::string_view s) {
  const bool has_single = s.find('\'') != std::string_view::npos;
  const bool has_double = s.find('"') != std::string_view::npos;
  const char q = has_single && !has_double ? '"' : '\'';
  std::string out(1, q);
  constexpr std::size_t kMax = 64;
  for (std::size_t i = 0; i < s.size() && i < kMax; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\\' || c == static_cast<unsigned char>(q)) {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      static const char* const kHex = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += q;
  if (s.size() > kMax) out += "...";
  return out;
}

// factory.py CachePolicyFactory.get_cache_policy_cls without cache_policy_module_path (an
// out-of-tree policy is not modelled): the ValueError for a name that is not registered.
inline std::string unknown_cache_policy_message(std::string_view name) {
  return "Unknown cache policy: " + python_str_repr(name) +
         ". Supported: ['lru', 'arc']. For an out-of-tree policy, also set "
         "cache_policy_module_path.";
}

}  // namespace blis::vllm
