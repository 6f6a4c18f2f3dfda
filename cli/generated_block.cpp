#include "generated_block.h"

#include "file_access.h"

#include <cstdio>
#include <fstream>

namespace blis::cli {

std::optional<std::string> replace_generated_block(const char* command, const std::string& path,
                                                   const std::string& begin, const std::string& end,
                                                   const std::string& block) {
  const auto text = read_named_file(command, path);
  if (!text) return std::nullopt;
  std::string md = *text;
  const std::size_t from = md.find(begin);
  const std::size_t to = md.find(end);
  if (from == std::string::npos || to == std::string::npos || to < from) {
    std::fprintf(stderr, "%s: '%s' has no generated-block markers\n", command, path.c_str());
    return std::nullopt;
  }
  std::size_t stop = to + end.size();
  if (stop < md.size() && md[stop] == '\n') ++stop;
  md.replace(from, stop - from, block);
  return md;
}

bool write_generated_file(const char* command, const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) {
    std::fprintf(stderr, "%s: cannot write '%s'\n", command, path.c_str());
    return false;
  }
  return true;
}

}  // namespace blis::cli
