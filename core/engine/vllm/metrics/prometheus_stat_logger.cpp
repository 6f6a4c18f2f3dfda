#include "engine/vllm/metrics/prometheus_stat_logger.h"

#include <algorithm>
#include <cstring>

#include "engine/vllm/metrics/buckets.h"

namespace blis::vllm::metrics {
namespace {

std::vector<double> bounds_for(const FamilySpec& spec, std::int64_t max_model_len) {
  switch (spec.buckets) {
    case BucketSet::kNone:
      return {};
    case BucketSet::kRequestLatency:
      return request_latency_buckets();
    case BucketSet::kTimeToFirstToken:
      return time_to_first_token_buckets();
    case BucketSet::kInterTokenLatency:
      return inter_token_latency_buckets();
    case BucketSet::kIterationTokens:
      return iteration_tokens_buckets();
    case BucketSet::kRequestParamsN:
      return request_params_n_buckets();
    case BucketSet::kRequestTokens:
      return build_1_2_5_buckets(max_model_len);
    case BucketSet::kFixed:
      return spec.fixed_buckets;
  }
  return {};
}

void sort_labels(LabelList& labels) {
  std::sort(labels.begin(), labels.end(),
            [](const Label& a, const Label& b) { return a.first < b.first; });
}

// The series' labels plus the scrape's extra labels. Extra model_name and engine labels
// replace the series' values and are not added to series without them
// (vllm:cache_config_info has no model_name, vllm:lora_requests_info neither).
void merge_labels(LabelList& out, const LabelList& series, const LabelList& extra) {
  out = series;
  for (const Label& e : extra) {
    const bool replaces = e.first == "model_name" || e.first == "engine";
    bool found = false;
    for (Label& l : out) {
      if (l.first == e.first) {
        l.second = e.second;
        found = true;
      }
    }
    if (!found && !replaces) out.push_back(e);
  }
}

const char* type_name(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

}  // namespace

PrometheusStatLogger::PrometheusStatLogger(PrometheusConfig config) : config_(std::move(config)) {
  const std::string engine = std::to_string(config_.engine_index);
  for (const FamilySpec& spec : family_table()) {
    if (!release_has(config_.release, spec)) continue;
    if (spec.condition == FamilyCondition::kSpecDecode && config_.num_speculative_tokens <= 0)
      continue;
    if (spec.condition == FamilyCondition::kLoRA && !config_.lora_enabled) continue;
    if (spec.condition == FamilyCondition::kCacheConfigInfo && !config_.register_cache_config_info)
      continue;
    if (spec.condition == FamilyCondition::kNixl && config_.connector != ConnectorMetrics::kNixl)
      continue;
    if (spec.condition == FamilyCondition::kOffloading &&
        config_.connector != ConnectorMetrics::kOffloading)
      continue;
    if (spec.condition == FamilyCondition::kOffloadingStoreThreshold &&
        (config_.connector != ConnectorMetrics::kOffloading || !config_.offload_store_threshold))
      continue;
    Family family;
    family.spec = &spec;
    family.bounds = bounds_for(spec, config_.max_model_len);
    const LabelList base = {{"model_name", config_.model_name}, {"engine", engine}};
    auto add_series = [&](LabelList labels, std::string own) {
      Series s;
      sort_labels(labels);
      s.labels = std::move(labels);
      s.own_label_value = std::move(own);
      if (spec.type == MetricType::kHistogram) s.bucket_counts.assign(family.bounds.size() + 1, 0);
      family.series.push_back(std::move(s));
    };
    if (spec.condition == FamilyCondition::kCacheConfigInfo) {
      // loggers.py log_metrics_info: every CacheConfig field plus "engine"; no model_name.
      LabelList labels = config_.cache_config_info;
      labels.emplace_back("engine", engine);
      add_series(std::move(labels), "");
      family.series.back().value = 1;  // an info metric is a gauge fixed at 1
    } else if (spec.condition == FamilyCondition::kLoRA || spec.children_on_first_use) {
      // Children appear as label combinations are set (record_lora_info, record_connector).
    } else if (std::strcmp(spec.label, "position") == 0) {
      for (std::int32_t pos = 0; pos < config_.num_speculative_tokens; ++pos) {
        LabelList labels = base;
        labels.emplace_back("position", std::to_string(pos));
        add_series(std::move(labels), std::to_string(pos));
      }
    } else if (spec.label[0] != '\0') {
      for (const char* v : spec.label_values) {
        LabelList labels = base;
        labels.emplace_back(spec.label, v);
        add_series(std::move(labels), v);
      }
    } else {
      add_series(base, "");
    }
    families_.push_back(std::move(family));
  }

  spec_drafts_ = register_family("vllm:spec_decode_num_drafts");
  spec_draft_tokens_ = register_family("vllm:spec_decode_num_draft_tokens");
  spec_accepted_ = register_family("vllm:spec_decode_num_accepted_tokens");
  spec_accepted_per_pos_ = register_family("vllm:spec_decode_num_accepted_tokens_per_pos");
  running_ = register_family("vllm:num_requests_running");
  waiting_ = register_family("vllm:num_requests_waiting");
  waiting_by_reason_ = register_family("vllm:num_requests_waiting_by_reason");
  sleep_state_ = register_family("vllm:engine_sleep_state");
  kv_usage_ = register_family("vllm:kv_cache_usage_perc");
  prefix_queries_ = register_family("vllm:prefix_cache_queries");
  prefix_hits_ = register_family("vllm:prefix_cache_hits");
  external_queries_ = register_family("vllm:external_prefix_cache_queries");
  external_hits_ = register_family("vllm:external_prefix_cache_hits");
  mm_queries_ = register_family("vllm:mm_cache_queries");
  mm_hits_ = register_family("vllm:mm_cache_hits");
  preemptions_ = register_family("vllm:num_preemptions");
  prompt_tokens_ = register_family("vllm:prompt_tokens");
  prompt_by_source_ = register_family("vllm:prompt_tokens_by_source");
  prompt_cached_ = register_family("vllm:prompt_tokens_cached");
  generation_tokens_ = register_family("vllm:generation_tokens");
  request_success_ = register_family("vllm:request_success");
  h_prompt_tokens_ = register_family("vllm:request_prompt_tokens");
  h_generation_tokens_ = register_family("vllm:request_generation_tokens");
  h_iteration_tokens_ = register_family("vllm:iteration_tokens_total");
  h_max_generation_tokens_ = register_family("vllm:request_max_num_generation_tokens");
  h_params_n_ = register_family("vllm:request_params_n");
  h_params_max_tokens_ = register_family("vllm:request_params_max_tokens");
  h_ttft_ = register_family("vllm:time_to_first_token_seconds");
  h_itl_ = register_family("vllm:inter_token_latency_seconds");
  h_tpot_ = register_family("vllm:request_time_per_output_token_seconds");
  h_e2e_ = register_family("vllm:e2e_request_latency_seconds");
  h_queue_ = register_family("vllm:request_queue_time_seconds");
  h_inference_ = register_family("vllm:request_inference_time_seconds");
  h_prefill_ = register_family("vllm:request_prefill_time_seconds");
  h_decode_ = register_family("vllm:request_decode_time_seconds");
  h_prefill_kv_computed_ = register_family("vllm:request_prefill_kv_computed_tokens");
  lora_info_ = register_family("vllm:lora_requests_info");
  cache_config_info_ = register_family("vllm:cache_config_info");

  // loggers.py record_sleep_state(): set at construction to awake = 1, the others 0; the
  // simulated engine never sleeps.
  set(sleep_state_, 0, 1);
}

std::size_t PrometheusStatLogger::register_family(const char* name) {
  for (std::size_t i = 0; i < families_.size(); ++i) {
    if (std::strcmp(families_[i].spec->name, name) == 0) return i;
  }
  return kAbsent;
}

void PrometheusStatLogger::set(std::size_t family, std::size_t series, double v) {
  if (family == kAbsent) return;
  families_[family].series[series].value = v;
}

void PrometheusStatLogger::inc(std::size_t family, std::size_t series, double v) {
  if (family == kAbsent) return;
  families_[family].series[series].value += v;
}

// prometheus_client Histogram.observe: the first bucket whose bound is >= the value (the
// +Inf bucket last), count + 1, sum + value.
void PrometheusStatLogger::observe_at(std::size_t family, std::size_t series, double v) {
  if (family == kAbsent) return;
  Family& f = families_[family];
  Series& s = f.series[series];
  std::size_t i = 0;
  while (i < f.bounds.size() && !(v <= f.bounds[i])) ++i;
  ++s.bucket_counts[i];
  ++s.count;
  s.sum += v;
}

// loggers.py PrometheusStatLogger.record, in its order: scheduler gauges and cache counters,
// spec decode, then the iteration counters, the per-iteration histograms and the
// finished-request histograms.
void PrometheusStatLogger::record(const SchedulerStats* s, const IterationStats* it) {
  if (s != nullptr) {
    set(running_, 0, s->num_running_reqs);
    // The waiting gauge counts both the waiting queue and the deferred (skipped) requests;
    // the by-reason gauge splits them, so its series sum to the total.
    set(waiting_, 0, static_cast<double>(s->num_waiting_reqs) + s->num_skipped_waiting_reqs);
    set(waiting_by_reason_, 0, s->num_waiting_reqs);
    set(waiting_by_reason_, 1, s->num_skipped_waiting_reqs);
    set(kv_usage_, 0, s->kv_cache_usage);
    // Only requests that were not preempted before count (PrefixCacheStats.queries/hits).
    inc(prefix_queries_, 0, static_cast<double>(s->prefix_cache_stats.queries));
    inc(prefix_hits_, 0, static_cast<double>(s->prefix_cache_stats.hits));
    if (s->has_connector_prefix_cache_stats) {
      inc(external_queries_, 0, static_cast<double>(s->connector_prefix_cache_stats.queries));
      inc(external_hits_, 0, static_cast<double>(s->connector_prefix_cache_stats.hits));
    }
    if (!s->kv_connector_stats.empty()) record_connector(s->kv_connector_stats);
    if (s->has_spec_decoding_stats && spec_drafts_ != kAbsent) {
      // spec_decode/metrics.py SpecDecodingProm.observe.
      const SpecDecodingStats& sd = s->spec_decoding_stats;
      inc(spec_drafts_, 0, static_cast<double>(sd.num_drafts));
      inc(spec_draft_tokens_, 0, static_cast<double>(sd.num_draft_tokens));
      inc(spec_accepted_, 0, static_cast<double>(sd.num_accepted_tokens));
      const std::size_t positions = families_[spec_accepted_per_pos_].series.size();
      for (std::size_t pos = 0; pos < positions && pos < sd.num_accepted_tokens_per_pos.size();
           ++pos)
        inc(spec_accepted_per_pos_, pos, static_cast<double>(sd.num_accepted_tokens_per_pos[pos]));
    }
  }
  if (it == nullptr) return;
  inc(preemptions_, 0, static_cast<double>(it->num_preempted_reqs));
  const PromptTokenStats& pts = it->prompt_token_stats;
  inc(prompt_tokens_, 0, static_cast<double>(it->num_prompt_tokens()));
  inc(prompt_by_source_, 0, static_cast<double>(pts.computed));
  inc(prompt_by_source_, 1, static_cast<double>(pts.local_cache_hit));
  inc(prompt_by_source_, 2, static_cast<double>(pts.external_kv_transfer));
  inc(prompt_cached_, 0, static_cast<double>(pts.cached_tokens));
  inc(generation_tokens_, 0, static_cast<double>(it->num_generation_tokens));
  // One observation per batch: the computed prompt tokens of the requests that got their first
  // output (cached and transferred tokens left out) plus the generated tokens.
  observe(h_iteration_tokens_, static_cast<double>(pts.computed + it->num_generation_tokens));
  for (std::int32_t v : it->max_num_generation_tokens_iter) observe(h_max_generation_tokens_, v);
  for (std::int32_t v : it->n_params_iter) observe(h_params_n_, v);
  for (double v : it->time_to_first_tokens_iter) observe(h_ttft_, v);
  for (double v : it->inter_token_latencies_iter) observe(h_itl_, v);

  for (const FinishedRequestStats& f : it->finished_requests) {
    if (f.finish_reason != FinishReason::kNone)
      inc(request_success_, static_cast<std::size_t>(f.finish_reason), 1);
    observe(h_e2e_, f.e2e_latency);
    // Every finished request observes every interval, computed from the raw timestamps.
    observe(h_queue_, f.queued_time);
    observe(h_prefill_, f.prefill_time);
    observe(h_inference_, f.inference_time);
    observe(h_decode_, f.decode_time);
    observe(h_prefill_kv_computed_,
            static_cast<double>(f.num_prompt_tokens - std::max(f.num_cached_tokens, 0)));
    observe(h_prompt_tokens_, f.num_prompt_tokens);
    observe(h_generation_tokens_, f.num_generation_tokens);
    observe(h_tpot_, f.mean_time_per_output_token);
    // Only when max_tokens was set (a falsy max_tokens_param is skipped).
    if (f.max_tokens_param != 0) observe(h_params_max_tokens_, f.max_tokens_param);
  }
}

std::size_t PrometheusStatLogger::base_child(std::size_t family) {
  Family& f = families_[family];
  if (f.series.empty()) {
    Series s;
    s.labels = {{"model_name", config_.model_name},
                {"engine", std::to_string(config_.engine_index)}};
    sort_labels(s.labels);
    if (f.spec->type == MetricType::kHistogram) s.bucket_counts.assign(f.bounds.size() + 1, 0);
    f.series.push_back(std::move(s));
  }
  return 0;
}

// KVConnectorProm.observe -> NixlPromMetrics.observe (histogram observations and counter
// increments of NixlKVConnectorStats.data) or OffloadPromMetrics.observe (counters, gauges and
// histograms of the flat payload; a CPU spec also keeps the deprecated transfer_type families
// in step: load -> CPU_to_GPU, store -> GPU_to_CPU).
void PrometheusStatLogger::record_connector(const KVConnectorStats& stats) {
  for (const KVConnectorStats::Entry& e : stats.entries()) {
    std::size_t f = kAbsent;
    for (std::size_t i = 0; i < families_.size(); ++i) {
      if (e.family == families_[i].spec->name) f = i;
    }
    if (f == kAbsent || families_[f].spec->label[0] != '\0') continue;
    const MetricType type = families_[f].spec->type;
    const std::size_t child = base_child(f);
    switch (e.kind) {
      case KVConnectorStats::Kind::kCounter:
        if (type == MetricType::kCounter) inc(f, child, e.value);
        break;
      case KVConnectorStats::Kind::kGauge:
        if (type == MetricType::kGauge) set(f, child, e.value);
        break;
      case KVConnectorStats::Kind::kHistogram:
        if (type == MetricType::kHistogram) observe_at(f, child, e.value);
        break;
    }
    if (config_.connector != ConnectorMetrics::kOffloading) continue;
    // offloading/metrics.py _increase_counter / _observe_histogram: the deprecated families'
    // children are CPU_to_GPU (0) and GPU_to_CPU (1).
    struct Mirror {
      const char* flat;
      const char* deprecated;
      std::size_t child;
    };
    static const Mirror kMirrors[] = {
        {"vllm:kv_offload_load_bytes", "vllm:kv_offload_total_bytes", 0},
        {"vllm:kv_offload_load_time", "vllm:kv_offload_total_time", 0},
        {"vllm:kv_offload_store_bytes", "vllm:kv_offload_total_bytes", 1},
        {"vllm:kv_offload_store_time", "vllm:kv_offload_total_time", 1},
        {"vllm:kv_offload_load_size", "vllm:kv_offload_size", 0},
        {"vllm:kv_offload_store_size", "vllm:kv_offload_size", 1},
    };
    for (const Mirror& m : kMirrors) {
      if (e.family != m.flat) continue;
      const std::size_t d = register_family(m.deprecated);
      if (d == kAbsent) continue;
      if (families_[d].spec->type == MetricType::kHistogram) {
        observe_at(d, m.child, e.value);
      } else {
        inc(d, m.child, e.value);
      }
    }
  }
}

void PrometheusStatLogger::record_lora_info(std::string_view adapters, SimTime now) {
  if (lora_info_ == kAbsent) return;
  Family& f = families_[lora_info_];
  for (Series& s : f.series) {
    if (s.own_label_value == adapters) {
      s.value = to_seconds(now);
      return;
    }
  }
  // loggers.py: running_lora_adapters and waiting_lora_adapters are both joined from the
  // keys of LoRARequestStates.requests (every adapter with a waiting or running request).
  Series s;
  s.labels = {{"max_lora", std::to_string(config_.max_loras)},
              {"running_lora_adapters", std::string(adapters)},
              {"waiting_lora_adapters", std::string(adapters)}};
  s.own_label_value = std::string(adapters);
  s.value = to_seconds(now);
  f.series.push_back(std::move(s));
}

const PrometheusStatLogger::Family* PrometheusStatLogger::find(std::string_view name) const {
  for (const Family& f : families_) {
    if (name == f.spec->name) return &f;
  }
  return nullptr;
}

bool PrometheusStatLogger::has_family(std::string_view name) const {
  return find(name) != nullptr;
}

std::optional<double> PrometheusStatLogger::value(std::string_view family,
                                                  std::string_view label_value) const {
  const Family* f = find(family);
  if (f == nullptr || f->spec->type == MetricType::kHistogram) return std::nullopt;
  for (const Series& s : f->series) {
    if (s.own_label_value == label_value) return s.value;
  }
  return std::nullopt;
}

std::optional<PrometheusStatLogger::HistogramView> PrometheusStatLogger::histogram(
    std::string_view family) const {
  const Family* f = find(family);
  if (f == nullptr || f->spec->type != MetricType::kHistogram) return std::nullopt;
  const Series& s = f->series[0];
  return HistogramView{&f->bounds, &s.bucket_counts, s.count, s.sum};
}

std::vector<PrometheusStatLogger::FamilyInfo> PrometheusStatLogger::describe() const {
  std::vector<FamilyInfo> out;
  for (const Family& f : families_) {
    FamilyInfo info;
    info.name = f.spec->name;
    info.type = type_name(f.spec->type);
    info.help = f.spec->help;
    info.bounds = f.spec->type == MetricType::kHistogram ? &f.bounds : nullptr;
    if (f.spec->condition == FamilyCondition::kCacheConfigInfo) {
      for (const Label& l : config_.cache_config_info) info.labelnames.push_back(l.first);
      info.labelnames.push_back("engine");
    } else if (f.spec->condition == FamilyCondition::kLoRA) {
      info.labelnames = {"max_lora", "waiting_lora_adapters", "running_lora_adapters"};
    } else {
      info.labelnames = {"model_name", "engine"};
      if (f.spec->label[0] != '\0') info.labelnames.push_back(f.spec->label);
    }
    for (const Series& s : f.series) {
      std::vector<std::string> values;
      for (const std::string& name : info.labelnames) {
        std::string v;
        for (const Label& l : s.labels) {
          if (l.first == name) v = l.second;
        }
        values.push_back(std::move(v));
      }
      info.series.push_back(std::move(values));
    }
    out.push_back(std::move(info));
  }
  return out;
}

bool PrometheusStatLogger::uses_label_name(std::string_view name) const {
  if (name == "le") return true;
  for (const Family& f : families_) {
    for (const Series& s : f.series) {
      for (const Label& l : s.labels) {
        if (l.first == name) return true;
      }
    }
  }
  // LoRA children may not exist yet.
  return lora_info_ != kAbsent &&
         (name == "max_lora" || name == "running_lora_adapters" || name == "waiting_lora_adapters");
}

// exposition.py generate_latest: "# HELP" and "# TYPE" per family (counters renamed with
// "_total"), then each child's samples in creation order: the value, or for a histogram the
// cumulative buckets (+Inf last), _count and _sum; labels sorted by name; numbers through
// floatToGoString. The *_created samples go into a gauge family written after the family.
void PrometheusStatLogger::write(std::string& out, const ExpositionOptions& options) const {
  LabelList labels;
  for (const Family& f : families_) {
    const std::string name = f.spec->name;
    const MetricType type = f.spec->type;
    const std::string exposed = type == MetricType::kCounter ? name + "_total" : name;
    out += "# HELP ";
    out += exposed;
    out.push_back(' ');
    append_escaped_help(out, f.spec->help);
    out += "\n# TYPE ";
    out += exposed;
    out.push_back(' ');
    out += type_name(type);
    out.push_back('\n');
    for (const Series& s : f.series) {
      if (type != MetricType::kHistogram) {
        merge_labels(labels, s.labels, options.extra_labels);
        out += exposed;
        append_sorted_labels(out, labels);
        out.push_back(' ');
        out += format_go_float(s.value);
        out.push_back('\n');
        continue;
      }
      std::uint64_t acc = 0;
      for (std::size_t i = 0; i <= f.bounds.size(); ++i) {
        acc += s.bucket_counts[i];
        merge_labels(labels, s.labels, options.extra_labels);
        labels.emplace_back("le", i < f.bounds.size() ? format_go_float(f.bounds[i]) : "+Inf");
        out += name;
        out += "_bucket";
        append_sorted_labels(out, labels);
        out.push_back(' ');
        out += format_go_float(static_cast<double>(acc));
        out.push_back('\n');
      }
      merge_labels(labels, s.labels, options.extra_labels);
      out += name;
      out += "_count";
      append_sorted_labels(out, labels);
      out.push_back(' ');
      out += format_go_float(static_cast<double>(s.count));
      out.push_back('\n');
      out += name;
      out += "_sum";
      append_sorted_labels(out, labels);
      out.push_back(' ');
      out += format_go_float(s.sum);
      out.push_back('\n');
    }
    if (options.include_created && type != MetricType::kGauge && !f.series.empty()) {
      const std::string created = name + "_created";
      out += "# HELP " + created + " ";
      append_escaped_help(out, f.spec->help);
      out += "\n# TYPE " + created + " gauge\n";
      for (const Series& s : f.series) {
        merge_labels(labels, s.labels, options.extra_labels);
        out += created;
        append_sorted_labels(out, labels);
        out.push_back(' ');
        out += format_go_float(to_seconds(config_.created_at));
        out.push_back('\n');
      }
    }
  }
}

}  // namespace blis::vllm::metrics
