// The one validation of a typed workload (what the generators of core/cluster/workload rely
// on): the scenario decoder runs it on every decoded document, cluster::make_workload on every
// workload it is given (one built in code or changed by a sweep included), so both refuse the
// same workloads with the same messages at the same JSON pointers.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include "scenario/scenario_checks.h"
#include "scenario/trace_csv.h"
#include "util/text.h"

namespace blis::scenario {

namespace {

using LengthKind = LengthDist::Kind;

// The largest token count a length distribution may produce (the generator refuses a larger
// sample rather than clamp it).
constexpr std::int32_t kMaxSampledTokens = kMaxTraceTokens;

// The shortest text that reads back as `v` (1.8, not 1.8000000000000000444).
std::string num(double v) {
  char buf[32];
  if (std::floor(v) == v && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

// Where a trace's problems are reported: its `path` key when read from a file, else `csv` (as
// the scenario decoder reports them).
std::string trace_pointer(const std::string& trace, const Trace& t) {
  return json_pointer_append(trace, t.path.empty() ? "csv" : "path");
}

class Checker {
 public:
  explicit Checker(Diagnostics& out) : out_(out) {}

  void error(const std::string& pointer, const std::string& message) {
    out_.push_back({pointer, message, Severity::kError});
  }
  static std::string at(const std::string& pointer, const char* key) {
    return json_pointer_append(pointer, key);
  }
  // Finite and in [lo, hi] (hi may be HUGE_VAL); `lo_open` makes the lower bound exclusive.
  bool number(const std::string& pointer, double v, double lo, bool lo_open, const char* what) {
    const bool ok = std::isfinite(v) && (lo_open ? v > lo : v >= lo);
    if (!ok) error(pointer, std::string("must be ") + what + ", got " + num(v));
    return ok;
  }
  bool integer(const std::string& pointer, std::int64_t v, std::int64_t lo, std::int64_t hi) {
    const bool ok = v >= lo && v <= hi;
    if (!ok) {
      error(pointer, "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                         "], got " + std::to_string(v));
    }
    return ok;
  }

  void length_dist(const std::string& p, const LengthDist& d) {
    const double cap = kMaxSampledTokens;
    switch (d.kind) {
      case LengthKind::kConstant:
        if (number(at(p, "value"), d.value, 1, false, "a token count >= 1") && d.value > cap)
          error(at(p, "value"), "must be at most " + num(cap) + ", got " + num(d.value));
        break;
      case LengthKind::kNormal:
        number(at(p, "mean"), d.mean, -HUGE_VAL, false, "a finite number");
        number(at(p, "std"), d.std, 0, false, "a number >= 0");
        break;
      case LengthKind::kLognormal:
        number(at(p, "mean"), d.mean, 0, true, "a number > 0");
        number(at(p, "std"), d.std, 0, false, "a number >= 0");
        break;
      case LengthKind::kExponential:
        number(at(p, "mean"), d.mean, 0, true, "a number > 0");
        break;
      case LengthKind::kUniform: {
        const char* bound = "missing, expected a number of tokens >= 1 (uniform needs min and max)";
        if (!d.min) error(at(p, "min"), bound);
        if (!d.max) error(at(p, "max"), bound);
        break;
      }
    }
    const bool min_ok = !d.min || number(at(p, "min"), *d.min, -HUGE_VAL, false, "a finite number");
    const bool max_ok = !d.max || number(at(p, "max"), *d.max, -HUGE_VAL, false, "a finite number");
    if (d.min && d.max && min_ok && max_ok) {
      if (*d.min > *d.max) {
        error(at(p, "min"),
              num(*d.min) + " is above max (" + num(*d.max) + "), expected min <= max");
      } else if (d.kind == LengthKind::kUniform && std::ceil(*d.min) > std::floor(*d.max)) {
        // Samples are whole token counts: the range must hold one.
        error(at(p, "max"), num(*d.max) + ": [min, max] holds no whole number of tokens");
      }
    }
    if (d.kind == LengthKind::kUniform && d.max && max_ok && *d.max > cap)
      error(at(p, "max"), "must be at most " + num(cap) + ", got " + num(*d.max));
  }

  void load(const std::string& p, const Load& l) {
    using Kind = Load::Kind;
    switch (l.kind) {
      case Kind::kRate:
        number(at(p, "rate"), l.rate, 0, true, "a request rate > 0 (requests per second)");
        break;
      case Kind::kStages:
        if (l.stages.empty()) error(at(p, "stages"), "needs at least one stage");
        for (std::size_t i = 0; i < l.stages.size(); ++i) {
          const std::string sp = json_pointer_append(at(p, "stages"), i);
          number(at(sp, "rate"), l.stages[i].rate, 0, false,
                 "a request rate >= 0 (requests per second)");
          number(at(sp, "duration_s"), l.stages[i].duration_s, 0, true, "a duration > 0 s");
        }
        break;
      case Kind::kConcurrency:
        integer(at(p, "concurrency"), l.concurrency, 1, kMaxUsers);
        number(at(p, "think_time_s"), l.think_time_s, 0, false, "a time >= 0 s");
        break;
    }
    if (l.kind != Kind::kConcurrency && l.arrival.kind == ArrivalProcess::Kind::kGamma)
      number(at(at(p, "arrival"), "cv"), l.arrival.cv, 0, true, "a coefficient of variation > 0");
  }

  void shared_prefix(const std::string& p, const SharedPrefix& sp) {
    const bool groups_ok = integer(at(p, "system_prompts"), sp.system_prompts, 1, kMaxUsers);
    const bool users_ok = integer(at(p, "users_per_prompt"), sp.users_per_prompt, 1, kMaxUsers);
    if (groups_ok && users_ok &&
        static_cast<std::int64_t>(sp.system_prompts) * sp.users_per_prompt > kMaxUsers) {
      error(at(p, "users_per_prompt"), std::to_string(sp.users_per_prompt) +
                                           ": system_prompts x users_per_prompt is above " +
                                           std::to_string(kMaxUsers) + " users");
    }
    integer(at(p, "system_prompt_tokens"), sp.system_prompt_tokens, 0, kMaxSampledTokens);
    integer(at(p, "question_tokens"), sp.question_tokens, 0, kMaxSampledTokens);
    if (sp.system_prompt_tokens == 0 && sp.question_tokens == 0)
      error(at(p, "question_tokens"), "a prompt needs at least one token");
    integer(at(p, "output_tokens"), sp.output_tokens, 1, kMaxSampledTokens);
  }

  void client(const std::string& p, const Client& c) {
    const bool lengths = c.prompt_tokens || c.output_tokens;
    const int shapes = (lengths ? 1 : 0) + (c.shared_prefix ? 1 : 0) + (c.trace ? 1 : 0);
    if (shapes != 1) {
      error(p, shapes == 0
                   ? "needs a request shape: prompt_tokens and output_tokens, shared_prefix, or "
                     "trace"
                   : "gives more than one request shape (prompt_tokens/output_tokens, "
                     "shared_prefix, trace); expected exactly one");
      return;
    }
    if (c.prefix && !lengths) {
      error(at(p, "prefix"),
            "prefix goes with prompt_tokens/output_tokens (shared_prefix and trace bring their "
            "own)");
    }
    if (lengths) {
      // prompt_tokens and output_tokens come together.
      const std::string dist = "missing, expected a token-count distribution (with ";
      if (!c.prompt_tokens) error(at(p, "prompt_tokens"), dist + "output_tokens)");
      if (!c.output_tokens) error(at(p, "output_tokens"), dist + "prompt_tokens)");
      if (c.prompt_tokens) length_dist(at(p, "prompt_tokens"), *c.prompt_tokens);
      if (c.output_tokens) length_dist(at(p, "output_tokens"), *c.output_tokens);
      if (c.prefix) {
        integer(at(at(p, "prefix"), "groups"), c.prefix->groups, 1, kMaxUsers);
        integer(at(at(p, "prefix"), "tokens"), c.prefix->tokens, 1, kMaxSampledTokens);
      }
    }
    if (c.shared_prefix) shared_prefix(at(p, "shared_prefix"), *c.shared_prefix);
    if (c.trace) {
      for (auto& d : validate_trace_csv(c.trace->csv, trace_pointer(at(p, "trace"), *c.trace)))
        out_.push_back(d);
    } else {
      load(at(p, "load"), c.load);  // a trace's arrival times replace the load
    }
  }

 private:
  Diagnostics& out_;
};

}  // namespace

Diagnostics validate_workload(const Workload& w) {
  Diagnostics out;
  Checker check(out);
  const std::string root = "/workload";
  if (w.trace_csv) {
    if (!w.clients.empty()) {
      check.error(root,
                  "gives both clients and trace_csv; expected one (trace_csv replays a whole trace "
                  "instead of clients)");
    }
    for (auto& d : validate_trace_csv(w.trace_csv->csv,
                                      trace_pointer(Checker::at(root, "trace_csv"), *w.trace_csv)))
      out.push_back(d);
    return out;
  }
  if (w.clients.empty()) {
    check.error(root, "needs clients (a non-empty array) or trace_csv");
    return out;
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < w.clients.size(); ++i) {
    const std::string p = json_pointer_append(Checker::at(root, "clients"), i);
    const auto& c = w.clients[i];
    // Random streams are named after the client: two clients of one name would draw the same
    // numbers.
    if (!c.name.empty() && !names.insert(c.name).second)
      check.error(Checker::at(p, "name"),
                  quote_excerpt(c.name) + " is used by another client, expected unique names");
    check.client(p, c);
  }
  return out;
}

}  // namespace blis::scenario
