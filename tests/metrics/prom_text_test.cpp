#include "engine/vllm/metrics/prom_text.h"

#include <gtest/gtest.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

namespace blis::vllm::metrics {
namespace {

// Expected strings are Python 3's repr(float) for the same values.
TEST(PythonFloatRepr, MatchesPythonRepr) {
  EXPECT_EQ(python_float_repr(0.0), "0.0");
  EXPECT_EQ(python_float_repr(-0.0), "-0.0");
  EXPECT_EQ(python_float_repr(1.0), "1.0");
  EXPECT_EQ(python_float_repr(2.5), "2.5");
  EXPECT_EQ(python_float_repr(0.1), "0.1");
  EXPECT_EQ(python_float_repr(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(python_float_repr(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(python_float_repr(0.0001), "0.0001");
  EXPECT_EQ(python_float_repr(0.00012), "0.00012");
  EXPECT_EQ(python_float_repr(0.00001), "1e-05");
  EXPECT_EQ(python_float_repr(1.5e-05), "1.5e-05");
  EXPECT_EQ(python_float_repr(123456789.0), "123456789.0");
  EXPECT_EQ(python_float_repr(1e15), "1000000000000000.0");
  EXPECT_EQ(python_float_repr(1e16), "1e+16");
  EXPECT_EQ(python_float_repr(1.2345678901234567e17), "1.2345678901234566e+17");
  EXPECT_EQ(python_float_repr(1e100), "1e+100");
  EXPECT_EQ(python_float_repr(-2560.0), "-2560.0");
  EXPECT_EQ(python_float_repr(5e-324), "5e-324");
  EXPECT_EQ(python_float_repr(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(python_float_repr(9007199254740993.0), "9007199254740992.0");
  EXPECT_EQ(python_float_repr(0.075), "0.075");
  EXPECT_EQ(python_float_repr(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(python_float_repr(-std::numeric_limits<double>::infinity()), "-inf");
}

// Powers of two have a lopsided rounding interval; Python's shortest digits there.
TEST(PythonFloatRepr, PowersOfTwoRoundTrip) {
  for (int e = -1074; e <= 1023; e += 7) {
    const double v = std::ldexp(1.0, e);
    const std::string s = python_float_repr(v);
    EXPECT_EQ(std::strtod(s.c_str(), nullptr), v) << s;
  }
  EXPECT_EQ(python_float_repr(std::ldexp(1.0, 60)), "1.152921504606847e+18");
  EXPECT_EQ(python_float_repr(std::ldexp(1.0, -20)), "9.5367431640625e-07");
}

// prometheus_client floatToGoString.
TEST(FormatGoFloat, MatchesPrometheusClient) {
  EXPECT_EQ(format_go_float(0.0), "0.0");
  EXPECT_EQ(format_go_float(1.0), "1.0");
  EXPECT_EQ(format_go_float(0.4567), "0.4567");
  EXPECT_EQ(format_go_float(120000.0), "120000.0");
  EXPECT_EQ(format_go_float(999999.0), "999999.0");
  EXPECT_EQ(format_go_float(5052943.0), "5.052943e+06");  // a real vLLM scrape's value
  EXPECT_EQ(format_go_float(1000000.0), "1e+06");
  EXPECT_EQ(format_go_float(2000000.0), "2e+06");
  EXPECT_EQ(format_go_float(1234567.5), "1.2345675e+06");
  EXPECT_EQ(format_go_float(12345678901.0), "1.2345678901e+010");  // prometheus_client quirk
  EXPECT_EQ(format_go_float(1e16), "1e+16");
  EXPECT_EQ(format_go_float(-5052943.0), "-5052943.0");
  EXPECT_EQ(format_go_float(0.001), "0.001");
  EXPECT_EQ(format_go_float(2560.0), "2560.0");
  EXPECT_EQ(format_go_float(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_go_float(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(format_go_float(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

// 4400 doubles (random bit patterns, powers of two, metric-like values) against Python 3's
// repr() and prometheus_client's floatToGoString (data/gen_float_golden.py).
TEST(FormatGoFloat, GoldenFileFromPython) {
  std::ifstream in(std::string(BLIS_SOURCE_DIR) + "/tests/metrics/data/float_golden.txt");
  ASSERT_TRUE(in.good());
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string bits_hex, repr, go;
    fields >> bits_hex >> repr >> go;
    const std::uint64_t bits = std::strtoull(bits_hex.c_str(), nullptr, 16);
    double v;
    std::memcpy(&v, &bits, sizeof v);
    EXPECT_EQ(python_float_repr(v), repr) << bits_hex;
    EXPECT_EQ(format_go_float(v), go) << bits_hex;
    ++checked;
  }
  EXPECT_GT(checked, 4000);
}

TEST(LabelText, EscapesAndSorts) {
  std::string out;
  LabelList labels = {{"model_name", "a\"b\\c\nd"}, {"engine", "0"}};
  append_sorted_labels(out, labels);
  EXPECT_EQ(out, "{engine=\"0\",model_name=\"a\\\"b\\\\c\\nd\"}");
  std::string help;
  append_escaped_help(help, "a\\b\nc\"");
  EXPECT_EQ(help, "a\\\\b\\nc\"");
}

TEST(LabelText, ParsesLabelLists) {
  LabelList l;
  std::string err;
  ASSERT_TRUE(parse_label_list("", l, err));
  EXPECT_TRUE(l.empty());
  ASSERT_TRUE(parse_label_list("instance=\"p0-1\", pool = \"de\\\"code\\n\",", l, err)) << err;
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0], (Label{"instance", "p0-1"}));
  EXPECT_EQ(l[1], (Label{"pool", "de\"code\n"}));
  EXPECT_FALSE(parse_label_list("1abc=\"x\"", l, err));
  EXPECT_NE(err.find("offset 0"), std::string::npos) << err;
  EXPECT_FALSE(parse_label_list("a=\"x\",a=\"y\"", l, err));
  EXPECT_NE(err.find("duplicate"), std::string::npos);
  EXPECT_FALSE(parse_label_list("a=x", l, err));
  EXPECT_FALSE(parse_label_list("a=\"x", l, err));
  EXPECT_FALSE(parse_label_list("__a=\"x\"", l, err));
  EXPECT_FALSE(parse_label_list("a=\"\\t\"", l, err));
}

}  // namespace
}  // namespace blis::vllm::metrics
