// Pipeline parallelism in the engine-core loop (instance.h, docs/parallelism.md): a pass holds
// the GPUs only for its busiest stage (StepTiming::stage), so the next pass enters the
// pipeline while it is still running, and finishes a whole pipeline latency after it entered.

#include <gtest/gtest.h>

#include <memory>

#include "cluster/instance.h"
#include "fake_engine.h"

namespace blis::cluster::testing {
namespace {

class StagedPricer : public StepCostModel {
 public:
  explicit StagedPricer(SimTime stage) : stage_(stage) {}
  StepTiming price(const engine::Batch&) const override { return {1000, 100, stage_}; }

 private:
  SimTime stage_;
};

LoopDecision launch_two(SimTime stage, LoopDecision* first) {
  auto eng = engine_with_one_request(2);  // pp 2: two passes in flight
  const StagedPricer pricer(stage);       // outlives the instance, which holds a reference
  Instance inst(0, "i0", 0, std::move(eng), pricer, ServingOverheads{}, 0, Rng::stream(1, "t"));
  *first = inst.run_loop(0);
  return inst.run_loop(first->at);
}

TEST(PipelineTiming, TheNextPassEntersWhenTheBusiestStageIsFree) {
  LoopDecision first, second;
  // No pipeline: GPU 100..1100, then the second pass 1100..2100.
  second = launch_two(0, &first);
  ASSERT_NE(first.launched, nullptr);
  ASSERT_NE(second.launched, nullptr);
  EXPECT_EQ(first.gpu_start, 100);
  EXPECT_EQ(first.gpu_end, 1100);
  EXPECT_EQ(second.gpu_start, 1100);
  EXPECT_EQ(second.gpu_end, 2100);
  // Two stages of 500: the second pass enters at 600 and leaves the pipeline at 1600.
  second = launch_two(500, &first);
  ASSERT_NE(second.launched, nullptr);
  EXPECT_EQ(first.gpu_end, 1100);
  EXPECT_EQ(second.gpu_start, 600);
  EXPECT_EQ(second.gpu_end, 1600);
}

}  // namespace
}  // namespace blis::cluster::testing
