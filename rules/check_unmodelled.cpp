// The cross-field checks of the keys BLIS Playground reads but does not model
// (rules/packs/more_arg_specs*.cpp, config_object_specs.cpp): what vLLM 8d9b52f7 refuses when
// it builds ParallelConfig, OffloadConfig, MultiModalConfig and ObservabilityConfig from them
// (vllm/engine/arg_utils.py EngineArgs.create_engine_config, vllm/config/parallel.py
// ParallelConfig's validators and __post_init__, EPLBConfig._validate_eplb_config,
// vllm/config/offload.py OffloadConfig.validate_offload_config, vllm/config/multimodal.py
// MultiModalConfig._validate_multimodal_config, vllm/config/observability.py
// ObservabilityConfig._validate_tracing_config). A key whose own reading was refused is not
// checked again. The sizes tp, pp and dp are the pool's parallelism.

#include <cctype>
#include <set>
#include <string>

#include "rules/given_args.h"

namespace blis::rules::detail {

namespace {

using nlohmann::json;

std::string num(std::int64_t v) {
  return std::to_string(v);
}

// vllm/config/parallel.py ParallelConfig._validate_numa_bind_cpus: numactl CPU-list syntax,
// ^\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*$, each range ascending. "" when accepted, else the reason.
std::string cpuset_problem(const std::string& s) {
  if (s.empty()) return "numa_bind_cpus entries must not be empty.";
  std::size_t i = 0;
  const auto digits = [&](std::int64_t& out) {
    const std::size_t b = i;
    out = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      if (out < 1000000000) out = out * 10 + (s[i] - '0');
      ++i;
    }
    return i > b;
  };
  const std::string syntax =
      "numa_bind_cpus entries must use numactl CPU list syntax, for example '0-3' or '0,2,4-7'.";
  bool descending = false;
  while (true) {
    std::int64_t lo = 0, hi = 0;
    if (!digits(lo)) return syntax;
    if (i < s.size() && s[i] == '-') {
      ++i;
      if (!digits(hi)) return syntax;
      if (lo > hi) descending = true;
    }
    if (i == s.size()) break;
    if (s[i] != ',') return syntax;
    ++i;
  }
  if (descending) return "numa_bind_cpus ranges must be ascending, but got '" + s + "'.";
  return "";
}

// ParallelConfig's field validators and the NUMA rule of _validate_parallel_config.
void check_numa(Context& c) {
  const std::string where = "ParallelConfig._validate_numa_bind_nodes";
  if (const json* v = given(c, "numa_bind_nodes"); v && v->empty()) {
    c.error(c.ptr("numa_bind_nodes"), "[]: numa_bind_nodes must not be empty." + cite(c, where));
  }
  if (const json* v = given(c, "numa_bind_cpus")) {
    if (v->empty()) {
      c.error(c.ptr("numa_bind_cpus"), "[]: numa_bind_cpus must not be empty." +
                                           cite(c, "ParallelConfig._validate_numa_bind_cpus"));
    }
    for (std::size_t i = 0; i < v->size(); ++i) {
      const std::string why = cpuset_problem((*v)[i].get<std::string>());
      if (why.empty()) continue;
      c.error(json_pointer_append(c.ptr("numa_bind_cpus"), i),
              show((*v)[i]) + ": " + why + cite(c, "ParallelConfig._validate_numa_bind_cpus"));
      break;
    }
  }
  if (flag(c, "numa_bind")) return;
  for (const char* key : {"numa_bind_nodes", "numa_bind_cpus"}) {
    if (!given(c, key) || refused_at(c, c.ptr(key))) continue;
    c.error(c.ptr(key), std::string(key) +
                            " without numa_bind: true: numa_bind_nodes and numa_bind_cpus "
                            "require numa_bind=True." +
                            cite(c, "ParallelConfig._validate_parallel_config"));
  }
}

// vllm/engine/arg_utils.py EngineArgs._resolve_device_ids.
void check_device_ids(Context& c) {
  const json* v = given(c, "device_ids");
  if (!v || v->empty()) return;  // an empty list is None
  std::set<std::string> seen;
  bool strings = false, ints = false;
  for (const auto& e : *v) {
    (e.is_string() ? strings : ints) = true;
    if (!seen.insert(e.dump()).second) {
      c.error(c.ptr("device_ids"), show(*v) + ": --device-ids must not contain duplicates" +
                                       cite(c, "EngineArgs._resolve_device_ids"));
      return;
    }
  }
  if (strings && ints) {
    c.error(c.ptr("device_ids"), show(*v) + ": --device-ids must not mix integer IDs and UUIDs" +
                                     cite(c, "EngineArgs._resolve_device_ids"));
  }
}

// The pointer of the first of `keys` that is given, else of the last.
std::string first_given(const Context& c, std::initializer_list<const char*> keys) {
  const char* last = "";
  for (const char* k : keys) {
    if (given(c, k)) return c.ptr(k);
    last = k;
  }
  return c.ptr(last);
}

struct DpLaunch {
  bool external = false;  // data_parallel_external_lb as ParallelConfig receives it
  bool hybrid = false;
  std::int64_t size_local = 0;
  std::int64_t rank = 0;
  std::string external_ptr;  // what made it external
};

// vllm/engine/arg_utils.py EngineArgs.create_engine_config: the data-parallel launch options.
DpLaunch check_dp_launch(Context& c) {
  const auto& f = c.facts;
  const std::string where = "EngineArgs.create_engine_config";
  DpLaunch d;
  d.hybrid = flag(c, "data_parallel_hybrid_lb");
  const bool external_flag = flag(c, "data_parallel_external_lb");
  if (d.hybrid && external_flag) {
    c.error(c.ptr("data_parallel_hybrid_lb"),
            "true: invalid data-parallel launch options: data_parallel_hybrid_lb and "
            "data_parallel_external_lb cannot be enabled together. Enable only one "
            "load-balancing mode." +
                cite(c, where));
  }
  const std::int64_t nnodes = int_arg(c, "nnodes").value_or(1);
  auto rank = int_arg(c, "data_parallel_rank");
  auto size_local = int_arg(c, "data_parallel_size_local");
  if (nnodes > 1) {
    const std::string backend = text(c, "data_parallel_backend", "mp");
    const std::int64_t world = static_cast<std::int64_t>(f.dp) * f.pp * f.tp;
    if (backend != "mp") {
      c.error(c.ptr("nnodes"), num(nnodes) +
                                   ": nnodes > 1 requires data_parallel_backend \"mp\"; "
                                   "got \"" +
                                   backend + "\"" + cite(c, where));
    } else if (world % nnodes != 0) {
      c.error(c.ptr("nnodes"), num(nnodes) + ": nnodes must evenly divide the total world size (" +
                                   num(world) + " = dp x pp x tp)" + cite(c, where));
    } else if (const std::int64_t nr = int_arg(c, "node_rank").value_or(0); nr >= nnodes) {
      c.error(c.ptr("node_rank"),
              num(nr) + ": node_rank must be between 0 and " + num(nnodes - 1) + cite(c, where));
    } else {
      const std::int64_t local_world = world / nnodes;
      const std::int64_t within_dp = static_cast<std::int64_t>(f.pp) * f.tp;
      const std::int64_t inferred = nr * local_world / within_dp;
      if (f.dp > 1 && external_flag) {
        rank = inferred;
      } else if (!size_local) {
        size_local = std::max<std::int64_t>(local_world / within_dp, 1);
      }
    }
  }
  d.external = external_flag || rank.has_value();
  d.external_ptr = first_given(c, {"data_parallel_external_lb", "data_parallel_rank"});
  if ((flag(c, "enable_fault_tolerance") || given(c, "fault_tolerance_config")) && !d.external) {
    c.error(first_given(c, {"enable_fault_tolerance", "fault_tolerance_config"}),
            "fault tolerance requires external load balancer mode (data_parallel_external_lb or "
            "data_parallel_rank). Internal LB mode is not supported." +
                cite(c, where));
  }
  if (f.dp > 1 && d.external && f.model.known && !f.model.is_moe) {
    c.error(d.external_ptr,
            "non-MoE models do not support external data parallel mode. For external load "
            "balancing, launch independent vLLM instances without data_parallel_* arguments." +
                cite(c, where));
  }
  if (d.external) {
    if (!rank) {
      c.error(c.ptr("data_parallel_external_lb"),
              "true: data_parallel_external_lb requires a data-parallel rank: set "
              "data_parallel_rank (or nnodes > 1 with node_rank on dp > 1)" +
                  cite(c, where));
    }
    if (size_local && *size_local != 1) {
      c.error(c.ptr("data_parallel_size_local"),
              num(*size_local) +
                  ": an external data-parallel rank requires data_parallel_size_local 1" +
                  cite(c, where));
    }
    d.size_local = 1;
    d.hybrid = false;
    d.rank = rank.value_or(0);
    return d;
  }
  if (size_local) {
    d.size_local = *size_local;
    const std::int64_t start = int_arg(c, "data_parallel_start_rank").value_or(0);
    if (start != 0) d.hybrid = true;
    if (d.hybrid && d.size_local == 1) {
      c.warning(c.ptr("data_parallel_hybrid_lb"),
                "data_parallel_hybrid_lb is not eligible when data_parallel_size_local = 1: " +
                    c.vllm() + " switches to data_parallel_external_lb");
      d.external = true;
      d.external_ptr = c.ptr("data_parallel_hybrid_lb");
      d.hybrid = false;
    }
    if (d.size_local == f.dp) d.hybrid = false;
    d.rank = start;
    return d;
  }
  if (d.hybrid) {
    c.error(c.ptr("data_parallel_hybrid_lb"),
            "true: data_parallel_hybrid_lb requires data_parallel_size_local (the number of "
            "data-parallel ranks on this node)" +
                cite(c, where));
  }
  d.size_local = f.dp;
  return d;
}

// vllm/config/parallel.py ParallelConfig._validate_parallel_config and __post_init__ on the
// data-parallel options as create_engine_config passes them.
void check_dp_config(Context& c, const DpLaunch& d) {
  const std::int64_t dp = c.facts.dp;
  const std::string where = "ParallelConfig._validate_parallel_config";
  if (d.size_local > dp) {
    c.error(c.ptr("data_parallel_size_local"),
            num(d.size_local) + ": data_parallel_size_local (" + num(d.size_local) +
                ") must be <= data_parallel_size (" + num(dp) + ")" + cite(c, where));
  }
  if (dp <= 1 && d.external) {
    c.error(d.external_ptr,
            "data_parallel_external_lb can only be set when data_parallel_size > 1 (the pool's "
            "parallelism.dp is " +
                num(dp) + "; data_parallel_rank also selects it)" + cite(c, where));
    return;
  }
  if ((dp > 1 || d.size_local == 0) && (d.rank < 0 || d.rank >= dp)) {
    c.error(first_given(c, {"data_parallel_rank", "data_parallel_start_rank"}),
            num(d.rank) + ": data_parallel_rank (" + num(d.rank) + ") must be in the range [0, " +
                num(dp) + ")" + cite(c, "ParallelConfig.__post_init__"));
  }
}

// EPLB, elastic EP and context parallelism (ParallelConfig._validate_parallel_config,
// __post_init__; EPLBConfig._validate_eplb_config).
void check_eplb_and_cp(Context& c, const DpLaunch& d) {
  const auto& f = c.facts;
  const std::string where = "ParallelConfig._validate_parallel_config";
  const bool eplb = flag(c, "enable_eplb");
  const std::int64_t pcp = int_arg(c, "prefill_context_parallel_size").value_or(1);
  const std::int64_t dcp = int_arg(c, "decode_context_parallel_size").value_or(1);
  const json* cfg = given(c, "eplb_config");
  const auto field = [&](const char* k) -> const json* {
    if (!cfg || !cfg->is_object() || !cfg->contains(k) || (*cfg)[k].is_null()) return nullptr;
    return &(*cfg)[k];
  };
  if (eplb && !c.args.enable_expert_parallel) {
    c.error(c.ptr("enable_eplb"),
            "true: enable_expert_parallel must be True to use EPLB." + cite(c, where));
  } else if (eplb && f.tp * pcp * f.dp <= 1) {
    c.error(c.ptr("enable_eplb"),
            "true: EPLB requires tensor, prefill-context, or data parallelism, but got TP=" +
                num(f.tp) + ", PCP=" + num(pcp) + ", DP=" + num(f.dp) + "." + cite(c, where));
  }
  const json* redundant = field("num_redundant_experts");
  if (!eplb && redundant && whole(*redundant).value_or(0) != 0) {
    c.error(c.ptr("eplb_config") + "/num_redundant_experts",
            show(*redundant) +
                ": num_redundant_experts is set but EPLB is not enabled. Either "
                "enable EPLB or unset num_redundant_experts." +
                cite(c, where));
  }
  const json* use_async = field("use_async");
  const json* comm = field("communicator");
  const bool async = !use_async || pydantic_bool(*use_async) == std::optional<bool>(true);
  if (async && comm && comm->is_string() &&
      (comm->get<std::string>() == "torch_nccl" || comm->get<std::string>() == "pynccl")) {
    c.error(c.ptr("eplb_config") + "/communicator",
            show(*comm) + ": " + comm->get<std::string>() +
                " communicator is incompatible with async EPLB due to NCCL multi-stream "
                "conflicts. Use 'torch_gloo' or 'nixl' instead, or leave communicator unset "
                "for automatic selection (or set use_async: false)." +
                cite(c, "EPLBConfig._validate_eplb_config"));
  }
  if (flag(c, "enable_elastic_ep")) {
    const std::string ep = c.ptr("enable_elastic_ep");
    if (!eplb) {
      c.error(ep, "true: Elastic EP is only supported with enable_eplb=True." +
                      cite(c, "ParallelConfig.__post_init__"));
    } else if (f.pp > 1) {
      c.error(ep,
              "true: Elastic EP is not supported with pipeline parallelism "
              "(pipeline_parallel_size=" +
                  num(f.pp) + ")." + cite(c, "ParallelConfig.__post_init__"));
    } else if (d.external || d.hybrid) {
      c.error(ep,
              "true: Elastic EP is not compatible with data_parallel_external_lb or "
              "data_parallel_hybrid_lb." +
                  cite(c, "ParallelConfig.__post_init__"));
    }
  }
  if (pcp > 1 && f.dp > 1) {
    c.error(c.ptr("prefill_context_parallel_size"),
            num(pcp) + ": PCP does not support data parallelism yet." + cite(c, where));
  } else if (pcp == 1 && f.tp % dcp != 0) {
    c.error(c.ptr("decode_context_parallel_size"),
            num(dcp) + ": tp_size=" + num(f.tp) + " must be divisible by dcp_size=" + num(dcp) +
                "." + cite(c, where));
  } else if (pcp > 1 && dcp != 1 && dcp != pcp && dcp != f.tp * pcp) {
    c.error(c.ptr("decode_context_parallel_size"),
            num(dcp) +
                ": when PCP is enabled, DCP must be disabled, span the PCP axis, or span "
                "the full TP x PCP axis (valid: 1, " +
                num(pcp) + ", " + num(f.tp * pcp) + ")." + cite(c, where));
  }
  if (text(c, "dcp_comm_backend", "ag_rs") == "a2a" && dcp <= 1) {
    c.error(c.ptr("dcp_comm_backend"),
            "\"a2a\": dcp_comm_backend='a2a' requires decode_context_parallel_size > 1." +
                cite(c, where));
  }
}

// ParallelConfig.__post_init__ and _verify_args: the executor backend against nnodes and
// ray_workers_use_nsight. An unset backend becomes "ray" over more than one rank only with
// data_parallel_backend "ray" (a Ray placement group is not modelled).
void check_executor(Context& c) {
  const auto& f = c.facts;
  const std::int64_t pcp = int_arg(c, "prefill_context_parallel_size").value_or(1);
  const std::int64_t world = static_cast<std::int64_t>(f.tp) * f.pp * pcp * f.dp;
  std::string backend = text(c, "distributed_executor_backend", "");
  if (backend.empty() && world > 1 && text(c, "data_parallel_backend", "mp") == "ray") {
    backend = "ray";
  }
  const std::int64_t nnodes = int_arg(c, "nnodes").value_or(1);
  if (nnodes > 1 && !backend.empty() && backend != "mp" && backend != "uni" &&
      backend != "external_launcher" && given(c, "distributed_executor_backend")) {
    c.error(c.ptr("distributed_executor_backend"),
            show(*given(c, "distributed_executor_backend")) +
                ": nnodes > 1 can only be set when distributed executor backend is mp, uni or "
                "external_launcher." +
                cite(c, "ParallelConfig.__post_init__"));
  }
  if (flag(c, "ray_workers_use_nsight") && backend != "ray") {
    c.error(c.ptr("ray_workers_use_nsight"),
            "true: Unable to use nsight profiling unless workers run with Ray "
            "(distributed_executor_backend \"ray\")." +
                cite(c, "ParallelConfig._verify_args"));
  }
}

// vllm/config/offload.py OffloadConfig.validate_offload_config: the prefetch backend.
void check_offload(Context& c) {
  const std::string backend = text(c, "offload_backend", "auto");
  const std::int64_t group = int_arg(c, "offload_group_size").value_or(0);
  const std::int64_t in_group = int_arg(c, "offload_num_in_group").value_or(1);
  const std::int64_t step = int_arg(c, "offload_prefetch_step").value_or(1);
  const std::string where = "OffloadConfig.validate_offload_config";
  if (backend != "prefetch" && group <= 0) return;
  if (in_group > group) {
    c.error(first_given(c, {"offload_num_in_group", "offload_group_size", "offload_backend"}),
            "offload_num_in_group (" + num(in_group) + ") must be <= offload_group_size (" +
                num(group) + ")" + cite(c, where));
  }
  if (step < 1) {
    c.error(c.ptr("offload_prefetch_step"),
            num(step) + ": offload_prefetch_step (" + num(step) +
                ") must be >= 1 when prefetch offloading is enabled (offload_group_size > 0)" +
                cite(c, where));
  }
}

// vllm/config/multimodal.py MultiModalConfig._validate_multimodal_config: built only for a
// multimodal model (or one the catalog does not know). The FP8 scale files' existence
// (FileNotFoundError) depends on the machine and is not checked.
void check_multimodal(Context& c) {
  if (c.facts.model.known && !c.facts.model.is_multimodal) return;
  const std::string where = "MultiModalConfig._validate_multimodal_config";
  if (const auto mb = int_arg(c, "mm_shm_cache_max_object_size_mb");
      mb && *mb != 128 && text(c, "mm_processor_cache_type", "lru") != "shm") {
    c.error(c.ptr("mm_shm_cache_max_object_size_mb"),
            num(*mb) +
                ": 'mm_shm_cache_max_object_size_mb' should only be set when "
                "'mm_processor_cache_type' is 'shm'." +
                cite(c, where));
  }
  // vllm/config/vllm.py:1190 VllmConfig.__post_init__ (VLLM_WORKER_MULTIPROC_METHOD, an
  // environment variable, is taken as unset: not modelled).
  if (text(c, "mm_tensor_ipc", "direct_rpc") == "torch_shm") {
    c.error(c.ptr("mm_tensor_ipc"),
            "\"torch_shm\": torch_shm is known to fail without VLLM_WORKER_MULTIPROC_METHOD set "
            "to spawn (environment variables are not modelled)" +
                cite(c, "VllmConfig.__post_init__"));
  }
  const bool load = given(c, "mm_encoder_fp8_scale_path") != nullptr;
  const bool save = given(c, "mm_encoder_fp8_scale_save_path") != nullptr;
  if ((load || save) && text(c, "mm_encoder_attn_dtype", "") != "fp8") {
    c.error(first_given(c, {"mm_encoder_fp8_scale_path", "mm_encoder_fp8_scale_save_path"}),
            "'mm_encoder_fp8_scale_path' and 'mm_encoder_fp8_scale_save_path' require "
            "'mm_encoder_attn_dtype' to be 'fp8'." +
                cite(c, where));
  } else if (load && save) {
    c.error(c.ptr("mm_encoder_fp8_scale_save_path"),
            "'mm_encoder_fp8_scale_save_path' cannot be used with 'mm_encoder_fp8_scale_path' "
            "(saving requires dynamic scaling)." +
                cite(c, where));
  }
}

// vllm/config/observability.py ObservabilityConfig._validate_tracing_config.
void check_observability(Context& c) {
  const json* traces = given(c, "collect_detailed_traces");
  const bool any = traces && ((traces->is_array() && !traces->empty()) ||
                              (traces->is_string() && !traces->get<std::string>().empty()));
  if (any && !given(c, "otlp_traces_endpoint")) {
    c.error(c.ptr("collect_detailed_traces"),
            show(*traces) + ": collect_detailed_traces requires otlp_traces_endpoint to be set." +
                cite(c, "ObservabilityConfig._validate_tracing_config"));
  }
}

}  // namespace

void check_unmodelled_args(Context& c) {
  check_numa(c);
  check_device_ids(c);
  const DpLaunch d = check_dp_launch(c);
  check_dp_config(c, d);
  check_eplb_and_cp(c, d);
  check_executor(c);
  check_offload(c);
  check_multimodal(c);
  check_observability(c);
}

}  // namespace blis::rules::detail
