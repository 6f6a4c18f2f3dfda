// workload: clients (load, request shape, per-client options) or a whole-trace replay.

#include <cmath>
#include <set>

#include "scenario/decode_internal.h"
#include "scenario/scenario_checks.h"
#include "scenario/schema_keys.h"
#include "scenario/trace_csv.h"
#include "util/text.h"

namespace blis::scenario::detail {

namespace {

bool has_errors_since(const Diagnostics& d, std::size_t from) {
  for (std::size_t i = from; i < d.size(); ++i)
    if (d[i].severity == Severity::kError) return true;
  return false;
}

// Limits of the workload generator (core/cluster/workload): token counts up to 2^24 and at
// most 10 million users or prompt groups per client.
const std::string kTokensExpected = "an integer in [1, 16777216] (tokens)";

const std::vector<std::string> kDists = {"constant", "normal", "lognormal", "exponential",
                                         "uniform"};

// Keys each distribution uses besides "dist".
std::vector<std::string> dist_keys(const std::string& dist) {
  if (dist == "constant") return {"value"};
  if (dist == "normal" || dist == "lognormal") return {"mean", "std", "min", "max"};
  if (dist == "exponential") return {"mean", "min", "max"};
  return {"min", "max"};  // uniform
}

// A sample above kMaxTraceTokens stops a run (the workload refuses it rather than clamp it
// silently). Without `max`, a distribution whose tail reaches that far once in 1e15 samples
// (8 standard deviations of a normal, or of the log of a lognormal; 37 means of an
// exponential) is refused here, so `validate` and `run` agree for any run the request budget
// allows.
void require_bounded_tail(const LengthDist& d, const std::string& dist, FieldReader& r) {
  double q = 0;
  switch (d.kind) {
    case LengthDist::Kind::kNormal:
      q = d.mean + 8 * d.std;
      break;
    case LengthDist::Kind::kLognormal: {
      const double s2 = std::log1p((d.std / d.mean) * (d.std / d.mean));
      q = std::exp(std::log(d.mean) - s2 / 2 + 8 * std::sqrt(s2));
      break;
    }
    case LengthDist::Kind::kExponential:
      q = 37 * d.mean;
      break;
    default:
      return;
  }
  if (!(q <= kMaxTraceTokens)) {
    r.missing("max", "a cap in tokens (at most 16777216): this " + dist +
                         " reaches beyond 16777216 tokens in about one sample in 1e15 or more");
  }
}

std::optional<LengthDist> decode_dist(const json& v, const std::string& ptr, DecodeContext& c) {
  FieldReader r(v, ptr, c.diags, keys::kDist,
                "an object ({\"dist\": ..., ...}, a token-count distribution)");
  if (!r.valid()) return std::nullopt;
  r.report_unknown_keys();
  const auto dist = r.choice("dist", kDists, "is not a length distribution");
  if (!dist) {
    if (!r.has("dist")) r.missing("dist", "one of: " + rules::join(kDists, true));
    return std::nullopt;
  }
  const std::size_t before = c.diags.size();
  const auto used = dist_keys(*dist);
  for (const auto& k : keys::kDist) {
    if (k == "dist" || !r.has(k)) continue;
    if (std::find(used.begin(), used.end(), k) == used.end()) {
      r.error(k, "is not used by dist \"" + *dist + "\" (it takes: " + rules::join(used) + ")");
    }
  }
  LengthDist d;
  const auto need = [&](const std::string& key, std::optional<double> value,
                        const std::string& expected) {
    if (!value && !r.has(key)) r.missing(key, expected);
    return value.value_or(0.0);
  };
  if (*dist == "constant") {
    d.kind = LengthDist::Kind::kConstant;
    d.value =
        static_cast<double>(r.integer("value", 1, kMaxTraceTokens, kTokensExpected).value_or(0));
    if (!r.has("value")) r.missing("value", kTokensExpected);
  } else {
    d.min = r.number("min", 0.0, false, kMaxTraceTokens, "a number of tokens in [0, 16777216]");
    d.max = r.number("max", 1.0, false, kMaxTraceTokens, "a number of tokens in [1, 16777216]");
    if (*dist == "normal" || *dist == "lognormal") {
      d.kind = *dist == "normal" ? LengthDist::Kind::kNormal : LengthDist::Kind::kLognormal;
      d.mean =
          need("mean",
               r.number("mean", 0.0, true, kMaxTraceTokens, "a number of tokens in (0, 16777216]"),
               "a number of tokens > 0");
      d.std = need("std", r.number("std", 0.0, false, kMaxTraceTokens, "a number >= 0"),
                   "a number >= 0");
    } else if (*dist == "exponential") {
      d.kind = LengthDist::Kind::kExponential;
      d.mean =
          need("mean",
               r.number("mean", 0.0, true, kMaxTraceTokens, "a number of tokens in (0, 16777216]"),
               "a number of tokens > 0");
    } else {
      d.kind = LengthDist::Kind::kUniform;  // min and max: validate_workload
      if (d.min && *d.min < 1)
        r.error("min",
                rules::show(*r.raw("min")) + " is out of range, expected a number of tokens >= 1");
    }
    // min <= max and a uniform range holding a whole number: validate_workload.
  }
  if (c.diags.size() == before && !d.max) require_bounded_tail(d, *dist, r);
  if (c.diags.size() != before) return std::nullopt;
  return d;
}

ArrivalProcess decode_arrival(const json& v, const std::string& ptr, DecodeContext& c) {
  ArrivalProcess a;
  static const std::vector<std::string> kProcesses = {"poisson", "constant", "gamma"};
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "poisson") return a;
    if (s == "constant") {
      a.kind = ArrivalProcess::Kind::kConstant;
      return a;
    }
    if (s == "gamma") {
      c.diags.push_back(
          {ptr, "\"gamma\" needs its cv: write {\"process\": \"gamma\", \"cv\": 2.0}"});
      return a;
    }
    c.diags.push_back({ptr, rules::show(v) +
                                " is not an arrival process (accepted: \"poisson\", \"constant\", "
                                "or {\"process\": \"gamma\", \"cv\": ...})"});
    return a;
  }
  FieldReader r(v, ptr, c.diags, keys::kArrival,
                "\"poisson\", \"constant\" or an object {\"process\": \"gamma\", \"cv\": ...}");
  if (!r.valid()) return a;
  const auto p = r.choice("process", kProcesses, "is not an arrival process");
  if (!p && !r.has("process")) r.missing("process", "one of: " + rules::join(kProcesses, true));
  if (p == std::optional<std::string>("constant")) a.kind = ArrivalProcess::Kind::kConstant;
  if (p == std::optional<std::string>("gamma")) {
    a.kind = ArrivalProcess::Kind::kGamma;
    // cv up to 1000: a gamma process sends bursts of about cv^2 arrivals at one instant.
    if (auto cv = r.number("cv", 0.0, true, 1000, "a coefficient of variation in (0, 1000]")) {
      a.cv = *cv;
    } else if (!r.has("cv")) {
      r.missing("cv", "a coefficient of variation > 0 (1 = poisson-like)");
    }
  } else if (r.has("cv")) {
    r.error("cv", "cv is used only by process \"gamma\"");
  }
  r.report_unknown_keys();
  return a;
}

