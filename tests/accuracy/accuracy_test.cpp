// Accuracy against real vLLM runs: the twelve H100 runs of tests/accuracy/data (scenarios in
// examples/; mean, p50 and p90 of TTFT, ITL (per-request TPOT) and E2E) and the twelve H100
// training/validation runs of tests/accuracy/trainval (scenario.json + measured.json; means
// of TTFT, ITL and E2E and the p90 of TTFT and E2E) are simulated and compared with the
// measurements. The test fails when an error grows beyond the value recorded in
// tests/accuracy/ratchet.json (a ratchet: errors may only shrink).
//
// Regenerate the ratchet and the table in docs/accuracy.md (after a calibration change):
//   BLIS_ACCURACY_UPDATE=1 build/native/tests/accuracy/accuracy_tests
// How measured and simulated values are matched is explained in docs/accuracy.md.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/simulation.h"
#include "scenario/scenario_decode.h"
#include "test_files.h"

namespace blis::accuracy {
namespace {

using nlohmann::json;

// The twelve runs of tests/accuracy/data (inference-perf summaries, scenario in examples/).
const std::vector<std::string> kDataRuns = {
    "20260217-155451-llama-2-7b-tp1-codegen",
    "20260217-170634-llama-2-7b-tp1-reasoning",
    "20260217-203421-llama-2-70b-hf-tp4-codegen",
    "20260217-231439-llama-2-7b-tp1-general",
    "20260218-065057-llama-2-70b-hf-tp4-reasoning",
    "20260218-084319-llama-2-70b-tp4-roleplay",
    "20260218-130541-mixtral-8x7b-v0-1-tp2-general",
    "20260218-135247-mixtral-8x7b-v0-1-tp2-reasoning",
    "20260218-141024-mixtral-8x7b-v0-1-tp2-roleplay",
    "20260218-150304-codellama-34b-tp2-general",
    "20260218-150956-codellama-34b-tp2-codegen",
    "20260218-160939-codellama-34b-tp2-reasoning",
};

// The runs of tests/accuracy/trainval (whole-run means and p90s, scenario.json next to them).
const std::vector<std::string> kTrainvalRuns = {
    "17-llama-4-scout-17b-16e-tp2-general-lite-2-1",
    "20-llama-4-scout-17b-16e-tp2-codegen-2",
    "21-llama-4-scout-17b-16e-tp2-roleplay-2",
    "48-llama-4-scout-17b-16e-tp2-reasoning-lite-2-1",
    "60-llama-3-1-70b-tp4-general-lite-4-1",
    "61-llama-3-1-70b-tp4-codegen-4-1",
    "62-mistral-nemo-12b-tp2-general-lite-2-1",
    "63-mistral-nemo-12b-tp1-codegen-1-1",
    "64-qwen2-5-7b-instruct-tp1-roleplay-1-1",
    "65-01-ai-yi-34b-tp2-general-lite-2-1",
    "66-qwen2-5-7b-instruct-tp1-reasoning-lite-1-1",
    "67-llama-2-7b-hf-tp1-reasoning-lite-1-1",
};

std::vector<std::string> all_runs() {
  std::vector<std::string> v = kDataRuns;
  v.insert(v.end(), kTrainvalRuns.begin(), kTrainvalRuns.end());
  return v;
}

bool is_trainval(const std::string& run) {
  return std::find(kTrainvalRuns.begin(), kTrainvalRuns.end(), run) != kTrainvalRuns.end();
}

// The table's label of a run: the data runs without their timestamp, the trainval runs as named.
std::string label(const std::string& run) {
  return is_trainval(run) ? run : run.substr(16);
}

// The metrics compared, in table order: "<quantity>.<statistic>".
const std::vector<std::string> kMetrics = {"ttft.mean", "ttft.p50", "ttft.p90",
                                           "itl.mean",  "itl.p50",  "itl.p90",
                                           "e2e.mean",  "e2e.p50",  "e2e.p90"};

std::string source_path(const std::string& rel) {
  return std::string(BLIS_SOURCE_DIR) + "/" + rel;
}

using blis::test::read_file;

// The four "reasoning" runs of tests/accuracy/data are overloaded (docs/accuracy.md); the
// trainval "reasoning-lite" runs at 1 request/s are not.
bool overloaded(const std::string& run) {
  return !is_trainval(run) && run.find("reasoning") != std::string::npos;
}

struct RunResult {
  std::map<std::string, double> measured, simulated, error;  // error = sim / meas - 1
  std::uint64_t finished = 0, aborted = 0, measured_ok = 0, measured_failed = 0;
  double wall_s = 0;
};

std::map<std::string, RunResult>& results() {
  static std::map<std::string, RunResult> r;
  return r;
}

// The measured values, in milliseconds. inference-perf's TPOT divides by the number of
// streamed chunks, not tokens: its aiohttp reader yields two lines per SSE event ("data: ..."
// and the blank separator) and two more for the final usage event and [DONE], so with n output
// tokens (ignore_eos: always the requested length) it divides by 2n + 1 instead of n - 1. The
// true per-request TPOT is the reported one times (2n + 1) / (n - 1); the mean is checked
// against the data README's derivation, (E2E - TTFT) / (n - 1).
std::map<std::string, double> measured_values(const json& m, int n) {
  const json& lat = m["successes"]["latency"];
  std::map<std::string, double> out;
  auto put = [&](const char* name, const json& dist, double scale) {
    out[std::string(name) + ".mean"] = dist["mean"].get<double>() * scale;
    out[std::string(name) + ".p50"] = dist["median"].get<double>() * scale;
    out[std::string(name) + ".p90"] = dist["p90"].get<double>() * scale;
  };
  put("ttft", lat["time_to_first_token"], 1e3);
  put("e2e", lat["request_latency"], 1e3);
  const double chunk_factor = (2.0 * n + 1.0) / (n - 1.0);
  put("itl", lat["time_per_output_token"], 1e3 * chunk_factor);
  out["itl.mean"] = (out["e2e.mean"] - out["ttft.mean"]) / (n - 1.0);
  return out;
}

// A trainval run's whole-run values (ms): means, the p90 of TTFT and E2E, and the project's ITL
// derivation (E2E - TTFT) / (n - 1) (tests/accuracy/trainval/README.md).
std::map<std::string, double> trainval_values(const json& m) {
  const json& w = m["whole_run"];
  return {{"ttft.mean", w["ttft_mean"].get<double>()},
          {"ttft.p90", w["ttft_p90"].get<double>()},
          {"itl.mean", w["itl_mean_project"].get<double>()},
          {"e2e.mean", w["e2e_mean"].get<double>()},
          {"e2e.p90", w["e2e_p90"].get<double>()}};
}

class AccuracyRun : public ::testing::TestWithParam<std::string> {};

TEST_P(AccuracyRun, ErrorsDoNotGrowBeyondTheRatchet) {
  const std::string run = GetParam();
  const bool trainval = is_trainval(run);
  const std::string scenario_text =
      read_file(source_path(trainval ? "tests/accuracy/trainval/" + run + "/scenario.json"
                                     : "examples/" + run + ".json"));
  const json measured = json::parse(
      read_file(source_path(trainval ? "tests/accuracy/trainval/" + run + "/measured.json"
                                     : "tests/accuracy/data/" + run + ".json")));
  const json ratchet = json::parse(read_file(source_path("tests/accuracy/ratchet.json")));
  const json doc = json::parse(scenario_text);
  const int n = doc["workload"]["clients"][0]["shared_prefix"]["output_tokens"].get<int>();

  cluster::Simulation sim;
  const Diagnostics ds = sim.load(scenario_text, scenario::DecodeOptions{});
  ASSERT_FALSE(has_errors(ds)) << format_diagnostic(ds.front());
  sim.run();
  ASSERT_TRUE(sim.done());
  const json s = json::parse(sim.summary_json(0));

  RunResult r;
  r.measured = trainval ? trainval_values(measured) : measured_values(measured, n);
  for (const char* q : {"ttft", "e2e"}) {
    for (const char* st : {"mean", "p50", "p90"}) {
      r.simulated[std::string(q) + "." + st] = s[std::string(q) + "_ms"][st].get<double>();
    }
  }
  for (const char* st : {"mean", "p50", "p90"}) {
    r.simulated[std::string("itl.") + st] = s["tpot_ms"][st].get<double>();
  }
  r.finished = s["requests"]["finished"].get<std::uint64_t>();
  r.aborted = s["requests"]["aborted"].get<std::uint64_t>();
  if (!trainval) {  // the trainval records have no request counts
    r.measured_ok = measured["successes"]["count"].get<std::uint64_t>();
    r.measured_failed = measured["failures"]["count"].get<std::uint64_t>();
  }
  for (const auto& m : kMetrics) {
    if (r.measured.count(m) == 0) continue;
    r.error[m] = r.simulated[m] / r.measured[m] - 1.0;
    const json::json_pointer entry("/runs/" + run + "/" + m);
    if (!ratchet.contains(entry)) {
      ADD_FAILURE() << run << " " << m << " has no ratchet entry (BLIS_ACCURACY_UPDATE=1 adds it)";
      continue;
    }
    const double recorded = ratchet.at(entry).get<double>();
    EXPECT_LE(std::fabs(r.error[m]), recorded + 1e-9)
        << run << " " << m << ": simulated " << r.simulated[m] << " ms, measured " << r.measured[m]
        << " ms";
  }
  results()[run] = r;
}

INSTANTIATE_TEST_SUITE_P(H100Runs, AccuracyRun, ::testing::ValuesIn(all_runs()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = label(info.param);
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0;
  const std::size_t k = v.size() / 2;
  return v.size() % 2 ? v[k] : (v[k - 1] + v[k]) / 2;
}

// Rounds an error magnitude up to 0.1 percentage point, the ratchet's resolution.
double ceil_permille(double x) {
  return std::ceil(std::fabs(x) * 1000.0 - 1e-9) / 1000.0;
}

std::string pct(double e) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * e);
  return buf;
}

// With BLIS_ACCURACY_UPDATE=1 and every run simulated in this process: rewrites the ratchet
// and the table in docs/accuracy.md.
class UpdateOnExit : public ::testing::Environment {
 public:
  void TearDown() override {
    const char* flag = std::getenv("BLIS_ACCURACY_UPDATE");
    if (flag == nullptr || std::string(flag) != "1") return;
    const std::vector<std::string> runs = all_runs();
    if (results().size() != runs.size()) {
      std::fprintf(stderr, "accuracy: not every run was simulated; nothing written\n");
      return;
    }
    json ratchet;
    ratchet["comment"] =
        "Largest accepted |simulated / measured - 1| per run and metric; regenerate with "
        "BLIS_ACCURACY_UPDATE=1 build/native/tests/accuracy/accuracy_tests";
    std::string table =
        "| run | TTFT mean | p50 | p90 | ITL mean | p50 | p90 | E2E mean | p50 | p90 | finished "
        "(measured) | aborted (measured failures) "
        "|\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    std::map<std::string, std::vector<double>> fit_errs, all_errs;
    std::size_t steady = 0;
    for (const auto& run : runs) {
      const RunResult& r = results()[run];
      table += "| " + label(run) + (overloaded(run) ? " (overloaded)" : "");
      steady += overloaded(run) ? 0 : 1;
      for (const auto& m : kMetrics) {
        if (r.error.count(m) == 0) {  // not in the trainval records
          table += " | –";
          continue;
        }
        table += " | " + pct(r.error.at(m));
        ratchet["runs"][run][m] = ceil_permille(r.error.at(m));
        all_errs[m].push_back(std::fabs(r.error.at(m)));
        if (!overloaded(run)) fit_errs[m].push_back(std::fabs(r.error.at(m)));
      }
      if (is_trainval(run)) {
        table += " | " + std::to_string(r.finished) + " | " + std::to_string(r.aborted) + " |\n";
      } else {
        table += " | " + std::to_string(r.finished) + " (" + std::to_string(r.measured_ok) +
                 ") | " + std::to_string(r.aborted) + " (" + std::to_string(r.measured_failed) +
                 ") |\n";
      }
    }
    auto median_row = [&](const char* label, std::map<std::string, std::vector<double>>& errs) {
      std::string row = std::string("| ") + label;
      for (const auto& m : kMetrics) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.1f%%", 100 * median(errs[m]));
        row += std::string(" | ") + buf;
      }
      return row + " | | |\n";
    };
    table += median_row(
        ("**median \\|error\\|, " + std::to_string(steady) + " runs not overloaded**").c_str(),
        fit_errs);
    table += median_row(
        ("median \\|error\\|, all " + std::to_string(runs.size()) + " runs").c_str(), all_errs);

    std::ofstream(source_path("tests/accuracy/ratchet.json")) << ratchet.dump(2) << "\n";
    const std::string doc_path = source_path("docs/accuracy.md");
    std::string doc = read_file(doc_path);
    const std::string begin = "<!-- accuracy-table:begin -->\n",
                      end = "<!-- accuracy-table:end -->";
    const auto b = doc.find(begin), e = doc.find(end);
    if (b == std::string::npos || e == std::string::npos) {
      std::fprintf(stderr, "accuracy: markers missing in docs/accuracy.md\n");
      return;
    }
    doc = doc.substr(0, b + begin.size()) + table + doc.substr(e);
    std::ofstream(doc_path) << doc;
    std::fprintf(stderr, "accuracy: wrote tests/accuracy/ratchet.json and docs/accuracy.md\n");
  }
};

const auto* const kUpdate = ::testing::AddGlobalTestEnvironment(new UpdateOnExit);

}  // namespace
}  // namespace blis::accuracy
