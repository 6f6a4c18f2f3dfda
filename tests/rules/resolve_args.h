#pragma once
// Resolving one engine.args object for the argument tables (arg_constraints_test.cpp,
// arg_refused_test.cpp).

#include <string>

#include <gtest/gtest.h>

#include "facts.h"
#include "rules/rules.h"

namespace blis::rules::testing {

constexpr const char* kArgs = "/pools/0/engine/args";

inline Resolved resolve(const std::string& release, const std::string& args,
                        const DeploymentFacts& f = deployment()) {
  const Pack* p = find_pack(release);
  EXPECT_NE(p, nullptr) << release;
  return resolve_engine_args(*p, nlohmann::json::parse(args), kArgs, f);
}

// An error at kArgs + `key` whose message contains `text`.
inline bool has_error_at(const Resolved& r, const std::string& key, const std::string& text) {
  for (const auto& d : r.diagnostics) {
    if (d.severity == Severity::kError && d.pointer == std::string(kArgs) + key &&
        d.message.find(text) != std::string::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace blis::rules::testing
