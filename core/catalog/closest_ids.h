#pragma once
// "Did you mean" support: the ids closest to a misspelled one.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace blis::catalog {

// Up to `max` ids from `ids`, closest first: ids that contain the query (or are contained in
// it) before the rest, then by case-insensitive edit distance, then alphabetically.
std::vector<std::string> closest_ids(std::string_view query, const std::vector<std::string>& ids,
                                     std::size_t max = 3);

// "\"a\", \"b\" or \"c\"" for error messages; empty when `ids` is empty.
std::string quoted_list(const std::vector<std::string>& ids);

}  // namespace blis::catalog
