#include "util/diagnostic.h"

#include <gtest/gtest.h>

namespace blis {
namespace {

TEST(Diagnostic, FormatsPointerAndSeverity) {
  EXPECT_EQ(format_diagnostic({"/pools/0/instances", "must be >= 1, got 0"}),
            "/pools/0/instances: must be >= 1, got 0");
  EXPECT_EQ(format_diagnostic({"", "not JSON", Severity::kError}), "/: not JSON");
  EXPECT_EQ(format_diagnostic({"/slo", "unused", Severity::kWarning}), "warning: /slo: unused");
}

TEST(Diagnostic, PointerTokensAreEscaped) {
  EXPECT_EQ(json_pointer_append("/a", "b/c~d"), "/a/b~1c~0d");
  EXPECT_EQ(json_pointer_append("", std::size_t{3}), "/3");
}

TEST(Diagnostic, HasErrorsIgnoresWarnings) {
  EXPECT_FALSE(has_errors({{"/x", "w", Severity::kWarning}}));
  EXPECT_TRUE(has_errors({{"/x", "w", Severity::kWarning}, {"/y", "e"}}));
}

}  // namespace
}  // namespace blis
