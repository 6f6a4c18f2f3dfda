#pragma once
// Reading a test's data file whole (natively, and under node where NODERAWFS mounts the real
// file system): one helper for every suite, so each test does not carry its own copy.
#include <fstream>
#include <sstream>
#include <string>

namespace blis::test {

// The file's bytes, or "" when it cannot be opened (the test's own expectation then fails
// with the content it compared, which names what was missing).
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace blis::test