Load decode_load(const json& v, const std::string& ptr, DecodeContext& c) {
  Load load;
  FieldReader r(v, ptr, c.diags, keys::kLoad, "an object (load: rate, stages or concurrency)");
  if (!r.valid()) return load;
  const int kinds = int(r.has("rate")) + int(r.has("stages")) + int(r.has("concurrency"));
  if (kinds != 1) {
    c.diags.push_back(
        {ptr, kinds == 0
                  ? "needs one of rate (req/s), stages or concurrency"
                  : "gives more than one of rate, stages and concurrency; expected exactly one"});
  }
  if (r.has("rate")) {
    load.kind = Load::Kind::kRate;
    load.rate = r.number("rate", 0.0, true, 1e9, "a rate in requests/s > 0").value_or(0);
  } else if (const json* stages = r.raw("stages")) {
    load.kind = Load::Kind::kStages;
    if (decodable_array(*stages, r.pointer("stages"), "a non-empty array of {rate, duration_s}",
                        true, kMaxStages, "stages", c)) {
      for (std::size_t i = 0; i < stages->size(); ++i) {
        FieldReader s((*stages)[i], json_pointer_append(r.pointer("stages"), i), c.diags,
                      keys::kStage, "an object ({rate, duration_s})");
        if (!s.valid()) continue;
        LoadStage st;
        st.rate = s.number("rate", 0.0, true, 1e9, "a rate in requests/s > 0").value_or(0);
        st.duration_s =
            s.number("duration_s", 0.0, true, 1e9, "a number of seconds > 0").value_or(0);
        if (!s.has("rate")) s.missing("rate", "a rate in requests/s > 0");
        if (!s.has("duration_s")) s.missing("duration_s", "a number of seconds > 0");
        s.report_unknown_keys();
        load.stages.push_back(st);
      }
    }
  } else if (r.has("concurrency")) {
    load.kind = Load::Kind::kConcurrency;
    load.concurrency =
        static_cast<std::int32_t>(r.integer("concurrency", 1, 1000000,
                                            "an integer >= 1 (simultaneous users, at most 1000000)")
                                      .value_or(0));
  }
  if (auto t = r.number("think_time_s", 0.0, false, 1e9, "a number of seconds >= 0")) {
    if (load.kind != Load::Kind::kConcurrency) {
      r.error("think_time_s", "think_time_s is used only with concurrency (a closed loop)");
    }
    load.think_time_s = *t;
  }
  if (const json* a = r.raw("arrival")) {
    if (load.kind == Load::Kind::kConcurrency) {
      r.error("arrival",
              "arrival is not used with concurrency: a closed loop sends the next request when one "
              "finishes");
    } else {
      load.arrival = decode_arrival(*a, r.pointer("arrival"), c);
    }
  }
  r.report_unknown_keys();
  return load;
}

