#include "cluster/validate_scenario.h"

#include "cluster/router.h"

namespace blis::cluster {

scenario::DecodeResult validate_scenario(const std::string& json_text,
                                         const scenario::DecodeOptions& options) {
  scenario::DecodeResult r = scenario::decode_scenario(json_text, options);
  if (!r.scenario) return r;
  const Diagnostics router = Router::validate(r.scenario->router, r.scenario->pools);
  r.diagnostics.insert(r.diagnostics.end(), router.begin(), router.end());
  if (has_errors(router)) r.scenario.reset();
  return r;
}

}  // namespace blis::cluster
