// blis calibrate: fits a GPU's latency-kernel coefficients on measured runs (a scenario and
// what the real server measured) and reports in-sample, leave-one-model-out and
// leave-one-run-out errors. The search (calibrate_fit.h) is deterministic. docs/accuracy.md
// says how the project's own fit was made with it.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibrate_fit.h"
#include "catalog/catalog.h"
#include "cluster/simulation.h"
#include "cluster/vllm_backend.h"
#include "cluster/workload/workload.h"
#include "command_registry.h"
#include "file_access.h"
#include "generated_block.h"
#include "scenario/scenario_decode.h"

namespace blis::cli::cmd_calibrate {
namespace {

namespace fs = std::filesystem;
using namespace calibrate;  // NOLINT: the command is the fitting module's one user
using nlohmann::json;

constexpr const char* kUsage =
    "usage: blis calibrate RUN... --out FILE [--fit PTR,PTR,...] [--holdout none|model|run|all]\n"
    "                      [--stage-seconds S] [--iterations N] [--ablate] [--doc FILE]\n"
    "\n"
    "Fits the coefficients of the runs' GPU (catalog/coefficients/<gpu>.json) to measured runs\n"
    "and writes the fitted entry to FILE. A RUN is a directory holding scenario.json and\n"
    "measured.json, or SCENARIO.json=MEASURED.json. measured.json is either a whole-run\n"
    "summary ({\"whole_run\": {\"e2e_mean\", \"ttft_mean\", \"itl_mean_project\"}}, ms) or\n"
    "inference-perf's summary_lifecycle_metrics.json (seconds; ITL = (E2E - TTFT) / (n - 1)).\n"
    "  --fit          JSON pointers of the fitted coefficients (default: the list in\n"
    "                 docs/accuracy.md); each has a physical range the search stays in\n"
    "  --holdout      also refit without each model (model), each run (run), or both (all);\n"
    "                 default model\n"
    "  --stage-seconds  while fitting, each load stage is cut to S seconds (default 120);\n"
    "                 reported errors use the full runs\n"
    "  --iterations   Levenberg-Marquardt iterations per fit (default 3; each simulates\n"
    "                 every run once per fitted coefficient plus once or more for the step)\n"
    "  --ablate       also report the medians with each kernel term switched off\n"
    "  --doc FILE     also write the tables between <!-- calibration-table:begin --> and\n"
    "                 <!-- calibration-table:end --> (and calibration-terms) in FILE\n"
    "Objective: mean over runs of (ln E2E ratio)^2 + (ln ITL ratio)^2 + 0.5 (ln TTFT ratio)^2\n"
    "(ratios of simulated to measured means).\n"
    "Exit status: 0 done, 1 unreadable input, 2 invalid arguments or runs.";

// The scenario with every load stage cut to `seconds` and the horizon to their sum.
std::string shorten(const json& scenario, double seconds) {
  json s = scenario;
  double longest = 0;
  for (json& client : s["workload"]["clients"]) {
    double total = 0;
    for (json& st : client["load"]["stages"]) {
      const double d = std::min(st.value("duration_s", seconds), seconds);
      st["duration_s"] = d;
      total += d;
    }
    longest = std::max(longest, total);
  }
  s["horizon"]["duration_s"] = longest;
  return s.dump();
}

// Parses one RUN argument; returns an error message or "".
std::string load_run(const std::string& arg, double stage_seconds, Run* run) {
  fs::path scen, meas;
  const auto eq = arg.find('=');
  if (eq != std::string::npos) {
    scen = arg.substr(0, eq);
    meas = arg.substr(eq + 1);
    run->name = fs::path(scen).stem().string();
  } else {
    scen = fs::path(arg) / "scenario.json";
    meas = fs::path(arg) / "measured.json";
    run->name = fs::path(arg).filename().string();
    if (run->name.empty()) run->name = fs::path(arg).parent_path().filename().string();
  }
  std::string error;
  const auto st = read_regular_file(scen, kMaxScenarioBytes, &error);
  if (!st) return "cannot read '" + scen.string() + "': " + error;
  const auto mt = read_regular_file(meas, kMaxScenarioBytes, &error);
  if (!mt) return "cannot read '" + meas.string() + "': " + error;
  const json s = json::parse(*st, nullptr, false), m = json::parse(*mt, nullptr, false);
  if (s.is_discarded()) return "'" + scen.string() + "' is not JSON";
  if (m.is_discarded()) return "'" + meas.string() + "' is not JSON";
  const json::json_pointer pool("/pools/0"),
      out_tokens("/workload/clients/0/shared_prefix/output_tokens");
  if (!s.contains(pool) || !s.at(pool).contains("model") || !s.at(pool).contains("hardware")) {
    return "'" + scen.string() + "': /pools/0 needs model and hardware";
  }
  run->model = s.at(pool)["model"].get<std::string>();
  run->gpu = s.at(pool)["hardware"].get<std::string>();
  if (m.contains("whole_run")) {
    const json& w = m["whole_run"];
    if (!w.contains("e2e_mean") || !w.contains("ttft_mean") || !w.contains("itl_mean_project")) {
      return "'" + meas.string() + "': /whole_run needs e2e_mean, ttft_mean, itl_mean_project";
    }
    run->measured = {w["e2e_mean"].get<double>(), w["ttft_mean"].get<double>(),
                     w["itl_mean_project"].get<double>()};
  } else if (m.contains(json::json_pointer("/successes/latency/request_latency/mean"))) {
    if (!s.contains(out_tokens)) {
      return "'" + scen.string() + "': " + out_tokens.to_string() + " is needed to derive ITL";
    }
    const double n = s.at(out_tokens).get<double>();
    const json& lat = m["successes"]["latency"];
    const double e2e = lat["request_latency"]["mean"].get<double>() * 1e3;
    const double ttft = lat["time_to_first_token"]["mean"].get<double>() * 1e3;
    run->measured = {e2e, ttft, (e2e - ttft) / (n - 1.0)};
  } else {
    return "'" + meas.string() + "': neither /whole_run nor /successes/latency";
  }
  if (!(run->measured.e2e > 0 && run->measured.ttft > 0 && run->measured.itl > 0)) {
    return "'" + meas.string() + "': measured means must be positive";
  }
  run->scenario_full = *st;
  run->scenario_short = shorten(s, stage_seconds);
  return "";
}

// Three significant digits: the precision the data supports, and readable in the file.
double round3(double v) {
  if (v == 0) return 0;
  const double mag = std::pow(10.0, std::floor(std::log10(std::fabs(v))) - 2);
  return std::round(v / mag) * mag;
}

double median_abs(std::vector<double> v) {
  for (double& x : v) x = std::fabs(x);
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0;
  const std::size_t k = v.size() / 2;
  return v.size() % 2 ? v[k] : (v[k - 1] + v[k]) / 2;
}

std::string pct(double e) {
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f%%", 100 * e);
  return b;
}

std::string pct_abs(double e) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f%%", 100 * e);
  return b;
}

struct Report {
  std::vector<Errors> in_sample, lomo, loro;
};

// The markdown table: one row per run, then median rows overall and per GPU.
std::string table(const std::vector<Run>& runs, const Report& rep) {
  const bool lomo = !rep.lomo.empty(), loro = !rep.loro.empty();
  std::string t = "| run | GPU | E2E | TTFT | ITL |";
  std::string sep = "|---|---|---|---|---|";
  if (lomo) t += " E2E (LOMO) | TTFT (LOMO) | ITL (LOMO) |", sep += "---|---|---|";
  if (loro) t += " E2E (LORO) | TTFT (LORO) | ITL (LORO) |", sep += "---|---|---|";
  t += "\n" + sep + "\n";
  auto cells = [](const Errors& e) {
    return " " + pct(e.e2e) + " | " + pct(e.ttft) + " | " + pct(e.itl) + " |";
  };
  for (std::size_t i = 0; i < runs.size(); ++i) {
    t += "| " + runs[i].name + " | " + runs[i].gpu + " |" + cells(rep.in_sample[i]);
    if (lomo) t += cells(rep.lomo[i]);
    if (loro) t += cells(rep.loro[i]);
    t += "\n";
  }
  std::set<std::string> gpus;
  for (const Run& r : runs) gpus.insert(r.gpu);
  std::vector<std::string> groups = {""};
  if (gpus.size() > 1) groups.insert(groups.end(), gpus.begin(), gpus.end());
  for (const std::string& g : groups) {
    auto med = [&](const std::vector<Errors>& es) {
      std::vector<double> a, b, c;
      for (std::size_t i = 0; i < runs.size(); ++i) {
        if (!g.empty() && runs[i].gpu != g) continue;
        a.push_back(es[i].e2e), b.push_back(es[i].ttft), c.push_back(es[i].itl);
      }
      return " " + pct_abs(median_abs(a)) + " | " + pct_abs(median_abs(b)) + " | " +
             pct_abs(median_abs(c)) + " |";
    };
    t += "| **median \\|error\\|" + (g.empty() ? std::string(", all runs") : ", " + g) + "** | |" +
         med(rep.in_sample);
    if (lomo) t += med(rep.lomo);
    if (loro) t += med(rep.loro);
    t += "\n";
  }
  return t;
}

// What each term contributes: the in-sample medians with one term switched off (or back to its
// earlier form), everything else at the fitted values.
struct Ablation {
  const char* name;
  std::vector<std::pair<const char*, double>> values;  // pointer, value (NaN: copy from `from`)
  const char* from = nullptr;  // the pointer whose fitted value replaces NaN values
};

std::string ablation_table(const std::vector<Run>& runs, const json& entry, const Report& rep) {
  const double nan = std::nan("");
  const std::vector<Ablation> ablations = {
      {"sampler off",
       {{"/sampler/step_us", 0}, {"/sampler/per_kvocab_us", 0}, {"/sampler/per_row_kvocab_us", 0}}},
      {"decode attention: no per-sequence cost", {{"/attention/decode_per_seq_us", 0}}},
      {"attention floor 4 us (before)", {{"/attention/floor_us", 4}}},
      {"MoE experts at the dense derate", {{"/moe/expert_derate", nan}}, "/memory/hbm_derate"},
      {"MoE routing off", {{"/moe/routing_us", 0}}},
      {"all-reduce: no per-peer latency", {{"/collectives/allreduce_latency_per_peer_us", 0}}},
      {"serving: no request overhead", {{"/serving/request_us", 0}}},
  };
  auto medians = [&](const std::vector<Errors>& es) {
    std::vector<double> a, b, c;
    for (const Errors& e : es) a.push_back(e.e2e), b.push_back(e.ttft), c.push_back(e.itl);
    return " " + pct_abs(median_abs(a)) + " | " + pct_abs(median_abs(b)) + " | " +
           pct_abs(median_abs(c)) + " |";
  };
  std::string t = "| variant | E2E | TTFT | ITL |\n|---|---|---|---|\n";
  t += "| fitted (all terms) |" + medians(rep.in_sample) + "\n";
  for (const Ablation& a : ablations) {
    json e = entry;
    for (const auto& v : a.values) {
      const double x =
          std::isnan(v.second) ? entry.at(json::json_pointer(a.from)).get<double>() : v.second;
      e[json::json_pointer(v.first)] = x;
    }
    std::vector<Errors> es;
    for (const Run& r : runs) es.push_back(simulate(r, r.scenario_full, e.dump()));
    t += std::string("| ") + a.name + " |" + medians(es) + "\n";
  }
  return t;
}

// Held-out errors: for each group of runs (a model, or one run), refit without it and price it.
std::vector<Errors> held_out(const std::vector<Run>& runs, const json& start,
                             const std::vector<Param>& params, int iterations, bool by_model) {
  std::vector<Errors> out(runs.size());
  std::set<std::string> keys;
  for (const Run& r : runs) keys.insert(by_model ? r.model : r.name);
  for (const std::string& k : keys) {
    std::vector<const Run*> train;
    for (const Run& r : runs) {
      if ((by_model ? r.model : r.name) != k) train.push_back(&r);
    }
    const Fit f = fit(train, start, params, iterations);
    const std::string text = f.entry.dump();
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if ((by_model ? runs[i].model : runs[i].name) == k) {
        out[i] = simulate(runs[i], runs[i].scenario_full, text);
      }
    }
    std::fprintf(stderr, "calibrate: held out %s (%d evaluations)\n", k.c_str(), f.evals);
  }
  return out;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// The fitted entry: values rounded, each fitted value's source saying how it was obtained.
json fitted_entry(const json& entry, const std::vector<Param>& params,
                  const std::vector<Run>& runs) {
  json e = entry;
  std::set<std::string> models;
  for (const Run& r : runs) models.insert(r.model);
  const std::string how = "fitted by `blis calibrate` on " + std::to_string(runs.size()) +
                          " runs of " + std::to_string(models.size()) + " models";
  for (const Param& p : params) {
    const json::json_pointer ptr(p.pointer);
    e[ptr] = round3(e.at(ptr).get<double>());
    std::string prior = e["sources"].value(p.pointer, std::string());
    const auto cut = prior.find("; fitted by `blis calibrate`");
    if (cut != std::string::npos) prior = prior.substr(0, cut);
    if (prior.empty()) prior = p.meaning;
    char range[96];
    std::snprintf(range, sizeof range, " (range %g-%g)", p.lo, p.hi);
    e["sources"][p.pointer] = prior + "; " + how + range + " (docs/accuracy.md)";
  }
  return e;
}

// The table between the <!-- MARKER:begin --> and <!-- MARKER:end --> lines of `path`.
int write_doc(const std::string& path, const std::string& marker, const std::string& tbl) {
  const char* cmd = "blis calibrate";
  const std::string begin = "<!-- " + marker + ":begin -->\n", end = "<!-- " + marker + ":end -->";
  const auto doc = replace_generated_block(cmd, path, begin, end, begin + tbl + end + "\n");
  return doc && write_generated_file(cmd, path, *doc) ? 0 : 1;
}

struct Options {
  std::vector<std::string> runs;
  std::string out, doc, holdout = "model";
  std::vector<std::string> fit = default_fit();
  double stage_seconds = 120;
  int iterations = 3;
  bool ablate = false;
};

int parse_options(const std::vector<std::string>& args, Options* o) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--out" && has_value) {
      o->out = args[++i];
    } else if (a == "--doc" && has_value) {
      o->doc = args[++i];
    } else if (a == "--fit" && has_value) {
      o->fit = split_commas(args[++i]);
    } else if (a == "--holdout" && has_value) {
      o->holdout = args[++i];
    } else if (a == "--stage-seconds" && has_value) {
      o->stage_seconds = std::atof(args[++i].c_str());
    } else if (a == "--ablate") {
      o->ablate = true;
    } else if (a == "--iterations" && has_value) {
      o->iterations = std::atoi(args[++i].c_str());
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "blis calibrate: unknown option or missing value '%s'\n%s\n", a.c_str(),
                   kUsage);
      return 2;
    } else {
      o->runs.push_back(a);
    }
  }
  const std::set<std::string> holdouts = {"none", "model", "run", "all"};
  std::string bad;
  if (o->runs.empty()) bad = "no runs given";
  if (o->out.empty()) bad = "--out is required";
  if (!holdouts.count(o->holdout)) bad = "--holdout must be none, model, run or all";
  if (!(o->stage_seconds >= 1)) bad = "--stage-seconds must be >= 1";
  if (o->iterations < 1) bad = "--iterations must be >= 1";
  if (!bad.empty()) {
    std::fprintf(stderr, "blis calibrate: %s\n%s\n", bad.c_str(), kUsage);
    return 2;
  }
  return 0;
}

