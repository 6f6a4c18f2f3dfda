#include "conform/conform_ext.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "conform/conform_ext_extension.h"
#include "conform/conform_fields.h"
#include "conform/conform_hooks.h"
#include "conform/conform_input.h"
#include "engine/vllm/key_index.h"
#include "engine/vllm/metrics/engine_feed.h"
#include "engine/vllm/metrics/recorder.h"
#include "engine/vllm/provenance.h"
#include "util/text.h"

namespace blis::vllm {
namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

// The input's "metrics" object (ext FORMAT.md section 1).
struct MetricsInput {
  double step_seconds = 0;  // Δ
  std::vector<std::int32_t> dump_steps;
  std::string served_model_name = "oracle-model";
};

// Through the conformance input's field reader (conform_fields.h): pointers, types, ranges
// and unknown keys as the base reader reports them.
void decode_metrics(const json& doc, MetricsInput& out, Diagnostics& diags) {
  const char* what = "an object with step_seconds and dump_steps";
  const auto m = doc.find("metrics");
  if (m == doc.end()) {
    diags.push_back({"/metrics", std::string("missing, expected ") + what});
    return;
  }
  FieldReader r = conform::reader(*m, "/metrics", diags,
                                  {"step_seconds", "dump_steps", "served_model_name"}, what);
  if (!r.valid()) return;
  conform::take_number(r, "step_seconds", true, 0.0, true, 3600.0,
                       "a number of seconds in (0, 3600]", out.step_seconds);
  conform::take_int_list(r, "dump_steps", 0, conform::kMaxSteps, out.dump_steps);
  // The model_name label of every sample of every dump: a megabyte name made a 1.8 GB
  // exposition, so it is bounded like a client's name.
  if (conform::take_string(r, "served_model_name", false, out.served_model_name)) {
    if (const auto bad = label_problem(out.served_model_name)) {
      r.error("served_model_name", *bad);
      out.served_model_name = "oracle-model";
    }
  }
  r.report_unknown_keys();
}

// Records what the base loop does into vLLM's frontend stat pipeline, on the simulated
// clock of ext FORMAT.md section 2, and builds the ext output (section 5).
class ExtDriver final : public conform::DriverHooks {
 public:
  ExtDriver(const conform::Case& c, const MetricsInput& m, conform::ExtExtension* ext)
      : c_(c), m_(m), ext_(ext), recorder_(make_recorder_config(c, m, ext), 0) {
    dumps_.insert(m.dump_steps.begin(), m.dump_steps.end());
  }

  ojson run();

  void attach(EngineCore& core) override {
    core_ = &core;
    if (ext_ != nullptr) ext_->attach(core);
  }
  void prepare_request(engine::RequestKey key, NewRequest& nr) override {
    if (ext_ != nullptr) ext_->prepare_request(key, nr);
  }
  void before_update(std::int32_t step, const InFlightBatch& b) override {
    if (ext_ != nullptr) ext_->before_update(step, b);
  }
  void on_update(std::int32_t step, const InFlightBatch& b) override {
    if (ext_ != nullptr) ext_->on_update(step, b);
  }
  void on_added(std::int32_t step, engine::RequestKey key, ReqRef ref) override;
  void on_client_abort(std::int32_t step, engine::RequestKey key, ReqRef ref) override;
  void on_scheduled(std::int32_t step, const InFlightBatch& b) override;
  void on_applied(std::int32_t step, const InFlightBatch& b, const UpdateResult& res,
                  const SchedulerStats& stats) override;
  void on_step_end(std::int32_t step, const ojson& rec, bool applied) override;

 private:
  static metrics::RecorderConfig make_recorder_config(const conform::Case& c, const MetricsInput& m,
                                                      conform::ExtExtension* ext);
  // T = k·Δ (section 2), in the recorder's integer microseconds.
  SimTime at(std::int32_t k) const {
    return from_seconds(static_cast<double>(k) * m_.step_seconds);
  }
  ojson families() const;
  ojson finished_json(const metrics::IterationStats& it) const;
  ojson record_json(std::int32_t step, SimTime ts, std::size_t num_outputs,
                    const SchedulerStats& stats) const;

