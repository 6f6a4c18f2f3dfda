#include "catalog/closest_ids.h"

#include <algorithm>
#include <tuple>

namespace blis::catalog {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string> closest_ids(std::string_view query, const std::vector<std::string>& ids,
                                     std::size_t max) {
  const std::string q = lower(query);
  std::vector<std::tuple<int, std::size_t, std::string>> scored;
  scored.reserve(ids.size());
  for (const auto& id : ids) {
    const std::string l = lower(id);
    const bool contains =
        !q.empty() && (l.find(q) != std::string::npos || q.find(l) != std::string::npos);
    scored.emplace_back(contains ? 0 : 1, edit_distance(q, l), id);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < max; ++i) out.push_back(std::get<2>(scored[i]));
  return out;
}

std::string quoted_list(const std::vector<std::string>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out += i + 1 == ids.size() ? " or " : ", ";
    out += "\"" + ids[i] + "\"";
  }
  return out;
}

}  // namespace blis::catalog
