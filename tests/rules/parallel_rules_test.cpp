// enable_expert_parallel against the model and the parallel sizes (rules/check_parallel.cpp).
#include <gtest/gtest.h>

#include "resolve_args.h"

namespace blis::rules::testing {
namespace {

ModelFacts moe_model() {
  ModelFacts m = llama31_8b();
  m.is_moe = true;
  return m;
}

bool has_warning_at(const Resolved& r, const std::string& key, const std::string& text) {
  for (const auto& d : r.diagnostics) {
    if (d.severity == Severity::kWarning && d.pointer == std::string(kArgs) + key &&
        d.message.find(text) != std::string::npos) {
      return true;
    }
  }
  return false;
}

TEST(ParallelRules, ExpertParallelismNeedsExperts) {
  // vllm/config/model.py ModelConfig._verify_with_expert_parallelism.
  for (const std::string& release : known_releases()) {
    const Resolved r = resolve(release, R"({"enable_expert_parallel": true})");
    EXPECT_TRUE(has_error_at(r, "/enable_expert_parallel", "greater than 0")) << release;
  }
}

TEST(ParallelRules, ExpertParallelismOnAnMoeModelIsAccepted) {
  DeploymentFacts f = deployment(h100(), moe_model(), 2);
  f.dp = 2;
  const Resolved r = resolve("0.32.0", R"({"enable_expert_parallel": true})", f);
  EXPECT_FALSE(has_errors(r.diagnostics));
  EXPECT_TRUE(r.args.enable_expert_parallel);
}

TEST(ParallelRules, ExpertParallelismOverOneRankShardsNothing) {
  const Resolved r =
      resolve("0.32.0", R"({"enable_expert_parallel": true})", deployment(h100(), moe_model(), 1));
  EXPECT_FALSE(has_errors(r.diagnostics));
  EXPECT_TRUE(has_warning_at(r, "/enable_expert_parallel", "shards nothing"));
}

TEST(ParallelRules, ExpertParallelismMustBeABool) {
  const Resolved r = resolve("0.32.0", R"({"enable_expert_parallel": [true]})",
                             deployment(h100(), moe_model(), 2));
  EXPECT_TRUE(has_errors(r.diagnostics));
}

}  // namespace
}  // namespace blis::rules::testing
