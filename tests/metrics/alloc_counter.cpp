#include "alloc_counter.h"

#include <cstdlib>
#include <new>

namespace {
std::uint64_t g_allocations = 0;
}  // namespace

namespace blis::vllm::metrics::testing {
std::uint64_t allocation_count() {
  return g_allocations;
}
}  // namespace blis::vllm::metrics::testing

void* operator new(std::size_t size) {
  ++g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  ++g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
