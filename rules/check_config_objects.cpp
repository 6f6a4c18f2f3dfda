// The validators of the config objects engine.args gives as dicts (EngineArgs.__post_init__
// builds them: vllm/engine/arg_utils.py:757-790, or create_engine_config passes them on),
// at vLLM 8d9b52f7: ECTransferConfig.__post_init__, StructuredOutputsConfig's and
// ProfilerConfig's model validators, MambaConfig.validate_ssu_algorithm, PoolerConfig.
// __post_init__ and AttentionConfig's backend_per_kind. The fields' own types and Literals are
// read with their rows (rules/packs/config_object_specs.cpp); a refused field is not checked
// again.

#include <string>

#include "rules/given_args.h"

namespace blis::rules::detail {

namespace {

using nlohmann::json;

std::string str_field(const Context& c, const char* obj, const char* field,
                      const std::string& def) {
  const json* v = given_field(c, obj, field);
  return v && v->is_string() ? v->get<std::string>() : def;
}

std::string field_ptr(const Context& c, const char* obj, const char* field) {
  return c.ptr(obj) + "/" + field;
}

// vllm/config/ec_transfer.py:82-93 ECTransferConfig.__post_init__: ec_connector needs ec_role
// (ECRole: ec_producer, ec_consumer, ec_both).
void check_ec_transfer(Context& c) {
  const json* role = given_field(c, "ec_transfer_config", "ec_role");
  const std::string where = cite(c, "ECTransferConfig.__post_init__");
  if (role && !(*role == "ec_producer" || *role == "ec_consumer" || *role == "ec_both")) {
    c.error(field_ptr(c, "ec_transfer_config", "ec_role"),
            show(*role) +
                ": Unsupported ec_role. Supported roles are ('ec_producer', 'ec_both', "
                "'ec_consumer')" +
                where);
  } else if (given_field(c, "ec_transfer_config", "ec_connector") && !role) {
    c.error(field_ptr(c, "ec_transfer_config", "ec_connector"),
            "Please specify ec_role when ec_connector is set, supported roles are "
            "('ec_producer', 'ec_both', 'ec_consumer')" +
                where);
  }
}

// vllm/config/structured_outputs.py:63 StructuredOutputsConfig._validate_structured_output_
// config: disable_any_whitespace needs the xgrammar or guidance backend,
// disable_additional_properties the guidance backend (the default "auto" is neither).
void check_structured_outputs(Context& c) {
  const char* obj = "structured_outputs_config";
  if (refused_at(c, c.ptr(obj))) return;
  const std::string backend = str_field(c, obj, "backend", "auto");
  const std::string where = cite(c, "StructuredOutputsConfig._validate_structured_output_config");
  if (is_true(given_field(c, obj, "disable_any_whitespace")) && backend != "xgrammar" &&
      backend != "guidance") {
    c.error(field_ptr(c, obj, "disable_any_whitespace"),
            "true: disable_any_whitespace is only supported for xgrammar and guidance backends "
            "(backend is \"" +
                backend + "\")" + where);
  } else if (is_true(given_field(c, obj, "disable_additional_properties")) &&
             backend != "guidance") {
    c.error(field_ptr(c, obj, "disable_additional_properties"),
            "true: disable_additional_properties is only supported for the guidance backend "
            "(backend is \"" +
                backend + "\")" + where);
  }
}

// vllm/config/profiler.py:145-163 ProfilerConfig._validate_profiler_config: torch_profiler_dir
// and capture_torch_profiler only with profiler "torch", which needs torch_profiler_dir.
void check_profiler(Context& c) {
  const char* obj = "profiler_config";
  if (refused_at(c, c.ptr(obj))) return;
  const std::string profiler = str_field(c, obj, "profiler", "");
  const std::string dir = str_field(c, obj, "torch_profiler_dir", "");
  const std::string where = cite(c, "ProfilerConfig._validate_profiler_config");
  if (!dir.empty() && profiler != "torch") {
    c.error(field_ptr(c, obj, "torch_profiler_dir"),
            "torch_profiler_dir is only applicable when profiler is set to 'torch'" + where);
  } else if (profiler == "torch" && dir.empty()) {
    c.error(field_ptr(c, obj, "profiler"),
            "\"torch\": torch_profiler_dir must be set when profiler is 'torch'" + where);
  } else if (is_true(given_field(c, obj, "capture_torch_profiler")) && profiler != "torch") {
    c.error(
        field_ptr(c, obj, "capture_torch_profiler"),
        "true: capture_torch_profiler is only applicable when profiler is set to 'torch'" + where);
  }
}

// vllm/config/mamba.py:66-82 MambaConfig.validate_ssu_algorithm: an SSU algorithm needs the
// FlashInfer backend. MambaConfig.__post_init__ checks mamba_config's own fields (EngineArgs.
// __post_init__); create_engine_config (arg_utils.py:2395-2409) then sets the backend from
// mamba_backend (default TRITON) and the algorithm from mamba_ssu_algorithm when given, and
// checks again.
void check_mamba_ssu(Context& c) {
  const std::string msg =
      ": Mamba SSU algorithm selection is only supported with the FlashInfer backend. Please "
      "set `--mamba-backend flashinfer`, or omit `--mamba-ssu-algorithm`.";
  const std::string obj_ptr = field_ptr(c, "mamba_config", "ssu_algorithm");
  const json* own = given_field(c, "mamba_config", "ssu_algorithm");
  if (own && !refused_at(c, c.ptr("mamba_config")) &&
      upper(str_field(c, "mamba_config", "backend", "TRITON")) != "FLASHINFER") {
    c.error(obj_ptr, show(*own) + msg + cite(c, "MambaConfig.__post_init__"));
    return;
  }
  const json* top = given(c, "mamba_ssu_algorithm");
  if (!top && !own) return;
  if (upper(text(c, "mamba_backend", "TRITON")) == "FLASHINFER") return;
  c.error(top ? c.ptr("mamba_ssu_algorithm") : obj_ptr,
          show(top ? *top : *own) + msg + " (mamba_backend sets the backend)" +
              cite(c, "EngineArgs.create_engine_config, MambaConfig.validate_ssu_algorithm"));
}

// vllm/config/pooler.py:131-145 PoolerConfig.__post_init__: logit_sigma 0, and pooling_type
// with seq_pooling_type or tok_pooling_type.
void check_pooler(Context& c) {
  const char* obj = "pooler_config";
  if (refused_at(c, c.ptr(obj))) return;
  const std::string where = cite(c, "PoolerConfig.__post_init__");
  if (const json* s = given_field(c, obj, "logit_sigma"); s && s->is_number() && *s == 0) {
    c.error(field_ptr(c, obj, "logit_sigma"),
            show(*s) + ": logit_sigma cannot be 0 (division by zero)" + where);
  }
  if (!given_field(c, obj, "pooling_type")) return;
  for (const char* other : {"seq_pooling_type", "tok_pooling_type"}) {
    if (!given_field(c, obj, other)) continue;
    c.error(field_ptr(c, obj, other),
            std::string("Cannot set both `pooling_type` and `") + other + "`" + where);
    return;
  }
}

// vllm/config/attention.py:160-175 AttentionConfig backend_per_kind: each key a
// KVCacheSpecKind value (vllm/v1/kv_cache_interface.py).
void check_backend_per_kind(Context& c) {
  const json* kinds = given_field(c, "attention_config", "backend_per_kind");
  if (!kinds || !kinds->is_object()) return;
  static const char* const kKinds[] = {"full_attention",
                                       "mla_attention",
                                       "sliding_window",
                                       "sliding_window_mla",
                                       "mamba",
                                       "chunked_local_attention",
                                       "sink_full_attention",
                                       "encoder_only_attention",
                                       "cross_attention",
                                       "unknown"};
  for (auto it = kinds->begin(); it != kinds->end(); ++it) {
    bool ok = false;
    for (const char* k : kKinds) ok = ok || it.key() == k;
    if (ok) continue;
    c.error(field_ptr(c, "attention_config", "backend_per_kind") + "/" + it.key(),
            "Unknown KV cache group kind '" + it.key() +
                "' in backend_per_kind. Valid kinds are: chunked_local_attention, "
                "cross_attention, encoder_only_attention, full_attention, mamba, "
                "mla_attention, sink_full_attention, sliding_window, sliding_window_mla, "
                "unknown." +
                cite(c, "AttentionConfig"));
    return;
  }
}

}  // namespace

void check_config_objects(Context& c) {
  check_ec_transfer(c);
  check_structured_outputs(c);
  check_profiler(c);
  check_mamba_ssu(c);
  check_pooler(c);
  check_backend_per_kind(c);
}

}  // namespace blis::rules::detail
