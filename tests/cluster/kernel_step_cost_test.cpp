// KernelStepCost splits the kernel's price into engine-core CPU time and GPU time.

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "cluster/kernel_step_cost.h"
#include "kernel/deployment.h"

namespace blis::cluster {
namespace {

engine::Batch decode_batch(int n, int context) {
  engine::Batch b;
  for (int i = 0; i < n; ++i) {
    engine::ScheduledRequest r;
    r.key = static_cast<engine::RequestKey>(i);
    r.num_tokens = 1;
    r.context_before = context;
    r.samples = true;
    b.requests.push_back(r);
  }
  b.total_tokens = b.decode_tokens = b.num_sampling = n;
  return b;
}

TEST(KernelStepCost, CpuIsTheEngineCoreShareOfTheKernelsHostTerm) {
  kernel::Deployment d;
  ASSERT_TRUE(kernel::make_deployment(catalog::Catalog::builtin(), "H100-SXM-80GB",
                                      "meta-llama/Llama-2-7b-hf", 1, &d)
                  .empty());
  const KernelStepCost cost(d);
  for (int n : {1, 8, 64, 128}) {
    const engine::Batch b = decode_batch(n, 800);
    const StepTiming t = cost.price(b);
    const kernel::StepCost k = cost.pricer().price(b);
    EXPECT_EQ(t.cpu + t.gpu, k.total) << n;
    const double cpu = d.coefficients.host_step_us + d.coefficients.host_per_request_us * n;
    EXPECT_NEAR(static_cast<double>(t.cpu), cpu, 0.5) << n;
    EXPECT_GT(t.gpu, t.cpu) << n;
  }
  // The explanation's terms add up to the kernel's total.
  double sum = 0;
  for (const auto& term : cost.explain(decode_batch(32, 500))) sum += term.us;
  EXPECT_NEAR(sum, static_cast<double>(cost.pricer().price(decode_batch(32, 500)).total), 0.5);
}

TEST(KernelStepCost, AnEmptyBatchCostsNothing) {
  kernel::Deployment d;
  ASSERT_TRUE(kernel::make_deployment(catalog::Catalog::builtin(), "H100-SXM-80GB",
                                      "meta-llama/Llama-2-7b-hf", 1, &d)
                  .empty());
  const StepTiming t = KernelStepCost(d).price(engine::Batch{});
  EXPECT_EQ(t.cpu, 0);
  EXPECT_EQ(t.gpu, 0);
}

}  // namespace
}  // namespace blis::cluster
