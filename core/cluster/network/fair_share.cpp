#include "cluster/network/fair_share.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "util/slot_pool.h"

namespace blis::cluster::network {

namespace {
constexpr double kUnlimited = std::numeric_limits<double>::infinity();
}

LinkId FairShareNetwork::add_link(double bytes_per_us) {
  capacity_.push_back(bytes_per_us > 0 ? bytes_per_us : kUnlimited);
  return static_cast<LinkId>(capacity_.size() - 1);
}

void FairShareNetwork::start(SimTime now, std::int64_t bytes, const std::vector<LinkId>& links,
                             double latency_us, std::uint64_t tag) {
  start_flow(now, static_cast<double>(std::max<std::int64_t>(1, bytes)), links, latency_us, tag,
             false);
}

std::uint64_t FairShareNetwork::start_silent(SimTime now, double bytes,
                                             const std::vector<LinkId>& links,
                                             std::uint64_t owner) {
  if (!(bytes > 0)) return 0;
  const std::uint64_t id = next_order_ + 1;
  start_flow(now, bytes, links, 0, owner, true);
  return id;
}

void FairShareNetwork::take_perturbed(std::vector<std::pair<std::uint64_t, std::uint64_t>>& out) {
  out.insert(out.end(), perturbed_.begin(), perturbed_.end());
  perturbed_.clear();
}

double FairShareNetwork::projected_send_us(SimTime now, std::uint64_t id) const {
  FairShareNetwork n = *this;
  if (n.sending_ > 0) n.drain_at(static_cast<double>(now - n.epoch_));
  const Flow* target = nullptr;
  for (const Flow& f : n.flows_)
    if (f.used && f.sending && f.silent && f.order + 1 == id) target = &f;
  if (target == nullptr) return -1;
  const std::uint64_t owner = target->tag;
  const SimTime started = target->started;
  bool dropped = false;
  for (Flow& f : n.flows_) {
    if (!f.used || !f.sending || !f.silent || f.tag != owner || f.order + 1 == id) continue;
    f.sending = false;
    f.used = false;
    --n.sending_;
    dropped = true;
  }
  if (dropped) n.set_rates(static_cast<double>(now - n.epoch_));
  n.drain_at(kUnlimited);
  for (const Flow& f : n.flows_) {
    if (f.order + 1 != id) continue;
    return std::max(0.0, static_cast<double>(n.epoch_ - started) + f.drain);
  }
  return -1;
}

void FairShareNetwork::start_flow(SimTime now, double bytes, const std::vector<LinkId>& links,
                                  double latency_us, std::uint64_t tag, bool silent) {
  if (sending_ > 0) drain_at(static_cast<double>(now - epoch_));
  if (sending_ == 0) {
    epoch_ = now;  // a new busy period: instants are relative to it, so a lone flow is exact
    t_ = 0;
  }
  const std::uint32_t slot = take_slot(flows_, free_);
  Flow& f = flows_[slot];
  f.used = f.sending = f.fresh = true;
  f.silent = silent;
  f.tag = tag;
  f.order = next_order_++;
  f.links.clear();
  for (LinkId l : links)
    if (l < capacity_.size() && std::find(f.links.begin(), f.links.end(), l) == f.links.end())
      f.links.push_back(l);
  f.latency_us = std::max(0.0, latency_us);
  f.bytes = bytes;
  f.rate = 0;
  f.drain = 0;
  f.delivery = kSimTimeNever;
  f.started = now;
  ++sending_;
  last_now_ = std::max(last_now_, now);
  marking_ = true;
  skip_owner_ = silent;
  skipped_owner_ = tag;
  set_rates(static_cast<double>(now - epoch_));
  marking_ = false;
}

// Max-min fair rates by progressive filling, then each sending flow's drain instant at `at`.
void FairShareNetwork::set_rates(double at) {
  const std::size_t nf = flows_.size();
  // Only the links some sending flow crosses take part (a large deployment has many idle).
  unfixed_on_.resize(capacity_.size(), 0);
  hits_.resize(capacity_.size(), 0);
  cap_left_.resize(capacity_.size(), 0);
  active_.clear();
  new_rate_.assign(nf, -1.0);
  std::size_t unfixed = 0;
  for (const Flow& f : flows_) {
    if (!f.sending) continue;
    ++unfixed;
    for (LinkId l : f.links) {
      if (unfixed_on_[l]++ == 0) {
        active_.push_back(l);
        cap_left_[l] = capacity_[l];
      }
    }
  }
  while (unfixed > 0) {
    // The bottleneck: the least capacity left per unfixed flow (ties: the lowest link id).
    LinkId best = 0;
    bool found = false;
    double share = kUnlimited;
    for (LinkId l : active_) {
      if (unfixed_on_[l] == 0) continue;
      const double s = cap_left_[l] / unfixed_on_[l];
      if (!found || s < share || (s == share && l < best)) {
        share = s;
        best = l;
        found = true;
      }
    }
    if (!found) {  // only flows with no links are left: they are not limited
      for (std::size_t i = 0; i < nf; ++i)
        if (flows_[i].sending && new_rate_[i] < 0) new_rate_[i] = kUnlimited;
      break;
    }
    share = std::max(share, 1e-12);  // capacities are > 0; guards against rounding to 0
    for (std::size_t i = 0; i < nf; ++i) {
      const Flow& f = flows_[i];
      if (!f.sending || new_rate_[i] >= 0) continue;
      if (std::find(f.links.begin(), f.links.end(), best) == f.links.end()) continue;
      new_rate_[i] = share;
      --unfixed;
      for (LinkId l : f.links) {
        --unfixed_on_[l];
        ++hits_[l];
      }
    }
    // Every flow fixed this round has the same rate: one subtraction per link, whatever the
    // order the flows were visited in.
    for (LinkId l : active_) {
      if (hits_[l] == 0) continue;
      cap_left_[l] = l == best ? 0.0 : std::max(0.0, cap_left_[l] - share * hits_[l]);
      hits_[l] = 0;
    }
  }
  for (LinkId l : active_) unfixed_on_[l] = 0;
  for (std::size_t i = 0; i < nf; ++i) {
    Flow& f = flows_[i];
    if (!f.sending) continue;
    const double r = new_rate_[i];
    if (f.fresh) {
      f.drain = at + f.bytes / r;
      f.fresh = false;
    } else if (r != f.rate) {
      // The bytes still to send at `at`, at the old rate, then their drain at the new one.
      const double remaining = std::max(0.0, f.rate * (f.drain - at));
      f.drain = at + remaining / r;
      if (marking_ && f.silent && !(skip_owner_ && f.tag == skipped_owner_))
        perturbed_.emplace_back(f.tag, f.order + 1);
    }
    f.rate = r;
  }
  t_ = at;
}

// Lets every flow whose last byte leaves at or before `at` finish sending, in drain order,
// re-sharing the links at each such instant.
void FairShareNetwork::drain_at(double at) {
  while (sending_ > 0) {
    double d = kUnlimited;
    for (const Flow& f : flows_)
      if (f.sending) d = std::min(d, f.drain);
    if (d > at) return;
    d = std::max(d, t_);
    for (Flow& f : flows_) {
      if (!f.sending || f.drain > d) continue;
      f.sending = false;
      f.drain = d;
      f.delivery = delivery_of(f);
      --sending_;
      if (f.silent) {  // nothing to deliver: the slot is free at once
        f.used = false;
        free_.push_back(static_cast<std::uint32_t>(&f - flows_.data()));
      }
    }
    if (sending_ > 0) set_rates(d);
  }
}

SimTime FairShareNetwork::delivery_of(const Flow& f) const {
  // kernel::transfer_time's rounding, to the nearest microsecond, but never before the last
  // byte has left (which only a latency under half a microsecond could round to).
  const double rel = std::max(std::floor(f.drain + f.latency_us + 0.5), std::ceil(f.drain));
  if (!(rel < 4e18)) return kSimTimeNever;
  return epoch_ + static_cast<SimTime>(rel);
}

void FairShareNetwork::advance(SimTime now, std::vector<std::uint64_t>& delivered) {
  if (sending_ > 0) drain_at(static_cast<double>(now - epoch_));
  last_now_ = std::max(last_now_, now);
  std::vector<std::uint32_t> done;
  for (std::uint32_t i = 0; i < flows_.size(); ++i) {
    const Flow& f = flows_[i];
    if (f.used && !f.sending && f.delivery <= now) done.push_back(i);
  }
  std::sort(done.begin(), done.end(), [&](std::uint32_t a, std::uint32_t b) {
    const Flow &x = flows_[a], &y = flows_[b];
    return x.delivery != y.delivery ? x.delivery < y.delivery : x.order < y.order;
  });
  for (std::uint32_t i : done) {
    delivered.push_back(flows_[i].tag);
    flows_[i].used = false;
    free_.push_back(i);
  }
}

std::vector<double> FairShareNetwork::batch_completion_us(
    const std::vector<double>& link_bytes_per_us, const std::vector<BatchFlow>& flows) {
  FairShareNetwork n;
  for (double c : link_bytes_per_us) n.add_link(c);
  for (std::size_t i = 0; i < flows.size(); ++i)
    n.start(0, flows[i].bytes, flows[i].links, flows[i].latency_us, i);
  n.drain_at(kUnlimited);
  std::vector<double> out(flows.size(), 0.0);
  for (const Flow& f : n.flows_) out[f.tag] = f.drain + f.latency_us;
  return out;
}

SimTime FairShareNetwork::next_wake() const {
  // A silent flow's end matters only to the delivering flows still sending.
  bool loud_sending = false;
  for (const Flow& f : flows_) loud_sending = loud_sending || (f.used && f.sending && !f.silent);
  SimTime w = kSimTimeNever;
  for (const Flow& f : flows_) {
    if (!f.used || (f.silent && !loud_sending)) continue;
    if (f.sending) {
      const double c = std::ceil(f.drain);
      if (c < 4e18) w = std::min(w, std::max(last_now_, epoch_ + static_cast<SimTime>(c)));
    } else {
      w = std::min(w, std::max(last_now_, f.delivery));
    }
  }
  return w;
}

double FairShareNetwork::rate_of(std::uint64_t tag) const {
  for (const Flow& f : flows_)
    if (f.used && f.sending && !f.silent && f.tag == tag) return f.rate;
  return 0;
}

bool FairShareNetwork::shares_any(const std::vector<LinkId>& links,
                                  std::uint64_t exclude_owner) const {
  for (const Flow& f : flows_) {
    if (!f.used || !f.sending || (f.silent && f.tag == exclude_owner)) continue;
    for (LinkId l : f.links)
      if (std::find(links.begin(), links.end(), l) != links.end()) return true;
  }
  return false;
}

double FairShareNetwork::alone_or_shared_us(SimTime now, double bytes,
                                            const std::vector<LinkId>& links,
                                            std::uint64_t exclude_owner) const {
  // A copy run forward: the flows in flight as they stand at `now`, the probe added.
  FairShareNetwork n = *this;
  if (n.sending_ > 0) n.drain_at(static_cast<double>(now - n.epoch_));
  bool dropped = false;
  for (Flow& f : n.flows_) {
    if (!f.used || !f.sending || !f.silent || f.tag != exclude_owner) continue;
    f.sending = false;
    f.used = false;
    --n.sending_;
    dropped = true;
  }
  if (dropped && n.sending_ > 0) n.set_rates(static_cast<double>(now - n.epoch_));
  const std::uint64_t probe = n.next_order_;
  n.start_flow(now, bytes, links, 0, 0, false);
  const double from = static_cast<double>(now - n.epoch_);
  n.drain_at(kUnlimited);
  for (const Flow& f : n.flows_)
    if (f.used && f.order == probe) return std::max(0.0, f.drain - from);
  return 0;
}

}  // namespace blis::cluster::network
