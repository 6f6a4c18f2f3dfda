#pragma once
// "Did you mean": the names closest to a misspelt one, by one case-insensitive edit distance.
// Two rankings over it, for two kinds of lists: catalog ids (closest_ids: a hint is always
// useful, substrings first) and keys or enum values (closest: only plausible candidates).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace blis {

// Levenshtein distance of `a` and `b` with ASCII letters compared case-insensitively.
std::size_t edit_distance_ignoring_case(std::string_view a, std::string_view b);

// Up to `max` ids from `ids`, closest first: ids that contain the query (or are contained in
// it), then ids that contain each of its words (runs of letters and digits), before the rest;
// then by edit distance, then alphabetically. When some id matches by name only those are
// listed; otherwise the nearest by edit distance.
std::vector<std::string> closest_ids(std::string_view query, const std::vector<std::string>& ids,
                                     std::size_t max = 3);

// Up to `max` candidates closest to `query`, closest first (ties in the candidates' order);
// only those a reader could plausibly have meant: within a third of the longer name (at least
// 2 edits), or a prefix of it. A query over 200 bytes (pasted text, not a misspelt key) has
// none.
std::vector<std::string> closest(const std::string& query,
                                 const std::vector<std::string>& candidates, std::size_t max);

// "\"a\", \"b\" or \"c\"" for error messages; empty when `ids` is empty.
std::string quoted_list(const std::vector<std::string>& ids);

}  // namespace blis