  const conform::Case& c_;
  const MetricsInput& m_;
  conform::ExtExtension* ext_;
  metrics::MetricsRecorder recorder_;
  metrics::EngineCoreOutputs pending_;
  metrics::KVConnectorStats connector_stats_;
  EngineCore* core_ = nullptr;
  KeyIndex refs_;
  std::map<std::int32_t, engine::RequestKey> slot_keys_;  // recorder handle -> request
  std::set<std::int32_t> dumps_;
  // Per step: what the ext record needs beyond the base record.
  bool scheduled_ = false;
  bool recorded_ = false;
  ojson steps_ = ojson::array();
  ojson records_ = ojson::array();
  ojson snapshots_ = ojson::array();
};

metrics::RecorderConfig ExtDriver::make_recorder_config(const conform::Case& c,
                                                        const MetricsInput& m,
                                                        conform::ExtExtension* ext) {
  metrics::RecorderConfig rc = metrics::recorder_config(c.config);
  rc.model_name = m.served_model_name;
  // FORMAT.md section 6: log_engine_initialized is not called, so vllm:cache_config_info is
  // not registered.
  rc.register_cache_config_info = false;
  if (ext != nullptr) ext->configure_metrics(rc);
  return rc;
}

void ExtDriver::on_added(std::int32_t step, engine::RequestKey key, ReqRef ref) {
  const conform::CaseRequest& r = c_.requests[key];
  refs_.put(key, ref);
  slot_keys_[ref.index] = key;
  // OutputProcessor.add_request and the QUEUED event of Scheduler.add_request. Arrival is
  // arrival_time × Δ (section 2: the frontend's and the request's arrival are the same).
  engine::RequestSpec spec;
  spec.key = key;
  spec.arrival = from_seconds(r.arrival_time * m_.step_seconds);
  spec.prompt_token_ids = r.prompt;
  spec.max_tokens = r.max_tokens;
  metrics::feed_added(recorder_, ref.index, spec, at(step));
  if (ext_ != nullptr) ext_->on_added(step, key, ref);
}

void ExtDriver::on_client_abort(std::int32_t step, engine::RequestKey key, ReqRef ref) {
  // OutputProcessor.abort_requests: the frontend drops its state and records nothing.
  recorder_.abort_request(ref.index);
  if (ext_ != nullptr) ext_->on_client_abort(step, key, ref);
}

void ExtDriver::on_scheduled(std::int32_t step, const InFlightBatch& b) {
  scheduled_ = true;
  // SCHEDULED and PREEMPTED carry the schedule() timestamp k·Δ.
  metrics::feed_scheduled(recorder_, b.output, refs_, at(step));
  if (ext_ != nullptr) ext_->on_scheduled(step, b);
}

void ExtDriver::on_applied(std::int32_t step, const InFlightBatch& b, const UpdateResult& res,
                           const SchedulerStats& stats) {
  if (ext_ != nullptr) ext_->on_applied(step, b, res, stats);
  connector_stats_.clear();
  if (ext_ != nullptr) ext_->take_connector_stats(connector_stats_);
  // update_from_output is stamped (k+1)·Δ: EngineCoreOutputs.timestamp and the frontend's
  // IterationStats timestamp.
  const SimTime ts = at(step + 1);
  metrics::feed_completed(recorder_, pending_, res, core_->scheduler(), stats,
                          connector_stats_.empty() ? nullptr : &connector_stats_, ts);
  recorded_ = true;
  records_.push_back(record_json(step, ts, recorder_.last_num_outputs(), stats));
}

void ExtDriver::on_step_end(std::int32_t step, const ojson& rec, bool applied) {
  (void)applied;
  ojson out = ojson::object();
  out["step"] = step;
  if (rec.contains("idle")) out["idle"] = true;
  if (rec.contains("aborted") && !rec["aborted"].empty()) out["aborted"] = rec["aborted"];
  if (scheduled_ && rec.contains("scheduled")) out["scheduled"] = rec["scheduled"];
  if (c_.config.async_scheduling) {
    if (rec.contains("batch_scheduled") && !rec["batch_scheduled"].is_null())
      out["batch_scheduled"] = rec["batch_scheduled"];
    if (rec.contains("early_return")) out["early_return"] = true;
    if (rec.contains("batch_applied") && !rec["batch_applied"].is_null())
      out["batch_applied"] = rec["batch_applied"];
  }
  if (rec.contains("aborted_before_update"))
    out["aborted_before_update"] = rec["aborted_before_update"];
  if (recorded_) out["recorded"] = true;
  if (rec.contains("preempted") && !rec["preempted"].empty()) out["preempted"] = rec["preempted"];
  if (rec.contains("finished") && !rec["finished"].empty()) out["finished"] = rec["finished"];
  out["num_running"] = rec["num_running"];
  out["num_waiting"] = rec["num_waiting"];
  out["kv_usage"] = rec["kv_usage"];
  if (ext_ != nullptr) {
    ext_->on_step_end(step, rec, applied);
    ext_->add_step_fields(step, out);
  }
  steps_.push_back(std::move(out));
  if (dumps_.count(step) > 0)
    snapshots_.push_back({{"step", step}, {"prom", recorder_.exposition()}});
  scheduled_ = false;
  recorded_ = false;
}

ojson ExtDriver::record_json(std::int32_t step, SimTime ts, std::size_t num_outputs,
                             const SchedulerStats& stats) const {
  ojson r = ojson::object();
  r["step"] = step;
  r["timestamp"] = to_seconds(ts);
  r["num_outputs"] = num_outputs;
  const Scheduler& s = core_->scheduler();
  const PrefixCacheStats& p = stats.prefix_cache_stats;
  r["scheduler_stats"] = {{"num_running_reqs", s.num_running()},
                          {"num_waiting_reqs", s.waiting_queue().size()},
                          {"num_skipped_waiting_reqs", s.skipped_waiting_queue().size()},
                          {"kv_cache_usage", stats.kv_cache_usage},
                          {"prefix_cache",
                           {{"requests", p.requests},
                            {"queries", p.queries},
                            {"hits", p.hits},
                            {"preempted_requests", p.preempted_requests},
                            {"preempted_queries", p.preempted_queries},
                            {"preempted_hits", p.preempted_hits}}}};
  const metrics::IterationStats* it = recorder_.last_iteration_stats();
  if (it != nullptr) {
    const metrics::PromptTokenStats& pts = it->prompt_token_stats;
    r["iteration_stats"] = {{"iteration_timestamp", to_seconds(it->iteration_timestamp)},
                            {"num_generation_tokens", it->num_generation_tokens},
                            {"num_prompt_tokens", it->num_prompt_tokens()},
                            {"prompt_token_stats",
                             {{"computed", pts.computed},
                              {"local_cache_hit", pts.local_cache_hit},
                              {"external_kv_transfer", pts.external_kv_transfer},
                              {"cached_tokens", pts.cached_tokens},
                              {"total", pts.total}}},
                            {"num_preempted_reqs", it->num_preempted_reqs},
                            {"time_to_first_tokens_iter", it->time_to_first_tokens_iter},
                            {"inter_token_latencies_iter", it->inter_token_latencies_iter},
                            {"max_num_generation_tokens_iter", it->max_num_generation_tokens_iter},
                            {"n_params_iter", it->n_params_iter},
                            {"finished_requests", finished_json(*it)}};
  }
  return r;
}

// IterationStats.finished_requests with every FinishedRequestStats field (section 5).
ojson ExtDriver::finished_json(const metrics::IterationStats& it) const {
  ojson out = ojson::array();
  for (const metrics::FinishedRequestStats& f : it.finished_requests) {
    const auto k = slot_keys_.find(f.request);
    out.push_back(
        {{"request_id", k != slot_keys_.end() ? ojson(c_.requests[k->second].id) : ojson(nullptr)},
         {"finish_reason", finish_reason_string(f.finish_reason)},
         {"e2e_latency", f.e2e_latency},
         {"num_prompt_tokens", f.num_prompt_tokens},
         {"num_generation_tokens", f.num_generation_tokens},
         {"max_tokens_param", f.max_tokens_param != 0 ? ojson(f.max_tokens_param) : ojson(nullptr)},
         {"queued_time", f.queued_time},
         {"prefill_time", f.prefill_time},
         {"inference_time", f.inference_time},
         {"decode_time", f.decode_time},
         {"mean_time_per_output_token", f.mean_time_per_output_token},
         {"num_cached_tokens", f.num_cached_tokens}});
  }
  return out;
}

ojson ExtDriver::families() const {
  ojson out = ojson::array();
  for (const metrics::PrometheusStatLogger::FamilyInfo& f : recorder_.prometheus().describe()) {
    ojson j = ojson::object();
    j["name"] = f.name;
    j["type"] = f.type;
    j["help"] = f.help;
    j["labelnames"] = f.labelnames;
    if (f.bounds != nullptr) j["buckets"] = *f.bounds;
    ojson series = ojson::array();
    for (const std::vector<std::string>& values : f.series) {
      ojson s = ojson::object();
      for (std::size_t i = 0; i < values.size() && i < f.labelnames.size(); ++i)
        s[f.labelnames[i]] = values[i];
      series.push_back(s);
    }
    j["series"] = series;
    out.push_back(j);
  }
  return out;
}

ojson ExtDriver::run() {
  // The registry as PrometheusStatLogger.__init__ leaves it: children created later, on
  // first use (the offloading families' per-engine children), are not listed.
  ojson registry = families();
  ojson base = conform::run_case(c_, this);
  ojson doc = ojson::object();
  doc["provenance"] = conform::provenance_json();
  doc["config"] = base["config"];
  doc["metrics"] = {{"step_seconds", m_.step_seconds},
                    {"served_model_name", m_.served_model_name},
                    {"dump_steps", m_.dump_steps}};
  if (ext_ != nullptr) ext_->add_top_level(doc);
  doc["num_steps"] = base["num_steps"];
  doc["completed"] = base["completed"];
  doc["families"] = std::move(registry);
  doc["steps"] = std::move(steps_);
  doc["records"] = std::move(records_);
  doc["snapshots"] = std::move(snapshots_);
  doc["final"] = recorder_.exposition();
  return doc;
}

}  // namespace

