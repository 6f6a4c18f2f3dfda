// Schema of a coefficients entry (catalog/coefficients/*.json): measured efficiencies kept
// apart from datasheet facts, each with its provenance. "kind": "gpu" holds one GPU's
// efficiency curves (id = the GPU id, or "default"); "kind": "memory" holds the coefficients
// of vLLM's start-up memory profile. docs/catalog.md lists every field.
#include "catalog/schema/object_reader.h"
#include "catalog/schema/schema.h"

namespace blis::catalog::schema {

namespace {

constexpr double kBig = 1e12;

void read_ramp(ObjectReader& r, const std::string& key, GemmRamp* out, Diagnostics* d) {
  const nlohmann::json* v = r.object(key, true);
  if (v == nullptr) return;
  ObjectReader rr(*v, r.child(key), d);
  rr.number("eps_max", &out->eps_max, true, 0, 1, true);
  rr.number("m_half", &out->m_half, true, 0, kBig);
  rr.finish();
}

void parse_gpu_coefficients(ObjectReader& r, GpuCoefficients* c, Diagnostics* d) {
  r.text("id", &c->id, true);
  r.text("provenance", &c->provenance, true);
  if (const nlohmann::json* g = r.object("gemm", true)) {
    ObjectReader gr(*g, r.child("gemm"), d);
    read_ramp(gr, "bf16", &c->gemm_bf16, d);
    read_ramp(gr, "fp8", &c->gemm_fp8, d);
    gr.finish();
  }
  if (const nlohmann::json* m = r.object("memory", true)) {
    ObjectReader mr(*m, r.child("memory"), d);
    mr.number("hbm_derate", &c->hbm_derate, true, 0, 1, true);
    mr.number("kernel_floor_us", &c->kernel_floor_us, true, 0, kBig);
    mr.number("misc_bytes_per_hidden", &c->misc_bytes_per_hidden, true, 0, kBig);
    mr.finish();
  }
  if (const nlohmann::json* a = r.object("attention", true)) {
    ObjectReader ar(*a, r.child("attention"), d);
    ar.number("decode_derate", &c->attention_decode_derate, true, 0, 1, true);
    ar.number("prefill_eff_max", &c->attention_prefill_eff_max, true, 0, 1, true);
    ar.number("prefill_s_half", &c->attention_prefill_s_half, true, 0, kBig);
    ar.number("floor_us", &c->attention_floor_us, true, 0, kBig);
    ar.number("decode_per_seq_us", &c->attention_decode_per_seq_us, false, 0, kBig);
    ar.finish();
  }
  if (const nlohmann::json* m = r.object("moe", true)) {
    ObjectReader mr(*m, r.child("moe"), d);
    mr.number("routing_imbalance", &c->moe_routing_imbalance, true, 1, kBig);
    mr.number("expert_derate", &c->moe_expert_derate, false, 0, 1);
    mr.number("routing_us", &c->moe_routing_us, false, 0, kBig);
    mr.finish();
  }
  if (const nlohmann::json* k = r.object("collectives", true)) {
    ObjectReader kr(*k, r.child("collectives"), d);
    kr.number("allreduce_latency_us", &c->allreduce_latency_us, true, 0, kBig);
    kr.number("allreduce_bus_efficiency", &c->allreduce_bus_efficiency, true, 0, 1, true);
    kr.number("allreduce_latency_per_peer_us", &c->allreduce_latency_per_peer_us, false, 0, kBig);
    kr.finish();
  }
  if (const nlohmann::json* h = r.object("host", true)) {
    ObjectReader hr(*h, r.child("host"), d);
    hr.number("step_us", &c->host_step_us, true, 0, kBig);
    hr.number("per_request_us", &c->host_per_request_us, true, 0, kBig);
    hr.number("graph_replay_us", &c->graph_replay_us, true, 0, kBig);
    hr.number("piecewise_per_layer_us", &c->piecewise_per_layer_us, true, 0, kBig);
    hr.number("eager_per_kernel_us", &c->eager_per_kernel_us, true, 0, kBig);
    hr.number("eager_kernels_per_layer", &c->eager_kernels_per_layer, true, 0, kBig);
    hr.finish();
  }
  if (const nlohmann::json* v = r.object("sampler", false)) {
    ObjectReader sr(*v, r.child("sampler"), d);
    sr.number("step_us", &c->sampler_step_us, true, 0, kBig);
    sr.number("per_kvocab_us", &c->sampler_per_kvocab_us, true, 0, kBig);
    sr.number("per_row_kvocab_us", &c->sampler_per_row_kvocab_us, true, 0, kBig);
    sr.finish();
  }
  if (const nlohmann::json* v = r.object("serving", false)) {
    ObjectReader sr(*v, r.child("serving"), d);
    sr.number("request_us", &c->serving_request_us, true, 0, kBig);
    sr.number("tokenize_per_token_us", &c->serving_tokenize_per_token_us, true, 0, kBig);
    sr.number("output_step_us", &c->serving_output_step_us, true, 0, kBig);
    sr.number("output_per_request_us", &c->serving_output_per_request_us, true, 0, kBig);
    sr.finish();
  }
  r.string_map("sources", &c->sources);
}

void parse_memory_coefficients(ObjectReader& r, MemoryCoefficients* c, Diagnostics* d) {
  r.text("id", &c->id, true);
  r.text("provenance", &c->provenance, true);
  if (const nlohmann::json* a = r.object("activation", true)) {
    ObjectReader ar(*a, r.child("activation"), d);
    ar.number("hidden_streams", &c->activation_hidden_streams, true, 0, kBig);
    ar.number("mlp_factor", &c->activation_mlp_factor, true, 0, kBig);
    ar.number("sampler_bytes_per_logit", &c->sampler_bytes_per_logit, true, 0, kBig);
    ar.finish();
  }
  if (const nlohmann::json* n = r.object("non_torch", true)) {
    ObjectReader nr(*n, r.child("non_torch"), d);
    nr.integer("base_bytes", &c->non_torch_base_bytes, true, 0);
    nr.integer("nccl_bytes_tp2", &c->nccl_bytes_tp2, true, 0);
    nr.integer("nccl_bytes_tp4_plus", &c->nccl_bytes_tp4_plus, true, 0);
    nr.finish();
  }
  if (const nlohmann::json* g = r.object("cuda_graphs", true)) {
    ObjectReader gr(*g, r.child("cuda_graphs"), d);
    gr.integer("per_graph_per_layer_bytes", &c->cuda_graph_per_graph_per_layer_bytes, true, 0);
    gr.boolean("in_budget", &c->cuda_graph_in_budget, true);
    gr.integer32("max_capture_size", &c->max_cudagraph_capture_size, true, 1);
    gr.finish();
  }
  if (const nlohmann::json* l = r.object("legacy_profile", false)) {
    ObjectReader lr(*l, r.child("legacy_profile"), d);
    lr.text("releases", &c->legacy_releases, true);
    lr.number("sampler_bytes_per_logit", &c->legacy_sampler_bytes_per_logit, true, 0, kBig);
    lr.boolean("cuda_graphs_in_budget", &c->legacy_cuda_graph_in_budget, true);
    lr.finish();
  }
  r.string_map("sources", &c->sources);
}

}  // namespace

Diagnostics parse_coefficients(const nlohmann::json& j, const std::string& pointer,
                               CoefficientsEntry* out) {
  Diagnostics d;
  ObjectReader r(j, pointer, &d);
  if (!r.ok()) return d;
  std::string kind;
  if (!r.one_of("kind", &kind, true, {"gpu", "memory"})) {
    r.finish();
    return d;
  }
  out->is_memory = kind == "memory";
  if (out->is_memory) {
    parse_memory_coefficients(r, &out->memory, &d);
  } else {
    parse_gpu_coefficients(r, &out->gpu, &d);
  }
  r.finish();
  return d;
}

}  // namespace blis::catalog::schema
