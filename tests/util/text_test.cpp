// Echoed user text is bounded and escaped; output names are one plain path component; CSV
// fields follow RFC 4180.

#include "util/text.h"

#include <gtest/gtest.h>

namespace blis {
namespace {

TEST(EscapeExcerpt, ControlCharactersNeverPassRaw) {
  EXPECT_EQ(escape_excerpt("plain"), "plain");
  EXPECT_EQ(escape_excerpt("a\nb"), "a\\nb");  // a newline cannot forge a second diagnostic
  EXPECT_EQ(escape_excerpt("\x1b[31mred"), "\\x1b[31mred");  // ANSI escape made inert
  EXPECT_EQ(escape_excerpt(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(escape_excerpt("q\"\\"), "q\\\"\\\\");
  EXPECT_EQ(escape_excerpt("\xff\xfe"), "\\xff\\xfe");      // invalid UTF-8
  EXPECT_EQ(escape_excerpt("\xc2\x9b"), "\\xc2\\x9b");      // C1 control (CSI)
  EXPECT_EQ(escape_excerpt("caf\xc3\xa9"), "caf\xc3\xa9");  // valid UTF-8 kept
}

TEST(EscapeExcerpt, LongTextIsCutOnACharacterBoundary) {
  const std::string huge(1 << 20, 'x');
  EXPECT_EQ(escape_excerpt(huge, 5), "xxxxx...");
  EXPECT_EQ(escape_excerpt("ab\xc3\xa9", 3), "ab...");  // é is not cut in half
  EXPECT_LE(escape_excerpt(huge).size(), kMaxEcho + 3);
  EXPECT_EQ(quote_excerpt("x"), "\"x\"");
}

TEST(FileNameProblem, OnlyPlainComponentsPass) {
  for (const char* ok : {"main", "llama-3.1_8b", "A", "0"}) {
    EXPECT_FALSE(file_name_problem(ok)) << ok;
  }
  for (const char* bad : {"", ".", "..", "../../x", "/", "/tmp/x", "a/b", "a\nb", "-rf", ".hidden",
                          "a b", "a\\b", "a:b"}) {
    EXPECT_TRUE(file_name_problem(bad)) << bad;
  }
  EXPECT_TRUE(file_name_problem(std::string(251, 'a')));
  EXPECT_TRUE(file_name_problem(std::string(kMaxFileNameComponent + 1, 'a')));
  EXPECT_FALSE(file_name_problem(std::string(kMaxFileNameComponent, 'a')));
}

TEST(LabelProblem, BoundedAndNoControls) {
  EXPECT_FALSE(label_problem("chat, with \"quotes\""));
  EXPECT_TRUE(label_problem(""));
  EXPECT_TRUE(label_problem("a\nb"));
  EXPECT_TRUE(label_problem(std::string(kMaxLabel + 1, 'a')));
}

TEST(CsvField, QuotesOnlyWhenNeeded) {
  EXPECT_EQ(csv_field("chat"), "chat");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("cr\r"), "\"cr\r\"");
}

}  // namespace
}  // namespace blis