PrefixGroups decode_prefix(const json& v, const std::string& ptr, DecodeContext& c) {
  PrefixGroups p;
  FieldReader r(v, ptr, c.diags, keys::kPrefix, "an object ({groups, tokens})");
  if (!r.valid()) return p;
  p.groups = static_cast<std::int32_t>(
      r.integer("groups", 1, kMaxUsers, "an integer in [1, 10000000]").value_or(0));
  p.tokens = static_cast<std::int32_t>(
      r.integer("tokens", 1, kMaxTraceTokens, kTokensExpected).value_or(0));
  if (!r.has("groups")) r.missing("groups", "an integer >= 1 (shared system prompts)");
  if (!r.has("tokens")) r.missing("tokens", "an integer >= 1 (tokens per shared prompt)");
  r.report_unknown_keys();
  return p;
}

SharedPrefix decode_shared_prefix(const json& v, const std::string& ptr, DecodeContext& c) {
  SharedPrefix sp;
  FieldReader r(v, ptr, c.diags, keys::kSharedPrefix, "an object (inference-perf shared_prefix)");
  if (!r.valid()) return sp;
  const auto field = [&](const char* key, std::int64_t min, std::int64_t max, std::int32_t& out) {
    const std::string expected =
        "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
    if (auto n = r.integer(key, min, max, expected)) {
      out = static_cast<std::int32_t>(*n);
    } else if (!r.has(key)) {
      r.missing(key, expected);
    }
  };
  // The workload generates every user up front: at most 10 million of them.
  field("system_prompts", 1, kMaxUsers, sp.system_prompts);
  field("users_per_prompt", 1, kMaxUsers, sp.users_per_prompt);
  field("system_prompt_tokens", 0, kMaxTraceTokens, sp.system_prompt_tokens);
  field("question_tokens", 1, kMaxTraceTokens, sp.question_tokens);
  field("output_tokens", 1, kMaxTraceTokens, sp.output_tokens);
  // At most kMaxUsers users in all: validate_workload.
  if (auto b = r.boolean("multi_turn")) sp.multi_turn = *b;
  r.report_unknown_keys();
  return sp;
}

