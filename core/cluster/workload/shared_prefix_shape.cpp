// Reproduces inference-perf's shared_prefix data generator and its multi-turn user sessions:
//   inference_perf/datagen/synthetic/shared_prefix_datagen.py (SharedPrefixDataGenerator)
//   inference_perf/apis/user_session.py (LocalUserSession, UserSessionCompletionAPIData)
//   inference_perf/loadgen/load_generator.py (run_stage, Worker.loop)
// Token ids stand for its text: see docs/workload.md "shared_prefix" for the mapping.

#include "cluster/workload/shared_prefix_shape.h"

#include <utility>

#include "cluster/workload/token_ids.h"
#include "util/rng.h"

namespace blis::cluster {

SharedPrefixShape::SharedPrefixShape(const scenario::SharedPrefix& cfg, std::uint64_t seed,
                                     const std::string& stream_prefix)
    : cfg_(cfg), n_(cfg.system_prompts * cfg.users_per_prompt) {
  // _generate_prompts appends prompts group by group (p = g * P + q), then shuffles them
  // once with rng.permutation, user sessions in sync with their prompts.
  perm_.resize(static_cast<std::size_t>(n_));
  for (std::int32_t p = 0; p < n_; ++p) perm_[static_cast<std::size_t>(p)] = p;
  Rng shuffle = Rng::stream(seed, stream_prefix + "/shared_prefix/shuffle");
  for (std::int32_t i = n_ - 1; i > 0; --i) {  // Fisher-Yates
    const auto j = static_cast<std::size_t>(shuffle.uniform_int(0, i));
    std::swap(perm_[static_cast<std::size_t>(i)], perm_[j]);
  }
  system_key_ = Rng::stream(seed, stream_prefix + "/shared_prefix/system_prompts").next_u64();
  question_key_ = Rng::stream(seed, stream_prefix + "/shared_prefix/questions").next_u64();
  request_key_ = Rng::stream(seed, stream_prefix + "/shared_prefix/requests").next_u64();
}

std::int32_t SharedPrefixShape::prompt_of(std::uint64_t data_index) const {
  // load_lazy_data: i = data_index % len(prompts)
  return perm_[static_cast<std::size_t>(data_index % static_cast<std::uint64_t>(n_))];
}

std::int64_t SharedPrefixShape::session_id(const Slot& slot) const {
  // load_lazy_data: user_id = data_index % len(user_sessions); sessions are renewed in every
  // stage, so a session is (stage, user).
  return static_cast<std::int64_t>(slot.stage) * n_ +
         static_cast<std::int64_t>(slot.data_index % static_cast<std::uint64_t>(n_));
}

void SharedPrefixShape::assign(Slot& slot) {
  if (slot.stage != epoch_) {
    // run_stage calls datagen.get_data() afresh, so data_index restarts at 0, and the
    // workers clear the LocalUserSession registry between stages (Worker.loop), so
    // load_lazy_data starts every session again from its system prompt.
    epoch_ = slot.stage;
    next_data_index_ = 0;
    busy_in_epoch_ = 0;
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      const Session& s = it->second;
      it = !s.busy && s.waiting.empty() ? sessions_.erase(it) : std::next(it);
    }
  }
  slot.data_index = next_data_index_++;
}

bool SharedPrefixShape::all_sessions_busy(const Slot& next) const {
  return cfg_.multi_turn && next.stage == epoch_ && busy_in_epoch_ >= n_;
}

bool SharedPrefixShape::admit(const Slot& slot) {
  if (!cfg_.multi_turn) return true;
  const std::int64_t id = session_id(slot);
  auto [it, created] = sessions_.try_emplace(id);
  Session& s = it->second;
  if (created) {
    s.epoch = slot.stage;
    s.prompt = prompt_of(slot.data_index);
    s.group = s.prompt / cfg_.users_per_prompt;
  }
  // LocalUserSession.get_context: a round waits while an earlier round of the same session
  // is in flight (a lock plus a FIFO of waiting rounds).
  if (s.busy) {
    s.waiting.push_back(slot);
    ++waiting_;
    return false;
  }
  s.busy = true;
  ++busy_in_epoch_;
  return true;
}

