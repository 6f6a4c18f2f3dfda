#include "util/did_you_mean.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace blis {
namespace {

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// The query's words: its runs of letters and digits ("llama-8b" -> llama, 8b).
std::vector<std::string> words_of(const std::string& lowered) {
  std::vector<std::string> out;
  std::string w;
  for (const char c : lowered) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      w += c;
    } else if (!w.empty()) {
      out.push_back(w);
      w.clear();
    }
  }
  if (!w.empty()) out.push_back(w);
  return out;
}

}  // namespace

std::size_t edit_distance_ignoring_case(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> closest_ids(std::string_view query, const std::vector<std::string>& ids,
                                     std::size_t max) {
  std::string q(query);
  for (char& c : q) c = lower(c);
  const std::vector<std::string> words = words_of(q);
  std::vector<std::tuple<int, std::size_t, std::string>> scored;
  scored.reserve(ids.size());
  for (const auto& id : ids) {
    std::string l = id;
    for (char& c : l) c = lower(c);
    const bool contains =
        !q.empty() && (l.find(q) != std::string::npos || q.find(l) != std::string::npos);
    // A short name ("llama-8b") names an id that has each of its words ("Llama-3.1-8B").
    const bool has_words =
        !words.empty() && std::all_of(words.begin(), words.end(), [&l](const std::string& w) {
          return l.find(w) != std::string::npos;
        });
    scored.emplace_back(contains ? 0 : has_words ? 1 : 2, edit_distance_ignoring_case(q, l), id);
  }
  std::sort(scored.begin(), scored.end());
  // Ids that match by name are the answer: the nearest unrelated ids are listed only when none
  // does.
  const int worst = scored.empty() || std::get<0>(scored.front()) == 2 ? 2 : 1;
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < max && std::get<0>(scored[i]) <= worst; ++i)
    out.push_back(std::get<2>(scored[i]));
  return out;
}

std::vector<std::string> closest(const std::string& query,
                                 const std::vector<std::string>& candidates, std::size_t max) {
  // Long free text (a pasted paragraph) is not a misspelt key: skip the quadratic work.
  if (query.size() > 200) return {};
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance_ignoring_case(query, c);
    // Plausible: within a third of the longer name, or one is a prefix of the other.
    const std::size_t limit = std::max<std::size_t>(2, std::max(query.size(), c.size()) / 3);
    const bool prefix = !query.empty() && (c.rfind(query, 0) == 0 || query.rfind(c, 0) == 0);
    if (d <= limit || prefix) scored.emplace_back(d, c);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& [d, c] : scored) {
    if (out.size() >= max) break;
    out.push_back(c);
  }
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

}  // namespace blis