// A client's spec-decode acceptance: one per-draft-token rate, or per-position rates as vLLM's
// spec-decode metrics report them (each the share of drafts accepted past that position, so
// in [0, 1] and non-increasing).
std::optional<SpecAcceptance> decode_spec_acceptance(const json& v, const std::string& ptr,
                                                     DecodeContext& c) {
  FieldReader r(v, ptr, c.diags, keys::kSpecAcceptance,
                "an object ({\"acceptance_rate\": ...} or {\"per_position\": [...]})");
  if (!r.valid()) return std::nullopt;
  r.report_unknown_keys();
  SpecAcceptance a;
  if (r.has("acceptance_rate") == r.has("per_position")) {
    c.diags.push_back({ptr,
                       "needs exactly one of acceptance_rate (a number in [0, 1]) and "
                       "per_position (rates per draft position)"});
    return std::nullopt;
  }
  if (r.has("acceptance_rate")) {
    a.acceptance_rate =
        r.number("acceptance_rate", 0.0, false, 1.0, "a number in [0, 1] (per-draft-token)");
    if (!a.acceptance_rate) return std::nullopt;
    return a;
  }
  const json& list = *r.raw("per_position");
  const std::string lptr = r.pointer("per_position");
  constexpr std::size_t kMaxPositions = 64;
  if (!list.is_array() || list.empty() || list.size() > kMaxPositions) {
    c.diags.push_back({lptr, (list.is_array() ? std::to_string(list.size()) + " entries"
                                              : rules::describe_type(list)) +
                                 ", expected an array of 1 to 64 numbers in [0, 1]"});
    return std::nullopt;
  }
  bool ok = true;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string ip = json_pointer_append(lptr, i);
    const json& x = list[i];
    const bool number = x.is_number() && x.get<double>() >= 0.0 && x.get<double>() <= 1.0;
    const double value = number ? x.get<double>() : 0.0;
    if (!number) {
      c.diags.push_back({ip, (x.is_number() ? x.dump() : rules::describe_type(x)) +
                                 ", expected a number in [0, 1]"});
      ok = false;
    } else if (i > 0 && value > a.per_position.back()) {
      c.diags.push_back({ip, x.dump() + " exceeds position " + std::to_string(i - 1) +
                                 "'s rate: a draft is accepted past position i only if it "
                                 "was past i-1, so the rates cannot increase"});
      ok = false;
    }
    a.per_position.push_back(value);
  }
  if (!ok) return std::nullopt;
  return a;
}

Client decode_client(const json& v, const std::string& ptr, std::size_t index, DecodeContext& c) {
  Client cl;
  FieldReader r(v, ptr, c.diags, keys::kClient, "an object (a client)");
  if (!r.valid()) return cl;
  cl.name = r.string("name", "a string").value_or("client-" + std::to_string(index));
  if (const auto bad = label_problem(cl.name)) r.error("name", quote_excerpt(cl.name) + " " + *bad);

  // One request shape per client, prompt_tokens with output_tokens, prefix only with them:
  // validate_workload.
  if (const json* p = r.raw("prompt_tokens"))
    cl.prompt_tokens = decode_dist(*p, r.pointer("prompt_tokens"), c);
  if (const json* o = r.raw("output_tokens"))
    cl.output_tokens = decode_dist(*o, r.pointer("output_tokens"), c);
  if (const json* p = r.raw("prefix")) cl.prefix = decode_prefix(*p, r.pointer("prefix"), c);
  if (const json* s = r.raw("shared_prefix"))
    cl.shared_prefix = decode_shared_prefix(*s, r.pointer("shared_prefix"), c);
  if (const json* t = r.raw("trace")) {
    cl.trace = decode_trace(*t, r.pointer("trace"), c);
    if (r.has("load"))
      r.error("load", "a trace carries its own arrival times; remove load from this client");
  } else if (const json* l = r.raw("load")) {
    cl.load = decode_load(*l, r.pointer("load"), c);
  } else {
    r.missing("load", "an object with rate (req/s), stages or concurrency");
  }
  if (auto b = r.boolean("ignore_eos")) cl.ignore_eos = *b;
  if (auto p = r.integer("priority", -kInt32Max, kInt32Max,
                         "an integer (lower = sooner with scheduling_policy priority)")) {
    cl.priority = static_cast<std::int32_t>(*p);
  }
  if (auto s = r.string("slo_class", "the name of one of slo_classes")) cl.slo_class = *s;
  if (auto t =
          r.number("timeout_s", 0.0, true, 1e9, "seconds > 0 after which the client gives up")) {
    cl.timeout_s = *t;
  }
  if (auto l = r.integer("lora", 0, kInt32Max, "an integer >= 0 (LoRA adapter id; 0 = none)")) {
    cl.lora = static_cast<std::int32_t>(*l);
  }
  if (const json* a = r.raw("spec_acceptance"))
    cl.spec_acceptance = decode_spec_acceptance(*a, r.pointer("spec_acceptance"), c);
  if (const json* a = r.raw("adapters"))
    cl.adapters = decode_adapters(*a, r.pointer("adapters"), c);
  r.report_unknown_keys();
  return cl;
}

}  // namespace

