#pragma once
// Counts calls to the global operator new in this test binary (alloc_counter.cpp replaces
// it), so tests can assert that a hot path does not allocate.

#include <cstdint>

namespace blis::vllm::metrics::testing {

std::uint64_t allocation_count();

}  // namespace blis::vllm::metrics::testing