bool is_ext_input(std::string_view input_json) {
  const json doc = json::parse(input_json.begin(), input_json.end(), nullptr, false);
  return doc.is_object() && doc.contains("metrics");
}

ConformOutcome run_ext_conformance(std::string_view input_json) {
  ConformOutcome out;
  json doc = json::parse(input_json.begin(), input_json.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    out.diagnostics.push_back({"", "not valid JSON, or not an object"});
    return out;
  }
  MetricsInput m;
  decode_metrics(doc, m, out.diagnostics);
  std::unique_ptr<conform::ExtExtension> ext = conform::make_connector_extension(doc);
  if (ext != nullptr) ext->take_input(doc, m.step_seconds, out.diagnostics);
  doc.erase("metrics");
  // What remains is a base-format input: its reader decodes and checks it.
  conform::Case c;
  const std::string base_text = doc.dump();
  const bool base_ok =
      conform::decode_case(base_text, c, out.diagnostics,
                           ext != nullptr ? ext->request_keys() : std::vector<std::string>{});
  if (!base_ok || has_errors(out.diagnostics)) return out;
  if (ext != nullptr) {
    ext->configure(c, out.diagnostics);
    if (has_errors(out.diagnostics)) return out;
  }
  ExtDriver d(c, m, ext.get());
  out.trace_json = d.run().dump(1);
  out.ok = true;
  return out;
}

}  // namespace blis::vllm
