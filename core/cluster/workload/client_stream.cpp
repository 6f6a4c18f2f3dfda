#include "cluster/workload/client_stream.h"

#include <algorithm>

#include "cluster/workload/length_sampler.h"
#include "cluster/workload/token_ids.h"

namespace blis::cluster {

ClientStream::ClientStream(const scenario::Client& client, std::int32_t index, std::uint64_t seed,
                           SimTime horizon)
    : index_(index) {
  // Streams are named after the client, so adding or reordering clients never changes
  // another client's numbers.
  std::string name = "workload/";  // (built in steps: GCC 12 warns falsely on "lit" + string&&)
  if (client.name.empty()) {
    name += '#';
    name += std::to_string(index);
  } else {
    name += client.name;
  }
  init_common(name, seed);
  ignore_eos_ = client.ignore_eos;
  priority_ = client.priority;
  lora_ = client.lora;
  slo_class_ = client.slo_class;
  adapters_ = client.adapters;
  // A stream of its own: clients without adapters never draw, so their numbers stay put.
  if (!adapters_.empty()) adapter_rng_ = Rng::stream(seed, name + "/lora_adapters");
  if (client.trace) {
    shape_ = Shape::kTrace;  // the trace's arrival times replace the load
    source_ = make_trace_source(client.trace->csv, horizon);
  } else {
    closed_loop_ = client.load.kind == scenario::Load::Kind::kConcurrency;
    source_ = closed_loop_ ? make_closed_loop_source(client.load, horizon)
                           : make_open_loop_source(client.load, horizon, seed, name + "/arrivals");
    if (client.shared_prefix) {
      shape_ = Shape::kSharedPrefix;
      shared_prefix_ = std::make_unique<SharedPrefixShape>(*client.shared_prefix, seed, name);
    } else {
      shape_ = Shape::kLengths;
      prompt_dist_ = client.prompt_tokens;
      output_dist_ = client.output_tokens;
      prefix_ = client.prefix;
      if (closed_loop_) user_turns_.assign(static_cast<std::size_t>(client.load.concurrency), 0);
    }
  }
  settle();
}

ClientStream::ClientStream(const scenario::Trace& trace, std::uint64_t seed, SimTime horizon) {
  init_common("workload/trace", seed);
  shape_ = Shape::kTrace;
  source_ = make_trace_source(trace.csv, horizon);
  settle();
}

void ClientStream::init_common(const std::string& name, std::uint64_t seed) {
  length_rng_ = Rng::stream(seed, name + "/lengths");
  prefix_rng_ = Rng::stream(seed, name + "/prefix");
  tokens_key_ = Rng::stream(seed, name + "/tokens").next_u64();
  prefix_key_ = Rng::stream(seed, name + "/prefix_groups").next_u64();
}

void ClientStream::push_ready(SimTime time, const Slot& slot) {
  ready_.push_back({time, slot});
  std::push_heap(ready_.begin(), ready_.end(), Later{});
}

// Moves slots from the source into the ready heap until the heap's head is known to be the
// client's next request: every slot not yet taken is due later than it (or would wait for a
// busy session). Multi-turn slots of a busy session wait inside SharedPrefixShape.
void ClientStream::settle() {
  for (;;) {
    const Slot* next = source_->peek();
    if (next == nullptr) return;
    if (!ready_.empty()) {
      const Ready& head = ready_.front();
      if (head.time < next->time || (head.time == next->time && head.slot.index < next->index))
        return;
    }
    // Every session is waiting for an answer: no slot of this stage can go before one comes,
    // and on_finished() resumes here. (Without this stop a busy multi-turn client would pull
    // its whole future schedule into memory.)
    if (shared_prefix_ && shared_prefix_->all_sessions_busy(*next)) return;
    Slot slot = *next;
    source_->take();
    if (shared_prefix_) {
      shared_prefix_->assign(slot);
      if (!shared_prefix_->admit(slot)) continue;
    }
    // A slot taken after a stop for busy sessions may be due before the answer that freed
    // its session: it goes out when that answer came (now_), as the waiting round does in
    // inference-perf.
    push_ready(std::max(slot.time, now_), slot);
  }
}

void ClientStream::pop(GeneratedRequest& out) {
  std::pop_heap(ready_.begin(), ready_.end(), Later{});
  const Ready r = ready_.back();
  ready_.pop_back();
  out.arrival = r.time;
  out.client = index_;
  out.ignore_eos = ignore_eos_;
  out.priority = priority_;
  out.lora = adapters_.empty() ? lora_ : draw_adapter();
  out.slo_class = slo_class_;
  switch (shape_) {
    case Shape::kLengths:
      fill_lengths(r.slot, out);
      break;
    case Shape::kSharedPrefix:
      shared_prefix_->fill(r.slot, out);
      break;
    case Shape::kTrace:
      fill_trace(r.slot, out);
      break;
  }
  now_ = std::max(now_, r.time);
  settle();
}

// One uniform draw per request against the cumulative shares (in the listed order); past
// the last share the request uses the base model (0).
std::int32_t ClientStream::draw_adapter() {
  const double u = adapter_rng_.uniform01();
  double cum = 0;
  for (const auto& a : adapters_) {
    cum += a.share;
    if (u < cum) return a.id;
  }
  return 0;
}

void ClientStream::fill_lengths(const Slot& slot, GeneratedRequest& out) {
  const std::uint64_t key = derive_key(tokens_key_, slot.index);
  const std::int32_t prompt_tokens = sample_length(*prompt_dist_, length_rng_);
  const std::int32_t output_tokens = sample_length(*output_dist_, length_rng_);
  out.prompt_token_ids.clear();
  out.prefix_group = -1;
  if (prefix_) {
    // G shared system prompts of T tokens; the request draws one uniformly and prepends it.
    const auto g = static_cast<std::int32_t>(prefix_rng_.uniform_int(0, prefix_->groups - 1));
    append_token_ids(derive_key(prefix_key_, static_cast<std::uint64_t>(g)), prefix_->tokens,
                     out.prompt_token_ids);
    out.prefix_group = g;
  }
  append_token_ids(key, prompt_tokens, out.prompt_token_ids);
  out.output_tokens = output_tokens;
  out.max_tokens = output_tokens;
  out.output_token_base = output_token_base(key);
  if (closed_loop_ && slot.user >= 0) {
    out.session = slot.user;
    out.turn = user_turns_[static_cast<std::size_t>(slot.user)]++;
  } else {
    out.session = -1;
    out.turn = 0;
  }
}

void ClientStream::fill_trace(const Slot& slot, GeneratedRequest& out) {
  const TraceRow& row = slot.row;
  const std::uint64_t key = derive_key(tokens_key_, slot.index);
  auto& ids = out.prompt_token_ids;
  ids.clear();
  out.prefix_group = row.prefix_group;
  out.session = row.session;
  out.turn = 0;
  const auto prompt_tokens = static_cast<std::size_t>(row.prompt_tokens);
  TraceSession* session = nullptr;
  if (row.session >= 0) {
    auto [it, created] = trace_sessions_.try_emplace(row.session);
    session = &it->second;
    out.turn = session->turns++;
    // A later turn starts with the previous turn's prompt and output (as much as fits).
    const std::size_t n = std::min(prompt_tokens, session->history.size());
    ids.insert(ids.end(), session->history.begin(),
               session->history.begin() + static_cast<std::ptrdiff_t>(n));
  }
  if (ids.empty() && row.prefix_group >= 0) {
    const std::int32_t shared = row.prefix_tokens >= 0 ? row.prefix_tokens : row.prompt_tokens;
    append_token_ids(derive_key(prefix_key_, static_cast<std::uint64_t>(row.prefix_group)), shared,
                     ids);
  }
  append_token_ids(key, static_cast<std::int32_t>(prompt_tokens - ids.size()), ids);
  out.output_tokens = row.output_tokens;
  out.max_tokens = row.output_tokens;
  out.output_token_base = output_token_base(key);
  if (session != nullptr) {
    // The trace says how long the answer is, so the next turn's prompt does not wait for it.
    session->history.assign(ids.begin(), ids.end());
    for (std::int32_t k = 0; k < row.output_tokens; ++k)
      session->history.push_back(out.output_token_base + k);
  }
}

void ClientStream::on_finished(const GeneratedRequest& req, std::int32_t output_tokens,
                               SimTime now) {
  now_ = std::max(now_, now);
  if (closed_loop_) source_->user_returned(shape_ == Shape::kLengths ? req.session : -1, now);
  if (shared_prefix_ && shared_prefix_->multi_turn()) {
    Slot released;
    if (shared_prefix_->finished(req.session, output_tokens, released))
      push_ready(std::max(released.time, now_), released);
  }
  settle();
}

bool ClientStream::exhausted() const {
  return source_->done() && ready_.empty() && !(shared_prefix_ && shared_prefix_->has_waiting());
}

}  // namespace blis::cluster
