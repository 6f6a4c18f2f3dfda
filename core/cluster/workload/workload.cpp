#include "cluster/workload/workload.h"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "cluster/workload/client_stream.h"
#include "scenario/scenario_checks.h"

namespace blis::cluster {

namespace {

// Clients' requests merged in arrival order; ties go to the lower client index, then to the
// client's own scheduling order. Picking the next request scans the clients (a scenario has
// a handful); nothing here grows with the number of requests.
class MergedWorkload final : public Workload {
 public:
  MergedWorkload(std::vector<ClientStream> clients, std::optional<std::int64_t> max_requests)
      : clients_(std::move(clients)), max_requests_(max_requests) {}

  SimTime next_arrival() const override {
    const int c = next_client();
    return c < 0 ? kSimTimeNever : clients_[static_cast<std::size_t>(c)].head_time();
  }

  void pop(GeneratedRequest& out) override {
    const int c = next_client();
    if (c < 0)
      throw std::logic_error("Workload::pop: no request is pending (next_arrival() is never)");
    clients_[static_cast<std::size_t>(c)].pop(out);
    out.seq = generated_++;
  }

  void on_finished(const GeneratedRequest& req, std::int32_t output_tokens, SimTime now) override {
    if (req.client < 0 || static_cast<std::size_t>(req.client) >= clients_.size()) return;
    clients_[static_cast<std::size_t>(req.client)].on_finished(req, output_tokens, now);
  }

  bool exhausted() const override {
    if (cap_reached()) return true;
    for (const auto& c : clients_) {
      if (!c.exhausted()) return false;
    }
    return true;
  }

  std::uint64_t generated() const override { return generated_; }

 private:
  bool cap_reached() const {
    return max_requests_ && generated_ >= static_cast<std::uint64_t>(*max_requests_);
  }

  int next_client() const {
    if (cap_reached()) return -1;
    int best = -1;
    SimTime best_time = kSimTimeNever;
    for (std::size_t i = 0; i < clients_.size(); ++i) {
      const SimTime t = clients_[i].head_time();
      if (t < best_time) {  // strict: an equal time keeps the lower client index
        best_time = t;
        best = static_cast<int>(i);
      }
    }
    return best;
  }

  std::vector<ClientStream> clients_;
  std::optional<std::int64_t> max_requests_;
  std::uint64_t generated_ = 0;
};

std::string join_errors(const Diagnostics& ds) {
  std::string msg = "invalid workload:";
  for (const auto& d : ds) {
    if (d.severity == Severity::kError) msg += "\n  " + format_diagnostic(d);
  }
  return msg;
}

}  // namespace

std::unique_ptr<Workload> make_workload(const scenario::Scenario& s) {
  const Diagnostics problems = scenario::validate_workload(s.workload);
  if (has_errors(problems)) throw std::invalid_argument(join_errors(problems));
  SimTime horizon = kSimTimeNever;
  if (s.horizon.duration_s) {
    const double d = *s.horizon.duration_s;
    if (!(std::isfinite(d) && d >= 0))
      throw std::invalid_argument("/horizon/duration_s: must be a number of seconds >= 0");
    horizon = from_seconds(d);
  }
  if (s.horizon.max_requests && *s.horizon.max_requests < 0)
    throw std::invalid_argument("/horizon/max_requests: must be >= 0");

  std::vector<ClientStream> clients;
  if (s.workload.trace_csv) {
    clients.emplace_back(*s.workload.trace_csv, s.seed, horizon);
  } else {
    clients.reserve(s.workload.clients.size());
    for (std::size_t i = 0; i < s.workload.clients.size(); ++i)
      clients.emplace_back(s.workload.clients[i], static_cast<std::int32_t>(i), s.seed, horizon);
  }
  return std::make_unique<MergedWorkload>(std::move(clients), s.horizon.max_requests);
}

}  // namespace blis::cluster
