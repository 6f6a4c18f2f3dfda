#pragma once
// inference-perf's `shared_prefix` data type, in tokens (docs/workload.md explains every rule
// and where it comes from in kubernetes-sigs/inference-perf).
//
// G = system_prompts groups, P = users_per_prompt questions per group, N = G * P prompts.
// Prompt p = g * P + q has group g's system prompt (T tokens, shared by the group) and its
// own question (Q tokens). The N prompts are shuffled once; the k-th request of a load stage
// (inference-perf's data_index, restarting at 0 in every stage) uses shuffled prompt k mod N.
// Single turn: its prompt is system prompt + question. Multi-turn: k mod N is also the user
// session and k / N the round; a session starts from its system prompt, each turn sends
// context + question, and a successful answer makes the context prompt + answer. A session's
// next turn waits for its previous answer.

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "cluster/workload/slot.h"
#include "cluster/workload/workload.h"
#include "scenario/scenario.h"

namespace blis::cluster {

class SharedPrefixShape {
 public:
  // `stream_prefix` is the client's stream name prefix, e.g. "workload/chat".
  SharedPrefixShape(const scenario::SharedPrefix& cfg, std::uint64_t seed,
                    const std::string& stream_prefix);

  bool multi_turn() const { return cfg_.multi_turn; }
  std::int32_t num_prompts() const { return n_; }
  // The unshuffled prompt index p = g * P + q that data_index k uses.
  std::int32_t prompt_of(std::uint64_t data_index) const;

  // Gives `slot` its data_index (0, 1, ... within its load stage). Slots come in order.
  void assign(Slot& slot);
  // True when every session of the stage `next` belongs to is waiting for an answer: `next`
  // and every later slot of that stage would wait, so the client need not look further.
  bool all_sessions_busy(const Slot& next) const;
  // For an assigned slot: true when it may be sent now; false when its session is waiting
  // for an answer (the slot is kept and released by finished()). Always true single-turn.
  bool admit(const Slot& slot);
  // Builds the request of an admitted (or released) slot.
  void fill(const Slot& slot, GeneratedRequest& out);
  // Multi-turn: `session`'s turn finished with `output_tokens` tokens (0: it failed, and the
  // context stays as it was, as inference-perf's process_failure keeps it). Returns true
  // with that session's next waiting slot in `released`.
  bool finished(std::int64_t session, std::int32_t output_tokens, Slot& released);
  // True while some slot waits for its session.
  bool has_waiting() const { return waiting_ > 0; }

 private:
  struct Session {
    std::int64_t epoch = 0;
    std::int32_t group = 0;
    std::int32_t prompt = 0;
    bool busy = false;      // a turn is released or in flight
    bool answered = false;  // a turn was answered (the context starts with the session's group)
    std::int32_t inflight_base = 0;
    // The context is the system prompt followed, for each answered turn, by the question and
    // that turn's output ids (base + 0, 1, ...): stored as the answers' (base, length) and
    // rebuilt in fill(), so a session costs O(turns), not O(context tokens).
    struct Answer {
      std::int32_t base = 0;
      std::int32_t tokens = 0;
    };
    std::vector<Answer> answers;
    std::deque<Slot> waiting;
  };

  std::int64_t session_id(const Slot& slot) const;
  void append_system_prompt(std::int32_t group, std::vector<std::int32_t>& out) const;
  void append_question(std::int32_t prompt, std::vector<std::int32_t>& out) const;
  static void append_output_ids(const Session::Answer& a, std::vector<std::int32_t>& out);

  scenario::SharedPrefix cfg_;
  std::int32_t n_ = 0;
  std::vector<std::int32_t> perm_;  // shuffled position -> prompt p
  std::uint64_t system_key_ = 0, question_key_ = 0, request_key_ = 0;
  std::int64_t epoch_ = -1;  // the load stage of the latest slot
  std::uint64_t next_data_index_ = 0;
  std::int32_t busy_in_epoch_ = 0;
  std::int64_t waiting_ = 0;
  std::map<std::int64_t, Session> sessions_;
};

}  // namespace blis::cluster
