#pragma once
// Helpers shared by the kernel tests: deployments of catalog entries, and batches.

#include <string>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "engine/engine.h"
#include "kernel/deployment.h"

namespace blis::kernel::testing {

inline Deployment deploy(const std::string& gpu, const std::string& model, int tp,
                         const catalog::Catalog& c = catalog::Catalog::builtin()) {
  Deployment d;
  const Diagnostics diags = make_deployment(c, gpu, model, tp, &d);
  EXPECT_FALSE(has_errors(diags)) << (diags.empty() ? "" : format_diagnostic(diags.front()));
  return d;
}

inline engine::Batch decode_batch(int requests, int context) {
  engine::Batch b;
  for (int i = 0; i < requests; ++i) {
    b.requests.push_back({static_cast<engine::RequestKey>(i), 1, 0, context, 0, true});
  }
  return b;
}

inline engine::Batch prefill_batch(int chunk, int cached) {
  engine::Batch b;
  b.requests.push_back({1, chunk, chunk, cached, 0, true});
  return b;
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace blis::kernel::testing
