#include "util/digest.h"

namespace blis {

std::string Digest::hex() const {
  static const char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 0; i < 16; ++i) out[15 - i] = kHex[(state_ >> (4 * i)) & 0xF];
  return out;
}

}  // namespace blis
