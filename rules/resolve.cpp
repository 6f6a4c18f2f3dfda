// resolve_engine_args: read, fill defaults, check; in the order vLLM builds its config.

#include "rules/resolve_context.h"

namespace blis::rules {

Resolved resolve_engine_args(const Pack& pack, const nlohmann::json& args,
                             const std::string& args_pointer, const DeploymentFacts& facts) {
  Resolved out;
  detail::Context c{pack, facts, args_pointer, out.diagnostics, out.args, {}, nullptr};
  static const nlohmann::json kEmpty = nlohmann::json::object();
  detail::read_args(c, args.is_null() ? kEmpty : args);
  detail::apply_defaults(c);
  detail::check_scheduler(c);
  detail::check_features(c);
  detail::check_compilation(c);
  detail::check_kv_transfer(c);
  detail::check_parallel(c);
  detail::check_unmodelled_args(c);
  detail::check_combinations(c);
  detail::check_config_objects(c);
  out.auto_fit_max_model_len = c.set.max_model_len_auto && c.facts.model.known;
  // A kv_transfer_config without a connector configures nothing (is_kv_transfer_instance).
  if (out.args.kv_transfer_config && out.args.kv_transfer_config->kv_connector.empty()) {
    out.args.kv_transfer_config.reset();
  }
  return out;
}

}  // namespace blis::rules
