#include "generated_block.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace blis::cli {

std::optional<std::string> replace_generated_block(const char* command, const std::string& path,
                                                   const std::string& begin, const std::string& end,
                                                   const std::string& block) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "%s: cannot read '%s'\n", command, path.c_str());
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string md = text.str();
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
