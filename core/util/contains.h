#pragma once
// contains(range, x): whether x is in a small unsorted range (a linear scan), for the vectors of
// slots, ids and names that are too short to index.
#include <algorithm>
#include <iterator>

namespace blis {

template <typename Range, typename T>
bool contains(const Range& range, const T& x) {
  return std::find(std::begin(range), std::end(range), x) != std::end(range);
}

}  // namespace blis
