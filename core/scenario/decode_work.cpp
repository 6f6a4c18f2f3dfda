// The work and memory budget of a whole run, checked before it starts: `validate` refuses a
// scenario whose estimate is beyond a documented limit (docs/reliability.md), naming the
// field that drives it and the estimate, instead of `run` eating the machine's memory or
// running for hours. Each field alone is bounded by its reader; these are their products.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "scenario/decode_internal.h"
#include "util/percentiles.h"

namespace blis::scenario::detail {

namespace {

// Results kept per finished request: exact percentiles (util/percentiles.h: a 16-byte run per
// value in the cluster's and the pool's TTFT, E2E, TPOT and queue samples, with the sort's
// slack) up to Percentiles::kExactLimit requests, a bounded sketch beyond; and, with
// per-request rows, one row each for the whole run.
constexpr double kBytesPerRequest = 200, kBytesPerRow = 310;
constexpr double kMaxResultBytes = 1.5e9;
constexpr double kMaxTokens = 1e10;  // prompt + output tokens generated over the run
constexpr double kMaxSamples = 1e6;  // time-series windows
constexpr std::int64_t kMaxBlocks = std::int64_t{1} << 24;  // KV blocks over every instance
constexpr double kMaxSessionTokens = 2.5e8;                 // multi-turn histories kept
// A closed-loop user waits at least one engine step (about a millisecond) per request.
constexpr double kMinRequestS = 1e-3;
// A request between its arrival and its end: its records in the cluster and the engine, and
// its token ids and block hashes (bytes per token).
constexpr double kBytesInFlight = 1000, kBytesPerTokenInFlight = 8;
constexpr double kMaxInFlightBytes = 1e9;

std::string g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

struct ClientWork {
  double requests = 0;  // expected (HUGE_VAL: unbounded but for max_requests)
  double rate = 0;      // open-loop requests/s (for the time-series horizon)
  double tokens_per_request = 0;
  double prompt = 0, output = 0;  // mean tokens per request
  double users = 0;
  double burst = 0;             // requests that can arrive at one instant (gamma)
  const char* driver = "load";  // the key that drives the request count
};

// Largest mean a request shape draws (clamped by max), for the token estimate.
double mean_tokens(const std::optional<LengthDist>& d) {
  if (!d) return 0;
  if (d->kind == LengthDist::Kind::kConstant) return d->value;
  if (d->kind == LengthDist::Kind::kUniform) return (*d->min + *d->max) / 2;
  return d->max ? std::min(d->mean, *d->max) : d->mean;
}

// A trace is an open loop at its average rate (rows that all arrive at 0 are one burst).
ClientWork trace_work(const TraceStats& t) {
  ClientWork w;
  w.requests = double(t.rows);
  w.rate = w.requests / std::max(t.last_arrival_s, 1e-6);
  w.prompt = w.tokens_per_request = t.tokens / std::max<double>(1, w.requests);
  w.driver = "trace";
  return w;
}

ClientWork client_work(const Client& cl, const std::string& ptr, const Horizon& h,
                       DecodeContext& c) {
  ClientWork w;
  const double duration = h.duration_s.value_or(HUGE_VAL);
  if (cl.trace) {
    const auto it = c.traces.find(ptr + "/trace");
    if (it != c.traces.end()) w = trace_work(it->second);
    return w;
  }
  const Load& l = cl.load;
  if (l.kind == Load::Kind::kRate) {
    w.rate = l.rate;
    w.requests = l.rate * duration;
  } else if (l.kind == Load::Kind::kStages) {
    double t = 0;
    for (const auto& st : l.stages) {
      const double d = std::min(st.duration_s, std::max(0.0, duration - t));
      w.requests += st.rate * d;
      w.rate = std::max(w.rate, st.rate);
      t += st.duration_s;
    }
  } else {
    w.users = l.concurrency;
    w.requests = l.concurrency * duration / std::max(l.think_time_s, kMinRequestS);
  }
  // A gamma process with a huge cv sends bursts of about cv^2 arrivals at one instant.
  if (l.kind != Load::Kind::kConcurrency && l.arrival.kind == ArrivalProcess::Kind::kGamma) {
    w.burst = l.arrival.cv * l.arrival.cv;
    w.requests = std::max(w.requests, w.burst);
  }
  if (cl.shared_prefix) {
    const auto& sp = *cl.shared_prefix;
    w.users += double(sp.system_prompts) * sp.users_per_prompt;
    w.prompt = double(sp.system_prompt_tokens) + sp.question_tokens;
    w.output = sp.output_tokens;
  } else {
    w.prompt = mean_tokens(cl.prompt_tokens) + (cl.prefix ? cl.prefix->tokens : 0);
    w.output = mean_tokens(cl.output_tokens);
  }
  w.tokens_per_request = w.prompt + w.output;
  return w;
}

// Requests/s the pools serve at best for requests of `prompt` + `output` tokens: unified
// pools add up; a prefill/decode pair is as fast as its slower side.
double capacity(const Scenario& s, const DecodeContext& c, double prompt, double output) {
  double unified = 0, prefill = HUGE_VAL, decode = HUGE_VAL;
  bool pd = false;
  for (std::size_t i = 0; i < s.pools.size(); ++i) {
    const auto it = c.pool_rates.find("/pools/" + std::to_string(i));
    if (it == c.pool_rates.end()) return HUGE_VAL;  // not priced: no estimate
    const PoolRates& r = it->second;
    const double p = prompt / r.prefill_tokens_per_s, o = output / r.decode_tokens_per_s;
    if (s.pools[i].role == "prefill") {
      pd = true;
      prefill = 1 / std::max(p, 1e-300);
    } else if (s.pools[i].role == "decode") {
      pd = true;
      decode = 1 / std::max(o, 1e-300);
    } else {
      unified += 1 / std::max(p + o, 1e-300);
    }
  }
  return pd ? std::min(prefill, decode) : unified;
}

// Requests held at once, at worst: an open loop's backlog when it outruns the pools, gamma
// bursts, closed-loop users.
void check_in_flight(const Scenario& s, DecodeContext& c, const std::vector<ClientWork>& work,
                     double cap) {
  double open = 0, open_rate = 0, prompt = 0, output = 0, burst = 0, users = 0;
  std::string driver = "/workload";
  for (std::size_t i = 0; i < work.size(); ++i) {
    const ClientWork& w = work[i];
    burst += w.burst;
    if (i < s.workload.clients.size() &&
        s.workload.clients[i].load.kind == Load::Kind::kConcurrency) {
      users += w.users;
      prompt = std::max(prompt, w.prompt);
      output = std::max(output, w.output);
      continue;
    }
    if (w.rate <= 0) continue;
    open += std::min(w.requests, cap);
    open_rate += w.rate;
    prompt = std::max(prompt, w.prompt);
    output = std::max(output, w.output);
    driver = i < s.workload.clients.size()
                 ? "/workload/clients/" + std::to_string(i) + "/" + w.driver
                 : std::string("/workload/trace_csv");
  }
  const double serve = capacity(s, c, prompt, output);
  const double span = open_rate > 0 ? open / open_rate : 0;
  const double backlog = std::min(open, std::max(0.0, open_rate - serve) * span);
  const double held = backlog + burst + users;
  const double bytes = held * (kBytesInFlight + kBytesPerTokenInFlight * (prompt + output));
  if (bytes > kMaxInFlightBytes) {
    c.diags.push_back(
        {driver, "about " + g(held) + " requests would wait at once (" +
                     (backlog > 0 ? "arrivals at " + g(open_rate) + "/s outrun the pools' " +
                                        g(serve) + "/s at best; "
                                  : std::string()) +
                     (burst > 0 ? "gamma bursts of " + g(burst) + "; " : std::string()) +
                     (users > 0 ? g(users) + " closed-loop users; " : std::string()) + "about " +
                     g(bytes / 1e9) + " GB, limit " + g(kMaxInFlightBytes / 1e9) + " GB)"});
  }
}

}  // namespace

void check_budget(const Scenario& s, DecodeContext& c) {
  double requests = 0, tokens = 0, users = 0, rate = 0, session_tokens = 0;
  std::string driver = "/horizon";
  double largest = -1;
  std::int64_t min_mml = 0;
  for (const auto& p : s.pools) {
    const std::int64_t m = p.engine.args.max_model_len;
    if (m > 0 && (min_mml == 0 || m < min_mml)) min_mml = m;
  }
  const double cap = s.horizon.max_requests ? double(*s.horizon.max_requests) : HUGE_VAL;
  std::vector<ClientWork> work;
  for (std::size_t i = 0; i < s.workload.clients.size(); ++i) {
    const std::string ptr = "/workload/clients/" + std::to_string(i);
    const ClientWork w = client_work(s.workload.clients[i], ptr, s.horizon, c);
    work.push_back(w);
    const double n = std::min(w.requests, cap);
    requests += n;
    tokens += n * w.tokens_per_request;
    users += w.users;
    rate += w.rate;
    if (n > largest) {
      largest = n;
      driver = ptr + "/" + w.driver;
    }
    const Client& cl = s.workload.clients[i];
    if (cl.shared_prefix && cl.shared_prefix->multi_turn) {
      // Every user keeps its conversation (up to the context length) between turns.
      const auto& sp = *cl.shared_prefix;
      const double turn = double(sp.question_tokens) + sp.output_tokens;
      const double per_user = std::min<double>(
          min_mml > 0 ? double(min_mml) : kMaxTraceTokens,
          sp.system_prompt_tokens + turn * std::max(1.0, n / std::max(1.0, w.users)));
      session_tokens += w.users * per_user;
    }
  }
  if (s.workload.trace_csv) {
    const auto it = c.traces.find("/workload/trace_csv");
    if (it != c.traces.end()) {
      work.push_back(trace_work(it->second));
      const double n = std::min(double(it->second.rows), cap);
      requests += n;
      tokens += it->second.tokens * (n / std::max<double>(1, it->second.rows));
      if (n > largest) driver = "/workload/trace_csv";
    }
  }
  requests = std::min(requests, cap);
  if (s.horizon.max_requests && requests >= cap) driver = "/horizon/max_requests";

  const double exact = std::min(requests, static_cast<double>(Percentiles::kExactLimit));
  const double result_bytes =
      exact * kBytesPerRequest + (s.outputs.per_request ? requests * kBytesPerRow : 0);
  if (result_bytes > kMaxResultBytes) {
    c.diags.push_back({driver, "the run would send about " + g(requests) +
                                   " requests, whose per-request rows take about " +
                                   g(result_bytes / 1e9) + " GB (limit " +
                                   g(kMaxResultBytes / 1e9) + " GB: about " +
                                   g((kMaxResultBytes - exact * kBytesPerRequest) / kBytesPerRow) +
                                   " requests with outputs.per_request); set "
                                   "outputs.per_request to false, or lower the rate, the "
                                   "duration or horizon.max_requests"});
  }
  if (tokens > kMaxTokens) {
    c.diags.push_back({driver, "the run would generate about " + g(tokens) +
                                   " prompt and output tokens (limit " + g(kMaxTokens) +
                                   "); send fewer or shorter requests"});
  }
  std::int64_t blocks = 0;
  for (const auto& [ptr, b] : c.pool_blocks) blocks += b;
  if (blocks > kMaxBlocks) {
    c.diags.push_back({"/pools", "the instances hold " + std::to_string(blocks) +
                                     " KV blocks in all (limit " + std::to_string(kMaxBlocks) +
                                     ", about 100 bytes each); use fewer instances"});
  }
  double horizon_s = s.horizon.duration_s.value_or(rate > 0 ? requests / rate : 0);
  const double samples = horizon_s * 1000 / s.outputs.timeseries_interval_ms;
  if (samples > kMaxSamples) {
    c.diags.push_back({"/outputs/timeseries_interval_ms",
                       g(s.outputs.timeseries_interval_ms) + " ms over about " + g(horizon_s) +
                           " s is " + g(samples) + " time-series samples (limit " + g(kMaxSamples) +
                           "); use a longer interval"});
  }
  if (users > static_cast<double>(kMaxUsers)) {
    c.diags.push_back({"/workload/clients", "the clients have " + g(users) +
                                                " users in all (shared_prefix users and "
                                                "closed-loop concurrency; limit " +
                                                g(static_cast<double>(kMaxUsers)) + ")"});
  }
  check_in_flight(s, c, work, cap);
  if (session_tokens > kMaxSessionTokens) {
    c.diags.push_back({"/workload/clients", "multi-turn users would keep about " +
                                                g(session_tokens) +
                                                " tokens of conversation (limit " +
                                                g(kMaxSessionTokens) + "); use fewer users"});
  }
}

}  // namespace blis::scenario::detail
