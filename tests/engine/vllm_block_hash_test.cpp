// vLLM's byte-exact block hash (kv/vllm_block_hash.h). Expected values from CPython 3.11 with
// PYTHONHASHSEED=0, as vLLM computes them:
//   s = lambda x: hashlib.sha256(pickle.dumps(x, 5)).digest()
//   NONE_HASH = s("0"); h1 = s((NONE_HASH, tuple(range(250, 266)), None)); ...
//   hash(h1 + (0).to_bytes(4, "big"))
#include "engine/vllm/kv/vllm_block_hash.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace blis::vllm {
namespace {

std::string hex(const VllmHash& h) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (const std::uint8_t b : h) {
    s += d[b >> 4];
    s += d[b & 15];
  }
  return s;
}

TEST(VllmBlockHash, Sha256OfPickleProtocol5MatchesVllm) {
  const std::vector<std::uint8_t> a200(200, 'a');  // three compression blocks
  EXPECT_EQ(hex(sha256(a200)), "c2a908d98f5df987ade41b5fce213067efbcc21ef2240212a41e54b5e7c28ae5");
  EXPECT_EQ(hex(vllm_none_hash()),
            "1973e23848344dc43a988a9b478663803cfffe1243480253f9a3cf004b14aa7c");
  std::vector<std::int32_t> t;
  for (std::int32_t i = 250; i < 266; ++i) t.push_back(i);  // BININT1 and BININT2
  const VllmHash h1 = vllm_hash_block_tokens(nullptr, t);
  EXPECT_EQ(hex(h1), "8b68732ead3b1c3d48951d4f1ab207c20d1ef244a0571fbb9648b0fb3d6a6a18");
  const std::vector<std::int32_t> t2 = {70000, 5, 31999, 100000};  // BININT
  const VllmHash h2 = vllm_hash_block_tokens(&h1, t2);
  EXPECT_EQ(hex(h2), "ce2fbe03b8e2f8af586cde33abe41612dd031324355602736930b4ace377adf9");
  const std::vector<std::int32_t> t3 = {7, 8};  // TUPLE2
  EXPECT_EQ(hex(vllm_hash_block_tokens(&h2, t3)),
            "3283d009149a3156a9d8ba111cf25b6552d97e7ad3fc34e472e8b3dab9269c9b");
  EXPECT_EQ(offload_key_py_hash(h1, 0), -612513390327694574LL);
}

}  // namespace
}  // namespace blis::vllm
