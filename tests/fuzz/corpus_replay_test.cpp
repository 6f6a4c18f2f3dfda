// Replays every file of tests/fuzz/corpus/TARGET (the seeds, and every input a fuzzer ever
// crashed on, kept as a regression test) through the libFuzzer harness of that target,
// compiled without libFuzzer. A harness aborts on a finding, so a regression fails here.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int blis_fuzz_one_scenario(const std::uint8_t* data, std::size_t size);
extern "C" int blis_fuzz_one_trace_csv(const std::uint8_t* data, std::size_t size);
extern "C" int blis_fuzz_one_conform(const std::uint8_t* data, std::size_t size);
#if BLIS_FUZZ_HAS_ENGINE
extern "C" int blis_fuzz_one_engine(const std::uint8_t* data, std::size_t size);
#endif

namespace {

namespace fs = std::filesystem;
using Harness = int (*)(const std::uint8_t*, std::size_t);

// Runs every file of the target's corpus (sorted, for a stable order); returns the count.
std::size_t replay(const char* target, Harness one) {
  const fs::path dir = fs::path(BLIS_SOURCE_DIR) / "tests/fuzz/corpus" / target;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.string());
    std::ifstream in(f, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(one(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), 0);
  }
  return files.size();
}

TEST(FuzzCorpus, ScenarioInputsReplay) {
  EXPECT_GE(replay("scenario", blis_fuzz_one_scenario), 4u);
}

TEST(FuzzCorpus, TraceCsvInputsReplay) {
  EXPECT_GE(replay("trace_csv", blis_fuzz_one_trace_csv), 3u);
}

TEST(FuzzCorpus, ConformInputsReplay) {
  EXPECT_GE(replay("conform", blis_fuzz_one_conform), 5u);
}

#if BLIS_FUZZ_HAS_ENGINE
TEST(FuzzCorpus, EngineCallSequencesReplay) {
  EXPECT_GE(replay("engine", blis_fuzz_one_engine), 6u);
}
#endif

}  // namespace
