// kv_transfer_config.kv_load_failure_policy takes effect (a decode pool's failed KV pulls,
// docs/scenario.md): no "has no effect" warning any more, the choice check stays, and the
// resolved arguments carry the policy to the engine.
#include <gtest/gtest.h>

#include "resolve_args.h"

namespace blis::rules::testing {
namespace {

constexpr const char* kPolicyPtr = "/pools/0/engine/args/kv_transfer_config/kv_load_failure_policy";

TEST(KvLoadFailurePolicy, TakesEffectWithoutAWarning) {
  for (const char* policy : {"recompute", "fail"}) {
    const Resolved r = resolve("0.32.0", std::string(R"({"kv_transfer_config": {"kv_connector": )"
                                                     R"("NixlConnector", "kv_role": "kv_both", )"
                                                     R"("kv_load_failure_policy": ")") +
                                             policy + "\"}}");
    EXPECT_FALSE(has_errors(r.diagnostics));
    for (const auto& d : r.diagnostics) EXPECT_NE(d.pointer, kPolicyPtr) << d.message;
    ASSERT_TRUE(r.args.kv_transfer_config.has_value());
    EXPECT_EQ(r.args.kv_transfer_config->kv_load_failure_policy.value_or(""), policy);
  }
}

TEST(KvLoadFailurePolicy, UnsetIsVllmsDefaultAndOtherValuesAreRefused) {
  const Resolved unset =
      resolve("0.32.0",
              R"({"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both"}})");
  ASSERT_TRUE(unset.args.kv_transfer_config.has_value());
  EXPECT_FALSE(unset.args.kv_transfer_config->kv_load_failure_policy.has_value());
  const Resolved bad =
      resolve("0.32.0", R"({"kv_transfer_config": {"kv_connector": "NixlConnector", )"
                        R"("kv_role": "kv_both", "kv_load_failure_policy": "retry"}})");
  EXPECT_TRUE(has_error_at(bad, "/kv_transfer_config/kv_load_failure_policy", "is not accepted"));
}

TEST(KvLoadFailurePolicy, EnablePermuteLocalKvStillWarns) {
  const Resolved r =
      resolve("0.32.0", R"({"kv_transfer_config": {"kv_connector": "NixlConnector", )"
                        R"("kv_role": "kv_both", "enable_permute_local_kv": true}})");
  bool warned = false;
  for (const auto& d : r.diagnostics)
    warned =
        warned || (d.severity == Severity::kWarning &&
                   d.pointer == std::string(kArgs) + "/kv_transfer_config/enable_permute_local_kv");
  EXPECT_TRUE(warned);
}

}  // namespace
}  // namespace blis::rules::testing
