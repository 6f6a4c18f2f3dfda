#include "util/python_set_order.h"

#include <cstring>

namespace blis::pyset {
namespace {

std::uint64_t rotl(std::uint64_t x, int b) {
  return (x << b) | (x >> (64 - b));
}

void half_round(std::uint64_t& a, std::uint64_t& b, std::uint64_t& c, std::uint64_t& d, int s,
                int t) {
  a += b;
  c += d;
  b = rotl(b, s) ^ a;
  d = rotl(d, t) ^ c;
  a = rotl(a, 32);
}

void single_round(std::uint64_t& v0, std::uint64_t& v1, std::uint64_t& v2, std::uint64_t& v3) {
  half_round(v0, v1, v2, v3, 13, 16);
  half_round(v2, v1, v0, v3, 17, 21);
}

std::uint64_t load_le64(const std::uint8_t* p, std::size_t n) {
  std::uint64_t x = 0;
  for (std::size_t i = 0; i < n; ++i) x |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return x;
}

// Python/pyhash.c siphash13 with k0 = k1 = 0 (PYTHONHASHSEED=0 zeroes _Py_HashSecret).
std::uint64_t siphash13_zero_key(const std::uint8_t* in, std::size_t n) {
  std::uint64_t b = static_cast<std::uint64_t>(n) << 56;
  std::uint64_t v0 = 0x736f6d6570736575ULL;
  std::uint64_t v1 = 0x646f72616e646f6dULL;
  std::uint64_t v2 = 0x6c7967656e657261ULL;
  std::uint64_t v3 = 0x7465646279746573ULL;
  while (n >= 8) {
    const std::uint64_t mi = load_le64(in, 8);
    in += 8;
    n -= 8;
    v3 ^= mi;
    single_round(v0, v1, v2, v3);
    v0 ^= mi;
  }
  b |= load_le64(in, n);
  v3 ^= b;
  single_round(v0, v1, v2, v3);
  v0 ^= b;
  v2 ^= 0xff;
  single_round(v0, v1, v2, v3);
  single_round(v0, v1, v2, v3);
  single_round(v0, v1, v2, v3);
  return (v0 ^ v1) ^ (v2 ^ v3);
}

// UTF-8 to code points (an invalid byte stands for itself, as latin-1).
std::vector<std::uint32_t> code_points(std::string_view s) {
  std::vector<std::uint32_t> cps;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<std::uint8_t>(s[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + static_cast<std::size_t>(len) > s.size()) {
      cps.push_back(c);
      ++i;
      continue;
    }
    std::uint32_t cp = len == 1 ? c : c & (0x7F >> len);
    for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<std::uint8_t>(s[i + k]) & 0x3F);
    cps.push_back(cp);
    i += static_cast<std::size_t>(len);
  }
  return cps;
}

// Objects/setobject.c constants.
constexpr std::size_t kMinSize = 8;
constexpr std::size_t kLinearProbes = 9;
constexpr int kPerturbShift = 5;

struct Slot {
  bool used = false;
  std::int64_t hash = 0;
  std::size_t item = 0;  // index into the ids
};

// set_insert_clean: the slot a (new, distinct) entry takes in a table without dummies. The
// first probe of set_add_entry is the same walk, so one function serves both.
void insert_clean(std::vector<Slot>& table, std::int64_t hash, std::size_t item) {
  const std::size_t mask = table.size() - 1;
  auto perturb = static_cast<std::uint64_t>(hash);
  std::size_t i = static_cast<std::size_t>(hash) & mask;
  for (;;) {
    if (!table[i].used) break;
    bool found = false;
    if (i + kLinearProbes <= mask) {
      for (std::size_t j = 1; j <= kLinearProbes; ++j) {
        if (!table[i + j].used) {
          i += j;
          found = true;
          break;
        }
      }
    }
    if (found) break;
    perturb >>= kPerturbShift;
    i = (i * 5 + 1 + static_cast<std::size_t>(perturb)) & mask;
  }
  table[i] = Slot{true, hash, item};
}

}  // namespace

std::int64_t bytes_hash(const std::uint8_t* data, std::size_t n) {
  if (n == 0) return 0;
  const auto x = static_cast<std::int64_t>(siphash13_zero_key(data, n));
  return x == -1 ? -2 : x;
}

// A str hashes as the bytes of its PEP 393 storage (Objects/unicodeobject.c unicode_hash).
std::int64_t str_hash(std::string_view s) {
  const std::vector<std::uint32_t> cps = code_points(s);
  std::uint32_t widest = 0;
  for (const std::uint32_t c : cps) widest = c > widest ? c : widest;
  const std::size_t kind = widest < 0x100 ? 1 : widest < 0x10000 ? 2 : 4;
  std::vector<std::uint8_t> bytes;
  bytes.reserve(cps.size() * kind);
  for (const std::uint32_t c : cps) {
    for (std::size_t k = 0; k < kind; ++k) bytes.push_back(static_cast<std::uint8_t>(c >> (8 * k)));
  }
  return bytes_hash(bytes.data(), bytes.size());
}

namespace {

// set_add_entry for distinct keys, then the table walk: the order of `for x in s`.
std::vector<std::size_t> table_order(const std::vector<std::int64_t>& hashes,
                                     const std::vector<std::size_t>& items) {
  std::vector<Slot> table(kMinSize);
  std::size_t fill = 0;
  for (const std::size_t n : items) {
    insert_clean(table, hashes[n], n);
    ++fill;
    const std::size_t mask = table.size() - 1;
    if (fill * 5 < mask * 3) continue;
    // set_table_resize(so, used > 50000 ? used * 2 : used * 4): the smallest power of two
    // above it, the old entries reinserted in table order.
    const std::size_t minused = fill > 50000 ? fill * 2 : fill * 4;
    std::size_t size = kMinSize;
    while (size <= minused) size <<= 1;
    std::vector<Slot> bigger(size);
    for (const Slot& s : table) {
      if (s.used) insert_clean(bigger, s.hash, s.item);
    }
    table.swap(bigger);
  }
  std::vector<std::size_t> order;
  order.reserve(fill);
  for (const Slot& s : table) {
    if (s.used) order.push_back(s.item);
  }
  return order;
}

}  // namespace

std::vector<std::size_t> set_order_of_hashes(const std::vector<std::int64_t>& hashes) {
  std::vector<std::size_t> items(hashes.size());
  for (std::size_t i = 0; i < items.size(); ++i) items[i] = i;
  return table_order(hashes, items);
}

std::vector<std::size_t> set_order_indices(const std::vector<std::string>& ids) {
  std::vector<std::int64_t> hashes(ids.size());
  std::vector<std::size_t> firsts;  // the first occurrence of each distinct id
  for (std::size_t n = 0; n < ids.size(); ++n) {
    hashes[n] = str_hash(ids[n]);
    bool seen = false;
    for (const std::size_t f : firsts) seen = seen || ids[f] == ids[n];
    if (!seen) firsts.push_back(n);
  }
  return table_order(hashes, firsts);
}

std::vector<std::string> set_order(const std::vector<std::string>& ids) {
  std::vector<std::string> out;
  for (const std::size_t i : set_order_indices(ids)) out.push_back(ids[i]);
  return out;
}

}  // namespace blis::pyset
