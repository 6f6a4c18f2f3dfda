#include "engine/vllm/kv/vllm_block_hash.h"

#include <vector>

#include "util/python_set_order.h"

namespace blis::vllm {
namespace {

constexpr std::uint32_t kRoundK[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

std::uint32_t rotr(std::uint32_t x, int n) {
  return (x >> n) | (x << (32 - n));
}

void compress(std::uint32_t h[8], const std::uint8_t* block) {
  std::uint32_t w[64];
  for (int i = 0; i < 16; ++i) {
    w[i] = (static_cast<std::uint32_t>(block[4 * i]) << 24) |
           (static_cast<std::uint32_t>(block[4 * i + 1]) << 16) |
           (static_cast<std::uint32_t>(block[4 * i + 2]) << 8) | block[4 * i + 3];
  }
  for (int i = 16; i < 64; ++i) {
    const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; ++i) {
    const std::uint32_t t1 =
        k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRoundK[i] + w[i];
    const std::uint32_t t2 =
        (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += k;
}

// pickle protocol 5 framing around `body` (the opcodes after PROTO, ending with STOP):
// PROTO 5, then FRAME with the body's length (the frame is at least FRAME_SIZE_MIN = 4).
std::vector<std::uint8_t> framed(const std::vector<std::uint8_t>& body) {
  std::vector<std::uint8_t> out = {0x80, 0x05, 0x95};
  const auto n = static_cast<std::uint64_t>(body.size());  // size_t is 32 bits in WASM
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(n >> (8 * i)));
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

// pickle save_long for protocol >= 2: BININT1, BININT2 or BININT.
void pickle_int(std::vector<std::uint8_t>& out, std::int32_t v) {
  if (v >= 0 && v <= 0xff) {
    out.push_back('K');
    out.push_back(static_cast<std::uint8_t>(v));
  } else if (v >= 0 && v <= 0xffff) {
    out.push_back('M');
    out.push_back(static_cast<std::uint8_t>(v));
    out.push_back(static_cast<std::uint8_t>(v >> 8));
  } else {
    out.push_back('J');
    const auto u = static_cast<std::uint32_t>(v);
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(u >> (8 * i)));
  }
}

constexpr std::uint8_t kMemoize = 0x94;

}  // namespace

VllmHash sha256(std::span<const std::uint8_t> data) {
  std::uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::size_t i = 0;
  for (; i + 64 <= data.size(); i += 64) compress(h, data.data() + i);
  std::uint8_t tail[128] = {};
  const std::size_t rest = data.size() - i;
  for (std::size_t j = 0; j < rest; ++j) tail[j] = data[i + j];
  tail[rest] = 0x80;
  const std::size_t len = rest + 9 <= 64 ? 64 : 128;
  const std::uint64_t bits = static_cast<std::uint64_t>(data.size()) * 8;
  for (int j = 0; j < 8; ++j) tail[len - 1 - j] = static_cast<std::uint8_t>(bits >> (8 * j));
  compress(h, tail);
  if (len == 128) compress(h, tail + 64);
  VllmHash out;
  for (int j = 0; j < 8; ++j) {
    for (int b = 0; b < 4; ++b) out[4 * j + b] = static_cast<std::uint8_t>(h[j] >> (24 - 8 * b));
  }
  return out;
}

const VllmHash& vllm_none_hash() {
  // pickle.dumps("0", 5): SHORT_BINUNICODE "0", MEMOIZE, STOP.
  static const VllmHash h = [] {
    const std::vector<std::uint8_t> p = framed({0x8c, 0x01, '0', kMemoize, '.'});
    return sha256(p);
  }();
  return h;
}

VllmHash vllm_hash_block_tokens(const VllmHash* parent, std::span<const std::int32_t> tokens) {
  // pickle.dumps((parent, tuple(tokens), None), 5): SHORT_BINBYTES parent, MEMOIZE; the
  // token tuple (EMPTY_TUPLE; TUPLE1..3 up to three items; else MARK ... TUPLE), MEMOIZE;
  // NONE; TUPLE3, MEMOIZE; STOP.
  const VllmHash& p = parent != nullptr ? *parent : vllm_none_hash();
  std::vector<std::uint8_t> body = {'C', 32};
  body.insert(body.end(), p.begin(), p.end());
  body.push_back(kMemoize);
  if (tokens.empty()) {
    body.push_back(')');
  } else {
    if (tokens.size() > 3) body.push_back('(');
    for (const std::int32_t t : tokens) pickle_int(body, t);
    const std::uint8_t small[] = {0x85, 0x86, 0x87};
    body.push_back(tokens.size() > 3 ? 't' : small[tokens.size() - 1]);
    body.push_back(kMemoize);
  }
  body.push_back('N');
  body.push_back(0x87);
  body.push_back(kMemoize);
  body.push_back('.');
  return sha256(framed(body));
}

std::int64_t offload_key_py_hash(const VllmHash& block_hash, std::uint32_t group) {
  std::uint8_t key[36];
  for (int i = 0; i < 32; ++i) key[i] = block_hash[static_cast<std::size_t>(i)];
  for (int i = 0; i < 4; ++i) key[32 + i] = static_cast<std::uint8_t>(group >> (24 - 8 * i));
  return pyset::bytes_hash(key, sizeof key);
}

}  // namespace blis::vllm
