#pragma once
// Tables that reuse their slots by index (the cluster's request table, the network's flows)
// take a slot the one way: the slot released last, else a new one at the end. The order is
// part of each table's determinism (a freed slot is reused before the table grows).

#include <vector>

namespace blis {

// The index of a free slot of `slots`: the back of `free` (removed from it), else a
// default-constructed slot appended to `slots`. The caller resets a reused slot.
template <class Index, class T>
Index take_slot(std::vector<T>& slots, std::vector<Index>& free) {
  if (!free.empty()) {
    const Index i = free.back();
    free.pop_back();
    return i;
  }
  slots.emplace_back();
  return static_cast<Index>(slots.size() - 1);
}

}  // namespace blis
