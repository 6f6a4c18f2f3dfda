// KV transfer pricing and KV bytes per token (P/D hand-offs, CPU offload).
#include "kernel/transfer.h"

#include "kernel/kv_capacity.h"
#include "kernel_test_support.h"

namespace blis::kernel {
namespace {

using testing::deploy;

TEST(Transfer, LatencyPlusBytesAtTheAchievedBandwidth) {
  const catalog::Fabric* ib = catalog::Catalog::builtin().find_fabric("ib-ndr");
  // latency-kernel.md (e): Llama-3.1-8B (128 KiB per token), a 2000-token prompt = 262 MB;
  // over IB NDR 50 GB/s x 0.85 = 42.5 GB/s: 6168.1 us, plus the 50 us per transfer.
  const std::int64_t bytes =
      kv_bytes_per_token(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1)) * 2000;
  EXPECT_EQ(bytes, 262144000);
  EXPECT_EQ(transfer_time(bytes, *ib), 6218);  // 50 + 262144000 / 42500 = 6218.09
}

TEST(Transfer, ZeroBytesCostNothingAndRoundingIsToTheNearestMicrosecond) {
  catalog::Fabric f;
  f.bandwidth_bytes_per_s = 1e6;  // 1 byte per microsecond
  f.efficiency = 1;
  f.latency_us = 0.25;
  EXPECT_EQ(transfer_time(0, f), 0);
  EXPECT_EQ(transfer_time(-5, f), 0);
  EXPECT_EQ(transfer_time(1, f), 1);  // 1.25
  EXPECT_EQ(transfer_time(2, f), 2);  // 2.25
  f.latency_us = 0.5;
  EXPECT_EQ(transfer_time(2, f), 3);  // 2.5 rounds up
}

TEST(Transfer, PerGpuBytesShrinkWithTpAndPp) {
  const std::int64_t tp1 =
      kv_bytes_per_token(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-70B-Instruct", 4));
  Deployment d = deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-70B-Instruct", 8);
  EXPECT_EQ(kv_bytes_per_token(d) * 2, tp1);
  d.tp = 4;
  d.pp = 2;
  EXPECT_EQ(kv_bytes_per_token(d) * 2, tp1);
}

TEST(Transfer, FasterFabricsAreFaster) {
  const catalog::Catalog& c = catalog::Catalog::builtin();
  const std::int64_t bytes = std::int64_t{1} << 30;
  EXPECT_LT(transfer_time(bytes, *c.find_fabric("nvlink4")),
            transfer_time(bytes, *c.find_fabric("pcie-gen5")));
  EXPECT_LT(transfer_time(bytes, *c.find_fabric("pcie-gen5")),
            transfer_time(bytes, *c.find_fabric("pcie-gen4")));
  EXPECT_LT(transfer_time(bytes, *c.find_fabric("nvlink5")),
            transfer_time(bytes, *c.find_fabric("nvlink4")));
}

}  // namespace
}  // namespace blis::kernel
