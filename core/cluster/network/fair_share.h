#pragma once
// FairShareNetwork: transfers (flows) that share links while they overlap. Each link has a
// capacity in bytes per microsecond; each flow crosses a set of links and gets its max-min
// fair rate (progressive filling: the most contended link splits what it has left equally
// among its unfixed flows, and so on), recomputed exactly when a flow starts or its last byte
// leaves. A flow is delivered its path latency after its last byte leaves (docs/networking.md).
//
// Exactness and determinism: a flow's state is its rate and the instant its last byte would
// leave at that rate ("drain"), relative to the start of the current busy period; a rate
// change rescales the flow's remaining bytes once (remaining = rate * (drain - now)), so no
// byte count accumulates over steps, and the rates of one recomputation do not depend on the
// order flows or links are visited (each round fixes all flows of one bottleneck at once).
// A flow alone on its links is priced as kernel::transfer_time prices it.
//
// The cluster drives it with integer instants: start() at the instant a transfer begins,
// advance() at next_wake(). P/D pulls and CPU offload are delivering flows; the inter-node
// part of a step's pipeline hand-offs and expert-parallel all-to-all are silent flows
// (start_silent), priced against what is in flight when the step is launched
// (alone_or_shared_us) and then taking their share of the links from the transfers they
// overlap; a later start that changes their rate is reported (take_perturbed) so the step is
// priced again from their projected end (projected_send_us).

#include <cstdint>
#include <utility>
#include <vector>

#include "util/sim_time.h"

namespace blis::cluster::network {

using LinkId = std::uint32_t;

// One flow of a batch that starts together (batch_completion_us).
struct BatchFlow {
  std::int64_t bytes = 0;
  std::vector<LinkId> links;
  double latency_us = 0;
};

class FairShareNetwork {
 public:
  // When each flow of a batch that starts at once on links of these capacities is delivered,
  // in unrounded microseconds from the start: for pricing a collective inside one step (an
  // expert-parallel all-to-all, a pipeline stage's hand-off) by the same sharing rule.
  static std::vector<double> batch_completion_us(const std::vector<double>& link_bytes_per_us,
                                                 const std::vector<BatchFlow>& flows);

  // A link with `bytes_per_us` of capacity (> 0) in the direction its flows use it.
  LinkId add_link(double bytes_per_us);
  std::size_t link_count() const { return capacity_.size(); }
  double link_capacity(LinkId l) const { return capacity_[l]; }

  // Starts a flow of `bytes` (> 0) over `links` (duplicates ignored; none = unlimited) at
  // `now`, which must not be before an instant already seen (call advance(now) first, so
  // flows that finish by `now` are not shared with this one). `tag` is returned on delivery.
  void start(SimTime now, std::int64_t bytes, const std::vector<LinkId>& links, double latency_us,
             std::uint64_t tag);
  // A flow that shares the links like any other but delivers nothing: it is forgotten once
  // its last byte leaves, advance() never reports it, and next_wake() wakes for its end only
  // while a delivering flow is sending (whose rate that end changes). `owner` is matched by
  // alone_or_shared_us's `exclude_owner`.
  // Returns the flow's id (> 0; 0 when `bytes` is not positive and nothing started).
  std::uint64_t start_silent(SimTime now, double bytes, const std::vector<LinkId>& links,
                             std::uint64_t owner);
  // How long, in unrounded microseconds from `now` (not before an instant already seen), a
  // flow of `bytes` over `links` would take to send its last byte if it started at `now` and
  // nothing else started after it: the flows sending at `now` drain as the sharing rule lets
  // them (silent flows of `exclude_owner` left out). The network is not changed.
  double alone_or_shared_us(SimTime now, double bytes, const std::vector<LinkId>& links,
                            std::uint64_t exclude_owner) const;
  // True when a flow not yet known to have finished sending, other than the silent flows of
  // `exclude_owner`, crosses one of `links`: when false, alone_or_shared_us would be the lone
  // time, and the caller need not run it.
  bool shares_any(const std::vector<LinkId>& links, std::uint64_t exclude_owner) const;
  // The silent flows whose rate a start changed, as (owner, id), in flow-table order, since
  // the last call; a silent flow's start does not count against its own owner's flows. The
  // list is cleared.
  void take_perturbed(std::vector<std::pair<std::uint64_t, std::uint64_t>>& out);
  // For the silent flow `id`, still sending at `now`: how long it takes from its start to send
  // its last byte if nothing else starts after `now` (its owner's other silent flows left
  // out, as alone_or_shared_us leaves them out), in unrounded microseconds; < 0 when `id` is
  // not sending. The network is not changed.
  double projected_send_us(SimTime now, std::uint64_t id) const;
  // Moves to `now` and appends the tags of the flows delivered at or before it, in order of
  // delivery (ties: order of start).
  void advance(SimTime now, std::vector<std::uint64_t>& delivered);
  // The next instant something happens (a last byte leaves or a flow is delivered);
  // kSimTimeNever when nothing is in flight. After advance(t) it is later than t.
  SimTime next_wake() const;
  // Flows in flight (sending or waiting out their latency).
  std::size_t in_flight() const { return flows_.size() - free_.size(); }
  // Bytes per microsecond of the sending flow started with `tag` (0 if it has drained).
  double rate_of(std::uint64_t tag) const;

 private:
  struct Flow {
    bool used = false, sending = false, silent = false;
    std::uint64_t tag = 0, order = 0;
    std::vector<LinkId> links;
    double latency_us = 0;
    double rate = 0;   // bytes per microsecond while sending
    double drain = 0;  // busy-period-relative instant the last byte leaves
    double bytes = 0;  // until its first rate is set (then implied by rate and drain)
    bool fresh = false;
    SimTime started = 0;
    SimTime delivery = kSimTimeNever;
  };
  std::vector<double> capacity_;
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_;
  std::uint64_t next_order_ = 0;
  SimTime epoch_ = 0;  // start of the current busy period (some flow sending)
  double t_ = 0;       // last instant the rates were set, relative to epoch_
  SimTime last_now_ = 0;
  std::size_t sending_ = 0;
  // While a start re-shares the links: the silent flows whose rate it changed, and the owner
  // whose silent flows it does not count against (a silent start's own owner).
  bool marking_ = false;
  bool skip_owner_ = false;
  std::uint64_t skipped_owner_ = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> perturbed_;

  void start_flow(SimTime now, double bytes, const std::vector<LinkId>& links, double latency_us,
                  std::uint64_t tag, bool silent);
  void set_rates(double at);
  void drain_at(double at);
  SimTime delivery_of(const Flow& f) const;
  // Scratch of set_rates (kept to avoid allocating per recomputation).
  std::vector<double> new_rate_, cap_left_;
  std::vector<std::uint32_t> unfixed_on_, hits_;  // per link, zero between calls
  std::vector<LinkId> active_;
};

}  // namespace blis::cluster::network