int run_calibrate(const std::vector<std::string>& args) {
  Options o;
  if (const int rc = parse_options(args, &o)) return rc;
  std::vector<Param> params;
  for (const std::string& p : o.fit) {
    const auto& known = known_params();
    const auto it =
        std::find_if(known.begin(), known.end(), [&](const Param& k) { return k.pointer == p; });
    if (it == known.end()) {
      std::fprintf(stderr, "blis calibrate: '%s' is not a fittable coefficient\n", p.c_str());
      return 2;
    }
    params.push_back(*it);
  }
  std::vector<Run> runs(o.runs.size());
  for (std::size_t i = 0; i < o.runs.size(); ++i) {
    const std::string err = load_run(o.runs[i], o.stage_seconds, &runs[i]);
    if (!err.empty()) {
      std::fprintf(stderr, "blis calibrate: %s\n", err.c_str());
      return err.rfind("cannot read", 0) == 0 ? 1 : 2;
    }
    cluster::Simulation check;
    const Diagnostics ds = check.load(runs[i].scenario_full, scenario::DecodeOptions{});
    if (has_errors(ds)) {
      for (const auto& d : ds) std::fprintf(stderr, "%s\n", format_diagnostic(d).c_str());
      std::fprintf(stderr, "blis calibrate: run '%s' has an invalid scenario\n", o.runs[i].c_str());
      return 2;
    }
    if (runs[i].gpu != runs[0].gpu) {
      std::fprintf(stderr, "blis calibrate: runs on %s and %s: fit one GPU at a time\n",
                   runs[0].gpu.c_str(), runs[i].gpu.c_str());
      return 2;
    }
  }
  const catalog::Catalog& cat = catalog::Catalog::builtin();
  const std::string gpu = cat.has_measured_coefficients(runs[0].gpu) ? runs[0].gpu : "default";
  const std::string* text = cat.entry_json(catalog::Kind::kCoefficients, gpu);
  if (text == nullptr) {
    std::fprintf(stderr, "blis calibrate: no coefficients for '%s'\n", runs[0].gpu.c_str());
    return 2;
  }
  json start = json::parse(*text);
  start["id"] = runs[0].gpu;
  std::vector<const Run*> all;
  for (const Run& r : runs) all.push_back(&r);
  const Fit f = fit(all, start, params, o.iterations);
  const json entry = fitted_entry(f.entry, params, runs);
  std::fprintf(stderr, "calibrate: fitted on %zu runs (%d evaluations, objective %.4f)\n",
               runs.size(), f.evals, f.objective);
  Report rep;
  for (const Run& r : runs) rep.in_sample.push_back(simulate(r, r.scenario_full, entry.dump()));
  if (o.holdout == "model" || o.holdout == "all") {
    rep.lomo = held_out(runs, start, params, o.iterations, true);
  }
  if (o.holdout == "run" || o.holdout == "all") {
    rep.loro = held_out(runs, start, params, o.iterations, false);
  }
  std::ofstream out(o.out, std::ios::binary);
  if (!out) {
    std::fprintf(stderr, "blis calibrate: cannot write '%s'\n", o.out.c_str());
    return 1;
  }
  out << entry.dump(2) << "\n";
  const std::string tbl = table(runs, rep);
  std::printf("%s", tbl.c_str());
  for (const Param& p : params) {
    std::printf("%s = %g\n", p.pointer.c_str(),
                entry.at(json::json_pointer(p.pointer)).get<double>());
  }
  std::string terms;
  if (o.ablate) {
    terms = ablation_table(runs, entry, rep);
    std::printf("\n%s", terms.c_str());
  }
  if (o.doc.empty()) return 0;
  if (const int rc = write_doc(o.doc, "calibration-table", tbl)) return rc;
  return o.ablate ? write_doc(o.doc, "calibration-terms", terms) : 0;
}

}  // namespace

BLIS_REGISTER_COMMAND("calibrate", "fit a GPU's kernel coefficients to measured runs", kUsage,
                      run_calibrate);

}  // namespace blis::cli::cmd_calibrate
