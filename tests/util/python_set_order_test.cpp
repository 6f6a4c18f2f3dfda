// Python set iteration order (util/python_set_order.h). The expected values are what CPython
// 3.11 prints with PYTHONHASHSEED=0, the interpreter of the oracle traces:
//   PYTHONHASHSEED=0 python3 -c "print(hash('p1'))"
//   PYTHONHASHSEED=0 python3 -c "s=set(); [s.add(x) for x in IDS]; print(list(s))"
#include "util/python_set_order.h"

#include <gtest/gtest.h>

namespace blis::pyset {
namespace {

using Ids = std::vector<std::string>;

TEST(PythonSetOrder, StrHashIsSiphash13WithTheZeroKey) {
  EXPECT_EQ(str_hash(""), 0);
  EXPECT_EQ(str_hash("a"), 4644417185603328019LL);
  EXPECT_EQ(str_hash("p1"), 1204824325588555716LL);
  EXPECT_EQ(str_hash("p4"), 6813542114185367683LL);
  EXPECT_EQ(str_hash("plain0"), 7715825855394091372LL);
  EXPECT_EQ(str_hash("req-0123456789abcdef"), -3201288011525111086LL);  // two 8-byte words
  // PEP 393 storage: latin-1 code points hash as one byte each, CJK as two.
  EXPECT_EQ(str_hash("\xC3\xA9"
                     "1"),
            -2688345669257662417LL);
  EXPECT_EQ(str_hash("\xE6\x97\xA5\xE6\x9C\xAC"
                     "x"),
            -6578865231633269278LL);
}

TEST(PythonSetOrder, IterationFollowsTheHashTableNotTheInsertionOrder) {
  EXPECT_EQ(set_order({"p4", "p1"}), (Ids{"p4", "p1"}));
  EXPECT_EQ(set_order({"p1", "p4"}), (Ids{"p4", "p1"}));
  EXPECT_EQ(set_order({"o3", "o10", "o7"}), (Ids{"o3", "o7", "o10"}));
  // Seven entries resize the 8-slot table to 32 (fill * 5 >= mask * 3 at the fifth).
  EXPECT_EQ(set_order({"p0", "p1", "p2", "p3", "p4", "p5", "p6"}),
            (Ids{"p3", "p5", "p4", "p1", "p0", "p2", "p6"}));
  EXPECT_EQ(set_order({"d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9"}),
            (Ids{"d0", "d4", "d3", "d2", "d1", "d5", "d7", "d9", "d6", "d8"}));
}

TEST(PythonSetOrder, DuplicatesKeepTheirFirstInsertion) {
  EXPECT_EQ(set_order_indices({"p1", "p4", "p1"}), (std::vector<std::size_t>{1, 0}));
  EXPECT_TRUE(set_order({}).empty());
}

}  // namespace
}  // namespace blis::pyset