std::optional<Trace> decode_trace(const json& v, const std::string& ptr, DecodeContext& c) {
  FieldReader r(v, ptr, c.diags, keys::kTrace, "an object ({\"path\": ...} or {\"csv\": ...})");
  if (!r.valid()) return std::nullopt;
  r.report_unknown_keys();
  Trace t;
  t.path = r.string("path", "a file path (relative to the scenario file)").value_or("");
  const auto csv = r.string("csv", "the CSV text");
  if (csv) {
    t.csv = *csv;
  } else if (!t.path.empty()) {
    if (!c.options.read_file) {
      r.error("path",
              quote_excerpt(t.path, 200) +
                  ": trace files cannot be read here (no file access, e.g. in the browser); "
                  "give the CSV inline as \"csv\"");
      return std::nullopt;
    }
    std::string err;
    const auto text = c.options.read_file(t.path, &err);
    if (!text) {
      r.error("path", quote_excerpt(t.path, 200) + ": cannot read the trace: " +
                          (err.empty() ? std::string("unknown error") : err));
      return std::nullopt;
    }
    t.csv = *text;
  } else {
    c.diags.push_back({ptr, "needs path (a CSV file) or csv (the CSV text inline)"});
    return std::nullopt;
  }
  TraceStats stats;
  Diagnostics problems =
      validate_trace_csv(t.csv, r.has("csv") ? r.pointer("csv") : r.pointer("path"), &stats);
  c.traces[ptr] = stats;
  if (!problems.empty()) {
    for (auto& d : problems) c.diags.push_back(std::move(d));
    return std::nullopt;
  }
  return t;
}

Workload decode_workload(const json& v, const std::string& ptr, DecodeContext& c) {
  Workload w;
  FieldReader r(v, ptr, c.diags, keys::kWorkload, "an object (workload)");
  if (!r.valid()) return w;
  const std::size_t before = c.diags.size();
  const json* clients = r.raw("clients");
  const json* trace = r.raw("trace_csv");
  if (clients) {
    if (decodable_array(*clients, r.pointer("clients"), "a non-empty array of clients", true,
                        kMaxClients, "clients", c)) {
      for (std::size_t i = 0; i < clients->size(); ++i) {
        const std::string p = json_pointer_append(r.pointer("clients"), i);
        w.clients.push_back(decode_client((*clients)[i], p, i, c));
      }
    }
  }
  if (trace) w.trace_csv = decode_trace(*trace, r.pointer("trace_csv"), c);
  r.report_unknown_keys();
  // What spans the decoded values (shapes, names, ranges across keys) is checked once, by the
  // validation make_workload runs too; a workload that did not decode is not checked again.
  if (!has_errors_since(c.diags, before)) {
    for (auto& d : validate_workload(w)) c.diags.push_back(std::move(d));
  }
  return w;
}

}  // namespace blis::scenario::detail