void SharedPrefixShape::append_system_prompt(std::int32_t group,
                                             std::vector<std::int32_t>& out) const {
  append_token_ids(derive_key(system_key_, static_cast<std::uint64_t>(group)),
                   cfg_.system_prompt_tokens, out);
}

void SharedPrefixShape::append_question(std::int32_t prompt, std::vector<std::int32_t>& out) const {
  append_token_ids(derive_key(question_key_, static_cast<std::uint64_t>(prompt)),
                   cfg_.question_tokens, out);
}

void SharedPrefixShape::append_output_ids(const Session::Answer& a,
                                          std::vector<std::int32_t>& out) {
  const std::size_t start = out.size();
  out.resize(start + static_cast<std::size_t>(a.tokens));
  for (std::int32_t k = 0; k < a.tokens; ++k) out[start + static_cast<std::size_t>(k)] = a.base + k;
}

void SharedPrefixShape::fill(const Slot& slot, GeneratedRequest& out) {
  const std::int32_t p = prompt_of(slot.data_index);
  const std::int32_t g = p / cfg_.users_per_prompt;
  out.prompt_token_ids.clear();
  out.output_token_base = output_token_base(derive_key(request_key_, slot.index));
  // flat_output_lens[i] is output_len for every prompt when output_len is a fixed number.
  out.output_tokens = cfg_.output_tokens;
  out.max_tokens = cfg_.output_tokens;
  out.prefix_group = g;
  if (!cfg_.multi_turn) {
    // Single turn: prompts[i] = shared_prefix_text + " " + question_text.
    append_system_prompt(g, out.prompt_token_ids);
    append_question(p, out.prompt_token_ids);
    out.session = -1;
    out.turn = 0;
    return;
  }
  // UserSessionCompletionAPIData.to_payload: prompt = session context + " " + question.
  const std::int64_t id = session_id(slot);
  Session& s = sessions_[id];
  // The context as finished() left it: the system prompt (this group's until the first
  // answer, then the session's) + each answered turn's question and answer.
  append_system_prompt(s.answered ? s.group : g, out.prompt_token_ids);
  for (const Session::Answer& a : s.answers) {
    append_question(s.prompt, out.prompt_token_ids);
    append_output_ids(a, out.prompt_token_ids);
  }
  append_question(p, out.prompt_token_ids);
  s.inflight_base = out.output_token_base;
  out.session = id;
  // load_lazy_data: round = data_index // len(user_sessions)
  out.turn = static_cast<std::int32_t>(slot.data_index / static_cast<std::uint64_t>(n_));
}

bool SharedPrefixShape::finished(std::int64_t session, std::int32_t output_tokens, Slot& released) {
  const auto it = sessions_.find(session);
  if (it == sessions_.end() || !it->second.busy) return false;
  Session& s = it->second;
  if (output_tokens > 0) {
    // process_response: update_context(prompt + " " + model_response).
    // The context becomes system prompt + every answered (question, answer); see Session.
    s.answers.push_back(Session::Answer{s.inflight_base, output_tokens});
    s.answered = true;
  }
  // update_context releases the lock and wakes the oldest waiting round.
  s.busy = false;
  if (s.epoch == epoch_) --busy_in_epoch_;
  if (!s.waiting.empty()) {
    released = s.waiting.front();
    s.waiting.pop_front();
    --waiting_;
    s.busy = true;
    if (s.epoch == epoch_) ++busy_in_epoch_;
    return true;
  }
  if (s.epoch < epoch_) sessions_.erase(it);  // an earlier stage's session is never used again
  return false;
}

}  // namespace blis::cluster
